import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { postWebhook, type PostResult } from '../../src/webhooks/webhook-delivery.ts';

/**
 * One POST against a raw TCP receiver that writes exactly what a test gives it: answers no HTTP
 * server of Node's would send (an upgrade, a status before the request body is read).
 */

interface RawReceiver {
  url: string;
  /** Bytes the receiver read, once the connection has closed. */
  received: Promise<number>;
}

const servers: net.Server[] = [];
after(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

async function rawReceiver(answer: string): Promise<RawReceiver> {
  let done!: (n: number) => void;
  const received = new Promise<number>((resolve) => (done = resolve));
  const server = net.createServer((socket) => {
    let bytes = 0;
    socket.on('data', (data) => {
      if (bytes === 0) socket.write(answer);
      bytes += data.length;
    });
    socket.on('error', () => {});
    socket.on('close', () => done(bytes));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`, received };
}

/** The attempt's result, or 'never settled' when it is still pending well after its deadline. */
async function post(url: string, body = '{"a":1}'): Promise<PostResult | 'never settled'> {
  let guard: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    postWebhook(url, body, { 'content-type': 'application/json' }, { allowPrivate: true, timeoutMs: 500 }),
    new Promise<'never settled'>((resolve) => (guard = setTimeout(() => resolve('never settled'), 5_000))),
  ]);
  clearTimeout(guard);
  return result;
}

describe('postWebhook against a raw receiver', () => {
  it('101 Switching Protocols: refused, the attempt ends (it used to hang for ever, and its worker with it)', async () => {
    const upgrade = await rawReceiver(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
    );
    const result = await post(upgrade.url);
    assert.notEqual(result, 'never settled');
    assert.deepEqual(
      { ...(result as PostResult), durationMs: 0 },
      {
        statusCode: 101,
        error: 'HTTP 101 (upgrade refused)',
        durationMs: 0,
      },
    );
    // without an Upgrade header Node reads it as an answer with no body: a failure all the same
    const bare = await post((await rawReceiver('HTTP/1.1 101 Switching Protocols\r\n\r\n')).url);
    assert.notEqual(bare, 'never settled');
    assert.equal((bare as PostResult).statusCode, 101);
    assert.match((bare as PostResult).error ?? '', /^HTTP 101/);
  });

  it('a 2xx sent before the request body is read is a success only once the whole body is written', async () => {
    const body = 'x'.repeat(4_000_000);
    const receiver = await rawReceiver('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    const result = await post(receiver.url, body);
    assert.notEqual(result, 'never settled');
    assert.equal((result as PostResult).statusCode, 200);
    assert.equal((result as PostResult).error, null);
    const headLength = (await receiver.received) - body.length;
    assert.ok(
      headLength > 0,
      `the receiver got ${headLength + body.length} bytes, fewer than the body's ${body.length}`,
    );
  });

  it('a 3xx whose body does not end in time keeps its status and its redirect', async () => {
    const receiver = await rawReceiver(
      'HTTP/1.1 302 Found\r\nLocation: https://x.example/\r\nContent-Length: 100\r\n\r\nabc',
    );
    const result = await post(receiver.url);
    assert.notEqual(result, 'never settled');
    assert.equal((result as PostResult).statusCode, 302);
    assert.equal(
      (result as PostResult).error,
      'HTTP 302 (redirect to https://x.example/ not followed) (timeout after 500 ms): abc',
    );
  });
});
