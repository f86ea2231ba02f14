import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readBoundedText } from '../../src/platform/bounded-body.ts';

/**
 * A body sent in chunks of `size` bytes, `count` of them, with no Content-Length (chunked) unless
 * `headers` declares one. Nothing is pulled before the reader asks (highWaterMark 0); `cancelled` tells
 * whether the reader gave the stream up.
 */
function streamed(
  count: number,
  size: number,
  headers?: Record<string, string>,
): { response: Response; pulled: () => number; cancelled: () => boolean } {
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled === count) return controller.close();
        pulled++;
        controller.enqueue(new Uint8Array(size).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { response: new Response(stream, { headers }), pulled: () => pulled, cancelled: () => cancelled };
}

describe('readBoundedText', () => {
  it('reads a body up to the bound, multi-byte characters split across chunks included', async () => {
    assert.equal(await readBoundedText(new Response('{"a":"é"}'), 100), '{"a":"é"}');
    const bytes = new TextEncoder().encode('"été"');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 2));
        controller.enqueue(bytes.slice(2));
        controller.close();
      },
    });
    assert.equal(await readBoundedText(new Response(stream), bytes.length), '"été"');
    assert.equal(await readBoundedText(new Response(null, { status: 204 }), 10), '');
  });

  it('a streamed body past the bound: undefined, the rest not read', async () => {
    const { response, pulled } = streamed(1_000, 1_024);
    assert.equal(await readBoundedText(response, 10 * 1_024), undefined);
    assert.ok(pulled() < 20, `read ${pulled()} chunks of 1,000`);
  });

  it('a declared Content-Length past the bound: undefined without reading, the stream given up', async () => {
    const { response, pulled, cancelled } = streamed(64, 1, { 'content-length': '64' });
    assert.equal(await readBoundedText(response, 63), undefined);
    assert.equal(pulled(), 0, 'no chunk pulled');
    assert.equal(cancelled(), true);
  });

  it('a declared Content-Length within the bound is read', async () => {
    const { response, pulled } = streamed(4, 16, { 'content-length': '64' });
    assert.equal(await readBoundedText(response, 64), ' '.repeat(64));
    assert.equal(pulled(), 4);
  });
});
