import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { JOBS, type JobRuntime } from '../../src/jobs/registry.ts';
import { createPayoutBatches, createSepaBatch, MAX_BATCH } from '../../src/payouts/sepa-batch.ts';
import { LEFT_OUT_PAYOUT } from '../../src/payouts/payouts-repo.ts';
import { FILE_RECOVERY_GRACE_MS, payoutReportDueBefore, SCHEDULE_ACTOR } from '../../src/payouts/sepa-schedule.ts';
import { isTargetBusinessDay, sepaExecutionDate } from '../../src/payouts/target-calendar.ts';
import type { Config } from '../../src/platform/config.ts';
import { DomainError } from '../../src/platform/errors.ts';
import { DatabaseGauges, sepaBatchRunsTotal } from '../../src/platform/metrics.ts';
import { registerSchedules } from '../../src/worker.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  operatorToken,
  post,
  productionSmsLink,
  runCliOn,
  sepaPayoutsEnv,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { crossBorderXsd, validateWithXmllint } from './xmllint.ts';

/**
 * The scheduled SEPA batch (job payouts_sepa_batch, src/payouts/sepa-schedule.ts): production payouts
 * are put in a file without an operator, once each however many runs, never without the insurer's
 * account, and a file lost to a crash after the commit is written by the next run.
 */
describe('the scheduled SEPA batch', () => {
  let t: TestApp;
  let partner: TestPartner;
  let payoutsDir: string;
  let operator: { authorization: string };
  let seq = 5300 + (process.pid % 400);

  before(async () => {
    payoutsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-sepa-schedule-'));
    t = await buildTestApp({
      env: {
        PARASOL_JOB_POLL_SECONDS: '1',
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        ...sepaPayoutsEnv(payoutsDir),
      },
    });
    partner = await createTestPartner(t.db, { environment: 'production' });
    operator = (await operatorToken(t, 'schedule test')).auth;
  });
  after(async () => {
    await t.close();
    await fs.rm(payoutsDir, { recursive: true, force: true });
  });

  /** `n` claims on one cancelled production flight, each with bank details: `n` pending production payouts. */
  async function pendingPayouts(
    n: number,
    who: TestPartner = partner,
    bic = '',
    iban = 'DE89 3704 0044 0532 0130 00',
  ): Promise<string[]> {
    const flightNumber = `AF${seq++}`;
    let departureDate = '';
    for (let i = 0; i < n; i++) departureDate = (await insureFlight(t.app, who, { flightNumber })).departureDate;
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber, departureDate, status: 'cancelled' },
      operator,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const claimNumbers = (opened.body.claimsOpened as { claimNumber: string }[]).map((c) => c.claimNumber);
    assert.equal(claimNumbers.length, n);
    const ids: string[] = [];
    for (const claimNumber of claimNumbers) {
      const claim = await t.db
        .selectFrom('claims')
        .select('id')
        .where('claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
      const link = await productionSmsLink(t, claim.id);
      const form = await t.app.inject({
        method: 'POST',
        url: new URL(link).pathname,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          accountHolder: 'Hélène Müller',
          iban,
          bic,
        }).toString(),
      });
      assert.equal(form.statusCode, 200, form.body.slice(0, 300));
      const payout = await t.db
        .selectFrom('payouts')
        .select(['id', 'status', 'rail'])
        .where('claim_id', '=', claim.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([payout.status, payout.rail], ['pending', 'sepa']);
      ids.push(payout.id);
    }
    return ids;
  }

  /** The job's handler as the worker runs it, on this app's services; what it logs is kept. */
  function job(config: Partial<Config> = {}, now: () => Date = () => new Date()) {
    const logs: { level: string; data: Record<string, unknown>; message: string }[] = [];
    const record = (level: string) => (data: unknown, message?: string) =>
      void logs.push({ level, data: data as Record<string, unknown>, message: message ?? '' });
    const rt = {
      db: t.db,
      keys: t.app.parasol.keys,
      jobs: t.app.parasol.jobs,
      config: { ...t.app.parasol.config, ...config },
      now,
      log: { info: record('info'), warn: record('warn'), error: record('error') },
    } as unknown as JobRuntime;
    const handler = JOBS.payouts_sepa_batch.handler(rt);
    return { run: () => handler({ id: 'test', data: {} }), logs };
  }

  const batchesOf = async (payoutIds: string[]) =>
    t.db.selectFrom('payouts').select(['id', 'status', 'batch_id']).where('id', 'in', payoutIds).execute();
  const batchCount = async () =>
    Number(
      (
        await t.db
          .selectFrom('sepa_batches')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const files = async () => (await fs.readdir(payoutsDir)).filter((f) => f.endsWith('.xml')).sort();

  it('nothing pending: no batch, no file, no failure', async () => {
    const before = await batchCount();
    const { run, logs } = job();
    await run();
    assert.equal(await batchCount(), before);
    assert.deepEqual(await files(), []);
    assert.deepEqual(
      logs.filter((l) => l.level !== 'info'),
      [],
    );
  });

  it('without the insurer account: no batch, a warning naming the variables, and the run does not fail', async () => {
    const ids = await pendingPayouts(1);
    const before = await batchCount();
    const { run, logs } = job({ sepaDebtor: undefined });
    await run(); // resolves: a failing job would only be retried into the same answer
    assert.equal(await batchCount(), before);
    assert.equal((await batchesOf(ids))[0]!.status, 'pending');
    const warning = logs.find((l) => l.level === 'warn');
    assert.ok(warning, JSON.stringify(logs));
    assert.match(warning.message, /PARASOL_SEPA_DEBTOR_NAME/);
    assert.ok(Number(warning.data.waiting) >= 1);
    // the next run with the account configured pays it (and whatever else waits)
    await job().run();
    assert.equal((await batchesOf(ids))[0]!.status, 'instructed');
  });

  it('batches the pending payouts into a file valid against the EPC schema, audited as the schedule', async () => {
    const ids = await pendingPayouts(3);
    const now = new Date();
    await job({}, () => now).run();
    const rows = await batchesOf(ids);
    assert.deepEqual(
      rows.map((r) => r.status),
      ['instructed', 'instructed', 'instructed'],
    );
    const batchIds = new Set(rows.map((r) => r.batch_id));
    assert.equal(batchIds.size, 1, 'one file');
    const batch = await t.db
      .selectFrom('sepa_batches')
      .select(['message_id', 'created_by', 'execution_date', 'file_path', 'payouts_count'])
      .where('id', '=', [...batchIds][0]!)
      .executeTakeFirstOrThrow();
    assert.equal(batch.created_by, SCHEDULE_ACTOR);
    assert.equal(batch.payouts_count, 3);
    assert.equal(batch.execution_date, sepaExecutionDate(now), 'the TARGET calendar and the cut-off');
    assert.equal(batch.file_path, path.join(payoutsDir, `${batch.message_id}.xml`));
    const xml = await fs.readFile(batch.file_path!, 'utf8');
    const check = validateWithXmllint(xml);
    assert.ok(check.valid, check.output);
    assert.match(xml, /<NbOfTxs>3<\/NbOfTxs>/);
    assert.match(xml, /Helene Muller/, 'the creditor name in the SEPA character set');
    const stat = await fs.stat(batch.file_path!);
    assert.equal(stat.mode & 0o777, 0o600);
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('entity', '=', 'sepa_batch')
      .where('entity_id', '=', batch.message_id)
      .execute();
    assert.deepEqual(audit, [{ actor: SCHEDULE_ACTOR, action: 'created' }]);
  });

  it('batches every currency in one run: a SEPA file for EUR, a cross-border file for GBP from its own account; a currency no transfer carries is refused loudly and stays pending', async () => {
    const pounds = await createTestPartner(t.db, { environment: 'production', agreement: { currency: 'GBP' } });
    const eur = await pendingPayouts(2);
    // a transfer outside SEPA names the creditor's bank: given here; one without is left out
    const gbp = await pendingPayouts(2, pounds, 'COBADEFFXXX');
    // details given before the page required the BIC of a claim in another currency than EUR
    const [noBic] = await pendingPayouts(1, pounds, 'COBADEFFXXX');
    const { claim_id: noBicClaim } = await t.db
      .selectFrom('payouts')
      .select('claim_id')
      .where('id', '=', noBic!)
      .executeTakeFirstOrThrow();
    await t.db.updateTable('claim_bank_details').set({ bic: null }).where('claim_id', '=', noBicClaim).execute();
    // a payout in a currency no bank transfer carries (a partner configured before such currencies were refused)
    const [legacy, unknown] = await pendingPayouts(2);
    await t.db.updateTable('payouts').set({ currency: 'HRK' }).where('id', '=', legacy!).execute();
    // and one whose file is refused (no ISO currency): its currency is skipped, the others go on
    await t.db.updateTable('payouts').set({ currency: 'ABC' }).where('id', '=', unknown!).execute();
    const gauges = await new DatabaseGauges(t.db, {
      leftOutPayout: LEFT_OUT_PAYOUT,
      ttlMs: 0,
      reportDueBefore: payoutReportDueBefore,
    }).metrics();
    assert.match(gauges, /^parasol_production_payouts_pending\{currency="GBP"\} [1-9]/m);
    assert.match(gauges, /^parasol_production_payouts_pending\{currency="HRK"\} [1-9]/m);

    const debtor = t.app.parasol.config.sepaDebtor!;
    const gbpAccount = { iban: 'GB33BUKB20201555555555', bic: 'BUKBGB22' };
    const { run, logs } = job({ sepaDebtor: { ...debtor, accounts: { GBP: gbpAccount } } });
    await run();
    const rows = await batchesOf([...eur, ...gbp, legacy!, unknown!]);
    const statusOf = (id: string) => rows.find((r) => r.id === id)!.status;
    assert.deepEqual([...eur, ...gbp].map(statusOf), ['instructed', 'instructed', 'instructed', 'instructed']);
    assert.equal(statusOf(legacy!), 'pending', 'never in a file');
    assert.equal(statusOf(unknown!), 'pending');
    assert.equal((await batchesOf([noBic!]))[0]!.status, 'pending', 'no BIC: left out of the GBP file');
    const batchOf = (id: string) => rows.find((r) => r.id === id)!.batch_id!;
    assert.notEqual(batchOf(eur[0]!), batchOf(gbp[0]!), 'one file per currency');
    const stored = await t.db
      .selectFrom('sepa_batches')
      .select(['id', 'currency', 'file_path', 'payouts_count', 'control_sum', 'created_by'])
      .where('id', 'in', [batchOf(eur[0]!), batchOf(gbp[0]!)])
      .execute();
    const byCurrency = Object.fromEntries(stored.map((b) => [b.currency, b]));
    assert.deepEqual(Object.keys(byCurrency).sort(), ['EUR', 'GBP']);
    assert.equal(byCurrency.GBP!.created_by, SCHEDULE_ACTOR);

    const sepa = await fs.readFile(byCurrency.EUR!.file_path!, 'utf8');
    const sepaCheck = validateWithXmllint(sepa);
    assert.ok(sepaCheck.valid, sepaCheck.output);
    assert.match(sepa, /<SvcLvl><Cd>SEPA<\/Cd><\/SvcLvl>/);
    assert.match(sepa, new RegExp(`<IBAN>${debtor.iban}</IBAN>`));

    const crossBorder = await fs.readFile(byCurrency.GBP!.file_path!, 'utf8');
    const crossCheck = validateWithXmllint(crossBorder, crossBorderXsd());
    assert.ok(crossCheck.valid, crossCheck.output);
    assert.doesNotMatch(crossBorder, /SEPA/);
    assert.match(crossBorder, /<ChrgBr>SHAR<\/ChrgBr>/);
    assert.match(crossBorder, new RegExp(`<DbtrAcct><Id><IBAN>${gbpAccount.iban}</IBAN></Id></DbtrAcct>`));
    assert.match(crossBorder, new RegExp(`<DbtrAgt><FinInstnId><BICFI>${gbpAccount.bic}</BICFI>`));
    const amounts = [...crossBorder.matchAll(/<InstdAmt Ccy="GBP">([^<]+)<\/InstdAmt>/g)].map((m) => m[1]);
    assert.equal(amounts.length, byCurrency.GBP!.payouts_count);
    assert.ok(amounts.every((a) => /^\d+\.\d{2}$/.test(a!)));

    // the refusal is said at error level, with why, every run until an operator acts
    const refusal = logs.find((l) => l.level === 'error' && l.data.currency === 'HRK');
    assert.ok(refusal, JSON.stringify(logs));
    assert.equal(refusal.data.reason, 'untransferable');
    assert.match(String(refusal.data.detail), /HRK cannot be paid: the kuna was withdrawn/);
    const invalid = logs.find((l) => l.level === 'error' && l.data.currency === 'ABC');
    assert.ok(invalid, JSON.stringify(logs));
    assert.equal(invalid.data.reason, 'invalid');
    assert.match(
      String(invalid.data.detail),
      /^ABC credit transfer file refused: .*\/currency must be an ISO 4217 currency code/,
    );
    const withoutBic = logs.find((l) => l.level === 'error' && l.data.currency === 'GBP');
    assert.ok(withoutBic, JSON.stringify(logs));
    assert.match(String(withoutBic.data.detail), /^creditorBic is required for a transfer outside SEPA/);
    const cli = await runCliOn(t, ['payouts', 'batch']);
    assert.equal(cli.code, 0, cli.err);
    assert.match(cli.out, /REFUSED HRK: 1 pending payout\(s\) not paid \(untransferable\)/);
    assert.match(
      cli.out,
      /LEFT OUT \S+ \(GBP, claim \S+, for < 1 h\): creditorBic is required for a transfer outside SEPA.*parasol payouts set-bic/,
    );
    // out of the way of the next tests' runs
    await t.db
      .updateTable('payouts')
      .set({ status: 'failed', failure_reason: 'test: set aside' })
      .where('id', 'in', [legacy!, unknown!, noBic!])
      .execute();
  });

  it('a payout to a bank outside the EEA waits for the insurer’s address: left out without it, paid in the next run once it is set', async () => {
    const [german] = await pendingPayouts(1);
    const [swiss] = await pendingPayouts(1, partner, 'UBSWCHZH80A', 'CH93 0076 2011 6238 5295 7');
    const debtor = t.app.parasol.config.sepaDebtor!;
    assert.ok(debtor.address, 'the tests configure PARASOL_SEPA_DEBTOR_ADDRESS');
    const { address: _address, ...withoutAddress } = debtor;
    const first = job({ sepaDebtor: withoutAddress });
    await first.run();
    const statusOf = async (id: string) => (await batchesOf([id]))[0]!.status;
    assert.equal(await statusOf(german!), 'instructed', 'within the EEA: in the file');
    assert.equal(await statusOf(swiss!), 'pending', 'outside the EEA, no address: left out');
    const mark = await t.db
      .selectFrom('payouts')
      .select(['left_out_code', 'left_out_reason'])
      .where('id', '=', swiss!)
      .executeTakeFirstOrThrow();
    assert.equal(mark.left_out_code, 'no_debtor_address', 'the insurer’s setting, not the customer’s IBAN');
    assert.equal(
      mark.left_out_reason,
      "debtorAddress is required for a bank outside the EEA (CH): set PARASOL_SEPA_DEBTOR_ADDRESS, the insurer's postal address",
    );
    assert.ok(
      first.logs.some((l) => l.level === 'error' && /PARASOL_SEPA_DEBTOR_ADDRESS/.test(JSON.stringify(l.data))),
    );

    await job().run();
    const [row] = await batchesOf([swiss!]);
    assert.equal(row!.status, 'instructed');
    const stored = await t.db
      .selectFrom('sepa_batches')
      .select('file_path')
      .where('id', '=', row!.batch_id!)
      .executeTakeFirstOrThrow();
    const xml = await fs.readFile(stored.file_path!, 'utf8');
    const check = validateWithXmllint(xml);
    assert.ok(check.valid, check.output);
    assert.match(
      xml,
      /<Dbtr><Nm>Parasol Assurances SA<\/Nm><PstlAdr><Ctry>FR<\/Ctry><AdrLine>1 place de la Bourse<\/AdrLine><AdrLine>75002 Paris<\/AdrLine><\/PstlAdr><\/Dbtr>/,
    );
    assert.match(xml, /<IBAN>CH9300762011623852957<\/IBAN>/);
  });

  it('two runs on one day: each file’s identifiers in the SEPA set and unique across the day’s files, its execution date the next TARGET business day', async () => {
    // Wednesday 24 December 2025 after the 14:00 cut-off: not Christmas (25th, a TARGET holiday), not
    // Boxing Day (26th, also one), not the weekend — Monday the 29th (an instant before the other
    // tests' batches: they read theirs by creation order)
    const now = new Date('2025-12-24T15:00:00Z');
    const morning = await pendingPayouts(2);
    await job({}, () => now).run();
    const evening = await pendingPayouts(1);
    await job({}, () => new Date(now.getTime() + 3_600_000)).run();
    const rows = await batchesOf([...morning, ...evening]);
    const batchIds = [...new Set(rows.map((r) => r.batch_id))];
    assert.equal(batchIds.length, 2, 'two files');
    const batches = await t.db
      .selectFrom('sepa_batches')
      .select(['message_id', 'execution_date', 'file_path'])
      .where('id', 'in', batchIds as string[])
      .execute();
    const seen = new Set<string>();
    for (const batch of batches) {
      assert.match(batch.message_id, /^PSL-20251224-[0-9A-F]{16}$/, 'both of the same day');
      const xml = await fs.readFile(batch.file_path!, 'utf8');
      const check = validateWithXmllint(xml);
      assert.ok(check.valid, check.output);
      const ids = [...xml.matchAll(/<(MsgId|PmtInfId|EndToEndId)>([^<]*)</g)].map((m) => m[2]!);
      assert.ok(ids.length >= 3, xml);
      for (const id of ids) {
        assert.match(id, /^[A-Za-z0-9/\-?:().,'+]{1,35}$/, `${id} in the SEPA identifier set`);
        assert.ok(!id.startsWith('/') && !id.endsWith('/') && !id.includes('//'), id);
        assert.ok(!seen.has(id), `${id} unique across the day's files`);
        seen.add(id);
      }
      const [date] = /<ReqdExctnDt><Dt>([^<]*)<\/Dt>/.exec(xml)!.slice(1);
      assert.equal(date, '2025-12-29', 'the next TARGET business day after the cut-off');
      assert.ok(isTargetBusinessDay(date!));
      assert.equal(batch.execution_date, date);
    }
  });

  it('a run whose every pending payout is refused records outcome refused, never nothing_pending', async () => {
    const [only] = await pendingPayouts(1);
    await t.db.updateTable('payouts').set({ currency: 'HRK' }).where('id', '=', only!).execute();
    const runs = async () =>
      Object.fromEntries((await sepaBatchRunsTotal.get()).values.map((v) => [String(v.labels.outcome), v.value]));
    const before = await runs();
    const { run, logs } = job();
    await run();
    const after = await runs();
    assert.deepEqual(
      ['refused', 'nothing_pending', 'created'].map((o) => (after[o] ?? 0) - (before[o] ?? 0)),
      [1, 0, 0],
      'the run is counted as refused',
    );
    assert.ok(
      logs.some((l) => l.level === 'error' && l.data.currency === 'HRK'),
      `the refusal is logged: ${JSON.stringify(logs)}`,
    );
    await t.db
      .updateTable('payouts')
      .set({ status: 'failed', failure_reason: 'test: set aside' })
      .where('id', '=', only!)
      .execute();
  });

  it('an execution date no bank executes (a TARGET holiday, a weekend, a past day, today after the cut-off, too far ahead) refuses every pain.001 currency, reported; the payouts stay pending', async () => {
    const [only] = await pendingPayouts(1);
    const before = await batchCount();
    // Wednesday 24 December 2031, 15:00 in Frankfurt: after the 14:00 cut-off
    const deps = {
      db: t.db,
      keys: t.app.parasol.keys,
      now: () => new Date('2031-12-24T14:00:00Z'),
      debtor: t.app.parasol.config.sepaDebtor,
      directory: payoutsDir,
    };
    const run = (executionDate: string) => createPayoutBatches(deps, { actor: 'operator:test', executionDate });
    for (const [date, says] of [
      ['2031-12-25', /not a TARGET business day.*the next business day is 2031-12-29/],
      ['2031-12-27', /not a TARGET business day/],
      ['2031-12-23', /in the past \(today is 2031-12-24.*the earliest is 2031-12-29/],
      ['2031-12-24', /after the bank's cut-off \(14:00 .*the earliest is 2031-12-29/],
      ['2032-03-01', /more than 30 TARGET business days ahead: the latest is 2032-02-09/],
    ] as const) {
      const result = await run(date);
      assert.deepEqual(result.batches, [], date);
      assert.deepEqual(
        result.refused.map((r) => [r.currency, r.reason]),
        [['EUR', 'invalid']],
        date,
      );
      assert.match(result.refused[0]!.message, says);
      assert.match(result.refused[0]!.message, /--execution-date dates the pain\.001 files only/);
    }
    // what is not a date refuses the run itself
    await assert.rejects(run('2031-02-30'), (error: unknown) => {
      assert.ok(error instanceof DomainError && error.code === 'validation_failed', String(error));
      assert.deepEqual(
        (error.extra.errors ?? []).map((e) => [e.field, e.code]),
        [['/executionDate', 'invalid_format']],
      );
      return true;
    });
    // one currency's file, asked for directly, is refused too: before any payout is taken
    await assert.rejects(
      createSepaBatch(deps, { actor: 'operator:test', executionDate: '2031-12-25' }),
      (error: unknown) => {
        assert.ok(error instanceof DomainError && error.code === 'validation_failed', String(error));
        const [problem] = error.extra.errors ?? [];
        assert.deepEqual([problem?.field, problem?.code], ['/executionDate', 'not_allowed']);
        return true;
      },
    );
    // the operator's command line: the option named, exit code 1 for a non-date; a refused date is a
    // REFUSED line for each pain.001 currency (exit 0, as any refused currency)
    const malformed = await runCliOn(t, ['payouts', 'batch', '--execution-date', '2031-02-30']);
    assert.equal(malformed.code, 1);
    assert.match(malformed.err, /--execution-date: must be a calendar date YYYY-MM-DD/);
    const past = await runCliOn(t, ['payouts', 'batch', '--execution-date', '2020-01-02']);
    assert.equal(past.code, 0, past.err);
    assert.match(
      past.out,
      /REFUSED EUR: \d+ pending payout\(s\) not paid \(invalid\): no pain\.001 file was made: the execution date 2020-01-02 is in the past/,
    );
    assert.equal(await batchCount(), before, 'no file made');
    assert.deepEqual(
      (await batchesOf([only!])).map((p) => [p.status, p.batch_id]),
      [['pending', null]],
    );
    await t.db
      .updateTable('payouts')
      .set({ status: 'failed', failure_reason: 'test: set aside' })
      .where('id', '=', only!)
      .execute();
  });

  it('a payout its file cannot hold is left out, reported by end-to-end id (worker log, CLI line) and stays pending; the others of its currency are filed', async () => {
    const ids = await pendingPayouts(3);
    const faulty = ids[1]!;
    const { claim_id: claimId, end_to_end_id: endToEndId } = await t.db
      .selectFrom('payouts')
      .select(['claim_id', 'end_to_end_id'])
      .where('id', '=', faulty)
      .executeTakeFirstOrThrow();
    // a BIC the file builder refuses (details given before the form checked it, or edited by hand)
    await t.db.updateTable('claim_bank_details').set({ bic: 'NOTABIC1' }).where('claim_id', '=', claimId).execute();
    const { run, logs } = job();
    await run();
    const rows = await batchesOf(ids);
    const statusOf = (id: string) => rows.find((r) => r.id === id)!.status;
    assert.deepEqual(ids.map(statusOf), ['instructed', 'pending', 'instructed']);
    const [batchId] = new Set(rows.filter((r) => r.batch_id).map((r) => r.batch_id));
    const batch = await t.db
      .selectFrom('sepa_batches')
      .select(['payouts_count', 'file_path'])
      .where('id', '=', batchId!)
      .executeTakeFirstOrThrow();
    assert.equal(batch.payouts_count, 2);
    const xml = await fs.readFile(batch.file_path!, 'utf8');
    assert.ok(!xml.includes(endToEndId), 'the faulty payout is not in the file');
    const check = validateWithXmllint(xml);
    assert.ok(check.valid, check.output);
    const left = logs.find((l) => l.level === 'error' && l.data.endToEndId === endToEndId);
    assert.ok(left, JSON.stringify(logs));
    assert.equal(left.data.currency, 'EUR');
    assert.match(String(left.data.detail), /^creditorBic /);
    assert.ok(!logs.some((l) => /\/payouts\/\d+/.test(JSON.stringify(l.data))), 'no index of a file');
    // said again by each run while it waits, the command's line naming it
    const cli = await runCliOn(t, ['payouts', 'batch']);
    assert.equal(cli.code, 0, cli.err);
    assert.match(
      cli.out,
      new RegExp(`LEFT OUT ${endToEndId} \\(EUR, claim \\S+, for < 1 h\\): creditorBic .*it stays pending`),
    );
    // the worker says it once at error, then in one warning line per run while it waits
    const { run: runAgain, logs: later } = job();
    await runAgain();
    assert.ok(!later.some((l) => l.level === 'error' && l.data.endToEndId === endToEndId), JSON.stringify(later));
    const still = later.find((l) => l.level === 'warn' && /still left out/.test(l.message));
    assert.ok(still, JSON.stringify(later));
    assert.ok(Number(still.data.payouts) >= 1);
    assert.equal((await batchesOf([faulty]))[0]!.status, 'pending');
    await t.db
      .updateTable('payouts')
      .set({ status: 'failed', failure_reason: 'test: set aside' })
      .where('id', '=', faulty)
      .execute();
  });

  it('two runs at once never put a payout in two batches', async () => {
    const ids = await pendingPayouts(6);
    const before = await batchCount();
    await Promise.all([job().run(), job().run(), job().run()]);
    const rows = await batchesOf(ids);
    assert.ok(
      rows.every((r) => r.status === 'instructed' && r.batch_id),
      JSON.stringify(rows),
    );
    const created = await t.db
      .selectFrom('sepa_batches')
      .select(['id', 'payouts_count', 'file_path'])
      .orderBy('created_at')
      .offset(before)
      .limit(MAX_BATCH)
      .execute();
    // every payout instructed is in exactly one batch: the batches' counts add up to the payouts
    const inBatches = await t.db
      .selectFrom('payouts')
      .select(['batch_id', (eb) => eb.fn.countAll<string>().as('n')])
      .where(
        'batch_id',
        'in',
        created.map((b) => b.id),
      )
      .groupBy('batch_id')
      .execute();
    for (const b of created) {
      assert.equal(Number(inBatches.find((r) => r.batch_id === b.id)?.n ?? 0), b.payouts_count);
      assert.ok(b.file_path, 'each batch has its file');
    }
    assert.equal(
      created.reduce((sum, b) => sum + b.payouts_count, 0),
      6,
      'six transfers in all, however the runs shared them',
    );
    // the files hold each end-to-end id once
    const endToEnd = await t.db.selectFrom('payouts').select('end_to_end_id').where('id', 'in', ids).execute();
    const xml = (await Promise.all(created.map((b) => fs.readFile(b.file_path!, 'utf8')))).join('\n');
    for (const { end_to_end_id } of endToEnd)
      assert.equal(xml.split(`<EndToEndId>${end_to_end_id}</EndToEndId>`).length - 1, 1, end_to_end_id);
  });

  it('a batch committed without its file: never written by the job (it may have reached the bank), reported until an operator exports it; one found in the directory is recorded', async () => {
    const ids = await pendingPayouts(2);
    // the batch commits, then its file cannot be written: as if the process had stopped in between
    const blocked = path.join(payoutsDir, 'not-a-directory');
    await fs.writeFile(blocked, '');
    await assert.rejects(
      createSepaBatch(
        {
          db: t.db,
          keys: t.app.parasol.keys,
          now: () => new Date(),
          debtor: t.app.parasol.config.sepaDebtor,
          directory: blocked,
        },
        { actor: 'operator:test' },
      ),
    );
    await fs.rm(blocked);
    const [row] = await batchesOf(ids);
    assert.equal(row!.status, 'instructed');
    const batch = await t.db
      .selectFrom('sepa_batches')
      .select(['message_id', 'file_path'])
      .where('id', '=', row!.batch_id!)
      .executeTakeFirstOrThrow();
    assert.equal(batch.file_path, null);

    // within the grace period the batch's creator may still be writing it: left alone
    await job().run();
    assert.equal(
      (
        await t.db
          .selectFrom('sepa_batches')
          .select('file_path')
          .where('id', '=', row!.batch_id!)
          .executeTakeFirstOrThrow()
      ).file_path,
      null,
    );

    const later = new Date(Date.now() + FILE_RECOVERY_GRACE_MS + 60_000);
    const { run, logs } = job({}, () => later);
    await run();
    const written = path.join(payoutsDir, `${batch.message_id}.xml`);
    const filePathOf = async () =>
      (
        await t.db
          .selectFrom('sepa_batches')
          .select('file_path')
          .where('id', '=', row!.batch_id!)
          .executeTakeFirstOrThrow()
      ).file_path;
    assert.equal(await filePathOf(), null, 'not written: whether it reached the bank is unknown here');
    await assert.rejects(fs.stat(written));
    assert.ok(logs.some((l) => l.level === 'error' && l.data.messageId === batch.message_id));
    const gauge = async () =>
      Number(
        /^parasol_sepa_batches_without_file (\d+)$/m.exec(
          await new DatabaseGauges(t.db, {
            leftOutPayout: LEFT_OUT_PAYOUT,
            ttlMs: 0,
            reportDueBefore: payoutReportDueBefore,
          }).metrics(),
        )?.[1],
      );
    // the gauge reads its own clock against the batch's created_at: the batch as created 10 minutes ago
    await t.db
      .updateTable('sepa_batches')
      .set({ created_at: new Date(Date.now() - 10 * 60_000) })
      .where('id', '=', row!.batch_id!)
      .execute();
    const reportedBefore = await gauge();
    assert.ok(reportedBefore >= 1, `the batch without file counted: ${reportedBefore}`);

    // the operator checks with the bank and writes it (payouts export records it): the report ends
    const exported = await runCliOn(t, ['payouts', 'export', batch.message_id]);
    assert.equal(exported.code, 0, exported.err);
    assert.equal(await filePathOf(), written);
    assert.equal(await gauge(), reportedBefore - 1);
    const text = await fs.readFile(written, 'utf8');
    const check = validateWithXmllint(text);
    assert.ok(check.valid, check.output);

    // written, then the process stopped before recording it: the file under its name is recorded as it is
    await t.db.updateTable('sepa_batches').set({ file_path: null }).where('id', '=', row!.batch_id!).execute();
    const again = job({}, () => later);
    await again.run();
    assert.equal(await filePathOf(), written);
    assert.ok(again.logs.some((l) => l.level === 'warn' && l.data.messageId === batch.message_id));
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('entity', '=', 'sepa_batch')
      .where('entity_id', '=', batch.message_id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audit.map((a) => a.action),
      ['created', 'exported', 'file_recorded'],
    );
    // a file once recorded is never written again by the schedule (it may have gone to the bank)
    await fs.rm(written);
    await job({}, () => later).run();
    await assert.rejects(fs.stat(written));

    // written, not recorded, and no pain.001 to make (no insurer account, no ACH payout): the run
    // returns early, yet records the file first
    await fs.writeFile(written, text);
    await t.db.updateTable('sepa_batches').set({ file_path: null }).where('id', '=', row!.batch_id!).execute();
    const noDebtor = job({ sepaDebtor: undefined }, () => later);
    await noDebtor.run();
    assert.equal(await filePathOf(), written, 'recorded by a run without the insurer account');

    // a file under its name that is not its own (other bytes): no proof the batch's file went
    // anywhere, never recorded as it, the batch still reported
    await t.db.updateTable('sepa_batches').set({ file_path: null }).where('id', '=', row!.batch_id!).execute();
    await fs.writeFile(written, text.replace('<CdtTrfTxInf>', '<CdtTrfTxInf> '));
    const foreign = job({}, () => later);
    await foreign.run();
    assert.equal(await filePathOf(), null, 'a file with other bytes is not recorded');
    assert.ok(foreign.logs.some((l) => l.level === 'error' && l.data.messageId === batch.message_id));
    await fs.writeFile(written, text);

    // written, not recorded, the schedule off: `payouts export` records the file it finds when its bytes
    // are the batch's, and refuses (records nothing, overwrites nothing) one with other bytes
    await t.db.updateTable('sepa_batches').set({ file_path: null }).where('id', '=', row!.batch_id!).execute();
    await fs.writeFile(written, text.replace('<CdtTrfTxInf>', '<CdtTrfTxInf> '));
    const differs = await runCliOn(t, ['payouts', 'export', batch.message_id]);
    assert.equal(differs.code, 1);
    assert.match(differs.err, /is not this batch's file \(its bytes differ/);
    assert.equal(await filePathOf(), null);
    await fs.writeFile(written, text);
    const found = await runCliOn(t, ['payouts', 'export', batch.message_id]);
    assert.equal(found.code, 0, found.err);
    assert.equal(found.out.trim().split('\n').pop()?.includes(written), true, found.out);
    assert.equal(await filePathOf(), written);
    assert.equal(await fs.readFile(written, 'utf8'), text);
    const trail = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('entity', '=', 'sepa_batch')
      .where('entity_id', '=', batch.message_id)
      .orderBy('id')
      .execute();
    assert.deepEqual(trail.at(-1), { actor: 'operator:test', action: 'file_recorded' });
  });

  it('gauges: pending production payouts and the oldest one’s age; instructed payouts the bank has not reported', async () => {
    const [pending] = await pendingPayouts(1);
    const gauges = new DatabaseGauges(t.db, {
      leftOutPayout: LEFT_OUT_PAYOUT,
      ttlMs: 0,
      reportDueBefore: payoutReportDueBefore,
    });
    const text = await gauges.metrics();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.ok(value('parasol_production_payouts_pending\\{currency="EUR"\\}') >= 1, text);
    assert.ok(value('parasol_production_payouts_pending_oldest_age_seconds\\{currency="EUR"\\}') >= 0, text);
    const unreportedBefore = value('parasol_production_payouts_unreported');

    await job().run();
    // its file went out ten days ago and the bank never reported it
    await t.db
      .updateTable('payouts')
      .set({ instructed_at: new Date(Date.now() - 10 * 86_400_000) })
      .where('id', '=', pending!)
      .execute();
    const after = await gauges.metrics();
    assert.equal(
      Number(/^parasol_production_payouts_unreported (\S+)$/m.exec(after)?.[1]),
      unreportedBefore + 1,
      after,
    );
    assert.ok(
      Number(/^parasol_production_payouts_instructed_oldest_age_seconds (\S+)$/m.exec(after)?.[1]) >= 10 * 86_400,
    );

    const listed = await runCliOn(t, ['--json', 'payouts', 'list', '--unreported']);
    assert.equal(listed.code, 0, listed.err);
    const claimNumbers = (JSON.parse(listed.out).payouts as { status: string }[]).map((p) => p.status);
    assert.ok(claimNumbers.length >= 1 && claimNumbers.every((s) => s === 'instructed'), listed.out);
  });

  it('runs as a job of the worker (the queue pg-boss ticks on the schedule)', async () => {
    const [id] = await pendingPayouts(1);
    assert.ok(await t.app.parasol.jobs.send('payouts_sepa_batch', {}));
    // the payout turns instructed when the batch commits; its file is written and recorded just after
    const batch = await eventually(
      async () =>
        (await t.db
          .selectFrom('payouts as p')
          .innerJoin('sepa_batches as b', 'b.id', 'p.batch_id')
          .select(['p.status', 'b.created_by', 'b.file_path'])
          .where('p.id', '=', id!)
          .where('b.file_path', 'is not', null)
          .executeTakeFirst()) ?? undefined,
      60_000,
    );
    assert.equal(batch.status, 'instructed');
    assert.equal(batch.created_by, SCHEDULE_ACTOR);
  });

  it('off: the queue has no schedule in pg-boss, and turning it off removes one stored earlier', async () => {
    const jobs = t.app.parasol.jobs;
    assert.equal((await jobs.schedules()).has('payouts_sepa_batch'), false, 'the tests run with it off');
    await registerSchedules(jobs, { sepaBatchSchedule: '0 * * * 1-5' });
    assert.equal((await jobs.schedules()).get('payouts_sepa_batch'), '0 * * * 1-5');
    await registerSchedules(jobs, { sepaBatchSchedule: undefined });
    assert.equal((await jobs.schedules()).has('payouts_sepa_batch'), false);
  });
});
