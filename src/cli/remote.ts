import fs from 'node:fs/promises';
import net from 'node:net';
import readline from 'node:readline';
import {
  EXIT_REFUSED,
  OPERATOR_SECRET_FILE,
  handshakeNonce,
  handshakeProof,
  operatorSecret,
  operatorSocketAddress,
  proofMatches,
} from '../platform/operator-socket.ts';

/**
 * The CLI's side of the operator socket (platform/operator-socket.ts): when a running server holds
 * the embedded database, the command line goes to the server, which runs it in-process and streams
 * back its output and exit code. Standard input and the files named on the command line stay on this
 * side: the server asks for them.
 */

/** Commands that never run in the server, with the reason. */
const LOCAL_ONLY: { command: string[]; reason: string }[] = [
  {
    command: ['db', 'migrate'],
    reason:
      'parasol db migrate cannot run while the server holds the embedded database: the server applied the migrations of its own version when it started. To upgrade, stop the server, run parasol db migrate, then start it again.',
  },
];

/**
 * The files the server may ask this side to read or write: the words of the command line, and the
 * values of its `--option=value` words. Any other path is refused (EACCES): whatever listens on the
 * socket — on Linux a long data directory path puts it in the abstract namespace, which any local
 * user can bind — gets no file of the operator's but those it named, and writes nowhere else.
 */
function namedFiles(argv: readonly string[]): Set<string> {
  const named = new Set<string>();
  for (const word of argv) {
    named.add(word);
    const eq = word.indexOf('=');
    if (word.startsWith('--') && eq !== -1) named.add(word.slice(eq + 1));
  }
  return named;
}

/** The command's words (its group and name), options left out. */
function commandWords(argv: readonly string[]): string[] {
  return argv.filter((a) => !a.startsWith('-')).slice(0, 2);
}

/**
 * Sends the command to the server holding `dataDir`. Returns its exit code, or undefined when no
 * server listens (an older server, or one still starting): the caller then reports the lock.
 */
export async function runRemote(
  dataDir: string,
  argv: string[],
  actor: string,
  io: { out: (line: string) => void; err: (line: string) => void },
): Promise<number | undefined> {
  const words = commandWords(argv);
  const refused = LOCAL_ONLY.find((c) => c.command.every((w, i) => words[i] === w));
  if (refused) {
    io.err(`error: ${refused.reason}`);
    return 75; // EX_TEMPFAIL: the same as before, once the server stops it works
  }
  let secret: string;
  try {
    secret = operatorSecret(dataDir, false);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined; // a server of an earlier version: no operator socket
    io.err(
      `error: cannot read the operator secret of ${dataDir} (${code ?? (error as Error).message}): run the command as the user owning the data directory.`,
    );
    return EXIT_REFUSED;
  }

  const socket = net.connect({ path: operatorSocketAddress(dataDir) });
  const connected = await new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('error', () => resolve(false));
  });
  if (!connected) return undefined;

  const send = (frame: object) => socket.write(JSON.stringify(frame) + '\n');
  const named = namedFiles(argv);
  const lines = readline.createInterface({ input: socket, crlfDelay: Infinity });
  const iterator = lines[Symbol.asyncIterator]();
  // a connection reset (the server stopping, a handshake past the server's deadline) ends the
  // reading: said in one line below, never an uncaught error. Before the command was sent it cannot
  // have run (75, run it again); after, it may have (70, check its effect first)
  let lost: { code: string; error: unknown } | undefined;
  let sent = false;
  const onLost = (error: NodeJS.ErrnoException) => {
    lost ??= { code: error.code ?? error.message, error };
    lines.close();
  };
  socket.on('error', onLost);
  lines.on('error', onLost); // readline passes its input's error on
  const lostBeforeSent = (how: string) => {
    io.err(
      `error: the operator connection to the server was ${how} before the command was sent: nothing of the command was sent; run it again.`,
    );
    return 75; // EX_TEMPFAIL: safe to retry
  };
  try {
    // the server proves it knows the secret before anything of the command leaves this process
    const clientNonce = handshakeNonce();
    send({ hello: clientNonce });
    const first = await iterator.next();
    if (lost !== undefined) return lostBeforeSent(`lost (${lost.code})`);
    if (first.done) return lostBeforeSent('closed');
    const challenge = JSON.parse(first.value) as Record<string, unknown>;
    const serverNonce = typeof challenge.challenge === 'string' ? challenge.challenge : '';
    if (!serverNonce || !proofMatches(challenge.proof, handshakeProof(secret, 'server', clientNonce, serverNonce))) {
      io.err(
        `error: wrong operator secret: the process listening on the operator socket of ${dataDir} did not prove it knows ${OPERATOR_SECRET_FILE}, and nothing of the command was sent to it (a changed ${OPERATOR_SECRET_FILE}, a server of an earlier version — restart it —, or another process holding the socket).`,
      );
      return EXIT_REFUSED;
    }
    send({ proof: handshakeProof(secret, 'client', clientNonce, serverNonce), argv, actor });
    sent = true;
    for await (const line of { [Symbol.asyncIterator]: () => iterator }) {
      const frame = JSON.parse(line) as Record<string, unknown>;
      if (typeof frame.out === 'string') io.out(frame.out);
      else if (typeof frame.err === 'string') io.err(frame.err);
      else if (typeof frame.exit === 'number') return frame.exit;
      else if (frame.readStdin === true) send({ stdin: await readStdin() });
      else if (typeof frame.read === 'string') {
        if (!named.has(frame.read)) send({ fileError: 'EACCES' });
        else
          try {
            // a size limit is checked here, before a byte of the file is read or sent
            const size = typeof frame.maxBytes === 'number' ? (await fs.stat(frame.read)).size : undefined;
            if (size !== undefined && size > Number(frame.maxBytes)) send({ fileError: 'EFBIG', size });
            else send({ file: (await fs.readFile(frame.read)).toString('base64') });
          } catch (error) {
            send({ fileError: (error as NodeJS.ErrnoException).code ?? 'EIO' });
          }
      } else if (typeof frame.write === 'string') {
        if (!named.has(frame.write)) send({ writeError: 'EACCES' });
        else
          try {
            await fs.writeFile(frame.write, Buffer.from(String(frame.data ?? ''), 'base64'));
            send({ written: true });
          } catch (error) {
            send({ writeError: (error as NodeJS.ErrnoException).code ?? 'EIO' });
          }
      }
    }
  } catch (error) {
    // the reading ends with the socket's error (ECONNRESET…), said below; any other error (reading
    // standard input, printing) is not the connection's
    if (lost === undefined || error !== lost.error) throw error;
  } finally {
    socket.destroy();
  }
  if (!sent) return lostBeforeSent(lost ? `lost (${lost.code})` : 'closed');
  io.err(
    lost !== undefined
      ? `error: the operator connection to the server was lost before the command ended (${lost.code}); check the command's effect (it may have run) before running it again.`
      : "error: the server closed the operator connection before the command ended (it may be stopping); check the command's effect (it may have run) before running it again.",
  );
  return 70;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
