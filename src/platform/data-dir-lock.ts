import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export class DatabaseLockedError extends Error {
  constructor(dataDir: string, pid: number | undefined) {
    super(
      `The embedded database in ${dataDir} is already open in another process${pid ? ` (pid ${pid})` : ''}. ` +
        'Stop that process, or point PARASOL_DATA_DIR at another directory, or use DATABASE_URL for PostgreSQL.',
    );
    this.name = 'DatabaseLockedError';
  }
}

/** The pid file earlier versions used as a lock: no longer a lock, removed once we hold the real one. */
const LEGACY_LOCK_FILE = 'parasol.lock';
/** Where a non-Linux system keeps the lock's socket (Linux needs no file). */
const SOCKET_FILE = 'parasol.sock';
/** How long a second process waits for the holder to tell its pid (only for the message). */
const PID_ANSWER_MS = 2_000;

/**
 * PGlite has no lock of its own: two processes opening the same directory corrupt it. The lock is a
 * listening Unix socket owned by the process, so the kernel releases it when the process ends, however
 * it ends (crash, SIGKILL, container restart): no stale lock can block a restart, and two live
 * processes still exclude each other, since only one can listen on an address.
 *
 * On Linux the socket is in the abstract namespace, named from the data directory's real path: no
 * file at all, and binding is atomic. (Abstract sockets belong to a network namespace: two containers
 * with separate networks sharing one volume would not see each other's lock. PGlite is one process
 * per data directory anyway; do not share its volume.) Elsewhere (macOS for development) the socket
 * is a file in the data directory; a file nobody listens on is a dead process's and is replaced.
 *
 * A process that finds the lock held asks the holder its pid, for the message. Returns the release.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  fs.mkdirSync(dir, { recursive: true });
  const real = fs.realpathSync(dir);
  const address = lockAddress(real);
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined); // the asking process may go away first
    socket.end(`${process.pid}\n`);
  });
  for (let attempt = 0; ; attempt++) {
    try {
      await listen(server, address);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      const holder = await askHolder(address);
      if (holder.alive || attempt >= 2 || process.platform === 'linux') throw new DatabaseLockedError(real, holder.pid);
      fs.rmSync(address, { force: true }); // a socket file nobody listens on: its process is gone
    }
  }
  server.unref(); // the lock alone does not keep the process running
  fs.rmSync(path.join(real, LEGACY_LOCK_FILE), { force: true });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
    });
}

/** The lock's socket address for a data directory (given as its real path). */
export function lockAddress(realDir: string): string {
  if (process.platform === 'linux') {
    const digest = crypto.createHash('sha256').update(realDir).digest('hex').slice(0, 40);
    return `\0parasol-data-dir-${digest}`;
  }
  return path.join(realDir, SOCKET_FILE);
}

function listen(server: net.Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen({ path: address, exclusive: true }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Connects to the lock's socket: alive when someone listens; the pid it answers, if it does in time. */
function askHolder(address: string): Promise<{ alive: boolean; pid?: number }> {
  return new Promise((resolve) => {
    let answer = '';
    let connected = false;
    const socket = net.connect({ path: address });
    const done = () => {
      socket.destroy();
      const pid = Number(answer.trim());
      resolve(connected ? { alive: true, ...(Number.isInteger(pid) && pid > 0 ? { pid } : {}) } : { alive: false });
    };
    const timer = setTimeout(done, PID_ANSWER_MS);
    timer.unref();
    socket.setEncoding('utf8');
    socket.on('connect', () => (connected = true));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => {
      clearTimeout(timer);
      done();
    });
    socket.on('error', () => {
      clearTimeout(timer);
      done();
    });
  });
}
