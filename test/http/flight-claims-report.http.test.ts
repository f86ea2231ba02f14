import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  allClaims,
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  operatorToken,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

describe('POST /claims — a partner rehearses the claim flow', () => {
  let t: TestApp;
  let a: TestPartner;
  let b: TestPartner;
  before(async () => {
    t = await buildTestApp();
    a = await createTestPartner(t.db);
    b = await createTestPartner(t.db);
  });
  after(() => t.close());

  let seq = 4000;
  const contract = (who: TestPartner, flightNumber = `AF${seq++}`, passengers = 1) =>
    insureFlight(t.app, who, { flightNumber, passengers });

  it('honours Idempotency-Key: a retry replays the claims opened, writing nothing twice; an operator sends none', async () => {
    const c = await contract(a);
    const event = { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' };
    const key = { ...a.auth, 'idempotency-key': `report-${process.pid}-${c.contractNumber}` };
    const claimsOf = async () =>
      t.db
        .selectFrom('claims')
        .innerJoin('contracts', 'contracts.id', 'claims.contract_id')
        .select(['claims.id'])
        .where('contracts.contract_number', '=', c.contractNumber)
        .execute();
    const auditedOpenings = async () =>
      (
        await t.db
          .selectFrom('audit_log')
          .select('id')
          .where('action', '=', 'claims_opened')
          .where('entity_id', '=', `${c.flightNumber}/${c.departureDate}`)
          .execute()
      ).length;
    const first = await post(t.app, `${FLIGHT}/claims`, event, key);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.claimsOpened.length, 1);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const claims = await claimsOf();
    assert.equal(await auditedOpenings(), 1);
    const retry = await post(t.app, `${FLIGHT}/claims`, event, key);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.body, first.body, 'the first answer: the claim it opened');
    assert.deepEqual(await claimsOf(), claims, 'no claim written twice');
    assert.equal(await auditedOpenings(), 1, 'no opening audited twice');
    // without the key, the same report answers what it does now: nothing more opened
    const unkeyed = await post(t.app, `${FLIGHT}/claims`, event, a.auth);
    assert.deepEqual(unkeyed.body.claimsOpened, []);
    const reused = await post(t.app, `${FLIGHT}/claims`, { ...event, status: 'diverted' }, key);
    assert.deepEqual([reused.status, reused.body.code], [422, 'idempotency_key_reused']);
    // keys are per partner: another partner's same key reports its own event
    const theirs = await post(t.app, `${FLIGHT}/claims`, event, {
      ...b.auth,
      'idempotency-key': key['idempotency-key'],
    });
    assert.deepEqual([theirs.status, theirs.body.claimsOpened], [200, []]);
    // an operator's event has no partner to keep a key under: refused, not ignored
    const operator = await operatorToken(t, 'report idempotency');
    const refused = await post(
      t.app,
      `${FLIGHT}/claims`,
      { ...event, environment: 'sandbox' },
      {
        ...operator.auth,
        'idempotency-key': 'operator-key',
      },
    );
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.deepEqual(
      refused.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [['header:Idempotency-Key', 'not_allowed']],
    );
  });

  it('opens the claims of the caller’s contracts on the flight, once', async () => {
    const c = await contract(a, undefined, 2);
    const event = {
      flightNumber: c.flightNumber,
      departureDate: c.departureDate,
      status: 'delayed',
      arrivalDelayMinutes: 185,
    };
    const first = await post(t.app, `${FLIGHT}/claims`, event, a.auth);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.claimsOpened.length, 1);
    const claim = first.body.claimsOpened[0];
    assert.equal(claim.contractNumber, c.contractNumber);
    assert.equal(claim.reason, 'delay');
    assert.equal(claim.delayMinutes, 185);
    assert.deepEqual(claim.compensation, { amount: 2 * 10_000, currency: 'EUR' });
    const again = await post(
      t.app,
      `${FLIGHT}/claims`,
      { ...event, status: 'cancelled', arrivalDelayMinutes: undefined },
      a.auth,
    );
    assert.deepEqual(again.body.claimsOpened, [], 'one claim per leg, ever');
    const today = new Date().toISOString().slice(0, 10);
    const listed = await allClaims(t.app, a, { fromDate: today, toDate: today, contractNumber: c.contractNumber });
    assert.equal(listed.length, 1, JSON.stringify(listed));
    // the app's own worker may already have texted the customer (notification jobs start at once)
    const [listedClaim] = listed;
    assert.ok(['opened', 'awaiting_bank_details'].includes(listedClaim!.status), listedClaim!.status);
    assert.deepEqual({ ...listedClaim, status: 'opened' }, first.body.claimsOpened[0]);
  });

  it("never touches another partner's contracts on the same flight", async () => {
    const flightNumber = `AF${seq++}`;
    const mine = await contract(a, flightNumber);
    const theirs = await contract(b, flightNumber);
    const res = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber, departureDate: mine.departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.deepEqual(
      res.body.claimsOpened.map((c: { contractNumber: string }) => c.contractNumber),
      [mine.contractNumber],
    );
    const today = new Date().toISOString().slice(0, 10);
    const bClaims = await allClaims(t.app, b, {
      fromDate: today,
      toDate: today,
      contractNumber: theirs.contractNumber,
    });
    assert.deepEqual(bClaims, [], "B's contract on the flight has no claim");
  });

  it('opens nothing below the lowest delay tier', async () => {
    const c = await contract(a);
    const res = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'delayed', arrivalDelayMinutes: 60 },
      a.auth,
    );
    assert.deepEqual(res.body.claimsOpened, []);
  });

  it('pays a tier from its own minute on, per passenger: 119 nothing, 120 and 179 the first, 180 the second', async () => {
    const paid = [];
    for (const delayMinutes of [119, 120, 179, 180]) {
      const c = await contract(a, undefined, 2);
      const res = await post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'delayed', delayMinutes },
        a.auth,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      paid.push([
        delayMinutes,
        res.body.claimsOpened.map((x: { compensation: { amount: number } }) => x.compensation.amount),
      ]);
    }
    assert.deepEqual(paid, [
      [119, []],
      [120, [2 * 5_000]],
      [179, [2 * 5_000]],
      [180, [2 * 10_000]],
    ]);
  });

  it('keeps the first event of a leg: a later report of a longer delay opens nothing and changes no amount', async () => {
    const c = await contract(a);
    const report = (delayMinutes: number) =>
      post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'delayed', delayMinutes },
        a.auth,
      );
    const first = await report(130);
    assert.deepEqual(first.body.claimsOpened[0].compensation, { amount: 5_000, currency: 'EUR' });
    assert.deepEqual((await report(200)).body.claimsOpened, []);
    const today = new Date().toISOString().slice(0, 10);
    const listed = await allClaims(t.app, a, { fromDate: today, toDate: today, contractNumber: c.contractNumber });
    assert.deepEqual(
      listed.map((x) => [x.delayMinutes, x.compensation.amount]),
      [[130, 5_000]],
    );
  });

  it('is open to preproduction keys, for their own contracts', async () => {
    const pre = await createTestPartner(t.db, { environment: 'preproduction' });
    const c = await contract(pre);
    const res = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      pre.auth,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.claimsOpened.map((x: { contractNumber: string; reason: string }) => [x.contractNumber, x.reason]),
      [[c.contractNumber, 'cancellation']],
    );
  });

  it('takes delayMinutes, the name claims answer with, and still its former name arrivalDelayMinutes', async () => {
    const now = await contract(a);
    const event = { flightNumber: now.flightNumber, departureDate: now.departureDate, status: 'delayed' };
    const res = await post(t.app, `${FLIGHT}/claims`, { ...event, delayMinutes: 190 }, a.auth);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.claimsOpened[0].delayMinutes, 190);
    const former = await contract(a);
    const old = await post(
      t.app,
      `${FLIGHT}/claims`,
      {
        flightNumber: former.flightNumber,
        departureDate: former.departureDate,
        status: 'delayed',
        arrivalDelayMinutes: 200,
      },
      a.auth,
    );
    assert.equal(old.status, 200, JSON.stringify(old.body));
    assert.equal(old.body.claimsOpened[0].delayMinutes, 200);
    const both = await post(
      t.app,
      `${FLIGHT}/claims`,
      { ...event, delayMinutes: 190, arrivalDelayMinutes: 190 },
      a.auth,
    );
    assert.equal(both.status, 422);
    assert.deepEqual(
      both.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [['/arrivalDelayMinutes', 'not_allowed']],
    );
  });

  it('validates the event', async () => {
    const missing = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF1', departureDate: '2026-12-24', status: 'delayed' },
      a.auth,
    );
    assert.equal(missing.status, 422);
    assert.equal(missing.body.errors[0].field, '/delayMinutes');
    const extra = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF1', departureDate: '2026-12-24', status: 'cancelled', arrivalDelayMinutes: 30 },
      a.auth,
    );
    assert.equal(extra.status, 422);
    const status = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF1', departureDate: '2026-12-24', status: 'late' },
      a.auth,
    );
    assert.equal(status.status, 422);
    assert.equal(status.body.errors[0].field, '/status');
  });

  it('is refused to production keys', async () => {
    const prod = await createTestPartner(t.db, { environment: 'production' });
    const res = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF1', departureDate: '2026-12-24', status: 'cancelled' },
      prod.auth,
    );
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'forbidden');
    // RFC 6750 §3: the key does not reach this operation (an operator token would)
    assert.equal(
      res.headers['www-authenticate'],
      'Bearer realm="parasol", error="insufficient_scope", error_description="In production, claims are opened by the platform from flight data; rehearse the claim flow with a sandbox or preproduction key."',
    );
  });

  it('answers 401 invalid_token to an unknown operator token', async () => {
    const res = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF1', departureDate: '2026-12-24', status: 'cancelled' },
      { authorization: 'Bearer pso_0123456789abcdef0123456789abcdef' },
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'unauthenticated');
    assert.equal(
      res.headers['www-authenticate'],
      'Bearer realm="parasol", error="invalid_token", error_description="This operator token is unknown or revoked."',
    );
  });
});
