import fs from 'node:fs';
import net from 'node:net';
import pg from 'pg';

/**
 * Helpers of the /subscribe on PostgreSQL section of `npm run bench`:
 * - a counting TCP proxy between Parasol and PostgreSQL (the frontend protocol's messages: every
 *   simple `Query` or extended-protocol `Execute` is a statement; every `Query` or `Sync` is a round trip);
 * - the insert baseline: one-row insert transactions through a pool of the same size;
 * - CPU time of a process and of PostgreSQL's backends (Linux /proc), to say where the time goes.
 */

export interface WireCounts {
  statements: number;
  roundTrips: number;
}

export interface CountingProxy {
  url: string;
  counts: () => WireCounts;
  close: () => Promise<void>;
}

/** A proxy on 127.0.0.1 forwarding to `target`'s host and port, counting what clients send. */
export async function countingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const totals: WireCounts = { statements: 0, roundTrips: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const db = net.connect(Number(upstream.port || 5432), upstream.hostname);
    sockets.add(client).add(db);
    let buffer: Buffer = Buffer.alloc(0);
    let started = false; // the startup message has no type byte
    client.on('data', (chunk: Buffer) => {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      for (;;) {
        if (!started) {
          if (buffer.length < 4) break;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) break;
          buffer = buffer.subarray(length);
          started = true;
          continue;
        }
        if (buffer.length < 5) break;
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) break;
        const type = String.fromCharCode(buffer[0]!);
        if (type === 'Q') {
          totals.statements++;
          totals.roundTrips++;
        } else if (type === 'E') totals.statements++;
        else if (type === 'S') totals.roundTrips++;
        buffer = buffer.subarray(1 + length);
      }
      db.write(chunk);
    });
    db.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      db.destroy();
      sockets.delete(client);
      sockets.delete(db);
    };
    client.on('close', end).on('error', end);
    db.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    counts: () => ({ ...totals }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface InsertBaseline {
  txPerSec: number;
  transactions: number;
  seconds: number;
  /** CPU milliseconds per transaction of PostgreSQL's backends (0 when not visible) and of this process's pool. */
  databaseCpuMs: number;
  clientCpuMs: number;
}

/**
 * One-row insert transactions (BEGIN; INSERT … RETURNING id; COMMIT, the insert a prepared statement
 * as Parasol's are) by `clients` concurrent clients through a pool of `poolSize` connections, for
 * `seconds`; the table is dropped afterwards.
 */
export async function insertBaseline(
  url: string,
  clients: number,
  poolSize: number,
  seconds: number,
  admin?: pg.Client,
): Promise<InsertBaseline> {
  const database = new URL(url).pathname.slice(1);
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => undefined);
  try {
    await pool.query(
      'CREATE TABLE bench_insert (id bigserial PRIMARY KEY, reference text NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
    );
    const run = async (until: number): Promise<number> => {
      let n = 0;
      for (let c = 0; Date.now() < until; c++) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          // prepared, as Parasol's pool prepares its statements (platform/db.ts): the same footing
          await client.query({
            name: 'bench_insert',
            text: 'INSERT INTO bench_insert (reference, payload) VALUES ($1, $2) RETURNING id',
            values: [`r${c}`, JSON.stringify({ c })],
          });
          await client.query('COMMIT');
          n++;
        } finally {
          client.release();
        }
      }
      return n;
    };
    await Promise.all(Array.from({ length: clients }, () => run(Date.now() + 1_000))); // warm-up
    // the pool's connections are open (warm-up): their backends' CPU is counted from here
    const databaseBefore = admin ? await backendsCpuSeconds(admin, database) : 0;
    const clientBefore = process.cpuUsage();
    const started = performance.now();
    const counts = await Promise.all(Array.from({ length: clients }, () => run(Date.now() + seconds * 1_000)));
    const elapsed = (performance.now() - started) / 1_000;
    const client = process.cpuUsage(clientBefore);
    const databaseSeconds = admin ? (await backendsCpuSeconds(admin, database)) - databaseBefore : 0;
    const transactions = counts.reduce((a, b) => a + b, 0);
    const perTx = (cpuSeconds: number) => (transactions > 0 ? (cpuSeconds * 1_000) / transactions : 0);
    return {
      txPerSec: transactions / elapsed,
      transactions,
      seconds: elapsed,
      databaseCpuMs: perTx(databaseSeconds),
      clientCpuMs: perTx((client.user + client.system) / 1e6),
    };
  } finally {
    await pool.query('DROP TABLE IF EXISTS bench_insert').catch(() => undefined);
    await pool.end();
  }
}

const TICKS = 100; // USER_HZ on Linux

/** User + system CPU seconds of a process (0 where /proc is not readable). */
export function processCpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/** CPU seconds of PostgreSQL's backends connected to `database` (a local server; 0 where not visible). */
export async function backendsCpuSeconds(admin: pg.Client, database: string): Promise<number> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
    database,
  ]);
  return rows.reduce((sum, r) => sum + processCpuSeconds(r.pid), 0);
}
