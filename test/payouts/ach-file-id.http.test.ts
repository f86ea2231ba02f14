import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { JOBS, type JobRuntime } from '../../src/jobs/registry.ts';
import { createAchBatch, createPayoutBatches } from '../../src/payouts/sepa-batch.ts';
import { LEFT_OUT_PAYOUT, lockNachaFileDay } from '../../src/payouts/payouts-repo.ts';
import { runScheduledSepaBatch } from '../../src/payouts/sepa-schedule.ts';
import type { DomainError } from '../../src/platform/errors.ts';
import { DatabaseGauges, sepaBatchRunsTotal } from '../../src/platform/metrics.ts';
import { sql } from 'kysely';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  productionSmsLink,
  eventually,
  operatorToken,
  runCliOn,
  usingPostgres,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { achBatchDeps, achPayoutsEnv, usAccountClaim } from './ach-setup.ts';

/**
 * A bank takes a second file with the same immediate origin, creation date and File ID Modifier as a
 * duplicate: each file of a day takes the next modifier (A-Z then 0-9), its trace numbers follow from
 * it (none shared within the day), and a 37th file of the day is refused, the payouts still pending.
 */
describe('ACH files of one day', () => {
  let t: TestApp;
  let partner: TestPartner;
  let dir: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-ach-file-id-'));
    t = await buildTestApp({ env: achPayoutsEnv(dir) });
    partner = await createTestPartner(t.db, { environment: 'production', agreement: { currency: 'USD' } });
  });
  after(async () => {
    await t.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  let n = 0;
  /** A production USD claim whose customer gave a US account: its payout pending, rail ach. */
  const usClaim = async (): Promise<string> => {
    const operator = (await operatorToken(t, `ach-file-${n}`)).auth;
    const flightNumber = `AF${6000 + (process.pid % 300) + n++}`;
    return (await usAccountClaim(t, partner, { flightNumber, operator })).id;
  };
  const batchAt = (at: string) => createAchBatch(achBatchDeps(t, dir, at), { actor: 'operator:test' });
  const headerAndTraces = async (messageId: string) => {
    const records = (await fs.readFile(path.join(dir, `${messageId}.ach`), 'utf8')).split('\n');
    return {
      modifier: records[0]!.slice(33, 34),
      traces: records.filter((r) => r.startsWith('6')).map((r) => r.slice(79, 94)),
    };
  };

  it('A, then B the same day, with trace numbers of their own; a 37th file refused', async () => {
    await usClaim();
    const first = await batchAt('2031-06-03T09:00:00Z');
    assert.ok(first && 'batchId' in first, JSON.stringify(first));
    await usClaim();
    const second = await batchAt('2031-06-03T15:00:00Z');
    assert.ok(second && 'batchId' in second, JSON.stringify(second));
    assert.deepEqual(await headerAndTraces(first.messageId), { modifier: 'A', traces: ['026009590000001'] });
    assert.deepEqual(await headerAndTraces(second.messageId), { modifier: 'B', traces: ['026009590100001'] });
    const stored = await t.db
      .selectFrom('sepa_batches')
      .select(['nacha_origin', 'nacha_file_date', 'nacha_file_id_modifier'])
      .where('id', '=', second.batchId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, {
      nacha_origin: '1123456789',
      nacha_file_date: '2031-06-03',
      nacha_file_id_modifier: 'B',
    });

    // the day's other 34 modifiers taken: the next file is refused, its payout still pending
    for (const m of 'CDEFGHIJKLMNOPQRSTUVWXYZ0123456789')
      await t.db
        .insertInto('sepa_batches')
        .values({
          message_id: `PSL-TEST-${m}`,
          created_at: new Date('2031-06-03T16:00:00Z'),
          created_by: 'operator:test',
          execution_date: '2031-06-04',
          payouts_count: 1,
          control_sum: 100,
          currency: 'USD',
          format: 'nacha',
          xml_enc: 'sealed',
          nacha_origin: '1123456789',
          nacha_file_date: '2031-06-03',
          nacha_file_id_modifier: m,
          file_path: path.join(dir, `PSL-TEST-${m}.ach`),
        })
        .execute();
    const claimId = await usClaim();
    await assert.rejects(batchAt('2031-06-03T20:00:00Z'), (error: DomainError) => {
      assert.equal(error.code, 'validation_failed');
      assert.match(error.extra.errors?.[0]?.message ?? '', /36 NACHA files were already made on 2031-06-03/);
      return true;
    });
    // a run of every currency says why, names when, and counts the payout among those not filed
    const run = await createPayoutBatches(achBatchDeps(t, dir, '2031-06-03T21:00:00Z'), {
      actor: 'operator:test',
      filesPerCurrency: 10,
    });
    assert.deepEqual(
      [run.batches.length, run.refused.map((r) => [r.currency, r.payouts, r.reason]), run.unfiled],
      [0, [['USD', 1, 'ach_day_full']], 1],
    );
    assert.match(
      run.refused[0]!.message,
      /pending for the first file from the first run after midnight UTC \(earliest 2031-06-04, modifier A; the schedule makes no file on weekends\)/,
    );
    // the worker's run: a warning (nothing for an operator to do), not an error
    const logs: { level: string; data: Record<string, unknown>; message: string }[] = [];
    const record = (level: string) => (data: unknown, message?: string) =>
      void logs.push({ level, data: data as Record<string, unknown>, message: message ?? '' });
    const rt = {
      db: t.db,
      keys: t.app.parasol.keys,
      jobs: t.app.parasol.jobs,
      config: t.app.parasol.config,
      now: () => new Date('2031-06-03T22:00:00Z'),
      log: { info: record('info'), warn: record('warn'), error: record('error') },
    } as unknown as JobRuntime;
    const runs = async () =>
      Object.fromEntries((await sepaBatchRunsTotal.get()).values.map((v) => [String(v.labels.outcome), v.value]));
    const counted = await runs();
    await JOBS.payouts_sepa_batch.handler(rt)({ id: 'test', data: {} });
    assert.deepEqual(
      logs.filter((l) => l.level !== 'info').map((l) => [l.level, l.data.reason, l.data.payouts]),
      [['warn', 'ach_day_full', 1]],
      JSON.stringify(logs),
    );
    // counted as waiting, not among the refused runs an operator is alerted to
    const now = await runs();
    assert.deepEqual(
      ['waiting', 'refused', 'nothing_pending'].map((o) => (now[o] ?? 0) - (counted[o] ?? 0)),
      [1, 0, 0],
      'the run waits for the next day',
    );
    assert.match(logs.find((l) => l.level === 'warn')!.message, /wait for the next day's NACHA file/);
    const payout = await t.db
      .selectFrom('payouts')
      .select('status')
      .where('claim_id', '=', claimId)
      .executeTakeFirstOrThrow();
    assert.equal(payout.status, 'pending');
    const gauges = await new DatabaseGauges(t.db, { leftOutPayout: LEFT_OUT_PAYOUT, ttlMs: 0 }).metrics();
    assert.match(gauges, /parasol_production_payouts_pending\{currency="USD"\} 1\b/, 'the pending ACH payout counted');
    // the next day starts again at A
    const next = await batchAt('2031-06-04T09:00:00Z');
    assert.ok(next && 'batchId' in next, JSON.stringify(next));
    assert.equal((await headerAndTraces(next.messageId)).modifier, 'A');
  });

  it('a run makes as many files as the payouts need; an amount no entry holds is left out, said why', async () => {
    const [a, b, tooBig] = [await usClaim(), await usClaim(), await usClaim()];
    // $100,000,000.00: over the entry's 10-digit amount field (no claim pays so much: set by hand)
    await t.db.updateTable('payouts').set({ amount: 10_000_000_000 }).where('claim_id', '=', tooBig).execute();
    const run = await createPayoutBatches(achBatchDeps(t, dir, '2031-06-12T09:00:00Z'), {
      actor: 'operator:test',
      limit: 1,
      filesPerCurrency: 5,
    });
    assert.deepEqual(
      run.batches.map((b) => [b.scheme, b.payouts]),
      [
        ['ach', 1],
        ['ach', 1],
      ],
      'one file per payout (limit 1), the third payout left out',
    );
    assert.deepEqual(await Promise.all(run.batches.map(async (b) => (await headerAndTraces(b.messageId)).modifier)), [
      'A',
      'B',
    ]);
    assert.deepEqual(
      run.skipped.map((s) => [s.code, s.reason]),
      [['invalid', 'amount must be a whole number of cents from 1 to 9999999999']],
    );
    assert.deepEqual([run.refused, run.unfiled], [[], 0]);
    const statuses = await t.db
      .selectFrom('payouts')
      .select(['claim_id', 'status', 'left_out_code'])
      .where('claim_id', 'in', [a, b, tooBig])
      .execute();
    assert.deepEqual(
      [a, b, tooBig].map((id) => statuses.find((p) => p.claim_id === id)).map((p) => [p?.status, p?.left_out_code]),
      [
        ['instructed', null],
        ['instructed', null],
        ['pending', 'invalid'],
      ],
    );
    // out of the way of the other tests' runs
    await t.db.updateTable('payouts').set({ status: 'cancelled' }).where('claim_id', '=', tooBig).execute();
  });

  it(
    'a file made at the same time takes the modifier first: this one takes the next, its payout filed once',
    { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite runs one transaction at a time' },
    async () => {
      const claimId = await usClaim();
      let racing: ReturnType<typeof batchAt> | undefined;
      // another process's file A of 2031-06-16, not yet committed, when this batch picks A too
      await t.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('sepa_batches')
          .values({
            message_id: 'PSL-TEST-RACE-A',
            created_at: new Date('2031-06-16T09:00:00Z'),
            created_by: 'operator:test',
            execution_date: '2031-06-17',
            payouts_count: 1,
            control_sum: 100,
            currency: 'USD',
            format: 'nacha',
            xml_enc: 'sealed',
            nacha_origin: '1123456789',
            nacha_file_date: '2031-06-16',
            nacha_file_id_modifier: 'A',
            file_path: path.join(dir, 'PSL-TEST-RACE-A.ach'),
          })
          .execute();
        racing = batchAt('2031-06-16T09:00:00Z');
        // the batch waits on the unique index for this transaction
        await eventually(async () => {
          const waiting = await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE 'insert into "sepa_batches"%'`.execute(
            t.db,
          );
          return waiting.rows[0]!.n > 0 ? true : undefined;
        });
      });
      // committed: the batch meets the row, reads the day's modifiers again and takes B
      const filed = await racing!;
      assert.ok(filed && 'batchId' in filed, JSON.stringify(filed));
      assert.equal((await headerAndTraces(filed.messageId)).modifier, 'B');
      const payout = await t.db
        .selectFrom('payouts')
        .select(['status', 'batch_id'])
        .where('claim_id', '=', claimId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(payout, { status: 'instructed', batch_id: filed.batchId });
    },
  );

  it('`parasol payouts batch`: 101 payouts of $99,999,999.99 split in two NACHA files, each paid once', async () => {
    const claims: string[] = [];
    for (let i = 0; i < 101; i++) claims.push(await usClaim());
    // the entry's largest amount (10 digits of cents): no claim pays so much, set by hand
    await t.db.updateTable('payouts').set({ amount: 9_999_999_999 }).where('claim_id', 'in', claims).execute();
    const run = await runCliOn(t, ['payouts', 'batch'], { actor: 'operator:test' });
    assert.equal(run.code, 0, run.err);
    const made = [...run.out.matchAll(/^Batch (\S+): (\d+) transfer\(s\)/gm)].map(
      (m) => [m[1]!, Number(m[2])] as const,
    );
    assert.deepEqual(
      made.map(([, n]) => n),
      [100, 1],
      `the 12-digit total holds 100 of them, the next file the last: ${run.out}`,
    );
    const filed: string[] = [];
    for (const [messageId] of made) {
      const records = (await fs.readFile(path.join(dir, `${messageId}.ach`), 'utf8')).split('\n');
      // batch control (8) and file control (9): Total Credit, 12 digits, never past them
      const batchControl = records.find((r) => r.startsWith('8'))!;
      const fileControl = records.find((r) => r.startsWith('9') && !/^9+$/.test(r))!;
      assert.ok(Number(batchControl.slice(32, 44)) <= 999_999_999_999, batchControl);
      assert.ok(Number(fileControl.slice(43, 55)) <= 999_999_999_999, fileControl);
      assert.match(batchControl.slice(32, 44), /^\d{12}$/);
      for (const entry of records.filter((r) => r.startsWith('6'))) filed.push(entry.slice(39, 54).trim());
    }
    assert.equal(filed.length, 101);
    assert.equal(new Set(filed).size, 101, 'no payout in two files');
    const payouts = await t.db
      .selectFrom('payouts')
      .select(['status', 'end_to_end_id'])
      .where('claim_id', 'in', claims)
      .execute();
    assert.deepEqual(
      payouts.map((p) => p.status),
      Array.from({ length: 101 }, () => 'instructed'),
    );
    assert.deepEqual(new Set(payouts.map((p) => p.end_to_end_id)), new Set(filed));
  });

  it(
    'two runs choose their File ID Modifiers one after the other (the day’s advisory lock)',
    { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite runs one transaction at a time' },
    async () => {
      await usClaim();
      let waiting: ReturnType<typeof batchAt> | undefined;
      await t.db.transaction().execute(async (trx) => {
        // another run holds the lock of 2031-06-18's files of this origin
        await lockNachaFileDay(trx, '1123456789', '2031-06-18');
        waiting = batchAt('2031-06-18T09:00:00Z');
        await eventually(async () => {
          const blocked = await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%pg_advisory_xact_lock%'`.execute(
            t.db,
          );
          return blocked.rows[0]!.n > 0 ? true : undefined;
        });
      });
      const filed = await waiting!;
      assert.ok(filed && 'batchId' in filed, JSON.stringify(filed));
      assert.equal((await headerAndTraces(filed.messageId)).modifier, 'A');
    },
  );

  it('a backlog of ACH payouts never takes the pain.001 files’ slots: EUR first', async () => {
    const eurPartner = await createTestPartner(t.db, { environment: 'production' });
    const operator = (await operatorToken(t, 'ach-eur-first')).auth;
    const flight = await insureFlight(t.app, eurPartner, { flightNumber: `AF${6000 + (process.pid % 300) + n++}` });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: flight.flightNumber, departureDate: flight.departureDate, status: 'cancelled' },
      operator,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const eurClaim = await t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as ct', 'ct.id', 'cl.contract_id')
      .select('cl.id')
      .where('ct.contract_number', '=', flight.contractNumber)
      .executeTakeFirstOrThrow();
    const form = await t.app.inject({
      method: 'POST',
      url: new URL(await productionSmsLink(t, eurClaim.id)).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ accountHolder: 'Hélène Müller', iban: 'DE89 3704 0044 0532 0130 00' }).toString(),
    });
    assert.equal(form.statusCode, 200, form.body.slice(0, 300));
    const us = [await usClaim(), await usClaim()];
    const run = await createPayoutBatches(
      { ...achBatchDeps(t, dir, '2031-06-20T09:00:00Z'), debtor: t.app.parasol.config.sepaDebtor },
      { actor: 'operator:test', limit: 1, filesPerCurrency: 5, maxFiles: 1 },
    );
    assert.deepEqual(
      run.batches.map((b) => [b.scheme, b.currency]),
      [['sepa', 'EUR']],
    );
    // out of the way of the other tests' runs
    await t.db.updateTable('payouts').set({ status: 'cancelled' }).where('claim_id', 'in', us).execute();
  });

  it('the schedule makes the ACH file without the SEPA insurer account', async () => {
    const claimId = await usClaim();
    const report = await runScheduledSepaBatch(achBatchDeps(t, dir, '2031-06-10T09:00:00Z'));
    assert.deepEqual([report.outcome, report.batches.map((b) => b.scheme), report.refused], ['created', ['ach'], []]);
    const payout = await t.db
      .selectFrom('payouts')
      .select('status')
      .where('claim_id', '=', claimId)
      .executeTakeFirstOrThrow();
    assert.equal(payout.status, 'instructed');
  });

  it("without an ACH originator the US accounts' payouts wait, refused and counted among the unfiled", async () => {
    const claimId = await usClaim();
    const run = await createPayoutBatches(
      { ...achBatchDeps(t, dir, '2031-06-11T09:00:00Z'), ach: undefined },
      { actor: 'operator:test' },
    );
    const usd = run.refused.find((r) => r.currency === 'USD');
    assert.ok(usd, JSON.stringify(run.refused));
    assert.match(usd.message, /PARASOL_ACH_/);
    assert.ok(usd.payouts >= 1);
    assert.deepEqual([run.batches.length, run.unfiled], [0, usd.payouts], 'every waiting ACH payout is unfiled');
    const payout = await t.db
      .selectFrom('payouts')
      .select('status')
      .where('claim_id', '=', claimId)
      .executeTakeFirstOrThrow();
    assert.equal(payout.status, 'pending');
  });
  it('`parasol payouts batch` counts the ACH payouts still pending after its files: run again, or the next day when the day is full', async () => {
    const stillPending = async () =>
      Number(
        (
          await t.db
            .selectFrom('payouts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('rail', '=', 'ach')
            .where('status', '=', 'pending')
            .where('left_out_at', 'is', null)
            .executeTakeFirstOrThrow()
        ).n,
      );
    for (let i = 0; i < 11; i++) await usClaim();
    // one payout a file: the run's 10 files leave one (at least) pending
    const full = await runCliOn(t, ['payouts', 'batch', '--limit', '1'], { actor: 'operator:test' });
    assert.equal(full.code, 0, full.err);
    assert.equal([...full.out.matchAll(/^Batch /gm)].length, 10, full.out);
    const waiting = await stillPending();
    assert.ok(waiting >= 1);
    assert.match(
      full.out,
      new RegExp(`^${waiting} ACH payouts? still waits? for a NACHA file: .*run parasol payouts batch again\\.$`, 'm'),
    );

    // the day's modifiers all taken but the last (9): a file, then the next refused (ach_day_full), no "run again"
    await usClaim();
    const today = new Date().toISOString().slice(0, 10);
    const used = new Set(
      (
        await t.db
          .selectFrom('sepa_batches')
          .select('nacha_file_id_modifier')
          .where('nacha_file_date', '=', today)
          .where('nacha_origin', '=', '1123456789')
          .execute()
      ).map((r) => r.nacha_file_id_modifier),
    );
    const free = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'].filter((m) => !used.has(m));
    for (const m of free.slice(0, -1))
      await t.db
        .insertInto('sepa_batches')
        .values({
          message_id: `PSL-FULL-${m}`,
          created_at: new Date(),
          created_by: 'operator:test',
          execution_date: today,
          payouts_count: 1,
          control_sum: 100,
          currency: 'USD',
          format: 'nacha',
          xml_enc: 'sealed',
          nacha_origin: '1123456789',
          nacha_file_date: today,
          nacha_file_id_modifier: m,
          file_path: path.join(dir, `PSL-FULL-${m}.ach`),
        })
        .execute();
    const dayFull = await runCliOn(t, ['payouts', 'batch', '--limit', '1'], { actor: 'operator:test' });
    assert.equal(dayFull.code, 0, dayFull.err);
    assert.equal([...dayFull.out.matchAll(/^Batch /gm)].length, 1, dayFull.out);
    assert.match(dayFull.out, /REFUSED USD: .*\(ach_day_full\)/);
    const left = await stillPending();
    assert.ok(left >= 1);
    assert.match(
      dayFull.out,
      new RegExp(
        `^${left} ACH payouts? still waits? for a NACHA file: the day's 36 files are made, they go in the next day's first file`,
        'm',
      ),
    );
    assert.doesNotMatch(dayFull.out, /again/, dayFull.out);
  });
});
