import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { DEFAULT_OPERATOR_HANDSHAKE_SECONDS } from './config.ts';

/**
 * The operator socket of the embedded database. PGlite is one process per data directory, so while
 * the server runs, the CLI cannot open the database: it sends its command to the server instead, over
 * a Unix socket in the data directory, and the server runs the same command in-process against its
 * own database (src/cli/remote.ts is the client). Authentication: the socket file is 0600 in the
 * 0700 data directory, and each side proves it knows the secret of `operator.secret` (0600, created
 * by the server) without sending it, the server first: only the data directory's owner (or root) can
 * send commands, and a client never sends the secret, its command or its input to a process that
 * merely listens at the address (on Linux a long data directory path puts the socket in the abstract
 * namespace, which has no file permissions: any local user could bind it while the server is down).
 *
 * Protocol: one JSON object a line, both ways.
 *   handshake: client → {hello: nonce}; server → {challenge: nonce, proof}; client → {proof, argv, actor}
 *              (each proof: HMAC-SHA256 of both nonces under the secret, `handshakeProof`)
 *   client → server, then: {stdin} | {file} (base64) | {fileError[, size]} | {written} | {writeError}
 *   server → client: {out} | {err} (one output line each), requests: {readStdin} | {read: path[, maxBytes]} | {write: path, data},
 *                    and last {exit: code}
 * Files named on the command line are read and written by the client, relative to its directory; a
 * read with `maxBytes` is refused by the client before it reads a byte when the file is larger
 * ({fileError: 'EFBIG', size}).
 */

export const OPERATOR_SECRET_FILE = 'operator.secret';
const SOCKET_FILE = 'operator.sock';
/** sockaddr_un holds 108 bytes with the final NUL; a longer path uses the abstract namespace (Linux). */
const MAX_SOCKET_PATH = 100;
/** EX_NOPERM: the secret was wrong. */
export const EXIT_REFUSED = 77;
/**
 * Before a client has proved it knows the secret, what it may cost the server: the handshake's two
 * frames within this time and this many bytes, else the connection is closed (an abstract socket
 * has no file permissions: anyone on the machine can connect to it). The time is the configuration's
 * (PARASOL_OPERATOR_HANDSHAKE_SECONDS, default 30 s: a CLI on a saturated machine takes seconds to
 * start and answer); this is the default of a caller that passes none. With that long a window, at
 * most `maxPending` connections may be proving themselves at once: one more is closed at once (its
 * client says the connection was lost before the command was sent — exit 75, run it again), so
 * connections that never prove anything cannot pile up.
 */
export const HANDSHAKE_LIMITS = {
  timeoutMs: DEFAULT_OPERATOR_HANDSHAKE_SECONDS * 1000,
  maxBytes: 64 * 1024,
  maxPending: 8,
} as const;

/**
 * An operator's actor as the audit log records it: what the server accepts from a client (any other
 * is recorded as `operator:cli`), and what the CLI sends (kit.ts operatorActor applies it locally too).
 */
export const OPERATOR_ACTOR = /^operator:[\w.@-]{1,64}$/;

/** What a client gets before it has proved itself. */
export interface HandshakeLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Connections not yet proved at once (HANDSHAKE_LIMITS.maxPending when not given). */
  maxPending?: number | undefined;
}

export interface OperatorRequest {
  argv: string[];
  actor: string;
}

/** What a command run for a client can use: its output lines, its standard input and its files. */
export interface RemoteIo {
  out: (line: string) => void;
  err: (line: string) => void;
  readStdin: () => Promise<string>;
  /** `maxBytes`: the client refuses a larger file before reading it (an error whose code is EFBIG, with its `size`). */
  readFile: (file: string, maxBytes?: number) => Promise<Buffer>;
  writeFile: (file: string, data: Buffer) => Promise<void>;
}

/** A nonce of the handshake: 256 random bits, base64url. */
const NONCE = /^[A-Za-z0-9_-]{43}$/;
export const handshakeNonce = () => crypto.randomBytes(32).toString('base64url');

/** What `side` sends to prove it knows `secret`, bound to both nonces of this connection. */
export function handshakeProof(
  secret: string,
  side: 'server' | 'client',
  clientNonce: string,
  serverNonce: string,
): string {
  return crypto
    .createHmac('sha256', secret)
    .update(`parasol-operator ${side} ${clientNonce} ${serverNonce}`)
    .digest('base64url');
}

/** Constant-time comparison of a proof received with the one expected. */
export function proofMatches(received: unknown, expected: string): boolean {
  if (typeof received !== 'string' || received.length !== expected.length) return false;
  return crypto.timingSafeEqual(Buffer.from(received), Buffer.from(expected));
}

/** The socket's address for a data directory. */
export function operatorSocketAddress(dataDir: string): string {
  const real = fs.realpathSync(dataDir);
  const file = path.join(real, SOCKET_FILE);
  if (Buffer.byteLength(file) <= MAX_SOCKET_PATH || process.platform !== 'linux') return file;
  return `\0parasol-operator-${crypto.createHash('sha256').update(real).digest('hex').slice(0, 40)}`;
}

/** The data directory's operator secret, created (0600) when missing. */
export function operatorSecret(dataDir: string, create: boolean): string {
  const file = path.join(dataDir, OPERATOR_SECRET_FILE);
  if (create) {
    try {
      fs.writeFileSync(file, crypto.randomBytes(32).toString('base64url') + '\n', { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * Listens on the data directory's operator socket (the caller holds the data directory's lock, so a
 * socket file there is a dead process's and is replaced). `run` runs one command and returns its
 * exit code. Returns the close function (stops accepting; commands in progress finish).
 */
export async function startOperatorSocket(
  dataDir: string,
  run: (request: OperatorRequest, io: RemoteIo) => Promise<number>,
  onError: (error: Error) => void = () => undefined,
  /** What a client gets before it has proved itself (tests shorten the time). */
  limits: HandshakeLimits = HANDSHAKE_LIMITS,
): Promise<() => Promise<void>> {
  const secret = operatorSecret(dataDir, true);
  const address = operatorSocketAddress(dataDir);
  const maxPending = limits.maxPending ?? HANDSHAKE_LIMITS.maxPending;
  let pending = 0;
  const server = net.createServer((socket) => {
    if (pending >= maxPending) {
      socket.on('error', () => undefined);
      socket.destroy(); // too many connections still proving themselves: this one is refused
      return;
    }
    pending += 1;
    let counted = true;
    const proved = () => {
      if (counted) pending -= 1;
      counted = false;
    };
    socket.on('close', proved);
    void serve(socket, secret, run, limits, proved).catch(onError);
  });
  if (!address.startsWith('\0')) fs.rmSync(address, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path: address, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (!address.startsWith('\0')) fs.chmodSync(address, 0o600);
  server.on('error', onError);
  server.unref();
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      if (!address.startsWith('\0')) fs.rmSync(address, { force: true });
    });
}

async function serve(
  socket: net.Socket,
  secret: string,
  run: (request: OperatorRequest, io: RemoteIo) => Promise<number>,
  limits: HandshakeLimits,
  /** Called once the client has proved itself (it no longer counts against `maxPending`). */
  onProved: () => void = () => undefined,
): Promise<void> {
  socket.on('error', () => undefined); // the client may go away first
  const send = (frame: object) => {
    if (!socket.destroyed) socket.write(JSON.stringify(frame) + '\n');
  };
  // until the client has proved itself, it gets little time and few bytes
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.maxBytes) socket.destroy();
  };
  socket.on('data', count);
  // a deadline from the connection's start, not an idle timeout a byte every few seconds would reset
  const deadline = setTimeout(() => socket.destroy(), limits.timeoutMs);
  deadline.unref();
  socket.on('close', () => clearTimeout(deadline));
  const authenticated = () => {
    socket.off('data', count);
    clearTimeout(deadline);
    onProved();
  };
  const lines = readline.createInterface({ input: socket, crlfDelay: Infinity });
  const iterator = lines[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const { value, done } = await iterator.next();
    if (done) throw new Error('the operator client went away');
    return JSON.parse(value) as Record<string, unknown>;
  };
  try {
    const hello = await next();
    const clientNonce = typeof hello.hello === 'string' && NONCE.test(hello.hello) ? hello.hello : undefined;
    let first: Record<string, unknown> = {};
    if (clientNonce !== undefined) {
      const serverNonce = handshakeNonce();
      send({ challenge: serverNonce, proof: handshakeProof(secret, 'server', clientNonce, serverNonce) });
      first = await next();
      if (!proofMatches(first.proof, handshakeProof(secret, 'client', clientNonce, serverNonce))) first = {};
    }
    const argv = first.argv;
    if (clientNonce === undefined || !Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) {
      send({
        err: `error: the server refused the command: wrong operator secret (${OPERATOR_SECRET_FILE} in the data directory).`,
      });
      send({ exit: EXIT_REFUSED });
      return;
    }
    authenticated();
    // requests to the client are answered in order: a command waits for each
    let chain = Promise.resolve();
    const ask = <T>(frame: object, answer: (reply: Record<string, unknown>) => T): Promise<T> => {
      const result = chain.then(async () => {
        send(frame);
        return answer(await next());
      });
      chain = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
    };
    const io: RemoteIo = {
      out: (line) => send({ out: line }),
      err: (line) => send({ err: line }),
      readStdin: () => ask({ readStdin: true }, (reply) => String(reply.stdin ?? '')),
      readFile: (file, maxBytes) =>
        ask({ read: file, ...(maxBytes === undefined ? {} : { maxBytes }) }, (reply) => {
          if (typeof reply.file === 'string') return Buffer.from(reply.file, 'base64');
          throw Object.assign(new Error(`${String(reply.fileError ?? 'cannot read')}: ${file}`), {
            code: reply.fileError,
            ...(typeof reply.size === 'number' ? { size: reply.size } : {}),
          });
        }),
      writeFile: (file, data) =>
        ask({ write: file, data: data.toString('base64') }, (reply) => {
          if (reply.written !== true)
            throw Object.assign(new Error(`${String(reply.writeError ?? 'cannot write')}: ${file}`), {
              code: reply.writeError,
            });
        }),
    };
    const actor = typeof first.actor === 'string' && OPERATOR_ACTOR.test(first.actor) ? first.actor : 'operator:cli';
    const code = await run({ argv: argv as string[], actor }, io);
    send({ exit: code });
  } finally {
    lines.close();
    socket.end();
  }
}
