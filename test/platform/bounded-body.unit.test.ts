import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readBoundedText } from '../../src/platform/bounded-body.ts';

/** A body sent in chunks of `size` bytes, `count` of them, with no Content-Length (chunked). */
function streamed(count: number, size: number): { response: Response; pulled: () => number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === count) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
  return { response: new Response(stream), pulled: () => pulled };
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

  it('a declared Content-Length past the bound: undefined without reading', async () => {
    const response = new Response('x'.repeat(64), { headers: { 'content-length': '64' } });
    assert.equal(await readBoundedText(response, 63), undefined);
  });
});
