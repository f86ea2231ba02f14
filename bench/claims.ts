import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { submitBankDetails } from '../src/payouts/bank-details.ts';
import { openClaimsForFlightEvent } from '../src/claims/open-claims.ts';
import { sealBookingReference } from '../src/flight/booking-reference.ts';
import { setConfiguration } from '../src/partners/configuration.ts';
import { createPartner, setAgreement, setSubscription, signAgreement } from '../src/partners/partners.ts';
import { loadConfig } from '../src/platform/config.ts';
import { decrypt, deriveKeyring, encrypt } from '../src/platform/crypto.ts';
import { openDatabase, type DatabaseHandle, type Db } from '../src/platform/db.ts';
import { JobQueue } from '../src/platform/jobs.ts';
import { Notifications, wakeOnJobs } from '../src/platform/notifications.ts';
import { registerQueues, startWorkers } from '../src/worker.ts';

/**
 * Claims benchmarks, in process: (1) fan-out — a cancelled flight with N active contracts, the time
 * `openClaimsForFlightEvent` takes to open every claim and queue every SMS job (one transaction, a
 * few statements); (2) bank details submitted → payout `paid` on the simulated bank, with the
 * workers as the API process runs them: woken at each job's enqueue (LISTEN/NOTIFY), the poll as
 * configured by default behind it; (3) on PostgreSQL, two worker processes draining the fan-out of
 * 10,000: every customer's bank details → paid.
 */

export interface FanoutMeasure {
  database: 'PGlite' | 'PostgreSQL';
  contracts: number;
  claims: number;
  jobs: number;
  ms: number;
  /** A bare `INSERT … SELECT` of one row per contract of the flight, on the same database, just before. */
  baselineMs: number;
  /** The claims opened (for the drain that follows on PostgreSQL). */
  claimIds: string[];
}

/** Two worker processes drain a fan-out: every claim notified, then every customer's bank details → paid. */
export interface DrainMeasure {
  claims: number;
  workers: number;
  /** Workers spawned → every claim's SMS link written (includes the processes' start). */
  notifiedMs: number;
  /** Every customer's bank details submitted, DRAIN_CUSTOMERS at a time from the bench process, no worker running. */
  submittedMs: number;
  /** Workers spawned → every claim `paid` (their payouts queued; includes the processes' start). */
  drainMs: number;
}

/** Customers submitting their bank details at the same time during the drain. */
export const DRAIN_CUSTOMERS = 10;
export const DRAIN_WORKERS = 2;

export interface PaidMeasure {
  database: 'PGlite' | 'PostgreSQL';
  pollSeconds: number;
  samples: number[];
  medianMs: number;
}

const MASTER_KEY = crypto.createHash('sha256').update('parasol bench').digest();
const KEYS = deriveKeyring(MASTER_KEY);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function partner(db: Db): Promise<{ id: string; configurationId: string }> {
  const actor = 'operator:bench';
  const p = await createPartner(db, actor, {
    slug: `bench-${Date.now().toString(36)}-${crypto.randomBytes(3).toString('hex')}`,
    name: 'Bench Air',
  });
  await setAgreement(db, actor, p.id, {
    allowedFormulas: ['delay', 'cancellation', 'delay_and_cancellation'],
    currency: 'EUR',
    taxRate: '0.09',
    commissionMin: '0',
    commissionMax: '0.3',
    compensationMin: 1_000,
    compensationMax: 50_000,
  });
  await signAgreement(db, actor, p.id);
  await setSubscription(db, actor, p.id, 'flight-delay', true);
  const configuration = await setConfiguration(db, actor, p.id, {
    formula: 'delay_and_cancellation',
    delayTiers: [{ minDelayMinutes: 120, amount: 5_000 }],
    cancellationAmount: 15_000,
    commissionRate: '0.2',
  });
  return { id: p.id, configurationId: configuration.id };
}

/** N active sandbox contracts with one leg each on `flightNumber`, inserted set-wise (setup, not measured). */
async function seedContracts(
  db: Db,
  p: { id: string; configurationId: string },
  flightNumber: string,
  departureDate: string,
  n: number,
): Promise<void> {
  const coverage = JSON.stringify({
    formula: 'delay_and_cancellation',
    delayTiers: [{ minDelayMinutes: 120, amount: 5_000 }],
    cancellationAmount: 15_000,
  });
  const email = encrypt(KEYS.encryption, 'bench@example.com');
  const phone = encrypt(KEYS.encryption, '+33612345678');
  const booking = sealBookingReference(KEYS.encryption, 'PNR123');
  const departureAt = `${departureDate}T10:30:00Z`;
  const tag = crypto.randomBytes(4).toString('hex').toUpperCase();
  await sql`
    WITH c AS (
      INSERT INTO contracts (contract_number, partner_id, environment, quote_id, configuration_id, configuration_version, risk_model_version, status, formula, coverage,
        passengers, currency, premium_net, premium_tax, premium_commission, premium_total, customer_first_name, customer_last_name,
        customer_email_enc, customer_phone_enc, customer_language, booking_reference_enc, booking_reference_hmac, first_departure_at, quoted_at)
      SELECT 'FD-B' || ${tag} || '-' || i, ${p.id}::uuid, 'sandbox', 'bench-' || ${tag} || '-' || i, ${p.configurationId}::uuid, 1, 'v1', 'active',
        'delay_and_cancellation', ${coverage}::jsonb, 1, 'EUR', 1000, 90, 200, 1090, 'Camille', 'Martin', ${email}, ${phone}, 'en', ${booking.booking_reference_enc}, ${booking.booking_reference_hmac},
        ${departureAt}::timestamptz, now()
      FROM generate_series(1, ${n}) AS i
      RETURNING id)
    INSERT INTO contract_legs (contract_id, leg_index, partner_id, environment, flight_number, airline, departure_airport, arrival_airport,
      departure_local, departure_date, departure_at, share_net, share_tax, share_commission)
    SELECT c.id, 0, ${p.id}::uuid, 'sandbox', ${flightNumber}, 'AF', 'CDG', 'JFK', ${`${departureDate}T11:30`}, ${departureDate}::date, ${departureAt}::timestamptz,
      1000, 90, 200
    FROM c`.execute(db);
}

/**
 * The fan-out's baseline: one bare `INSERT … SELECT` writing one row per contract of the flight (the
 * same join of legs and contracts the fan-out reads) into a scratch table, in its own transaction;
 * the table is dropped afterwards. Returns milliseconds.
 */
async function insertSelectBaseline(db: Db, flightNumber: string, n: number): Promise<number> {
  await sql`CREATE TABLE bench_fanout_baseline (id bigserial PRIMARY KEY, contract_id uuid NOT NULL, status text NOT NULL, amount integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`.execute(
    db,
  );
  try {
    const started = performance.now();
    const inserted = await sql`
      INSERT INTO bench_fanout_baseline (contract_id, status, amount)
      SELECT c.id, 'opened', 15000 FROM contract_legs l JOIN contracts c ON c.id = l.contract_id
      WHERE l.flight_number = ${flightNumber} AND c.status = 'active'`.execute(db);
    const ms = performance.now() - started;
    if (Number(inserted.numAffectedRows ?? n) !== n)
      throw new Error(`baseline inserted ${String(inserted.numAffectedRows)} rows, expected ${n}`);
    return ms;
  } finally {
    await sql`DROP TABLE bench_fanout_baseline`.execute(db);
  }
}

export async function benchFanout(
  handle: DatabaseHandle,
  database: FanoutMeasure['database'],
  sizes: number[],
): Promise<FanoutMeasure[]> {
  const db = handle.db;
  const p = await partner(db);
  // a queue that only sends: the measure is opening the claims and queueing their jobs
  const jobs = await new JobQueue(db, { schedules: false, supervise: false, onError: () => undefined }).start();
  await registerQueues(jobs);
  const results: FanoutMeasure[] = [];
  try {
    for (const [i, n] of sizes.entries()) {
      const flightNumber = `AF${7000 + i}`;
      const departureDate = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
      await seedContracts(db, p, flightNumber, departureDate, n);
      const baselineMs = await insertSelectBaseline(db, flightNumber, n);
      const started = performance.now();
      const opened = await openClaimsForFlightEvent(
        { db, jobs, now: () => new Date() },
        { environment: 'sandbox', flightNumber, departureDate, status: 'cancelled', source: 'bench' },
      );
      const ms = performance.now() - started;
      const queued = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'claims_notify' AND data->>'claimId' = ANY(${opened.map((c) => c.id)}::text[])`.execute(
        db,
      );
      results.push({
        database,
        contracts: n,
        claims: opened.length,
        jobs: queued.rows[0]!.n,
        ms,
        baselineMs,
        claimIds: opened.map((c) => c.id),
      });
      console.log(
        `  ${database}: ${n} contracts → ${opened.length} claims and ${queued.rows[0]!.n} SMS jobs in ${ms.toFixed(0)} ms (bare INSERT … SELECT of ${n} rows: ${baselineMs.toFixed(0)} ms, ×${(ms / baselineMs).toFixed(1)})`,
      );
    }
  } finally {
    await jobs.stop({ graceful: false, timeoutMs: 1_000 });
  }
  return results;
}

/** Bank details submitted → claim paid by the simulated bank, with workers as the API process runs them. */
export async function benchBankDetailsToPaid(
  handle: DatabaseHandle,
  database: PaidMeasure['database'],
  samples = 5,
): Promise<PaidMeasure> {
  const db = handle.db;
  const config = loadConfig({ PARASOL_DATA_DIR: path.join(os.tmpdir(), 'parasol-bench'), LOG_LEVEL: 'silent' });
  const p = await partner(db);
  const jobs = await new JobQueue(db, {
    pollingIntervalSeconds: config.jobPollSeconds,
    schedules: false,
    onError: () => undefined,
  }).start();
  await registerQueues(jobs);
  await startWorkers(jobs, {
    db,
    keys: KEYS,
    config,
    now: () => new Date(),
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  // as the API process (src/app.ts): a job sent anywhere wakes its queue's worker at the commit
  const feed = await Notifications.open(handle, { onError: () => undefined });
  wakeOnJobs(feed, jobs);
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const flightNumber = `AF${8000 + i}`;
      const departureDate = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
      await seedContracts(db, p, flightNumber, departureDate, 1);
      const [claim] = await openClaimsForFlightEvent(
        { db, jobs, now: () => new Date() },
        { environment: 'sandbox', flightNumber, departureDate, status: 'cancelled', source: 'bench' },
      );
      // the link: the outbox message's, once the notification job has run
      let link: string | null = null;
      while (!link) {
        const row = await db
          .selectFrom('sms_outbox')
          .select('link_enc')
          .where('claim_id', '=', claim!.id)
          .executeTakeFirst();
        link = row?.link_enc ? decrypt(KEYS.encryption, row.link_enc) : null;
        if (!link) await new Promise((r) => setTimeout(r, 20));
      }
      const started = performance.now();
      const outcome = await submitBankDetails({ db, jobs, keys: KEYS, now: () => new Date() }, link.split('/c/')[1]!, {
        accountHolder: 'Camille Martin',
        iban: 'DE89370400440532013000',
      });
      if (outcome.kind !== 'accepted') throw new Error(`bank details not accepted: ${outcome.kind}`);
      for (;;) {
        const row = await db
          .selectFrom('claims')
          .select('status')
          .where('id', '=', claim!.id)
          .executeTakeFirstOrThrow();
        if (row.status === 'paid') break;
        await new Promise((r) => setTimeout(r, 10));
      }
      times.push(performance.now() - started);
    }
  } finally {
    await feed.close();
    await jobs.stop({ graceful: true, timeoutMs: 5_000 });
  }
  const sorted = [...times].sort((x, y) => x - y);
  const result = {
    database,
    pollSeconds: config.jobPollSeconds,
    samples: times,
    medianMs: sorted[Math.floor(sorted.length / 2)]!,
  };
  console.log(
    `  ${database}: bank details → paid, median ${result.medianMs.toFixed(0)} ms over ${samples} (workers woken at enqueue; poll every ${config.jobPollSeconds} s behind it)`,
  );
  return result;
}

/** A worker process (`src/worker-main.ts`, as `npm run worker` runs it) on `databaseUrl`. */
function spawnWorker(databaseUrl: string, dataDir: string): { child: ChildProcess; output: () => string } {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PARASOL_MASTER_KEY: MASTER_KEY.toString('base64'),
    PARASOL_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  delete env.PARASOL_METRICS_PORT;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker-main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString('utf8')).slice(-8_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, output: () => output };
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** Polls `count` until it reaches `target`; fails if a worker exits or after `timeoutMs`. */
async function until(
  count: () => Promise<number>,
  target: number,
  workers: { child: ChildProcess; output: () => string }[],
  what: string,
  timeoutMs = 900_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await count();
    if (n >= target) return;
    const dead = workers.find((w) => w.child.exitCode !== null || w.child.signalCode !== null);
    if (dead) throw new Error(`a worker exited while waiting for ${what}:\n${dead.output()}`);
    if (Date.now() > deadline) throw new Error(`${what}: ${n} of ${target} after ${timeoutMs / 1_000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The fan-out's claims drained by DRAIN_WORKERS worker processes (PostgreSQL only: PGlite is one
 * process). The workers first send every claim's notification (its SMS and link) and stop; then
 * DRAIN_CUSTOMERS customers at a time submit their bank details (`submitBankDetails`, the use case
 * behind the form, from this process), each queueing its payout; then the workers start again and
 * pay them all on the simulated bank. Measured: workers spawned → every claim `paid`.
 */
export async function benchDrain(
  handle: DatabaseHandle,
  databaseUrl: string,
  claimIds: string[],
): Promise<DrainMeasure> {
  const db = handle.db;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-bench-drain-'));
  // this process only sends (the payout jobs of the bank details), as an API process with PARASOL_WORKERS=off
  const jobs = await new JobQueue(db, { schedules: false, supervise: false, onError: () => undefined }).start();
  const countLinks = async () =>
    (
      await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM sms_outbox WHERE link_enc IS NOT NULL AND claim_id = ANY(${claimIds}::uuid[])`.execute(
        db,
      )
    ).rows[0]!.n;
  const countPaid = async () =>
    (
      await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM claims WHERE status = 'paid' AND id = ANY(${claimIds}::uuid[])`.execute(db)
    ).rows[0]!.n;
  let workers: { child: ChildProcess; output: () => string }[] = [];
  const spawnWorkers = () => (workers = Array.from({ length: DRAIN_WORKERS }, () => spawnWorker(databaseUrl, dataDir)));
  try {
    // setup: the workers send every claim's notification (SMS and link), then stop
    let started = performance.now();
    spawnWorkers();
    await until(countLinks, claimIds.length, workers, 'every claim notified');
    const notifiedMs = performance.now() - started;
    await Promise.all(workers.map((w) => stopWorker(w.child)));
    console.log(
      `  PostgreSQL: ${DRAIN_WORKERS} workers notified ${claimIds.length} claims (SMS and link) ${(notifiedMs / 1_000).toFixed(1)} s after they were spawned`,
    );
    const links = (
      await sql<{
        link_enc: string;
      }>`SELECT link_enc FROM sms_outbox WHERE link_enc IS NOT NULL AND claim_id = ANY(${claimIds}::uuid[])`.execute(db)
    ).rows.map((r) => decrypt(KEYS.encryption, r.link_enc));
    // every customer's bank details, no worker running: the payouts queue up
    started = performance.now();
    let next = 0;
    const customer = async () => {
      while (next < links.length) {
        const link = links[next++]!;
        const outcome = await submitBankDetails(
          { db, jobs, keys: KEYS, now: () => new Date() },
          link.split('/c/')[1]!,
          {
            accountHolder: 'Camille Martin',
            iban: 'DE89370400440532013000',
          },
        );
        if (outcome.kind !== 'accepted') throw new Error(`bank details not accepted: ${outcome.kind}`);
      }
    };
    await Promise.all(Array.from({ length: DRAIN_CUSTOMERS }, customer));
    const submittedMs = performance.now() - started;
    // measured: two worker processes pay them all
    started = performance.now();
    spawnWorkers();
    await until(countPaid, claimIds.length, workers, 'every claim paid');
    const drainMs = performance.now() - started;
    console.log(
      `  PostgreSQL: ${claimIds.length} bank details submitted in ${(submittedMs / 1_000).toFixed(1)} s (${DRAIN_CUSTOMERS} at a time, no worker running); ${DRAIN_WORKERS} workers spawned then paid them all in ${(drainMs / 1_000).toFixed(1)} s (${(claimIds.length / (drainMs / 1_000)).toFixed(0)} claims/s)`,
    );
    return { claims: claimIds.length, workers: DRAIN_WORKERS, notifiedMs, submittedMs, drainMs };
  } finally {
    await Promise.all(workers.map((w) => stopWorker(w.child)));
    await jobs.stop({ graceful: false, timeoutMs: 1_000 });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Both benchmarks on the embedded database (a fresh PGlite in a temporary directory). */
export async function benchClaimsPglite(sizes: number[]): Promise<{ fanout: FanoutMeasure[]; paid: PaidMeasure }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-bench-claims-'));
  const handle = await openDatabase({ dataDir: dir });
  try {
    await handle.migrate();
    // the payout timing first, on an idle queue; the fan-out then leaves thousands of jobs behind
    const paid = await benchBankDetailsToPaid(handle, 'PGlite');
    return { fanout: await benchFanout(handle, 'PGlite', sizes), paid };
  } finally {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Both benchmarks on a fresh PostgreSQL database created from `adminUrl`, dropped afterwards. */
export async function benchClaimsPostgres(
  adminUrl: string,
  sizes: number[],
): Promise<{ fanout: FanoutMeasure[]; paid: PaidMeasure; drain?: DrainMeasure }> {
  const name = `parasol_bench_claims_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on('error', () => undefined); // a lost admin connection fails its next query, which says why
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    // connections that DROP … WITH (FORCE) would still find (none once closed) are reported, not fatal
    const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 10, onPoolError: () => undefined });
    try {
      await handle.migrate();
      const paid = await benchBankDetailsToPaid(handle, 'PostgreSQL');
      const fanout = await benchFanout(handle, 'PostgreSQL', sizes);
      // the largest fan-out's claims, drained by two worker processes
      const drain = await benchDrain(handle, url.toString(), fanout.at(-1)!.claimIds);
      return { fanout, paid, drain };
    } finally {
      await handle.close(); // every connection closed before the database is dropped
    }
  } finally {
    try {
      await dropDatabase(admin, name);
    } finally {
      await admin.end().catch(() => undefined);
    }
  }
}

/** Drops a bench database, even if something still holds a connection to it. */
export async function dropDatabase(admin: pg.Client, name: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`not a bench database name: ${name}`);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
