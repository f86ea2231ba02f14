import type { Command } from 'commander';
import type { DeskAction, DeskOutcome } from '../claims/index.ts';
import type { FlightProviders } from '../monitoring/index.ts';
import type { Config } from '../platform/config.ts';
import { randomToken, type Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { OPERATOR_ACTOR } from '../platform/operator-socket.ts';
import type { Resolver } from '../webhooks/index.ts';

/**
 * What every command file of the operator command line uses: the context a command runs in (`CliIo`,
 * opened by cli/main.ts or a test), the kit program.ts hands to each command file (`CommandKit`), and
 * the presentation helpers. Command files import this module, never program.ts.
 */

export interface CliIo {
  db: Db;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Recorded in the audit log as the author of every change. */
  actor?: string;
  /** Reads all of standard input (`users create --password-stdin`); defaults to process.stdin. */
  readStdin?: () => Promise<string>;
  /** Migrations the caller applied when it opened the database, reported by `db migrate`. */
  applied?: readonly string[];
  /**
   * What commands beyond partner administration need (claims, payouts, webhooks, flights): the
   * configuration, the keyring (encrypted fields) and a started job queue (jobs enqueued in the
   * command's transaction). Opened by the caller; `services()` fails clearly when absent.
   */
  config?: Config;
  keys?: Keyring;
  jobs?: JobQueue;
  /**
   * Reads a file named on the command line (`payouts reconcile <file>`); defaults to the file system.
   * `maxBytes`: a reader that can check the size first refuses a larger file unread (an error whose
   * code is EFBIG, with its `size`: the operator socket's client).
   */
  readFile?: (file: string, maxBytes?: number) => Promise<string>;
  /** Reads and writes binary files named on the command line (`risk import`, `risk export`); default: the file system. */
  readBytes?: (file: string) => Promise<Buffer>;
  writeBytes?: (file: string, data: Buffer) => Promise<void>;
  /** `flights check`: the flight-status providers (default: from config) and the clock (tests). */
  flightProviders?: FlightProviders;
  now?: () => Date;
  /** `webhooks add`: how an endpoint's host name resolves (default: the system's DNS; tests: never real DNS). */
  resolveHost?: Resolver;
}

/** What a command module gets from runCli to declare its commands (see claims-commands.ts). */
export interface CommandKit {
  group: (name: string, description: string, example: string) => Command;
  leaf: (parent: Command, nameAndArgs: string, description: string, example: string) => Command;
  run: <A extends unknown[]>(fn: (...args: A) => Promise<Result>, names?: FieldNames) => (...args: A) => Promise<void>;
  db: Db;
  actor: string;
  services: () => { config: Config; keys: Keyring; jobs: JobQueue };
  /** A text file named on the command line; `maxBytes`: refused (payload_too_large) above that size, checked before parsing. */
  readFile: (file: string, maxBytes?: number) => Promise<string>;
  /** Binary files named on the command line (the operator's side when the command runs in the server). */
  readBytes?: (file: string) => Promise<Buffer>;
  writeBytes?: (file: string, data: Buffer) => Promise<void>;
  /** The context the command runs in (standard input, migrations applied, clock…). */
  io: CliIo;
}

export const EXIT = { ok: 0, domain: 1, usage: 2, internal: 70 } as const;

/**
 * Who runs the command line, for the audit log: `operator:<name>`, the name from $USER, else the
 * account the process runs as (`os.userInfo()`: cron, systemd units and containers often set no
 * $USER), else `operator:cli` (no account name to be had). A name the operator socket would refuse
 * (OPERATOR_ACTOR: letters, digits, `_.@-`, at most 64) is no name: the next is tried, so a local
 * run and one through the socket record the same actor. `accountName` stands in for
 * os.userInfo().username (tests).
 */
export function operatorActor(env: { USER?: string | undefined }, accountName: () => string): string {
  const valid = (name: string | undefined) => {
    const actor = `operator:${name?.trim() ?? ''}`;
    return OPERATOR_ACTOR.test(actor) ? actor : undefined;
  };
  const fromUser = valid(env.USER);
  if (fromUser !== undefined) return fromUser;
  try {
    const fromAccount = valid(accountName());
    if (fromAccount !== undefined) return fromAccount;
  } catch {
    // no entry for this uid in the password database (a container's arbitrary uid)
  }
  return 'operator:cli';
}

/** What a command prints: `data` with --json (one JSON document), `lines` otherwise. */
export interface Result {
  data: unknown;
  lines: string[];
}

/** Names the command-line option behind a field pointer of a use case ("/commissionRate" → "--commission"). */
export type FieldNames = (pointer: string) => string | undefined;
export const fieldMap =
  (map: Record<string, string>): FieldNames =>
  (pointer) =>
    map[pointer];

// ---------------------------------------------------------------------------------------------
// money: major-unit decimal strings ⇄ integer minor units, without floating point

/** An amount in major units read into minor units, its error collected (platform/money.ts). */
export { amountOrError } from '../platform/money.ts';

/** A `--limit` option: a whole number from 1 to 10000, or `fallback` when absent. */
export function limitOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 10_000) {
    throw new DomainError('validation_failed', 'The limit must be a whole number from 1 to 10000.', {
      errors: [{ field: '/limit', code: 'out_of_range', message: 'from 1 to 10000' }],
    });
  }
  return Number(text);
}

// ---------------------------------------------------------------------------------------------
// the claim desk's actions (claims-commands.ts, payouts set-bic): one shape for all

/** A desk action's options: `--reason` (required, kept in the audit log) and `--once <token>`. */
export function deskOptions(command: Command): Command {
  return command
    .requiredOption('--reason <text>', 'why (3 to 500 characters), kept in the audit log')
    .option('--once <token>', 'a token of 16 to 64 letters, digits, - or _: the same token twice does the action once');
}

/**
 * Runs a desk action as the operator, with the reason and a one-time token for this run (or `--once`,
 * so that a retried run does it once), and says what it did: `said` when done now, "done already"
 * when replayed.
 */
export async function deskResult<D extends DeskOutcome>(
  actor: string,
  options: { reason?: string; once?: string },
  act: (action: Omit<DeskAction, 'claimNumber'>) => Promise<D>,
  said: (done: D) => string,
): Promise<Result> {
  const done = await act({ actor, reason: options.reason ?? '', actionToken: options.once ?? randomToken(24) });
  return {
    data: done,
    lines: [done.outcome === 'done' ? said(done) : `${done.claimNumber}: done already, nothing done again.`],
  };
}

// ---------------------------------------------------------------------------------------------
// presentation

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Commander's accumulator for a repeatable option. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** UTC, to the second: "2026-03-01 09:30:12Z"; "-" when absent. */
export function when(date: Date | null): string {
  return date
    ? date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z')
    : '-';
}

export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function pairs(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`);
}
