import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { describe, it } from 'node:test';
import { runRemote } from '../../src/cli/remote.ts';
import {
  EXIT_REFUSED,
  HANDSHAKE_LIMITS,
  handshakeProof,
  operatorSecret,
  operatorSocketAddress,
  startOperatorSocket,
} from '../../src/platform/operator-socket.ts';

/**
 * The CLI's side of the operator socket (src/cli/remote.ts) reads and writes, for the server, the
 * files named on its command line — and only those: whatever listens on the socket (on Linux, a data
 * directory's long path puts it in the abstract namespace, which any local user can bind) gets no
 * other file of the operator's, and writes none.
 */

/**
 * A server on the data directory's socket that asks the client for `requests`, one after the other:
 * knowing the secret (`secret`), it proves it first; without, it answers the client's hello with them.
 */
async function fakeServer(dir: string, requests: object[], secret?: string) {
  const answers: Record<string, unknown>[] = [];
  const received: string[] = [];
  const server = net.createServer((socket) => {
    const lines = readline.createInterface({ input: socket, crlfDelay: Infinity });
    let pending = [...requests];
    let clientNonce: string | undefined;
    const serverNonce = 'n'.repeat(43);
    lines.on('line', (line) => {
      received.push(line);
      const frame = JSON.parse(line) as Record<string, unknown>;
      if (secret !== undefined && clientNonce === undefined && typeof frame.hello === 'string') {
        clientNonce = frame.hello;
        const proof = handshakeProof(secret, 'server', clientNonce, serverNonce);
        socket.write(JSON.stringify({ challenge: serverNonce, proof }) + '\n');
        return;
      }
      if (!('hello' in frame) && !('proof' in frame)) answers.push(frame);
      const next = pending.shift();
      socket.write(JSON.stringify(next ?? { exit: 0 }) + '\n');
      if (!next) pending = [];
    });
  });
  const address = operatorSocketAddress(dir);
  await new Promise<void>((resolve) => server.listen({ path: address }, resolve));
  return { answers, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the operator client answers only for the files of its command line', () => {
  it('reads and writes the files named, refuses any other path the server asks for', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-client-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const secret = operatorSecret(dir, true);
    const named = path.join(dir, 'report.csv');
    fs.writeFileSync(named, 'endToEndId,status\n');
    const out = path.join(dir, 'model.json.gz');
    const private_ = path.join(dir, 'id_ed25519');
    fs.writeFileSync(private_, 'PRIVATE KEY');
    const planted = path.join(dir, 'planted');

    const server = await fakeServer(
      dir,
      [
        { read: named },
        { read: private_ },
        { write: out, data: Buffer.from('model').toString('base64') },
        { write: planted, data: Buffer.from('evil').toString('base64') },
        { read: path.join(dir, 'operator.secret') },
      ],
      secret,
    );
    t.after(server.close);
    const err: string[] = [];
    const code = await runRemote(dir, ['payouts', 'reconcile', named, `--out=${out}`], 'operator:test', {
      out: () => undefined,
      err: (line) => err.push(line),
    });
    assert.equal(code, 0, err.join('\n'));
    const [readNamed, readOther, writeNamed, writeOther, readSecret] = server.answers;
    assert.equal(Buffer.from(String(readNamed?.file), 'base64').toString(), 'endToEndId,status\n');
    assert.equal(readOther?.file, undefined, 'a file the command line did not name is not sent');
    assert.equal(readOther?.fileError, 'EACCES');
    assert.equal(writeNamed?.written, true);
    assert.equal(fs.readFileSync(out, 'utf8'), 'model');
    assert.equal(writeOther?.written, undefined);
    assert.equal(writeOther?.writeError, 'EACCES');
    assert.equal(fs.existsSync(planted), false, 'nothing written where the command line did not say');
    assert.equal(readSecret?.file, undefined);
  });

  it('refuses a file larger than the size the server asks for without reading it: EFBIG and the size', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-client-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const secret = operatorSecret(dir, true);
    const named = path.join(dir, 'report.xml');
    fs.writeFileSync(named, '<Document/>');
    const server = await fakeServer(
      dir,
      [
        { read: named, maxBytes: 10 },
        { read: named, maxBytes: 11 },
      ],
      secret,
    );
    t.after(server.close);
    const err: string[] = [];
    const code = await runRemote(dir, ['payouts', 'reconcile', named], 'operator:test', {
      out: () => undefined,
      err: (line) => err.push(line),
    });
    assert.equal(code, 0, err.join('\n'));
    const [tooLarge, fits] = server.answers;
    assert.deepEqual(tooLarge, { fileError: 'EFBIG', size: 11 });
    assert.equal(Buffer.from(String(fits?.file), 'base64').toString(), '<Document/>');
  });

  it('sends nothing, not even the secret, to a server that cannot prove it knows the secret', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-client-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const secret = operatorSecret(dir, true);
    // an impostor bound the socket's address (on Linux, an abstract name any local user can take)
    const server = await fakeServer(dir, []);
    t.after(server.close);
    const err: string[] = [];
    const code = await runRemote(dir, ['users', 'create', 'acme-air', '--password-stdin'], 'operator:test', {
      out: () => undefined,
      err: (line) => err.push(line),
    });
    assert.equal(code, EXIT_REFUSED);
    assert.match(err.join('\n'), /wrong operator secret: .* did not prove it knows operator\.secret/);
    assert.ok(server.received.length > 0, 'the client did connect');
    assert.doesNotMatch(server.received.join('\n'), new RegExp(secret.slice(0, 20).replace(/[-]/g, '\\-')));
    assert.doesNotMatch(server.received.join('\n'), /argv|users/, 'nor the command');
  });

  it(
    'the server runs the command of a client that proved itself, and closes on one that sends too much first',
    { timeout: 60_000 },
    async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-server-'));
      t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
      const ran: string[][] = [];
      const close = await startOperatorSocket(dir, async (request, io) => {
        ran.push(request.argv);
        io.out(`ran ${request.argv.join(' ')} as ${request.actor}`);
        return 0;
      });
      t.after(close);
      const out: string[] = [];
      const code = await runRemote(dir, ['partners', 'list'], 'operator:test', {
        out: (line) => out.push(line),
        err: (line) => out.push(line),
      });
      assert.equal(code, 0, out.join('\n'));
      assert.deepEqual(out, ['ran partners list as operator:test']);

      // a connection that has not proved anything may not make the server buffer without end
      const conn = net.connect({ path: operatorSocketAddress(dir) });
      conn.on('error', () => undefined);
      t.after(() => conn.destroy());
      const closed = new Promise<void>((resolve) => conn.on('close', () => resolve()));
      conn.write('x'.repeat(HANDSHAKE_LIMITS.maxBytes + 1024));
      await closed;
      assert.deepEqual(ran, [['partners', 'list']], 'nothing else ran');
    },
  );

  it('a connection reset during the handshake (a server stopping, a handshake past its deadline) is an error line and exit 75: nothing of the command was sent', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-client-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    operatorSecret(dir, true);
    // the server reads nothing and closes: the client's hello, unread, makes the close a reset (ECONNRESET)
    const server = net.createServer({ pauseOnConnect: true }, (socket) => {
      socket.on('error', () => undefined);
      setTimeout(() => socket.destroy(), 100);
    });
    await new Promise<void>((resolve) => server.listen({ path: operatorSocketAddress(dir) }, resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const err: string[] = [];
    const code = await runRemote(dir, ['sales', 'list'], 'operator:test', {
      out: (line) => err.push(line),
      err: (line) => err.push(line),
    });
    assert.equal(code, 75, err.join('\n'));
    assert.deepEqual(err, [
      'error: the operator connection to the server was lost (ECONNRESET) before the command was sent: nothing of the command was sent; run it again.',
    ]);
  });

  it('a connection reset after the command was sent is an error line and exit 70 (it may have run), the output received kept', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-client-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const secret = operatorSecret(dir, true);
    // a file larger than what the server's socket reads at once: asked for and left unread, it makes the close a reset
    const report = path.join(dir, 'report.csv');
    fs.writeFileSync(report, 'x'.repeat(100_000));
    const server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      const lines = readline.createInterface({ input: socket, crlfDelay: Infinity });
      const serverNonce = 'n'.repeat(43);
      lines.on('line', (line) => {
        const frame = JSON.parse(line) as Record<string, unknown>;
        if (typeof frame.hello === 'string') {
          const proof = handshakeProof(secret, 'server', frame.hello, serverNonce);
          socket.write(JSON.stringify({ challenge: serverNonce, proof }) + '\n');
          return;
        }
        // the command read: two lines of output, then the file asked for, read no further, and the connection closed
        assert.deepEqual(frame.argv, ['payouts', 'reconcile', report]);
        lines.close();
        socket.once('readable', () => socket.destroy());
        socket.write(
          [{ out: 'Reading the report…' }, { out: '1 payout paid.' }, { read: report }]
            .map((f) => JSON.stringify(f) + '\n')
            .join(''),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen({ path: operatorSocketAddress(dir) }, resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const out: string[] = [];
    const err: string[] = [];
    const code = await runRemote(dir, ['payouts', 'reconcile', report], 'operator:test', {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    assert.equal(code, 70, err.join('\n'));
    assert.deepEqual(out, ['Reading the report…', '1 payout paid.']);
    assert.deepEqual(err, [
      "error: the operator connection to the server was lost before the command ended (ECONNRESET); check the command's effect (it may have run) before running it again.",
    ]);
  });

  it('an error of its own (printing the output fails) is not a lost connection: it is thrown, not said as one', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-client-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const secret = operatorSecret(dir, true);
    const server = await fakeServer(dir, [{ out: 'a line' }], secret);
    t.after(server.close);
    const err: string[] = [];
    const closedStdout = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    await assert.rejects(
      runRemote(dir, ['partners', 'list'], 'operator:test', {
        out: () => {
          throw closedStdout;
        },
        err: (line) => err.push(line),
      }),
      (error) => error === closedStdout,
    );
    assert.deepEqual(err, []);
  });

  it(
    'closes a client that trickles bytes without proving itself: a deadline, not an idle timeout',
    { timeout: 20_000 },
    async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-server-'));
      t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
      const close = await startOperatorSocket(dir, async () => 0, undefined, { timeoutMs: 300, maxBytes: 1024 });
      t.after(close);
      const conn = net.connect({ path: operatorSocketAddress(dir) });
      conn.on('error', () => undefined);
      t.after(() => conn.destroy());
      let sent = 0;
      const closed = new Promise<void>((resolve) => conn.on('close', () => resolve()));
      // one byte every 50 ms: an idle timeout of 300 ms would never fire (the test would time out)
      const trickle = setInterval(() => {
        if (!conn.destroyed && sent < 1000) {
          conn.write('x');
          sent += 1;
        }
      }, 50);
      t.after(() => clearInterval(trickle));
      await closed;
      clearInterval(trickle);
      assert.ok(sent < 1000, 'closed while the client was still sending, under the byte limit');
    },
  );

  it(
    'refuses a connection beyond maxPending still proving themselves; one that proved itself counts no more',
    { timeout: 30_000 },
    async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-server-'));
      t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
      const close = await startOperatorSocket(
        dir,
        async (_request, io) => {
          io.out('ran');
          return 0;
        },
        undefined,
        { timeoutMs: 60_000, maxBytes: 1024, maxPending: 2 },
      );
      t.after(close);
      const open = async () => {
        const conn = net.connect({ path: operatorSocketAddress(dir) });
        conn.on('error', () => undefined);
        t.after(() => conn.destroy());
        const closed = new Promise<void>((resolve) => conn.on('close', () => resolve()));
        await new Promise<void>((resolve) => conn.once('connect', () => resolve()));
        return { conn, closed };
      };
      // two silent connections hold both places (for the 60 s of their handshake)…
      const first = await open();
      const second = await open();
      // …so a third is closed at once, well before any deadline (the test would time out)
      const third = await open();
      await third.closed;
      assert.ok(!first.conn.destroyed && !second.conn.destroyed, 'the first two stay open');
      // one of them gone, a client that proves itself gets in and runs its command
      first.conn.destroy();
      await first.closed;
      let code: number | undefined = -1;
      const out: string[] = [];
      for (let attempt = 0; attempt < 50 && code !== 0; attempt += 1) {
        out.length = 0;
        code = await runRemote(dir, ['partners', 'list'], 'operator:test', {
          out: (line) => out.push(line),
          err: (line) => out.push(line),
        });
        if (code !== 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(code, 0, out.join('\n'));
      assert.deepEqual(out, ['ran']);
      // and once proved (its command run), it holds no place: another runs too, the second still silent
      const again = await runRemote(dir, ['partners', 'list'], 'operator:test', {
        out: () => undefined,
        err: () => undefined,
      });
      assert.equal(again, 0);
      assert.ok(!second.conn.destroyed);
    },
  );
});
