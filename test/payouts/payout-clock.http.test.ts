import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  operatorToken,
  post,
  sepaPayoutsEnv,
  trip,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { twilioSignature } from '../../src/notify/sms/twilio-signature.ts';
import { reconcilePayouts } from '../../src/payouts/reconcile.ts';
import { LEFT_OUT_PAYOUT } from '../../src/payouts/payouts-repo.ts';
import { createSepaBatch } from '../../src/payouts/sepa-batch.ts';
import { checkUnrecordedSepaFiles } from '../../src/payouts/sepa-schedule.ts';
import { DatabaseGauges } from '../../src/platform/metrics.ts';
import { toDecimalString } from '../../src/platform/money.ts';
import { ACCOUNT_SID, AUTH_TOKEN, startFakeTwilio, type FakeTwilio } from '../notify/twilio-fake.ts';
import { camt054 } from './camt054-sample.ts';

/**
 * A production payout under clocks far from real time (docs/ARCHITECTURE.md, "Clocks"): the payout
 * and its attempt are dated by the bank details' use case, the SEPA batch, its audit row and its
 * payouts' instructed date by the batch's clock, the bank report's mismatch, the payment, its ledger
 * entry and its audit row by the reconciliation's — never by the database's. A batch whose file was
 * never recorded is reported by the schedule's check and the gauge by their clocks, against the
 * batch's; a customer the SMS did not reach is told to the partner at the delivery report's clock.
 */
describe('production payouts on the application clock', () => {
  let t: TestApp;
  let twilio: FakeTwilio;
  let a: TestPartner;
  let dir: string;
  let operator: { authorization: string };
  let clock = new Date();
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-payout-clock-'));
    twilio = await startFakeTwilio({ after: (fn) => void closers.push(fn as () => Promise<void>) });
    t = await buildTestApp({
      now: () => clock,
      env: {
        PARASOL_JOB_POLL_SECONDS: '1',
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent',
        PARASOL_TWILIO_ACCOUNT_SID: ACCOUNT_SID,
        PARASOL_TWILIO_AUTH_TOKEN: AUTH_TOKEN,
        PARASOL_TWILIO_FROM: '+15005550006',
        PARASOL_TWILIO_URL: twilio.baseUrl,
        // the batch is made here, at its own clock: never by the schedule
        PARASOL_SEPA_BATCH_SCHEDULE: 'off',
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on',
        ...sepaPayoutsEnv(dir),
      },
    });
    a = await createTestPartner(t.db, { environment: 'production' });
    operator = (await operatorToken(t, 'payout-clock')).auth;
  });
  after(async () => {
    await t.close();
    for (const close of closers) await close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const linkPattern = /https:\/\/claims\.parasol\.test\/c\/[A-Za-z0-9_-]{43}/;
  const auditAt = async (entity: string, entityId: string, action: string) => {
    const rows = await t.db
      .selectFrom('audit_log')
      .select(['at'])
      .where('entity', '=', entity)
      .where('entity_id', '=', entityId)
      .where('action', '=', action)
      .execute();
    assert.equal(rows.length, 1, `one ${entity} ${action} audit row: ${JSON.stringify(rows)}`);
    return rows[0]!.at.toISOString();
  };

  it('dates the payout, its SEPA batch and the bank report by the use case clocks', async () => {
    const flightNumber = `AF${7600 + (process.pid % 300)}`;
    const departure = trip(12).departureDateTime.slice(0, 10);
    await insureFlight(t.app, a, { flightNumber, language: 'en' });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber, departureDate: departure, status: 'cancelled' },
      operator,
    );
    assert.equal(opened.body.claimsOpened?.length, 1, JSON.stringify(opened.body));
    const claimNumber = opened.body.claimsOpened[0].claimNumber as string;
    const sms = await eventually(async () => twilio.requests.find((r) => r.form.Body?.includes(flightNumber)));
    const link = linkPattern.exec(sms.form.Body!)![0];

    // the customer's bank details, a day from now (the link is valid for days): the payout is requested then
    const DETAILS = new Date(Math.floor(Date.now() / 1000) * 1000 + 86_400_000);
    clock = DETAILS;
    const form = await t.app.inject({
      method: 'POST',
      url: new URL(link).pathname,
      payload: new URLSearchParams({
        accountHolder: 'Jane Smith',
        iban: 'DE89 3704 0044 0532 0130 00',
        bic: '',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.statusCode, 200, form.body);
    const payoutOf = () =>
      t.db
        .selectFrom('payouts as p')
        .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
        .leftJoin('sepa_batches as b', 'b.id', 'p.batch_id')
        .select([
          'p.id',
          'p.status',
          'p.end_to_end_id',
          'p.amount',
          'p.created_at',
          'p.instructed_at',
          'p.settled_at',
          'b.message_id',
          'b.created_at as batch_created_at',
        ])
        .where('cl.claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
    const pending = await payoutOf();
    assert.equal(pending.status, 'pending', 'the payout waits for a batch');
    assert.equal(pending.created_at.toISOString(), DETAILS.toISOString(), 'the payout is created at the clock');
    const attempt = await t.db
      .selectFrom('payout_attempts')
      .select('created_at')
      .where('end_to_end_id', '=', pending.end_to_end_id)
      .executeTakeFirstOrThrow();
    assert.equal(attempt.created_at.toISOString(), DETAILS.toISOString(), 'its first attempt is dated by the clock');

    // the SEPA batch, far from real time
    const BATCH = new Date('2031-05-05T08:00:00.000Z');
    clock = BATCH;
    const batch = await createSepaBatch(
      {
        db: t.db,
        keys: t.app.parasol.keys,
        now: () => clock,
        debtor: t.app.parasol.config.sepaDebtor,
        directory: dir,
      },
      { actor: 'operator:test' },
    );
    assert.ok(batch && 'batchId' in batch, `a batch is made: ${JSON.stringify(batch)}`);
    const instructed = await payoutOf();
    assert.equal(instructed.status, 'instructed', 'the payout is in the file');
    assert.equal(instructed.message_id, batch.messageId, 'in this batch');
    assert.equal(instructed.batch_created_at?.toISOString(), BATCH.toISOString(), 'the batch is created at the clock');
    assert.equal(instructed.instructed_at?.toISOString(), BATCH.toISOString(), 'the payout is instructed at the clock');
    assert.equal(await auditAt('sepa_batch', batch.messageId, 'created'), BATCH.toISOString(), 'the batch audited');

    // its file never recorded as written, and not in the directory: reported once the grace has passed
    // by the checking clock, against the batch's created_at — the schedule's check and the gauge alike
    const { file_path: filePath } = await t.db
      .selectFrom('sepa_batches')
      .select('file_path')
      .where('message_id', '=', batch.messageId)
      .executeTakeFirstOrThrow();
    assert.ok(filePath, 'the batch recorded its file');
    await fs.rename(filePath, `${filePath}.away`);
    await t.db.updateTable('sepa_batches').set({ file_path: null }).where('message_id', '=', batch.messageId).execute();
    const check = async (minutes: number) =>
      (
        await checkUnrecordedSepaFiles({
          db: t.db,
          directory: dir,
          keys: t.app.parasol.keys,
          now: () => new Date(BATCH.getTime() + minutes * 60_000),
        })
      ).unwritten.filter((u) => u.messageId === batch.messageId);
    const gauge = async (minutes: number) =>
      Number(
        /^parasol_sepa_batches_without_file (\d+)$/m.exec(
          await new DatabaseGauges(t.db, {
            leftOutPayout: LEFT_OUT_PAYOUT,
            ttlMs: 0,
            clock: () => BATCH.getTime() + minutes * 60_000,
          }).metrics(),
        )?.[1],
      );
    assert.deepEqual(await check(4), [], 'within the grace: not reported by the check');
    assert.deepEqual(
      (await check(6)).map((u) => u.createdAt.toISOString()),
      [BATCH.toISOString()],
      'past the grace: reported by the check, created at the batch clock',
    );
    assert.equal((await gauge(6)) - (await gauge(4)), 1, 'the gauge counts it past the grace, not within it');
    await fs.rename(`${filePath}.away`, filePath);
    await t.db
      .updateTable('sepa_batches')
      .set({ file_path: filePath })
      .where('message_id', '=', batch.messageId)
      .execute();

    const reconcile = (at: Date, amount: string) => {
      clock = at;
      const report = camt054('08', [
        { indicator: 'DBIT', transactions: [{ endToEndId: instructed.end_to_end_id, amount }] },
      ]);
      return reconcilePayouts(
        {
          db: t.db,
          jobs: t.app.parasol.jobs,
          now: () => clock,
          bankDetailsDays: 30,
          encryption: t.app.parasol.keys.encryption,
        },
        report,
        'operator:test',
      );
    };
    // a report of another amount: audited, left to an operator
    const MISMATCH = new Date('2031-05-06T09:00:00.000Z');
    const wrong = await reconcile(MISMATCH, '1.00');
    assert.equal(wrong.outcomes.amount_mismatch, 1, JSON.stringify(wrong));
    assert.equal(
      await auditAt('payout', instructed.end_to_end_id, 'bank_report_mismatch'),
      MISMATCH.toISOString(),
      'the mismatch audited at the clock',
    );

    // the bank's report of the payment
    const PAID = new Date('2031-05-07T09:30:00.000Z');
    const right = await reconcile(PAID, toDecimalString(Number(instructed.amount), 'EUR'));
    assert.equal(right.outcomes.paid, 1, JSON.stringify(right));
    const paid = await payoutOf();
    assert.equal(paid.settled_at?.toISOString(), PAID.toISOString(), 'the payout is settled at the clock');
    const entries = await t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'occurred_at'])
      .where('payout_id', '=', paid.id)
      .execute();
    assert.deepEqual(
      entries.map((e) => [e.kind, e.occurred_at.toISOString()]),
      [['compensation_paid', PAID.toISOString()]],
      'the compensation paid enters the ledger at the clock',
    );
    assert.equal(await auditAt('claim', claimNumber, 'paid'), PAID.toISOString(), 'the payment audited at the clock');

    // days later the customer's bank returns it: returned, the payment reversed in the ledger, at that clock
    const RETURNED = new Date('2031-05-09T11:00:00.000Z');
    clock = RETURNED;
    const back = await reconcilePayouts(
      {
        db: t.db,
        jobs: t.app.parasol.jobs,
        now: () => clock,
        bankDetailsDays: 30,
        encryption: t.app.parasol.keys.encryption,
      },
      camt054('02', [
        {
          indicator: 'CRDT',
          transactions: [
            {
              endToEndId: instructed.end_to_end_id,
              amount: toDecimalString(Number(instructed.amount), 'EUR'),
              returned: { code: 'AC04', info: 'Account closed' },
            },
          ],
        },
      ]),
      'operator:test',
    );
    assert.equal(back.outcomes.returned, 1, JSON.stringify(back));
    const returned = await t.db
      .selectFrom('payouts')
      .select(['status', 'returned_at'])
      .where('id', '=', paid.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [returned.status, returned.returned_at?.toISOString()],
      ['returned', RETURNED.toISOString()],
      'the payout returned at the clock',
    );
    const reversal = await t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount', 'occurred_at', 'corrects'])
      .where('payout_id', '=', paid.id)
      .where('corrects', 'is not', null)
      .execute();
    assert.deepEqual(
      reversal.map((e) => [e.kind, Number(e.amount), e.occurred_at.toISOString()]),
      [['compensation_paid', -Number(paid.amount), RETURNED.toISOString()]],
      'the reversal enters the ledger at the clock',
    );

    // the new link texted, the customer's new details a day later: the payout's second attempt at that clock
    const newLink = await eventually(async () => {
      const texts = twilio.requests.filter((r) => r.form.Body?.includes(flightNumber) && linkPattern.test(r.form.Body));
      return texts.length === 2 ? linkPattern.exec(texts[1]!.form.Body!)![0] : undefined;
    });
    const AGAIN = new Date('2031-05-10T08:15:00.000Z');
    clock = AGAIN;
    const again = await t.app.inject({
      method: 'POST',
      url: new URL(newLink).pathname,
      payload: new URLSearchParams({
        accountHolder: 'Jane Smith',
        iban: 'FR14 2004 1010 0505 0001 3M02 606',
        bic: '',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(again.statusCode, 200, again.body);
    const attempts = await t.db
      .selectFrom('payout_attempts')
      .select(['attempt', 'created_at'])
      .where('payout_id', '=', paid.id)
      .orderBy('attempt')
      .execute();
    assert.deepEqual(
      attempts.map((r) => [r.attempt, r.created_at.toISOString()]),
      [
        [1, DETAILS.toISOString()],
        [2, AGAIN.toISOString()],
      ],
      'the second attempt is created at the clock of the new details',
    );
  });
  it('tells the partner of a customer not reached at the delivery report clock', async () => {
    clock = new Date(Math.floor(Date.now() / 1000) * 1000);
    const endpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['claim.customer_unreachable'] },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const flightNumber = `AF${7950 + (process.pid % 40)}`;
    await insureFlight(t.app, a, { flightNumber, language: 'en' });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber, departureDate: trip(12).departureDateTime.slice(0, 10), status: 'cancelled' },
      operator,
    );
    assert.equal(opened.body.claimsOpened?.length, 1, JSON.stringify(opened.body));
    const claimNumber = opened.body.claimsOpened[0].claimNumber as string;
    const sid = await eventually(async () => {
      const row = await t.db
        .selectFrom('sms_messages as m')
        .innerJoin('claims as cl', 'cl.id', 'm.claim_id')
        .select(['m.status', 'm.provider_message_id'])
        .where('cl.claim_number', '=', claimNumber)
        .executeTakeFirst();
      return row?.status === 'sent' ? row.provider_message_id : undefined;
    });

    // the carrier's report, three hours later by the application's clock (the claim still waits)
    const REPORT = new Date(clock.getTime() + 3 * 3_600_000);
    clock = REPORT;
    const form = {
      AccountSid: ACCOUNT_SID,
      MessageSid: sid!,
      MessageStatus: 'undelivered',
      ErrorCode: '30003',
    };
    const receipt = await t.app.inject({
      method: 'POST',
      url: '/providers/twilio/sms-status',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(
          AUTH_TOKEN,
          'https://claims.parasol.test/providers/twilio/sms-status',
          Object.entries(form),
        ),
      },
      payload: new URLSearchParams(form).toString(),
    });
    assert.equal(receipt.statusCode, 204, receipt.body);
    const events = (
      await t.db
        .selectFrom('webhook_events')
        .select(['payload', 'created_at'])
        .where('partner_id', '=', a.id)
        .where('type', '=', 'claim.customer_unreachable')
        .execute()
    )
      .map((e) => ({ at: e.created_at, ...(typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload) }))
      .filter((e: { data: { claimNumber: string } }) => e.data.claimNumber === claimNumber);
    assert.deepEqual(
      events.map((e: { at: Date; timestamp: string; data: { reportedAt: string } }) => [
        e.at.toISOString(),
        e.timestamp,
        e.data.reportedAt,
      ]),
      [[REPORT.toISOString(), REPORT.toISOString(), REPORT.toISOString()]],
      'one event, dated by the clock of the route that learnt it',
    );
  });
});
