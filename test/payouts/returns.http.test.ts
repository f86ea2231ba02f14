import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  allClaims,
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  operatorToken,
  post,
  runCliOn,
  sepaPayoutsEnv,
  trip,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { HOLDER_NOT_OPENED } from '../../src/payouts/payouts.ts';
import { MAX_BANK_REPORT_BYTES, reconcilePayouts } from '../../src/payouts/reconcile.ts';
import { encrypt } from '../../src/platform/crypto.ts';
import { DomainError } from '../../src/platform/errors.ts';
import { toDecimalString } from '../../src/platform/money.ts';
import { ACCOUNT_SID, AUTH_TOKEN, startFakeTwilio, type FakeTwilio } from '../notify/twilio-fake.ts';
import { camt054, type CamtEntry, type CamtVersion } from './camt054-sample.ts';

/**
 * Production payouts settled by the bank's reports, camt.054 or CSV: a transfer reported paid, then
 * returned by the customer's bank days later (an R-transaction), paid again on new details.
 */
describe('payout returns and camt.054 reports', () => {
  let t: TestApp;
  let twilio: FakeTwilio;
  let a: TestPartner;
  let dir: string;
  let operator: { authorization: string };
  const closers: (() => Promise<void>)[] = [];
  const cli = (...argv: string[]) => runCliOn(t, argv);

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-returns-'));
    twilio = await startFakeTwilio({ after: (fn) => void closers.push(fn as () => Promise<void>) });
    t = await buildTestApp({
      env: {
        PARASOL_JOB_POLL_SECONDS: '1',
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent',
        PARASOL_TWILIO_ACCOUNT_SID: ACCOUNT_SID,
        PARASOL_TWILIO_AUTH_TOKEN: AUTH_TOKEN,
        PARASOL_TWILIO_FROM: '+15005550006',
        PARASOL_TWILIO_URL: twilio.baseUrl,
        ...sepaPayoutsEnv(dir),
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on',
      },
    });
    a = await createTestPartner(t.db, { environment: 'production' });
    operator = (await operatorToken(t, 'returns')).auth;
    const endpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['claim.failed', 'claim.paid'] },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
  });
  after(async () => {
    await t.close();
    for (const close of closers) await close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  let seq = 7100;
  let files = 0;
  const departure = trip(12).departureDateTime.slice(0, 10);
  const linkPattern = /https:\/\/claims\.parasol\.test\/c\/[A-Za-z0-9_-]{43}/;

  /** A production claim with bank details given: its payout pending, waiting for a SEPA batch. */
  const claimWithDetails = async () => {
    const flightNumber = `AF${seq++}`;
    const { contractNumber } = await insureFlight(t.app, a, { flightNumber, language: 'en' });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber, departureDate: departure, status: 'cancelled' },
      operator,
    );
    assert.equal(opened.body.claimsOpened.length, 1, JSON.stringify(opened.body));
    const claimNumber = opened.body.claimsOpened[0].claimNumber as string;
    const sms = await eventually(async () => twilio.requests.find((r) => r.form.Body?.includes(flightNumber)));
    await giveDetails(linkPattern.exec(sms.form.Body!)![0], 'DE89 3704 0044 0532 0130 00');
    return { flightNumber, contractNumber, claimNumber };
  };
  const giveDetails = async (link: string, iban: string) => {
    const form = await t.app.inject({
      method: 'POST',
      url: new URL(link).pathname,
      payload: new URLSearchParams({ accountHolder: 'Jane Smith', iban, bic: '' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.statusCode, 200, form.body);
  };
  /** The payouts' amounts by end-to-end id, as the bank reports them (camt.054 amounts are compared with the payout's). */
  const amounts = new Map<string, string>();
  const payoutOf = async (claimNumber: string) => {
    const row = await payoutRow(claimNumber);
    amounts.set(row.end_to_end_id, toDecimalString(Number(row.amount), 'EUR'));
    return row;
  };
  const payoutRow = (claimNumber: string) =>
    t.db
      .selectFrom('payouts as p')
      .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
      .select([
        'p.id',
        'p.status',
        'p.attempt',
        'p.end_to_end_id',
        'p.amount',
        'p.settled_at',
        'p.returned_at',
        'p.failure_reason',
      ])
      .where('cl.claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
  const claimOf = (claimNumber: string) =>
    t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select([
        'cl.id',
        'cl.status',
        'cl.paid_at',
        'cl.failure_reason',
        'cl.bank_details_due_at',
        'c.status as contract_status',
      ])
      .where('cl.claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
  const batch = async () => {
    const run = await cli('--json', 'payouts', 'batch');
    assert.equal(run.code, 0, run.err);
  };
  const reconcile = async (content: string) => {
    files += 1;
    const file = path.join(dir, `report-${files}.${content.startsWith('<') ? 'xml' : 'csv'}`);
    await fs.writeFile(file, content);
    const run = await cli('--json', 'payouts', 'reconcile', file);
    assert.equal(run.code, 0, run.err);
    return JSON.parse(run.out) as {
      format: string;
      messageId: string | null;
      rows: number;
      outcomes: Record<string, number>;
      issues: { line: number; endToEndId: string; outcome: string; detail?: string }[];
      skipped: { line: number; reason: string }[];
      warnings: { line: number; code: string; claimId: string; endToEndId: string; message: string }[];
    };
  };
  /** A camt.054 whose transactions carry their payout's amount unless the entry says otherwise. */
  const camt = (version: CamtVersion, entries: CamtEntry[]) =>
    camt054(
      version,
      entries.map((e) => ({
        ...e,
        transactions: e.transactions.map((x) => ({
          amount: amounts.get(x.returned?.originalEndToEndId ?? x.endToEndId ?? ''),
          ...x,
        })),
      })),
      `NTF-${files + 1}`,
    );
  const paid = (...ids: string[]): CamtEntry => ({
    indicator: 'DBIT',
    transactions: ids.map((endToEndId) => ({ endToEndId })),
  });
  const outcomes = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, n]) => n > 0));

  it('a transfer paid then returned: payout returned, claim back to waiting for new details, contract active, ledger reversed, claim.failed, SMS, audit; the new details pay a new attempt', async () => {
    const { flightNumber, contractNumber, claimNumber } = await claimWithDetails();
    await batch();
    const first = await payoutOf(claimNumber);
    assert.equal(first.status, 'instructed');

    // the bank books the transfer (camt.054.001.08)
    const booked = await reconcile(camt('08', [paid(first.end_to_end_id)]));
    assert.equal(booked.format, 'camt.054.001.08');
    assert.deepEqual(outcomes(booked.outcomes), { paid: 1 });
    let claim = await claimOf(claimNumber);
    assert.deepEqual([claim.status, claim.contract_status], ['paid', 'completed']);
    assert.ok(claim.paid_at, 'a paid claim says when');
    // its receipt is written before the return arrives (days later in life; here the next import: the
    // receipt's job skips a claim no longer paid, so without this wait the test raced it)
    const paidClaimId = claim.id;
    await eventually(() =>
      t.db
        .selectFrom('sms_messages')
        .select('id')
        .where('claim_id', '=', paidClaimId)
        .where('idempotency_key', '=', `claim:${paidClaimId}:paid`)
        .executeTakeFirst(),
    );

    // days later the customer's bank sends it back (camt.054.001.02), quoting the account and its holder
    const iban = 'DE89370400440532013000';
    const returnReport = camt('02', [
      {
        indicator: 'CRDT',
        transactions: [
          {
            endToEndId: first.end_to_end_id,
            returned: { code: 'AC04', info: `Account ${iban} of SMITH JANE closed` },
          },
        ],
      },
    ]);
    const returned = await reconcile(returnReport);
    assert.equal(returned.format, 'camt.054.001.02');
    assert.deepEqual(outcomes(returned.outcomes), { returned: 1 });

    // the account holder (Jane Smith, known from the claim's bank details) masked like the IBAN
    const reason = 'AC04 Account •••• 3000 of [name] [name] closed';
    const payout = await payoutOf(claimNumber);
    assert.deepEqual([payout.status, payout.attempt, payout.failure_reason], ['returned', 1, reason]);
    assert.ok(payout.returned_at && payout.settled_at, 'when it was paid, and when it came back');
    claim = await claimOf(claimNumber);
    assert.deepEqual(
      [claim.status, claim.paid_at, claim.failure_reason, claim.contract_status],
      ['failed', null, reason, 'active'],
    );
    assert.ok(claim.bank_details_due_at!.getTime() > Date.now() + 20 * 86_400_000, 'a new due date');

    // the ledger: the payment, then its reversal correcting it (append-only)
    const entries = await t.db
      .selectFrom('ledger_entries')
      .select(['id', 'kind', 'amount', 'event_key', 'corrects'])
      .where('claim_id', '=', claim.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      entries.map((e) => [e.kind, Number(e.amount), e.event_key.split(':').slice(2).join(':')]),
      [
        ['compensation_paid', Number(first.amount), '1:paid'],
        ['compensation_paid', -Number(first.amount), '1:returned'],
      ],
    );
    assert.equal(Number(entries[1]!.corrects), Number(entries[0]!.id));

    // the partner: the claim failed again (and says why), its contract active, claim.failed with paymentReturned
    const today = new Date().toISOString().slice(0, 10);
    const listed = await allClaims(t.app, a, { fromDate: today, toDate: today, contractNumber });
    assert.deepEqual(
      listed.map((x) => [x.status, x.paidAt]),
      [['failed', null]],
    );
    const events = await t.db
      .selectFrom('webhook_events')
      .select(['type', 'payload'])
      .where('partner_id', '=', a.id)
      .where(sql`payload::text`, 'like', `%${claimNumber}%`)
      .orderBy('created_at')
      .execute();
    assert.deepEqual(
      events.map((e) => e.type),
      ['claim.paid', 'claim.failed'],
    );
    const payloadOf = (p: unknown) => (typeof p === 'string' ? JSON.parse(p) : p) as { data: Record<string, unknown> };
    const failedEvent = payloadOf(events[1]!.payload).data;
    assert.deepEqual(
      [failedEvent.status, failedEvent.paymentReturned, failedEvent.failureReason],
      ['failed', true, reason],
    );
    assert.ok(!JSON.stringify(failedEvent).includes(iban.slice(4)), 'no IBAN in the event');
    assert.doesNotMatch(JSON.stringify(failedEvent), /smith|jane/i, 'no account holder in the event');

    // the audit trail: the return (masked), the contract reopened
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['entity', 'entity_id', 'action', 'data'])
      .where('entity_id', 'in', [claimNumber, contractNumber])
      .where('action', 'in', ['payment_returned', 'reopened'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audit.map((r) => [r.entity, r.action]),
      [
        ['contract', 'reopened'],
        ['claim', 'payment_returned'],
      ],
    );
    assert.equal((audit[1]!.data as { reason: string }).reason, reason);

    // the customer is texted a new link (one SMS: the receipt came before, the link now)
    const newLink = await eventually(async () => {
      const texts = twilio.requests.filter((r) => r.form.Body?.includes(flightNumber) && linkPattern.test(r.form.Body));
      return texts.length === 2 ? linkPattern.exec(texts[1]!.form.Body!)![0] : undefined;
    });
    const failedSms = await t.db
      .selectFrom('sms_messages')
      .select('idempotency_key')
      .where('claim_id', '=', claim.id)
      .where('idempotency_key', 'like', '%payment-failed%')
      .execute();
    assert.deepEqual(
      failedSms.map((s) => s.idempotency_key),
      [`claim:${claim.id}:payment-failed:1`],
    );

    // the same reports again change nothing; a CSV return of the same transfer neither
    assert.deepEqual(outcomes((await reconcile(returnReport)).outcomes), { unchanged: 1 });
    assert.deepEqual(outcomes((await reconcile(camt('08', [paid(first.end_to_end_id)]))).outcomes), { unchanged: 1 });
    assert.deepEqual(
      outcomes((await reconcile(`endToEndId,status,reason\n${first.end_to_end_id},returned,AC04\n`)).outcomes),
      { unchanged: 1 },
    );

    // the desk corrects the compensation meanwhile (under review; released without bank details)
    const corrected = Number(first.amount) - 500;
    for (const argv of [
      ['claims', 'review', claimNumber, '--reason', 'check the amount'],
      ['claims', 'correct-amount', claimNumber, '--amount', (corrected / 100).toFixed(2), '--reason', 'tier checked'],
      ['claims', 'approve', claimNumber, '--reason', 'amount checked'],
    ]) {
      const done = await cli(...argv);
      assert.equal(done.code, 0, done.err);
    }

    // new details: a new attempt, a new end-to-end id; the old id's return is superseded
    await giveDetails(newLink, 'FR76 3000 6000 0112 3456 7890 189');
    const second = await payoutOf(claimNumber);
    assert.deepEqual([second.status, second.attempt], ['pending', 2]);
    assert.notEqual(second.end_to_end_id, first.end_to_end_id);
    await batch();
    const again = await reconcile(returnReport);
    assert.deepEqual(outcomes(again.outcomes), { superseded: 1 });
    assert.deepEqual(
      again.issues.map((i) => [i.endToEndId, i.outcome]),
      [[first.end_to_end_id, 'superseded']],
    );
    assert.deepEqual(outcomes((await reconcile(camt('08', [paid(second.end_to_end_id)]))).outcomes), { paid: 1 });
    claim = await claimOf(claimNumber);
    assert.deepEqual([claim.status, claim.contract_status], ['paid', 'completed']);
    const net = await t.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.sum<number>('amount').as('total'))
      .where('claim_id', '=', claim.id)
      .where('kind', '=', 'compensation_paid')
      .executeTakeFirstOrThrow();
    assert.equal(Number(net.total), corrected, 'paid once, net, the corrected amount');
    assert.equal(Number(second.amount), corrected, 'the new attempt takes the corrected compensation');
    // a receipt for the payment that stays, naming the new account (the first named the closed one)
    const receipts = await eventually(async () => {
      const rows = await t.db
        .selectFrom('sms_messages')
        .select('idempotency_key')
        .where('claim_id', '=', claim.id)
        .where('idempotency_key', 'like', '%:paid%')
        .orderBy('idempotency_key')
        .execute();
      return rows.length === 2 ? rows.map((r) => r.idempotency_key) : undefined;
    });
    assert.deepEqual(receipts, [`claim:${claim.id}:paid`, `claim:${claim.id}:paid:2`]);
    await eventually(async () =>
      twilio.requests.some((r) => r.form.Body?.includes(flightNumber) && r.form.Body.includes('0189'))
        ? true
        : undefined,
    );

    // the operator's view of the attempts
    const shown = JSON.parse((await cli('--json', 'claims', 'show', claimNumber)).out);
    assert.deepEqual(
      shown.payoutAttempts.map(
        (x: { attempt: number; status: string; failureReason: string | null; amount: { amount: number } }) => [
          x.attempt,
          x.status,
          x.failureReason,
          x.amount.amount,
        ],
      ),
      [
        [1, 'returned', reason, Number(first.amount)],
        [2, 'paid', null, corrected],
      ],
    );
  });

  it('camt.054: a batch-booked entry pays each of its transfers; unknown ids are reported, pending entries skipped', async () => {
    const one = await claimWithDetails();
    const two = await claimWithDetails();
    await batch();
    const [p1, p2] = [await payoutOf(one.claimNumber), await payoutOf(two.claimNumber)];
    const report = await reconcile(
      camt('08', [
        { ...paid(p1.end_to_end_id, p2.end_to_end_id, 'PSLAAAAAAAAAAAAAAAAAAAAAAAAAA'), amount: '90.00' },
        { ...paid(p1.end_to_end_id), status: 'PDNG' },
      ]),
    );
    assert.deepEqual(outcomes(report.outcomes), { paid: 2, unknown: 1 });
    assert.deepEqual(
      report.issues.map((i) => [i.endToEndId, i.outcome]),
      [['PSLAAAAAAAAAAAAAAAAAAAAAAAAAA', 'unknown']],
    );
    assert.equal(report.skipped.length, 1);
    assert.match(report.skipped[0]!.reason, /PDNG/);
    assert.equal((await claimOf(one.claimNumber)).status, 'paid');
    assert.equal((await claimOf(two.claimNumber)).status, 'paid');
    const text = await cli('payouts', 'reconcile', path.join(dir, `report-${files}.xml`));
    assert.match(
      text.out,
      /camt\.054\.001\.08 NTF-\d+: 3 row\(s\): 0 paid, 0 failed, 0 returned, 2 already known, 1 unknown/,
    );
    assert.match(text.out, /skipped, entry not booked \(status PDNG\)/);
  });

  it('a return of a transfer not reported paid is a rejection (failed); a return of an unknown id is unknown', async () => {
    const { claimNumber } = await claimWithDetails();
    await batch();
    const payout = await payoutOf(claimNumber);
    const report = await reconcile(
      camt('08', [
        {
          indicator: 'CRDT',
          transactions: [
            { endToEndId: payout.end_to_end_id, returned: { code: 'AG01', info: 'Mrs Jane Smíth' } },
            { endToEndId: 'PSLBBBBBBBBBBBBBBBBBBBBBBBBBB', returned: { code: 'AC04' } },
          ],
        },
      ]),
    );
    assert.deepEqual(outcomes(report.outcomes), { failed: 1, unknown: 1 });
    assert.deepEqual((await payoutOf(claimNumber)).status, 'failed');
    const claim = await claimOf(claimNumber);
    // a rejection's reason naming the account holder, accented or not, keeps no name either
    assert.deepEqual([claim.status, claim.failure_reason], ['failed', 'AG01 Mrs [name] [name]']);
    // reported again, as a return or a rejection: already known
    const csv = `endToEndId,status,reason\n${payout.end_to_end_id},returned,AG01\n`;
    assert.deepEqual(outcomes((await reconcile(csv)).outcomes), { unchanged: 1 });
  });

  it('a duplicate notification (the same return twice in one file, then the whole file again): returned once, one reversal in the ledger', async () => {
    const { claimNumber } = await claimWithDetails();
    await batch();
    const payout = await payoutOf(claimNumber);
    const returned: CamtEntry = {
      indicator: 'CRDT',
      transactions: [{ endToEndId: payout.end_to_end_id, returned: { code: 'MS03', info: 'reason not specified' } }],
    };
    const report = camt('08', [paid(payout.end_to_end_id), returned, returned]);
    const first = await reconcile(report);
    assert.deepEqual(outcomes(first.outcomes), { paid: 1, returned: 1, unchanged: 1 });
    assert.deepEqual(outcomes((await reconcile(report)).outcomes), { unchanged: 3 });
    const after = await payoutOf(claimNumber);
    assert.equal(after.status, 'returned');
    const claim = await claimOf(claimNumber);
    assert.deepEqual([claim.status, claim.failure_reason], ['failed', 'MS03 reason not specified']);
    const entries = await t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount'])
      .where('claim_id', '=', claim.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      entries.map((e) => [e.kind, Number(e.amount)]),
      [
        ['compensation_paid', Number(payout.amount)],
        ['compensation_paid', -Number(payout.amount)],
      ],
      'paid once, reversed once: nothing counted twice',
    );
  });

  it("a bank report about a payout no written file carried (still pending, or its batch's file never written) changes nothing: not_sent, listed, audited", async () => {
    const notSentAudits = async (endToEndId: string) =>
      (
        await t.db
          .selectFrom('audit_log')
          .select(['action', 'data'])
          .where('entity', '=', 'payout')
          .where('entity_id', '=', endToEndId)
          .where('action', '=', 'bank_report_not_sent')
          .execute()
      ).map((r) => r.data);
    // still pending: no batch took it, no bank was sent it
    const pending = await claimWithDetails();
    const waiting = await payoutOf(pending.claimNumber);
    assert.equal(waiting.status, 'pending');
    const report = await reconcile(camt('08', [paid(waiting.end_to_end_id)]));
    assert.deepEqual(outcomes(report.outcomes), { not_sent: 1 });
    assert.equal(report.issues.length, 1);
    assert.equal(report.issues[0]!.outcome, 'not_sent');
    assert.match(
      report.issues[0]!.detail ?? '',
      /reported paid, the payout is pending: no written file is recorded for it: check with the bank whether its batch's file went/,
    );
    assert.equal((await payoutOf(pending.claimNumber)).status, 'pending');
    assert.equal((await claimOf(pending.claimNumber)).status, 'payment_pending');
    assert.deepEqual(await notSentAudits(waiting.end_to_end_id), [{ outcome: 'paid', status: 'pending' }]);
    const text = await cli('payouts', 'reconcile', path.join(dir, `report-${files}.xml`));
    assert.match(text.out, /1 never sent/);
    assert.match(text.out, new RegExp(`${waiting.end_to_end_id} not_sent \\(reported paid, .*\\): left as it was`));

    // in a batch committed, its file never written (the process stopped between the commit and the write)
    await batch();
    const instructed = await payoutOf(pending.claimNumber);
    assert.equal(instructed.status, 'instructed');
    const { batch_id: batchId } = await t.db
      .selectFrom('payouts')
      .select('batch_id')
      .where('id', '=', instructed.id)
      .executeTakeFirstOrThrow();
    const written = await t.db
      .selectFrom('sepa_batches')
      .select(['file_path', 'file_written_at'])
      .where('id', '=', batchId!)
      .executeTakeFirstOrThrow();
    await t.db
      .updateTable('sepa_batches')
      .set({ file_path: null, file_written_at: null })
      .where('id', '=', batchId!)
      .execute();
    const rejected = await reconcile(
      camt('08', [
        { indicator: 'CRDT', transactions: [{ endToEndId: instructed.end_to_end_id, returned: { code: 'AC04' } }] },
      ]),
    );
    assert.deepEqual(outcomes(rejected.outcomes), { not_sent: 1 });
    assert.match(rejected.issues[0]!.detail ?? '', /reported returned, the payout is instructed/);
    assert.equal((await payoutOf(pending.claimNumber)).status, 'instructed');
    assert.equal((await claimOf(pending.claimNumber)).status, 'payment_pending');

    // its file written (recorded): the same report applies
    await t.db.updateTable('sepa_batches').set(written).where('id', '=', batchId!).execute();
    const applied = await reconcile(camt('08', [paid(instructed.end_to_end_id)]));
    assert.deepEqual(outcomes(applied.outcomes), { paid: 1 });
    assert.equal((await claimOf(pending.claimNumber)).status, 'paid');
  });

  it("an operator's CSV row may record a pending payout paid another way (a refused currency's): applied", async () => {
    const { claimNumber } = await claimWithDetails();
    const payout = await payoutOf(claimNumber);
    assert.equal(payout.status, 'pending');
    const report = await reconcile(`endToEndId,status,reason\n${payout.end_to_end_id},paid,\n`);
    assert.deepEqual(outcomes(report.outcomes), { paid: 1 });
    assert.equal((await claimOf(claimNumber)).status, 'paid');
  });

  it('a rejection whose account holder cannot be opened (its key removed) is settled, its reason masked without the name, with a warning', async () => {
    /** A claim with details, batched, its holder sealed under a key the platform no longer holds. */
    const unopenable = async () => {
      const { claimNumber } = await claimWithDetails();
      await batch();
      const payout = await payoutOf(claimNumber);
      const { id: claimId } = await t.db
        .selectFrom('claims')
        .select('id')
        .where('claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
      await t.db
        .updateTable('claim_bank_details')
        .set({ account_holder_enc: encrypt(randomBytes(32), 'Jane Smith'), account_holder: null })
        .where('claim_id', '=', claimId)
        .execute();
      return { claimNumber, claimId, endToEndId: payout.end_to_end_id };
    };
    const first = await unopenable();
    const csv = `endToEndId,status,reason\n${first.endToEndId},failed,AC04 DE89370400440532013000 closed\n`;
    const report = await reconcile(csv);
    assert.deepEqual(outcomes(report.outcomes), { failed: 1 });
    // the warning the worker logs, in the import's report: its line, the transfer, no personal data
    assert.deepEqual(report.warnings, [
      {
        line: 2,
        code: 'holder_not_opened',
        claimId: first.claimId,
        endToEndId: first.endToEndId,
        message: HOLDER_NOT_OPENED,
      },
    ]);
    const claim = await claimOf(first.claimNumber);
    assert.deepEqual([claim.status, claim.failure_reason], ['failed', 'AC04 •••• 3000 closed']);

    // printed by the command, the row's line with it
    const second = await unopenable();
    const file = path.join(dir, 'holder-not-opened.csv');
    await fs.writeFile(file, `endToEndId,status,reason\n${second.endToEndId},failed,AC04 closed Jane Smith\n`);
    const printed = await cli('payouts', 'reconcile', file);
    assert.equal(printed.code, 0, printed.err);
    assert.ok(
      printed.out.includes(`  line 2: ${second.endToEndId} applied; warning: ${HOLDER_NOT_OPENED}`),
      printed.out,
    );
  });

  it('a report whose amount or currency is not the payout’s changes nothing: reported with both, audited, left to the operator', async () => {
    const { claimNumber } = await claimWithDetails();
    await batch();
    const payout = await payoutOf(claimNumber);
    const expected = toDecimalString(Number(payout.amount), 'EUR');
    const wrongAmount = await reconcile(
      camt('08', [{ indicator: 'DBIT', transactions: [{ endToEndId: payout.end_to_end_id, amount: '1.00' }] }]),
    );
    assert.deepEqual(outcomes(wrongAmount.outcomes), { amount_mismatch: 1 });
    assert.deepEqual(
      wrongAmount.issues.map((i) => [i.endToEndId, i.outcome, i.detail]),
      [[payout.end_to_end_id, 'amount_mismatch', `reported paid 1.00 EUR, the payout is ${expected} EUR instructed`]],
    );
    // the same digits in another currency
    const wrongCurrency = await reconcile(
      camt('02', [{ indicator: 'DBIT', transactions: [{ endToEndId: payout.end_to_end_id, currency: 'USD' }] }]),
    );
    assert.deepEqual(outcomes(wrongCurrency.outcomes), { amount_mismatch: 1 });
    assert.equal((await payoutOf(claimNumber)).status, 'instructed', 'left as it was');
    assert.equal((await claimOf(claimNumber)).status, 'payment_pending');

    // paid with the right amount, then a return of another amount: the payout stays paid
    assert.deepEqual(outcomes((await reconcile(camt('08', [paid(payout.end_to_end_id)]))).outcomes), { paid: 1 });
    const wrongReturn = await reconcile(
      camt('08', [
        {
          indicator: 'CRDT',
          transactions: [{ endToEndId: payout.end_to_end_id, amount: '149.00', returned: { code: 'AC04' } }],
        },
      ]),
    );
    assert.deepEqual(outcomes(wrongReturn.outcomes), { amount_mismatch: 1 });
    assert.equal((await payoutOf(claimNumber)).status, 'paid');
    assert.equal((await claimOf(claimNumber)).status, 'paid');
    const text = await cli('payouts', 'reconcile', path.join(dir, `report-${files}.xml`));
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /1 amount mismatch/);
    assert.ok(
      text.out.includes(
        `${payout.end_to_end_id} amount_mismatch (reported returned 149.00 EUR, the payout is ${expected} EUR paid): left as it was`,
      ),
      text.out,
    );

    // on record for the operator, each time
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'payout')
      .where('entity_id', '=', payout.end_to_end_id)
      .where('action', '=', 'bank_report_mismatch')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audited.map((r) => {
        const data = r.data as { reported: { amount: string; currency: string }; outcome: string; status: string };
        return [data.reported.amount, data.reported.currency, data.outcome, data.status];
      }),
      [
        ['1.00', 'EUR', 'paid', 'instructed'],
        [expected, 'USD', 'paid', 'instructed'],
        ['149.00', 'EUR', 'returned', 'paid'],
        ['149.00', 'EUR', 'returned', 'paid'],
      ],
    );
    assert.ok(
      audited.every((r) => /\S/.test(r.actor)),
      `every audit row names its actor: ${JSON.stringify(audited.map((r) => r.actor))}`,
    );
  });

  it('amounts are compared as exact decimal values: trailing zeros an XML decimal may carry, in any currency, are the payout’s amount', async () => {
    const { claimNumber } = await claimWithDetails();
    await batch();
    const payout = await payoutOf(claimNumber);
    const setAmount = (amount: number, currency: string) =>
      t.db.updateTable('payouts').set({ amount, currency }).where('id', '=', payout.id).execute();
    // 150.00 EUR reported as "150.000": paid
    await setAmount(15000, 'EUR');
    const eur = await reconcile(
      camt('08', [{ indicator: 'DBIT', transactions: [{ endToEndId: payout.end_to_end_id, amount: '150.000' }] }]),
    );
    assert.deepEqual(outcomes(eur.outcomes), { paid: 1 });
    assert.equal((await payoutOf(claimNumber)).status, 'paid');
    // HUF (Intl: no decimals, ISO 4217: 2), JPY and KWD with trailing zeros: the payout's amount (already
    // known), not a mismatch; one digit off still is
    for (const [amount, currency, reported, outcome] of [
      [500000, 'HUF', '500000.00', 'unchanged'],
      [5000, 'JPY', '5000.00', 'unchanged'],
      [1234, 'KWD', '1.2340', 'unchanged'],
      [1234, 'KWD', '1.2341', 'amount_mismatch'],
      [500000, 'HUF', '500000.01', 'amount_mismatch'],
    ] as const) {
      await setAmount(amount, currency);
      const report = await reconcile(
        camt('08', [
          { indicator: 'DBIT', transactions: [{ endToEndId: payout.end_to_end_id, amount: reported, currency }] },
        ]),
      );
      assert.deepEqual(outcomes(report.outcomes), { [outcome]: 1 }, `${reported} ${currency}`);
    }
    await setAmount(15000, 'EUR');
  });

  it('a payout in another currency paid from the EUR account: an amount reported in EUR is not compared, the instructed amount is', async () => {
    const setGbp = async (claimNumber: string) => {
      const payout = await payoutOf(claimNumber);
      await t.db.updateTable('payouts').set({ amount: 12345, currency: 'GBP' }).where('id', '=', payout.id).execute();
      return payout.end_to_end_id;
    };
    const one = await claimWithDetails();
    const two = await claimWithDetails();
    const three = await claimWithDetails();
    await batch();
    const [withoutInstructed, withInstructed, wrongInstructed] = [
      await setGbp(one.claimNumber),
      await setGbp(two.claimNumber),
      await setGbp(three.claimNumber),
    ];
    const report = await reconcile(
      camt('08', [
        // the account's EUR, converted (charges perhaps taken): applied as a CSV row would be
        { indicator: 'DBIT', amount: '143.98', transactions: [{ endToEndId: withoutInstructed, amount: '143.98' }] },
        {
          indicator: 'DBIT',
          amount: '143.98',
          transactions: [
            { endToEndId: withInstructed, amount: '143.98', instructed: { amount: '123.45', currency: 'GBP' } },
          ],
        },
        {
          indicator: 'DBIT',
          amount: '143.98',
          transactions: [
            { endToEndId: wrongInstructed, amount: '143.98', instructed: { amount: '123.40', currency: 'GBP' } },
          ],
        },
      ]),
    );
    assert.deepEqual(outcomes(report.outcomes), { paid: 2, amount_mismatch: 1 });
    assert.deepEqual(
      report.issues.map((i) => [i.endToEndId, i.detail]),
      [[wrongInstructed, 'reported paid 123.40 GBP, the payout is 123.45 GBP instructed']],
    );
    assert.equal((await payoutOf(one.claimNumber)).status, 'paid');
    assert.equal((await payoutOf(two.claimNumber)).status, 'paid');
    assert.equal((await payoutOf(three.claimNumber)).status, 'instructed');
  });

  it('a bank report larger than the limit is refused before it is read; nothing is imported', async () => {
    const file = path.join(dir, 'huge.xml');
    await fs.writeFile(file, '<');
    await fs.truncate(file, MAX_BANK_REPORT_BYTES + 1);
    const run = await cli('payouts', 'reconcile', file);
    assert.equal(run.code, 1, run.out);
    const refusal = `is ${MAX_BANK_REPORT_BYTES + 1} bytes: this command reads at most ${MAX_BANK_REPORT_BYTES} bytes (nothing was read)`;
    assert.ok(run.err.includes(refusal), run.err);
    // through the operator socket the command asks the client for the file with the limit: the client
    // (remote.ts, test/cli/remote-client.unit.test.ts) refuses it unread, EFBIG with its size
    const asked: (number | undefined)[] = [];
    const remote = await runCliOn(t, ['payouts', 'reconcile', file], {
      readFile: async (name, maxBytes) => {
        asked.push(maxBytes);
        const { size } = await fs.stat(name);
        if (maxBytes !== undefined && size > maxBytes)
          throw Object.assign(new Error(`EFBIG: ${name}`), { code: 'EFBIG', size });
        return fs.readFile(name, 'utf8');
      },
    });
    assert.equal(remote.code, 1, remote.out);
    assert.deepEqual(asked, [MAX_BANK_REPORT_BYTES]);
    assert.ok(remote.err.includes(refusal), remote.err);
    // a client that sends the file whole (an earlier version): refused on arrival, before parsing
    const sent = await runCliOn(t, ['payouts', 'reconcile', file], { readFile: (name) => fs.readFile(name, 'utf8') });
    assert.equal(sent.code, 1, sent.out);
    assert.match(sent.err, /bytes \(refused on arrival, before parsing\)/);
    await fs.rm(file);
    // the import itself refuses such a text, whoever reads it
    await assert.rejects(
      reconcilePayouts(
        {
          db: t.db,
          jobs: t.app.parasol.jobs,
          now: () => new Date(),
          bankDetailsDays: 30,
          encryption: t.app.parasol.keys.encryption,
        },
        `endToEndId,status\n${'x'.repeat(MAX_BANK_REPORT_BYTES)}`,
        'test',
      ),
      (error: unknown) => error instanceof DomainError && error.code === 'payload_too_large',
    );
  });

  it('refuses whole files that are not well-formed XML or not camt.054, naming the line; nothing is imported', async () => {
    const { claimNumber } = await claimWithDetails();
    await batch();
    const payout = await payoutOf(claimNumber);
    const good = camt('08', [paid(payout.end_to_end_id)]);
    for (const [content, expected] of [
      [good.replace('</Ntry>', ''), /not well-formed XML/],
      [good.replaceAll('camt.054.001.08', 'camt.053.001.08'), /not a camt\.054: this is camt\.053\.001\.08/],
      [
        `<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n${good.slice(good.indexOf('<Document'))}`,
        /line 2.*DOCTYPE/s,
      ],
    ] as const) {
      files += 1;
      const file = path.join(dir, `bad-${files}.xml`);
      await fs.writeFile(file, content);
      const run = await cli('payouts', 'reconcile', file);
      assert.equal(run.code, 1, run.out);
      assert.match(run.err, /The camt\.054 file is refused; nothing was imported/);
      assert.match(run.err, expected);
    }
    assert.equal((await payoutOf(claimNumber)).status, 'instructed');
  });
});
