import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Kysely,
  PostgresDialect,
  sql,
  type Compilable,
  type OperationNodeSource,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type RawBuilder,
  type Transaction,
} from 'kysely';
import { lockDataDir } from './data-dir-lock.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import type { Database } from './db-schema.ts';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Repository functions take either the database or an open transaction. */
export type Executor = Db | Trx;

/** A write built and not sent yet: a Kysely insert, update or delete query builder. */
export type PendingWrite = Compilable & OperationNodeSource;

/**
 * A pending write whose sender must learn how many rows it returned: `returned` is called with that
 * count once the statement carrying it has run — e.g. the idempotency layer's stored response, which
 * returns no row when another request stored the key first. The write must have a RETURNING clause
 * (its rows are counted from the common table expression it becomes).
 */
export interface CountedWrite {
  write: PendingWrite;
  returned: (rows: number) => void;
}

/** Writes sent along another statement (undefined entries are skipped). */
export type AlongWrites = readonly (PendingWrite | CountedWrite | undefined)[];

/**
 * Writes to send along another statement, as its leading data-modifying common table expressions
 * (`WITH along0 AS (INSERT …), along1 AS (…), <the statement's own CTEs> SELECT …`): `ctes` to put first
 * in its WITH, `counts` to add to its SELECT list (one `alongN_rows` column per counted write), `report`
 * to call with the result's first row. All run on the statement's snapshot: none may read what another
 * (or the statement) writes. PostgreSQL runs every data-modifying CTE to completion, read or not.
 */
export function alongWrites(writes: AlongWrites): {
  ctes: RawBuilder<unknown>[];
  counts: RawBuilder<unknown>[];
  /** `alongN AS (…), ` for each write: to put right after the statement's WITH (empty without writes). */
  withPrefix: RawBuilder<unknown>;
  /** `(SELECT count(*) …) AS alongN_rows, ` for each counted write: to put first in the SELECT list. */
  selectPrefix: RawBuilder<unknown>;
  report: (row: Record<string, unknown> | undefined) => void;
} {
  const present = writes.filter((w): w is PendingWrite | CountedWrite => w !== undefined);
  const ctes: RawBuilder<unknown>[] = [];
  const counts: RawBuilder<unknown>[] = [];
  const reporters: ((row: Record<string, unknown> | undefined) => void)[] = [];
  present.forEach((w, i) => {
    const name = `along${i}`;
    const write = 'returned' in w ? w.write : w;
    ctes.push(sql`${sql.raw(name)} AS (${write})`);
    if ('returned' in w) {
      const column = `${name}_rows`;
      counts.push(sql`(SELECT count(*) FROM ${sql.raw(name)}) AS ${sql.raw(column)}`);
      reporters.push((row) => w.returned(Number(row?.[column] ?? 0)));
    }
  });
  const prefix = (parts: RawBuilder<unknown>[]) => (parts.length ? sql`${sql.join(parts)}, ` : sql``);
  return {
    ctes,
    counts,
    withPrefix: prefix(ctes),
    selectPrefix: prefix(counts),
    report: (row) => reporters.forEach((r) => r(row)),
  };
}

/**
 * Sends writes as one statement — data-modifying common table expressions, `WITH along0 AS (INSERT …),
 * along1 AS (INSERT …) SELECT 1` — one round trip instead of one each (a repository statement that must
 * return rows of its own takes them along instead: `alongWrites`, as the exposure reservation). They
 * run on the same snapshot: none may read what another writes. Undefined entries are skipped; a counted
 * write is told its returned rows.
 */
export async function writeTogether(db: Executor, writes: AlongWrites): Promise<void> {
  const present = writes.filter((w) => w !== undefined);
  if (present.length === 0) return;
  if (present.length === 1 && !('returned' in present[0]!)) {
    await db.executeQuery(present[0]!.compile());
    return;
  }
  const along = alongWrites(present);
  const { rows } = await sql<Record<string, unknown>>`WITH ${sql.join(along.ctes)} SELECT ${sql.join([
    sql`1 AS one`,
    ...along.counts,
  ])}`.execute(db);
  along.report(rows[0]);
}

/**
 * Whether `error` is PostgreSQL's unique violation (SQLSTATE 23505, PGlite's too), of `constraint`
 * when named (a unique index's name): what a check-then-insert raced by another transaction meets
 * at its insert, for the caller to answer its domain's 409 instead of a 500.
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code !== '23505') return false;
  if (constraint === undefined) return true;
  return e.constraint === constraint || (typeof e.message === 'string' && e.message.includes(`"${constraint}"`));
}

/** The callbacks each transaction opened by `transaction()` runs once it has committed. */
const committed = new WeakMap<Trx, Array<() => void>>();

/**
 * Runs `run` in one transaction, like `db.transaction().execute(run)`, and then, once it has
 * committed, what was registered with `afterCommit` (in order; nothing if it rolled back).
 */
export async function transaction<T>(db: Db, run: (trx: Trx) => Promise<T>): Promise<T> {
  const callbacks: Array<() => void> = [];
  const result = await db.transaction().execute((trx) => {
    committed.set(trx, callbacks);
    return run(trx);
  });
  for (const callback of callbacks) callback();
  return result;
}

/**
 * Registers `callback` to run once `executor`'s transaction has committed: true when `executor` is a
 * transaction opened by `transaction()`, false otherwise (the caller then does without).
 */
export function afterCommit(executor: Executor, callback: () => void): boolean {
  const callbacks = committed.get(executor as Trx);
  if (!callbacks) return false;
  callbacks.push(callback);
  return true;
}

export interface DatabaseHandle {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /** The PostgreSQL URL when kind is postgres (for libraries that open their own pool). */
  readonly url?: string;
  /** Applies pending migrations; returns the files applied. */
  migrate(): Promise<string[]>;
  /**
   * PGlite only: the whole data directory as a tarball, which `OpenOptions.loadDataDir` starts from
   * (the tests migrate one database and start every other from its copy).
   */
  dumpDataDir?(): Promise<Blob>;
  /**
   * PGlite only: LISTEN on `channel` in this process (NOTIFY is delivered at commit); returns the
   * unlisten function. On PostgreSQL, platform/notifications.ts listens on a connection of its own.
   */
  listen?(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

// Same JavaScript values from both drivers: int8 as number (money in minor units stays far below
// 2^53), numeric as string (decimal rates go through decimal.js), date as 'YYYY-MM-DD' text.
const INT8 = 20;
const DATE = 1082;
const NUMERIC = 1700;

// The drivers are imported when a database is opened, not with this module: the CLI's help and the
// modules that only need the types load neither pg nor PGlite.
async function postgresDriver(): Promise<typeof import('pg').default> {
  const { default: pg } = await import('pg');
  pg.types.setTypeParser(INT8, (v) => Number(v));
  pg.types.setTypeParser(DATE, (v) => v);
  pg.types.setTypeParser(NUMERIC, (v) => v);
  return pg;
}

export { DatabaseLockedError } from './data-dir-lock.ts';

/**
 * The embedded database's files are the whole database, personal data included: readable by the
 * owner only. The process umask gains 077 for as long as it runs (PGlite creates files as it goes:
 * WAL segments, new relations), and what exists already is brought to 0700 (directories) and 0600
 * (files), so a data directory created by an older version is fixed on its next start.
 */
export function restrictDataDir(dir: string): void {
  const previous = process.umask(0o077);
  process.umask(previous | 0o077);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const restrict = (entry: string) => {
    const stat = fs.lstatSync(entry);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== 0o700) fs.chmodSync(entry, 0o700);
      for (const child of fs.readdirSync(entry)) restrict(path.join(entry, child));
    } else if ((stat.mode & 0o077) !== 0) {
      fs.chmodSync(entry, stat.mode & 0o600);
    }
  };
  restrict(dir);
}

export interface OpenOptions {
  /** PostgreSQL URL; when absent, PGlite. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; undefined means in memory (tests). */
  dataDir?: string | undefined;
  /**
   * PGlite in memory: start from this copy of a data directory (`dumpDataDir()`), skipping initdb —
   * the tests' migrated template. Ignored for PostgreSQL and with `dataDir`.
   */
  loadDataDir?: Blob | undefined;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /**
   * An idle PostgreSQL connection that broke (server restarted, connection terminated by an
   * administrator — 57P01 — or by `DROP DATABASE … WITH (FORCE)`, network cut). The pool has already
   * discarded it and opens a new one when needed; default: one line on stderr. Without a listener
   * the pool's `error` event would end the process.
   */
  onPoolError?: (error: Error & { code?: string }) => void;
}

const reportPoolError = (error: Error & { code?: string }) => {
  console.error(
    `PostgreSQL: an idle connection was lost (${error.code ?? 'no code'}: ${error.message}); the pool opens a new one when needed`,
  );
};

/** At most this many distinct statements are prepared per connection; beyond, they are sent unnamed. */
const MAX_PREPARED = 1_000;

/**
 * Kysely sends every statement unnamed, so PostgreSQL parses and plans it at each execution — most of
 * the database's CPU on the hot paths (docs/BENCHMARKS.md, "Where the time goes"). This pool hands
 * Kysely clients that name each distinct statement with parameters (one name per SQL text, for the
 * process's life): `pg` prepares it once per connection and then only binds and executes it.
 * Statements without parameters (BEGIN, COMMIT, DDL) and those past MAX_PREPARED go unnamed, as before.
 */
function preparing(pool: import('pg').Pool): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_PREPARED) names.set(text, (name = `parasol_${names.size + 1}`));
    return name;
  };
  return {
    connect: async () => {
      const client = await pool.connect();
      return {
        query: ((textOrCursor: string | PostgresCursor<unknown>, values?: readonly unknown[]) => {
          if (typeof textOrCursor !== 'string') return client.query(textOrCursor as never);
          const name = values && values.length > 0 ? nameOf(textOrCursor) : undefined;
          return name === undefined
            ? client.query(textOrCursor, values as unknown[])
            : client.query({ name, text: textOrCursor, values: values as unknown[] });
        }) as unknown as PostgresPoolClient['query'],
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pg = await postgresDriver();
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    pool.on('error', options.onPoolError ?? reportPoolError);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparing(pool) }) });
    const migrate = async () => {
      const client = await pool.connect();
      try {
        return await applyMigrations({
          query: (text, params) => client.query(text, params),
          exec: (text) => client.query(text),
        });
      } finally {
        client.release();
      }
    };
    return { db, kind: 'postgres', url: options.databaseUrl, migrate, close: () => db.destroy() };
  }
  if (options.dataDir) restrictDataDir(options.dataDir);
  const release = options.dataDir ? await lockDataDir(options.dataDir) : async () => {};
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const pglite = new PGlite({
      ...(options.dataDir
        ? { dataDir: path.join(options.dataDir, 'pglite') }
        : options.loadDataDir
          ? { loadDataDir: options.loadDataDir }
          : {}),
      parsers: { [INT8]: (v: string) => Number(v), [DATE]: (v: string) => v, [NUMERIC]: (v: string) => v },
    });
    await pglite.waitReady;
    const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
    return {
      db,
      kind: 'pglite',
      // PGlite is one connection; Kysely serialises its use, so migrations run before anything else does.
      migrate: () =>
        applyMigrations({ query: (text, params) => pglite.query(text, params), exec: (text) => pglite.exec(text) }),
      dumpDataDir: () => pglite.dumpDataDir('none'),
      listen: async (channel, onPayload) => {
        const unlisten = await pglite.listen(channel, onPayload);
        return async () => {
          if (!pglite.closed) await unlisten();
        };
      },
      close: async () => {
        await db.destroy(); // Kysely only closes a driver it has used: close PGlite ourselves
        if (!pglite.closed) await pglite.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
/** Any constant shared by every Parasol process: serialises migrations across processes on PostgreSQL. */
const MIGRATION_LOCK = 7_270_301;

/** Runs multi-statement SQL (migrations) through the driver's simple-query path. */
interface ScriptRunner {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  exec(text: string): Promise<unknown>;
}

export function migrationFiles(): string[] {
  return fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
}

/**
 * Applies the versioned SQL files of migrations/ in order, each in its own transaction with its
 * row in schema_migrations. The same files serve PGlite and PostgreSQL; on PostgreSQL an advisory
 * lock lets several processes start at once.
 */
async function applyMigrations(runner: ScriptRunner): Promise<string[]> {
  const applied: string[] = [];
  await runner.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
  try {
    await runner.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await runner.query('SELECT name FROM schema_migrations')).rows.map((r) => String(r.name)));
    for (const file of migrationFiles()) {
      if (done.has(file)) continue;
      const text = fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
      await runner.exec('BEGIN');
      try {
        await runner.exec(text);
        await runner.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await runner.exec('COMMIT');
      } catch (error) {
        await runner.exec('ROLLBACK');
        throw new Error(`Migration ${file} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(file);
    }
  } finally {
    await runner.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
  }
  return applied;
}
