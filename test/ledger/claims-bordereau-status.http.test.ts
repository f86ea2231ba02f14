import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { notifyClaim } from '../../src/claims/notify-claim.ts';
import { sql } from 'kysely';
import { backfillLedger, claimsBordereau, entriesOfContract } from '../../src/ledger/index.ts';
import type { Executor } from '../../src/platform/db.ts';
import { settlePayout, type BankOutcome } from '../../src/payouts/payouts.ts';
import { openClaimsForFlightEvent } from '../../src/claims/open-claims.ts';
import { approveManualPayout, correctClaimCompensation, reviewClaim, voidClaim } from '../../src/payouts/index.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  usingPostgres,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

const IBAN = 'DE89 3704 0044 0532 0130 00';
const MINUTE = 60_000;

/**
 * The claims bordereau's `status` and `paid_at` as at the period's end (claimRows): every claim
 * status change is dated by the application's clock (the use case's `deps.now()`, the clock of its
 * ledger entry and `paid_at`), ordered by its audit row's id. Workers off: the test settles each
 * payout itself, with the clock it chooses.
 */
describe('claims bordereau: each claim as it stood at the period’s end', () => {
  let t: TestApp;
  let partner: TestPartner;
  let seq = 7600 + (process.pid % 300);
  const from = new Date(Date.now() - 86_400_000);

  before(async () => {
    t = await buildTestApp({
      env: {
        PARASOL_WORKERS: 'off',
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on',
      },
    });
    partner = await createTestPartner(t.db);
    // the partner's events are stored (workers off: never delivered), their timestamps read below
    const endpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...partner.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/hooks' },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
  });
  after(() => t.close());

  const scope = () => ({ partnerId: partner.id, environment: 'sandbox' as const });
  /** The claim's row in the bordereau of the period from yesterday to `to`. */
  const asOf = async (to: Date, claimNumber: string) => {
    const row = (await claimsBordereau(t.db, scope(), { from, to })).rows.find((r) => r.claim_number === claimNumber);
    assert.ok(row, `${claimNumber} in the bordereau ending ${to.toISOString()}`);
    return { status: row.status, paidAt: row.paid_at };
  };
  const notifyDeps = (now = () => new Date()) => {
    const { config, jobs, keys } = t.app.parasol;
    return {
      db: t.db,
      jobs,
      keys,
      publicUrl: config.publicUrl,
      bankDetailsDays: config.bankDetailsDays,
      insurer: config.insurer,
      now,
    };
  };
  const settleDeps = (now: Date) => ({
    jobs: t.app.parasol.jobs,
    now: () => now,
    bankDetailsDays: t.app.parasol.config.bankDetailsDays,
    encryption: t.app.parasol.keys.encryption,
  });

  async function openClaim() {
    const c = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}` });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const claimNumber = opened.body.claimsOpened[0].claimNumber as string;
    const { id } = await t.db
      .selectFrom('claims')
      .select('id')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    return { contractNumber: c.contractNumber, claimNumber, claimId: id };
  }
  /** A claim whose customer gave bank details (now): payment pending, its payout pending with the bank. */
  async function claimPaymentPending() {
    const claim = await openClaim();
    assert.equal(await notifyClaim(notifyDeps(), { claimId: claim.claimId }), 'sent');
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${claim.contractNumber}`,
      headers: partner.auth,
    });
    const link = (JSON.parse(res.body) as { messages: { link: string }[] }).messages[0]!.link;
    const sent = await t.app.inject({
      method: 'POST',
      url: new URL(link).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ accountHolder: 'Camille Martin', iban: IBAN, bic: '' }).toString(),
    });
    assert.equal(sent.statusCode, 200);
    const { end_to_end_id } = await t.db
      .selectFrom('payouts')
      .select('end_to_end_id')
      .where('claim_id', '=', claim.claimId)
      .executeTakeFirstOrThrow();
    return { ...claim, endToEndId: end_to_end_id };
  }
  const payoutId = async (db: Executor, endToEndId: string) =>
    (await db.selectFrom('payouts').select('id').where('end_to_end_id', '=', endToEndId).executeTakeFirstOrThrow()).id;
  const settle = (endToEndId: string, outcome: BankOutcome, now: Date, db = t.db) =>
    db.transaction().execute((trx) =>
      settlePayout(trx, settleDeps(now), {
        endToEndId,
        outcome,
        actor: 'system',
        rails: ['simulated_bank'],
        sentInFile: false,
      }),
    );
  /** The claim's webhook events of this type: their `timestamp` and data. */
  const eventsOf = async (type: string, claimNumber: string) =>
    (await t.db.selectFrom('webhook_events').select('payload').where('type', '=', type).execute())
      .map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload))
      .filter((e: { data: { claimNumber: string } }) => e.data.claimNumber === claimNumber)
      .map((e: { timestamp: string; data: Record<string, unknown> }) => ({ timestamp: e.timestamp, data: e.data }));
  const paymentOf = async (contractNumber: string) =>
    (await entriesOfContract(t.db, contractNumber)).find((e) => e.kind === 'compensation_paid' && e.amount > 0)!
      .occurred_at;

  it('a claim opened, reviewed, corrected and approved on a clock other than the database’s: opened on the database’s (the listing’s key), its changes and their audit rows on the application’s', async () => {
    // the application's clock three hours ahead of the database's (a simulation clock, a skewed DB)
    const at = new Date(Date.now() + 3 * 3_600_000);
    const clock = () => at;
    const c = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}` });
    const [opened] = await openClaimsForFlightEvent(
      { ...t.app.parasol, now: clock },
      {
        environment: 'sandbox',
        flightNumber: c.flightNumber,
        departureDate: c.departureDate,
        status: 'cancelled',
        source: 'test',
        partnerId: partner.id,
      },
    );
    assert.ok(opened);
    const desk = (reason: string) => ({
      claimNumber: opened.claimNumber,
      actor: 'operator:clock',
      reason,
      actionToken: crypto.randomUUID(),
    });
    // opened_at is the opening transaction's start on the database's clock (the claims listing pages by
    // it behind a commit horizon of transaction starts): hours before the application's time here
    const { opened_at: openedAt } = await t.db
      .selectFrom('claims')
      .select('opened_at')
      .where('id', '=', opened.id)
      .executeTakeFirstOrThrow();
    assert.ok(openedAt < at && openedAt.getTime() > Date.now() - 3_600_000, openedAt.toISOString());
    // each change's updated_at is the application's time: never before opened_at
    const stamps = async (change: string, expected = at) => {
      const claim = await t.db
        .selectFrom('claims')
        .select(['opened_at', 'updated_at'])
        .where('id', '=', opened.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(claim.opened_at, openedAt);
      assert.ok(claim.updated_at >= claim.opened_at, `${change}: updated_at ${claim.updated_at.toISOString()}`);
      assert.deepEqual(claim.updated_at, expected, change);
    };
    await stamps('opened', openedAt);
    // the claim.opened event says the time opened_at says
    const [event] = await eventsOf('claim.opened', opened.claimNumber);
    assert.deepEqual([event!.timestamp, event!.data.openedAt], [openedAt.toISOString(), openedAt.toISOString()]);
    assert.equal(
      (await reviewClaim({ db: t.db, keys: t.app.parasol.keys, now: clock }, desk('check the flight'))).outcome,
      'done',
    );
    await stamps('under review');
    const amount = (opened.compensationAmount / 100 - 1).toFixed(2);
    const corrected = await correctClaimCompensation(
      { db: t.db, keys: t.app.parasol.keys, now: clock },
      { ...desk('one euro less'), amount },
    );
    assert.equal(corrected.outcome, 'done');
    await stamps('compensation corrected');
    const deps = { db: t.db, jobs: t.app.parasol.jobs, keys: t.app.parasol.keys, now: clock };
    assert.equal((await approveManualPayout(deps, desk('flight checked'))).outcome, 'done');
    await stamps('review released');
    assert.equal(await notifyClaim(notifyDeps(clock), { claimId: opened.id }), 'sent');
    await stamps('awaiting bank details');
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['action', 'at'])
      .where((eb) =>
        eb.or([
          eb.and([eb('entity', '=', 'claim'), eb('entity_id', '=', opened.claimNumber)]),
          eb.and([eb('entity', '=', 'flight'), eb('entity_id', '=', `${c.flightNumber}/${c.departureDate}`)]),
        ]),
      )
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audited.map((a) => [a.action, a.at.toISOString()]),
      [
        ['claims_opened', openedAt],
        ...['manual_review_started', 'compensation_corrected', 'manual_review_released', 'awaiting_bank_details'].map(
          (action) => [action, at] as const,
        ),
      ].map(([action, time]) => [action, (time as Date).toISOString()]),
    );
    // the bordereau of a period ending before it opened has not seen it yet
    const ending = new Date(openedAt.getTime() - MINUTE);
    const rows = (await claimsBordereau(t.db, scope(), { from, to: ending })).rows;
    assert.equal(
      rows.some((r) => r.claim_number === opened.claimNumber),
      false,
    );
    assert.ok(await asOf(new Date(at.getTime() + MINUTE), opened.claimNumber));
  });

  it('a corrected compensation: the amount before the correction in a bordereau ending before it, the new one after', async () => {
    const { claimNumber, claimId } = await openClaim();
    const { compensation_amount: opened } = await t.db
      .selectFrom('claims')
      .select('compensation_amount')
      .where('id', '=', claimId)
      .executeTakeFirstOrThrow();
    const desk = (reason: string) => ({
      claimNumber,
      actor: 'operator:desk@parasol.test',
      reason,
      actionToken: crypto.randomUUID(),
    });
    const firstAt = new Date(Date.now() + 10 * MINUTE);
    const secondAt = new Date(Date.now() + 20 * MINUTE);
    const at = (time: Date) => ({ db: t.db, keys: t.app.parasol.keys, now: () => time });
    assert.equal((await reviewClaim(at(firstAt), desk('check the tier'))).outcome, 'done');
    const once = Number(opened) - 100;
    const twice = Number(opened) - 200;
    const correct = async (time: Date, amount: number) =>
      (await correctClaimCompensation(at(time), { ...desk('tier'), amount: (amount / 100).toFixed(2) })).outcome;
    assert.equal(await correct(firstAt, once), 'done');
    assert.equal(await correct(secondAt, twice), 'done');
    const compensationAt = async (to: Date) => {
      const report = await claimsBordereau(t.db, scope(), { from, to });
      const row = report.rows.find((r) => r.claim_number === claimNumber);
      assert.ok(row, `${claimNumber} in the bordereau ending ${to.toISOString()}`);
      return row.compensation_amount;
    };
    // a period closed before any correction, produced again now: the amount it said then
    assert.equal(await compensationAt(firstAt), Number(opened));
    assert.equal(await compensationAt(secondAt), once);
    assert.equal(await compensationAt(new Date(secondAt.getTime() + 1)), twice);
  });

  it('a claim with no status change yet reads opened', async () => {
    const { claimNumber } = await openClaim();
    assert.deepEqual(await asOf(new Date(Date.now() + 86_400_000), claimNumber), { status: 'opened', paidAt: null });
  });

  it('a claim opened before the period and paid (or failed) in it: in the period’s bordereau once, by its payment', async () => {
    const paid = await claimPaymentPending();
    const failed = await claimPaymentPending();
    const openedAt = await t.db
      .selectFrom('claims')
      .select((eb) => eb.fn.max('opened_at').as('at'))
      .where('id', 'in', [paid.claimId, failed.claimId])
      .executeTakeFirstOrThrow();
    // the period starts after both opened: each is found by its ledger entry in it alone
    const period = { from: new Date(openedAt.at.getTime() + 1), to: new Date(Date.now() + 30 * MINUTE) };
    const paidAt = new Date(Date.now() + 10 * MINUTE);
    assert.equal(await settle(paid.endToEndId, 'paid', paidAt), 'paid');
    assert.equal(await settle(failed.endToEndId, 'failed', paidAt), 'failed');
    const rows = (await claimsBordereau(t.db, scope(), period)).rows;
    const paidRows = rows.filter((r) => r.claim_number === paid.claimNumber);
    const failedRows = rows.filter((r) => r.claim_number === failed.claimNumber);
    assert.equal(paidRows.length, 1, JSON.stringify(paidRows));
    assert.equal(failedRows.length, 1, JSON.stringify(failedRows));
    assert.deepEqual([paidRows[0]!.status, paidRows[0]!.paid_at], ['paid', paidAt]);
    assert.ok(paidRows[0]!.paid_in_period > 0, JSON.stringify(paidRows[0]));
    assert.deepEqual(
      [failedRows[0]!.status, failedRows[0]!.paid_in_period, failedRows[0]!.failed_attempts_in_period],
      ['failed', 0, 1],
    );
  });

  it('an entry of another scope naming a claim does not bring the claim into that scope’s bordereau', async () => {
    const { claimId, claimNumber } = await openClaim();
    const { contract_id } = await t.db
      .selectFrom('claims')
      .select('contract_id')
      .where('id', '=', claimId)
      .executeTakeFirstOrThrow();
    // an entry no writer makes: the sandbox claim's, written under the partner's production scope
    await t.db
      .insertInto('ledger_entries')
      .values({
        partner_id: partner.id,
        environment: 'production',
        kind: 'payout_failed',
        amount: 0,
        currency: 'EUR',
        contract_id,
        claim_id: claimId,
        event_key: `test:${claimId}:other-scope`,
        occurred_at: new Date(),
        recorded_by: 'test',
      })
      .execute();
    const to = new Date(Date.now() + 86_400_000);
    const production = await claimsBordereau(t.db, { ...scope(), environment: 'production' }, { from, to });
    assert.deepEqual(
      production.rows.filter((r) => r.claim_number === claimNumber),
      [],
    );
    assert.deepEqual(await asOf(to, claimNumber), { status: 'opened', paidAt: null });
  });

  it('a returned payment: paid (paid_at set) in a bordereau ending before the return, failed (no paid_at) after', async () => {
    const { contractNumber, claimNumber, endToEndId } = await claimPaymentPending();
    const paidAt = new Date(Date.now() + 10 * MINUTE);
    const returnedAt = new Date(Date.now() + 20 * MINUTE);
    assert.equal(await settle(endToEndId, 'paid', paidAt), 'paid');
    assert.equal(await settle(endToEndId, 'returned', returnedAt), 'returned');
    assert.deepEqual(await paymentOf(contractNumber), paidAt);

    assert.deepEqual(await asOf(paidAt, claimNumber), { status: 'payment_pending', paidAt: null });
    assert.deepEqual(await asOf(new Date(paidAt.getTime() + 1), claimNumber), { status: 'paid', paidAt });
    assert.deepEqual(await asOf(returnedAt, claimNumber), { status: 'paid', paidAt });
    assert.deepEqual(await asOf(new Date(returnedAt.getTime() + 1), claimNumber), { status: 'failed', paidAt: null });
    // the events say the same times: each one's timestamp is the use case's clock, as its data's
    const [paid] = await eventsOf('claim.paid', claimNumber);
    assert.deepEqual([paid!.timestamp, paid!.data.paidAt], [paidAt.toISOString(), paidAt.toISOString()]);
    const [returned] = await eventsOf('claim.failed', claimNumber);
    assert.deepEqual(
      [returned!.timestamp, returned!.data.failedAt],
      [returnedAt.toISOString(), returnedAt.toISOString()],
    );
  });

  it('a payment made before the ledger and returned after it: the backfill writes the payment, so the claim nets to zero', async () => {
    const { contractNumber, claimNumber, endToEndId } = await claimPaymentPending();
    const paidAt = new Date(Date.now() + 10 * MINUTE);
    const returnedAt = new Date(Date.now() + 20 * MINUTE);
    assert.equal(await settle(endToEndId, 'paid', paidAt), 'paid');
    assert.equal(await settle(endToEndId, 'returned', returnedAt), 'returned');
    const payments = async () =>
      (await entriesOfContract(t.db, contractNumber))
        .filter((e) => e.kind === 'compensation_paid')
        .sort((x, y) => x.occurred_at.getTime() - y.occurred_at.getTime())
        .map((e) => [e.event_key.split(':').slice(2).join(':'), e.amount, e.occurred_at]);
    const recorded = await payments();
    const amount = recorded[0]![1] as number;
    assert.deepEqual(recorded, [
      ['1:paid', amount, paidAt],
      ['1:returned', -amount, returnedAt],
    ]);
    // the payment predates the ledger (trigger off for the test): its entry removed, the return's kept,
    // correcting none as recordPayoutReturn writes it then
    await t.db.transaction().execute(async (trx) => {
      const key = `payout:${await payoutId(trx, endToEndId)}:1`;
      await sql`ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_append_only`.execute(trx);
      await sql`UPDATE ledger_entries SET corrects = NULL WHERE event_key = ${`${key}:returned`}`.execute(trx);
      await sql`DELETE FROM ledger_entries WHERE event_key = ${`${key}:paid`}`.execute(trx);
      await sql`ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_append_only`.execute(trx);
    });
    assert.equal((await payments()).length, 1);
    await t.db.transaction().execute((trx) => backfillLedger(trx, 'operator:test'));
    assert.deepEqual(await payments(), recorded, 'the payment back, at its time (the claim’s paid audit row)');
    const later = new Date(returnedAt.getTime() + MINUTE);
    const row = (await claimsBordereau(t.db, scope(), { from, to: later })).rows.find(
      (r) => r.claim_number === claimNumber,
    );
    assert.equal(row?.paid_in_period, 0, 'paid then returned: nothing paid');
    await t.db.transaction().execute((trx) => backfillLedger(trx, 'operator:test'));
    assert.deepEqual(await payments(), recorded, 'run again: nothing more');
  });

  it('the backfilled payment is dated by the claim’s paid audit row, not by the payout, once new details made a new attempt', async () => {
    const { contractNumber, claimId, endToEndId } = await claimPaymentPending();
    const paidAt = new Date(Date.now() + 10 * MINUTE);
    const returnedAt = new Date(Date.now() + 20 * MINUTE);
    assert.equal(await settle(endToEndId, 'paid', paidAt), 'paid');
    assert.equal(await settle(endToEndId, 'returned', returnedAt), 'returned');
    // the customer is texted a new link (the job the return queued; workers off) and gives new details
    assert.equal(await notifyClaim(notifyDeps(), { claimId, kind: 'payment_failed', attempt: 1 }), 'sent');
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
      headers: partner.auth,
    });
    const links = (JSON.parse(res.body) as { messages: { link: string | null }[] }).messages.flatMap((m) =>
      m.link ? [m.link] : [],
    );
    assert.equal(links.length, 2, 'the first link and the one after the return');
    const sent = await t.app.inject({
      method: 'POST',
      url: new URL(links[1]!).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ accountHolder: 'Camille Martin', iban: IBAN, bic: '' }).toString(),
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const payout = await t.db
      .selectFrom('payouts')
      .select(['id', 'attempt', 'settled_at'])
      .where('claim_id', '=', claimId)
      .executeTakeFirstOrThrow();
    // the payout is now the second attempt, unsettled: it no longer says when the first was paid
    assert.deepEqual([payout.attempt, payout.settled_at], [2, null]);
    // the first payment predates the ledger (trigger off for the test): its entry removed, the return's kept
    await t.db.transaction().execute(async (trx) => {
      const key = `payout:${payout.id}:1`;
      await sql`ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_append_only`.execute(trx);
      await sql`UPDATE ledger_entries SET corrects = NULL WHERE event_key = ${`${key}:returned`}`.execute(trx);
      await sql`DELETE FROM ledger_entries WHERE event_key = ${`${key}:paid`}`.execute(trx);
      await sql`ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_append_only`.execute(trx);
    });
    await t.db.transaction().execute((trx) => backfillLedger(trx, 'operator:test'));
    const payments = (await entriesOfContract(t.db, contractNumber))
      .filter((e) => e.kind === 'compensation_paid')
      .map((e) => [e.event_key.split(':').slice(2).join(':'), e.occurred_at]);
    assert.deepEqual(
      payments.sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      [
        ['1:paid', paidAt],
        ['1:returned', returnedAt],
      ],
      'the payment at the paid audit row’s time, not the return’s',
    );
  });

  it('a settlement whose transaction starts before the period’s end and settles after it: not paid at the end, on both clocks', async () => {
    const { contractNumber, claimNumber, endToEndId } = await claimPaymentPending();
    // the transaction starts now (the database's now()); the period ends a minute later; the use case
    // settles at its own clock, two minutes later (a long import crossing the end)
    const end = new Date(Date.now() + MINUTE);
    const settledAt = new Date(Date.now() + 2 * MINUTE);
    assert.equal(await settle(endToEndId, 'paid', settledAt), 'paid');
    assert.deepEqual(await paymentOf(contractNumber), settledAt);
    const { paid_at } = await t.db
      .selectFrom('claims')
      .select('paid_at')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    assert.deepEqual(paid_at, settledAt);
    // status and paid_at agree: payment pending at the end, paid (at its ledger entry) after
    assert.deepEqual(await asOf(end, claimNumber), { status: 'payment_pending', paidAt: null });
    assert.deepEqual(await asOf(new Date(settledAt.getTime() + 1), claimNumber), { status: 'paid', paidAt: settledAt });
  });

  it('a voided claim reads voided after its void, its earlier status before', async () => {
    const { claimId, claimNumber } = await openClaim();
    assert.equal(await notifyClaim(notifyDeps(), { claimId }), 'sent');
    const voidedAt = new Date(Date.now() + 30 * MINUTE);
    const done = await voidClaim(
      { db: t.db, jobs: t.app.parasol.jobs, keys: t.app.parasol.keys, now: () => voidedAt },
      {
        claimNumber,
        actor: 'operator:desk@parasol.test',
        reason: 'wrong flight data',
        actionToken: `void-${claimId.replace(/-/g, '')}`.slice(0, 40),
      },
    );
    assert.equal(done.outcome, 'done');
    assert.deepEqual(await asOf(voidedAt, claimNumber), { status: 'awaiting_bank_details', paidAt: null });
    assert.deepEqual(await asOf(new Date(voidedAt.getTime() + 1), claimNumber), { status: 'voided', paidAt: null });
  });

  it(
    'two overlapping settlements of one claim (PostgreSQL): the later change wins, whatever the clocks say',
    { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): concurrent transactions' },
    async () => {
      const { claimNumber, endToEndId } = await claimPaymentPending();
      const earlier = new Date(Date.now() + 5 * MINUTE);
      const later = new Date(Date.now() + 6 * MINUTE);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const isStarted = new Promise<void>((resolve) => (started = resolve));
      // A: a reconciliation that began first (its clock read then: earlier), writes the return last
      const returning = t.db.transaction().execute(async (trx) => {
        await trx.selectFrom('claims').select('id').where('claim_number', '=', claimNumber).execute();
        started();
        await released;
        return settlePayout(trx, settleDeps(earlier), {
          endToEndId,
          outcome: 'returned',
          actor: 'system',
          rails: ['simulated_bank'],
          sentInFile: false,
        });
      });
      await isStarted;
      // B: a shorter one, begun and committed meanwhile: paid
      assert.equal(await settle(endToEndId, 'paid', later), 'paid');
      release();
      assert.equal(await returning, 'returned');
      const trail = await t.db
        .selectFrom('audit_log')
        .select(['id', 'at', 'action'])
        .where('entity', '=', 'claim')
        .where('entity_id', '=', claimNumber)
        .where('action', 'in', ['paid', 'payment_returned'])
        .orderBy('id')
        .execute();
      // the return written after the payment, dated before it
      assert.deepEqual(
        trail.map((r) => r.action),
        ['paid', 'payment_returned'],
      );
      assert.ok(trail[1]!.at < trail[0]!.at);
      const { status } = await t.db
        .selectFrom('claims')
        .select('status')
        .where('claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
      assert.equal(status, 'failed');
      assert.deepEqual(await asOf(new Date(later.getTime() + MINUTE), claimNumber), {
        status: 'failed',
        paidAt: null,
      });
    },
  );
});
