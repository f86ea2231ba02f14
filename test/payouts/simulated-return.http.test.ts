import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  payWithSimulatedBank,
  SIMULATED_BANK_RETURN,
  SIMULATED_BANK_RETURNED_IBAN,
  type settlePayout,
} from '../../src/payouts/payouts.ts';
import { checkSepaAccount } from '../../src/payouts/bank-account.ts';
import { reconcilePayouts } from '../../src/payouts/reconcile.ts';
import { addEndpoint } from '../../src/webhooks/webhooks.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { Receiver } from '../webhooks/receiver.ts';

/**
 * The simulated bank's returned account (sandbox, preproduction): it pays, then returns the transfer
 * a moment later through settlePayout — the code path of a production camt.054 return — so a partner
 * rehearses `claim.paid` followed by `claim.failed` with `paymentReturned`.
 */
describe('the simulated bank returns a paid transfer for its documented account', () => {
  let t: TestApp;
  let a: TestPartner;
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

  it('is a valid IBAN (checksum) of an EEA country, needing no BIC', () => {
    const check = checkSepaAccount({ iban: SIMULATED_BANK_RETURNED_IBAN });
    assert.ok(check.ok, JSON.stringify(check));
  });

  it('paid, then returned: payout returned, ledger reversed, claim failed with a new link, claim.paid then claim.failed (paymentReturned)', async () => {
    const c = await insureFlight(t.app, a, { flightNumber: `AF${9400 + (process.pid % 500)}` });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const messagesOf = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `${FLIGHT}/sandbox/messages?contractNumber=${c.contractNumber}`,
        headers: a.auth,
      });
      return (res.json() as { messages: { body: string; link: string }[] }).messages;
    };
    const [first] = await eventually(async () => ((await messagesOf()).length ? messagesOf() : undefined));
    const form = await t.app.inject({
      method: 'POST',
      url: new URL(first!.link).pathname,
      payload: new URLSearchParams({
        accountHolder: 'Camille Martin',
        iban: 'NL02 ABNA 0123 4567 89',
        bic: '',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.statusCode, 200, form.body);

    const payoutOf = () =>
      t.db
        .selectFrom('payouts as p')
        .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
        .innerJoin('contracts as ct', 'ct.id', 'cl.contract_id')
        .select([
          'p.id',
          'p.status',
          'p.attempt',
          'p.end_to_end_id',
          'p.amount',
          'p.settled_at',
          'p.returned_at',
          'p.failure_reason',
          'cl.id as claim_id',
          'cl.status as claim_status',
          'cl.failure_reason as claim_failure',
          'cl.paid_at',
          'ct.status as contract_status',
        ])
        .where('ct.contract_number', '=', c.contractNumber)
        .executeTakeFirstOrThrow();
    // paid first: the claim is paid and claim.paid goes out
    await eventually(async () => ((await payoutOf()).settled_at ? true : undefined), 30_000);
    const returned = await eventually(async () => {
      const row = await payoutOf();
      return row.status === 'returned' ? row : undefined;
    }, 60_000);
    assert.deepEqual(
      [returned.attempt, returned.failure_reason, returned.claim_status, returned.claim_failure, returned.paid_at],
      [1, SIMULATED_BANK_RETURN, 'failed', SIMULATED_BANK_RETURN, null],
    );
    assert.ok(returned.returned_at && returned.settled_at, 'when it was paid, and when it came back');
    assert.equal(returned.contract_status, 'active', 'the contract waits for the claim again');

    // the ledger: the payment, then its reversal (append-only)
    const entries = await t.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount', 'event_key'])
      .where('claim_id', '=', returned.claim_id)
      .where('kind', '=', 'compensation_paid')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      entries.map((e) => [Number(e.amount), e.event_key.split(':').slice(2).join(':')]),
      [
        [Number(returned.amount), '1:paid'],
        [-Number(returned.amount), '1:returned'],
      ],
    );

    // the audit: paid by the simulated bank, then returned by it
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('entity', '=', 'claim')
      .where('action', 'in', ['paid', 'payment_returned'])
      .where(({ ref, eb }) => eb(sql`${ref('data')}->>'endToEndId'`, '=', returned.end_to_end_id))
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audited.map((r) => [r.action, r.actor]),
      [
        ['paid', 'system:simulated-bank'],
        ['payment_returned', 'system:simulated-bank'],
      ],
    );

    // the receipt of the payment, then a new link by SMS for other details
    const again = await eventually(async () => (await messagesOf()).find((m) => m.link && m.link !== first!.link));
    assert.match(again.body, /rejected/);

    // the partner's webhooks: claim.paid, then claim.failed with paymentReturned
    await eventually(async () =>
      receiver.received('/hooks').some((r) => r.payload?.type === 'claim.failed') ? true : undefined,
    );
    const hooks = receiver.received('/hooks').filter((r) => r.payload?.data?.claimNumber);
    assert.ok(
      hooks.every((r) => r.verified),
      hooks.find((r) => !r.verified)?.verifyError ?? '',
    );
    const types = hooks.map((r) => r.payload!.type);
    assert.ok(types.indexOf('claim.paid') >= 0 && types.indexOf('claim.paid') < types.indexOf('claim.failed'));
    const failed = hooks.find((r) => r.payload!.type === 'claim.failed')!.payload!.data;
    assert.equal(failed.paymentReturned, true);
    assert.equal(failed.failureReason, SIMULATED_BANK_RETURN);

    // the return's job run again (a retry after its commit): nothing more happens
    const deps = {
      db: t.db,
      jobs: t.app.parasol.jobs,
      now: () => new Date(),
      bankDetailsDays: 30,
      encryption: t.app.parasol.keys.encryption,
    };
    const ledgerCount = async () =>
      (
        await t.db
          .selectFrom('ledger_entries')
          .select('id')
          .where('claim_id', '=', returned.claim_id)
          .where('kind', '=', 'compensation_paid')
          .execute()
      ).length;
    assert.equal(await payWithSimulatedBank(deps, returned.id, returned.end_to_end_id), 'skipped');
    assert.equal((await payoutOf()).status, 'returned');
    assert.equal(await ledgerCount(), 2);

    // new details pay a new attempt (a new end-to-end id); the first attempt's return job, were it to
    // run only now, leaves the new payment alone
    const retry = await t.app.inject({
      method: 'POST',
      url: new URL(again.link).pathname,
      payload: new URLSearchParams({
        accountHolder: 'Camille Martin',
        iban: 'DE89 3704 0044 0532 0130 00',
        bic: '',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(retry.statusCode, 200, retry.body);
    const repaid = await eventually(async () => {
      const row = await payoutOf();
      return row.status === 'paid' ? row : undefined;
    }, 30_000);
    assert.equal(repaid.attempt, 2);
    assert.notEqual(repaid.end_to_end_id, returned.end_to_end_id);
    assert.equal(await payWithSimulatedBank(deps, returned.id, returned.end_to_end_id), 'skipped');
    assert.deepEqual([(await payoutOf()).status, (await payoutOf()).claim_status], ['paid', 'paid']);
    assert.equal(await ledgerCount(), 3, 'the first payment, its reversal, the second payment');

    // a bank report naming this sandbox payout (an id pasted into a CSV, a test camt.054) settles
    // nothing: no bank was sent it, the simulated bank alone settles it — unknown to the report
    const csv = `endToEndId,status,reason\n${repaid.end_to_end_id},returned,AC04 closed\n${returned.end_to_end_id},paid,\n`;
    const report = await reconcilePayouts(deps, csv, 'operator:test');
    assert.deepEqual([report.outcomes.unknown, report.outcomes.returned, report.outcomes.superseded], [2, 0, 0]);
    assert.match(report.issues[0]!.detail ?? '', /sandbox payout, settled by the simulated bank only/);
    assert.deepEqual([(await payoutOf()).status, (await payoutOf()).claim_status], ['paid', 'paid']);
    assert.equal(await ledgerCount(), 3, 'no reversal booked by the report');
    // every caller of settlePayout says which rails its report speaks of: none can forget it (npm run check)
    // @ts-expect-error `rails` is required
    const forgotten: Parameters<typeof settlePayout>[2] = { endToEndId: 'X', outcome: 'paid', actor: 'test' };
    assert.equal(forgotten.rails, undefined);
  });
});
