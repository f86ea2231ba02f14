/**
 * Reads an HTTP answer's body as text, at most `maxBytes` of it: a provider (or a proxy in front of it)
 * streaming a body without end fast enough to beat the request's timeout would otherwise fill the
 * process's memory. Answers `undefined` when the body is longer (the rest is not read: the stream is
 * cancelled). The caller's timeout signal, given to `fetch`, still bounds the time it takes.
 */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
