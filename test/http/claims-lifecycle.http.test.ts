import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { expireClaims } from '../../src/claims/expire-claims.ts';
import { addEndpoint } from '../../src/webhooks/webhooks.ts';
import { SIMULATED_BANK_REJECTED_IBAN } from '../../src/payouts/payouts.ts';
import { Receiver } from '../webhooks/receiver.ts';
import {
  allClaims,
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * The claim flow of sandbox end to end, through HTTP only (a listening server, real form posts):
 * subscribe → flight event → SMS in the outbox → bank details → simulated bank → paid; a rejected
 * payment and new details; expiry; contract completion.
 */
describe('claims lifecycle in sandbox: from flight event to paid', () => {
  let t: TestApp;
  let a: TestPartner;
  let base: string;
  let receiver: Receiver;
  before(async () => {
    t = await buildTestApp({
      env: {
        PARASOL_JOB_POLL_SECONDS: '1',
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on',
      },
    });
    a = await createTestPartner(t.db);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // the partner's webhook receiver: every request's signature verified with the endpoint's secret
    receiver = await Receiver.start();
    const { secret } = await addEndpoint(
      { db: t.db, jobs: t.app.parasol.jobs, keys: t.app.parasol.keys, allowPrivate: true, now: () => new Date() },
      { actor: 'test', partnerId: a.id, environment: 'sandbox' },
      { url: receiver.url('/hooks') },
    );
    receiver.secret('/hooks', secret);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  let seq = 8100;
  const contract = async (options: { returnTrip?: boolean } = {}) =>
    insureFlight(t.app, a, {
      flightNumber: `AF${seq++}`,
      ...(options.returnTrip ? { returnFlight: `AF${seq++}` } : {}),
    });
  const claimsOf = async (contractNumber: string) => {
    const today = new Date().toISOString().slice(0, 10);
    return allClaims(t.app, a, { fromDate: today, toDate: today, contractNumber });
  };
  const messagesOf = async (contractNumber: string) => {
    const res = await fetch(`${base}${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`, { headers: a.auth });
    return ((await res.json()) as { messages: { body: string; link: string }[] }).messages;
  };
  /** The customer's browser: GET the page, POST the form as a browser would (urlencoded). */
  const submit = async (link: string, fields: Record<string, string>) => {
    const url = `${base}${new URL(link).pathname}`;
    const page = await fetch(url);
    assert.equal(page.status, 200);
    const res = await fetch(url, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
    return { status: res.status, body: await res.text() };
  };
  const contractStatus = async (contractNumber: string) =>
    (
      await t.db
        .selectFrom('contracts')
        .select('status')
        .where('contract_number', '=', contractNumber)
        .executeTakeFirstOrThrow()
    ).status;

  it('cancelled flight → SMS → bank details → paid by the simulated bank → getclaims shows it paid → contract completed', async () => {
    const c = await contract();
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal(opened.body.claimsOpened.length, 1);

    const [message] = await eventually(async () =>
      (await messagesOf(c.contractNumber)).length ? messagesOf(c.contractNumber) : undefined,
    );
    assert.equal((await claimsOf(c.contractNumber))[0]!.status, 'awaiting_bank_details');

    const sent = await submit(message!.link, {
      accountHolder: 'Camille Martin',
      iban: 'DE89 3704 0044 0532 0130 00',
      bic: '',
    });
    assert.equal(sent.status, 200, sent.body);
    assert.match(sent.body, /account ending 3000/);

    const [paid] = await eventually(async () => {
      const claims = await claimsOf(c.contractNumber);
      return claims[0]?.status === 'paid' ? claims : undefined;
    });
    assert.ok(paid!.paidAt, 'paidAt is set');
    assert.equal(
      await contractStatus(c.contractNumber),
      'completed',
      'its only leg settled: the contract is completed',
    );
    const completedAudit = await t.db
      .selectFrom('audit_log')
      .select('actor')
      .where('entity', '=', 'contract')
      .where('entity_id', '=', c.contractNumber)
      .where('action', '=', 'completed')
      .execute();
    assert.deepEqual(completedAudit, [{ actor: 'system' }], 'with its audit row');
    // completed before its flight's departure (a cancellation announced ahead): paid, so no refund too
    const cancel = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: c.contractNumber, reason: 'ticket_cancelled' },
      a.auth,
    );
    assert.equal(cancel.status, 409);
    assert.equal(cancel.body.code, 'contract_not_cancellable');

    const payouts = await t.db
      .selectFrom('payouts as p')
      .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
      .select(['p.status', 'p.rail', 'p.amount', 'p.end_to_end_id', 'p.attempt'])
      .where('cl.claim_number', '=', paid!.claimNumber)
      .execute();
    assert.equal(payouts.length, 1);
    assert.deepEqual(
      {
        status: payouts[0]!.status,
        rail: payouts[0]!.rail,
        amount: Number(payouts[0]!.amount),
        attempt: payouts[0]!.attempt,
      },
      { status: 'paid', rail: 'simulated_bank', amount: paid!.compensation.amount, attempt: 1 },
    );
    assert.match(payouts[0]!.end_to_end_id, /^PSL[A-Z2-7]{26}$/);

    // the link now says it is paid, and takes nothing more
    const again = await fetch(`${base}${new URL(message!.link).pathname}`);
    assert.equal(again.status, 410);
    const page = await again.text();
    assert.match(page, /has been paid/);
    // not a dead end: the status, and why the customer is paid (issue 13 §3)
    assert.match(page, /id="claim-status" data-status="paid"/);
    assert.match(page, /Why you are compensated/);
    assert.match(page, new RegExp(`${c.flightNumber} CDG → JFK`));
    assert.match(page, /Your insurance pays when the flight is cancelled\./);
    assert.match(page, /Flight event reported to the insurer\./);
  });

  it('a rejected payment: claim failed, a new link by SMS, new details, paid on the second attempt — one payout', async () => {
    const c = await contract();
    await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'delayed', arrivalDelayMinutes: 200 },
      a.auth,
    );
    const [first] = await eventually(async () =>
      (await messagesOf(c.contractNumber)).length ? messagesOf(c.contractNumber) : undefined,
    );
    const sent = await submit(first!.link, {
      accountHolder: 'Camille Martin',
      iban: SIMULATED_BANK_REJECTED_IBAN,
      bic: '',
    });
    assert.equal(sent.status, 200, sent.body);

    await eventually(async () => ((await claimsOf(c.contractNumber))[0]?.status === 'failed' ? true : undefined));
    const messages = await eventually(async () => {
      const all = await messagesOf(c.contractNumber);
      return all.length === 2 ? all : undefined;
    });
    const second = messages[1]!;
    assert.match(second.body, /rejected/);
    assert.notEqual(second.link, first!.link, 'a new link');
    const old = await fetch(`${base}${new URL(first!.link).pathname}`);
    assert.equal(old.status, 410, 'the old link takes no more details, and is not unknown');
    const oldPage = await old.text();
    assert.match(oldPage, /id="newest-message"/, 'the old link sends the customer to the newest message');
    assert.doesNotMatch(oldPage, /4300|<form/, 'the old link: neither the account digits nor a form');

    const page = await fetch(`${base}${new URL(second.link).pathname}`);
    assert.match(await page.text(), /Your bank rejected the payment to the account ending 4300/);
    const retried = await submit(second.link, {
      accountHolder: 'Camille Martin',
      iban: 'FR76 3000 6000 0112 3456 7890 189',
      bic: '',
    });
    assert.equal(retried.status, 200, retried.body);
    await eventually(async () => ((await claimsOf(c.contractNumber))[0]?.status === 'paid' ? true : undefined));

    const rows = await t.db
      .selectFrom('payouts as p')
      .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select(['p.id', 'p.status', 'p.attempt', 'p.end_to_end_id'])
      .where('c.contract_number', '=', c.contractNumber)
      .execute();
    assert.equal(rows.length, 1, 'one payout per claim');
    assert.equal(rows[0]!.attempt, 2);
    assert.equal(rows[0]!.status, 'paid');
    const attempts = await t.db
      .selectFrom('payout_attempts')
      .select(['end_to_end_id', 'attempt'])
      .where('payout_id', '=', rows[0]!.id)
      .orderBy('attempt')
      .execute();
    assert.equal(attempts.length, 2);
    assert.notEqual(attempts[0]!.end_to_end_id, attempts[1]!.end_to_end_id, 'a new end-to-end id for the new attempt');
    assert.equal(attempts[1]!.end_to_end_id, rows[0]!.end_to_end_id);
  });

  it('a return trip: two legs, two claims; the contract completes only when both are settled', async () => {
    const c = await contract({ returnTrip: true });
    await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      a.auth,
    );
    await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.returnFlight!, departureDate: c.returnDate!, status: 'diverted' },
      a.auth,
    );
    const claims = await claimsOf(c.contractNumber);
    assert.equal(claims.length, 2);
    const messages = await eventually(async () => {
      const all = await messagesOf(c.contractNumber);
      return all.length === 2 ? all : undefined;
    });
    await submit(messages[0]!.link, { accountHolder: 'Camille Martin', iban: 'DE89370400440532013000', bic: '' });
    await eventually(async () =>
      (await claimsOf(c.contractNumber)).some((x) => x.status === 'paid') ? true : undefined,
    );
    assert.equal(await contractStatus(c.contractNumber), 'active', 'one leg still waits for bank details');
    await submit(messages[1]!.link, { accountHolder: 'Camille Martin', iban: 'DE89370400440532013000', bic: '' });
    await eventually(async () =>
      (await claimsOf(c.contractNumber)).every((x) => x.status === 'paid') ? true : undefined,
    );
    assert.equal(await contractStatus(c.contractNumber), 'completed');
  });

  it('a claim with no bank details by its due date expires; its link stops working; the contract completes', async () => {
    const c = await contract();
    await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      a.auth,
    );
    const [message] = await eventually(async () =>
      (await messagesOf(c.contractNumber)).length ? messagesOf(c.contractNumber) : undefined,
    );
    const due = await t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select('cl.bank_details_due_at')
      .where('c.contract_number', '=', c.contractNumber)
      .executeTakeFirstOrThrow();
    const days = (due.bank_details_due_at!.getTime() - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, `due in 30 days by default, got ${days}`);

    // one minute before the due date nothing happens; one minute after, it expires
    await expireClaims({
      db: t.db,
      jobs: t.app.parasol.jobs,
      now: () => new Date(due.bank_details_due_at!.getTime() - 60_000),
    });
    assert.equal((await claimsOf(c.contractNumber))[0]!.status, 'awaiting_bank_details');
    await expireClaims({
      db: t.db,
      jobs: t.app.parasol.jobs,
      now: () => new Date(due.bank_details_due_at!.getTime() + 60_000),
    });
    assert.equal((await claimsOf(c.contractNumber))[0]!.status, 'expired');
    assert.equal(await contractStatus(c.contractNumber), 'completed');

    const late = await fetch(`${base}${new URL(message!.link).pathname}`, {
      method: 'POST',
      body: new URLSearchParams({ accountHolder: 'Camille Martin', iban: 'DE89370400440532013000', bic: '' }),
    });
    assert.equal(late.status, 410);
    const rows = await t.db
      .selectFrom('payouts as p')
      .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select('p.id')
      .where('c.contract_number', '=', c.contractNumber)
      .execute();
    assert.equal(rows.length, 0, 'no payout for an expired claim');
  });

  it('a delay below the lowest tier opens nothing; a cancelled contract gets no claim', async () => {
    const c = await contract();
    const below = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'delayed', arrivalDelayMinutes: 119 },
      a.auth,
    );
    assert.equal(below.body.claimsOpened.length, 0);

    const d = await contract();
    const cancelled = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: d.contractNumber, reason: 'ticket_cancelled' },
      a.auth,
    );
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const none = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: d.flightNumber, departureDate: d.departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(none.body.claimsOpened.length, 0);
  });

  it("the partner's webhook endpoint received every event of these claims, each signature verified", async () => {
    const wanted = [
      'contract.created',
      'contract.cancelled',
      'claim.opened',
      'claim.bank_details_received',
      'claim.paid',
      'claim.failed',
      'claim.expired',
    ];
    await eventually(async () => {
      const types = new Set(receiver.received('/hooks').map((r) => r.payload?.type));
      return wanted.every((w) => types.has(w)) ? true : undefined;
    });
    const all = receiver.received('/hooks');
    assert.ok(
      all.every((r) => r.verified),
      all.find((r) => !r.verified)?.verifyError ?? '',
    );
    const paid = all.filter((r) => r.payload?.type === 'claim.paid');
    assert.ok(
      paid.every((r) => r.payload!.data.paidAt && r.payload!.data.claimNumber),
      'claim.paid carries the claim and when it was paid',
    );
    const ids = all.map((r) => r.headers['webhook-id']);
    assert.equal(new Set(ids).size, ids.length, 'one delivery per event (no retries were needed)');
  });
});
