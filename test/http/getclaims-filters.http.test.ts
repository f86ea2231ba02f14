import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UNBOUND_CURSORS_BEFORE } from '../../src/platform/cursor.ts';
import {
  allClaims,
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  subscription,
  trip,
  type InsuredFlight,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

describe('POST /getclaims — one contract without dates, filters by status', () => {
  let t: TestApp;
  let a: TestPartner;
  let b: TestPartner;
  let first: InsuredFlight;
  let second: InsuredFlight;
  let quiet: InsuredFlight;
  before(async () => {
    t = await buildTestApp();
    a = await createTestPartner(t.db);
    b = await createTestPartner(t.db);
    first = await insureFlight(t.app, a, { flightNumber: 'AF5101' });
    second = await insureFlight(t.app, a, { flightNumber: 'AF5102' });
    quiet = await insureFlight(t.app, a, { flightNumber: 'AF5103' });
    for (const c of [first, second]) {
      const res = await post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
        a.auth,
      );
      assert.equal(res.body.claimsOpened.length, 1, JSON.stringify(res.body));
    }
    // the notification job moves each claim on (opened → awaiting_bank_details): let it settle, so a
    // status read by one request is still the claim's at the next
    await eventually(async () => {
      const rows = await t.db.selectFrom('claims').select('status').where('partner_id', '=', a.id).execute();
      return rows.length === 2 && rows.every((r) => r.status === 'awaiting_bank_details') ? true : undefined;
    });
  });
  after(() => t.close());

  /** The contract numbers of every claim the body selects (all pages), sorted. */
  const numbers = async (body: Record<string, unknown>) =>
    (await allClaims(t.app, a, body)).map((c) => c.contractNumber).sort();

  it('lists the claims of one contract from its number alone', async () => {
    assert.deepEqual(await numbers({ contractNumber: first.contractNumber }), [first.contractNumber]);
    assert.deepEqual(await numbers({ contractNumber: quiet.contractNumber }), [], 'a contract without claims');
  });

  it('still bounds the dates when given with the contract', async () => {
    assert.deepEqual(
      await numbers({ contractNumber: first.contractNumber, toDate: '2020-01-01' }),
      [],
      'opened today, not before 2020',
    );
  });

  it('filters by one status or several', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const range = { fromDate: today, toDate: today };
    const open = await allClaims(t.app, a, { ...range, status: ['opened', 'awaiting_bank_details'] });
    assert.deepEqual(open.map((c) => c.contractNumber).sort(), [first.contractNumber, second.contractNumber].sort());
    assert.deepEqual(await numbers({ ...range, status: 'paid' }), [], 'no claim is paid');
    for (const claim of open) {
      assert.deepEqual(
        await numbers({ contractNumber: claim.contractNumber, status: claim.status }),
        [claim.contractNumber],
        `${claim.contractNumber} in its status ${claim.status}`,
      );
    }
  });

  it('refuses a cursor given with other filters than its first page (or by another partner): 422 invalid_cursor', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const asked = { fromDate: today, toDate: today, status: ['opened', 'awaiting_bank_details'] };
    const page1 = await post(t.app, `${FLIGHT}/getclaims`, { ...asked, limit: 1 }, a.auth);
    assert.equal(page1.status, 200, JSON.stringify(page1.body));
    assert.equal(page1.body.claims.length, 1);
    const cursor: string = page1.body.nextCursor;
    assert.ok(cursor, 'a second claim to read');
    for (const other of [
      { ...asked, status: 'paid' },
      { ...asked, status: 'awaiting_bank_details' },
      { ...asked, fromDate: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) },
      { status: asked.status, contractNumber: page1.body.claims[0].contractNumber },
    ]) {
      const res = await post(t.app, `${FLIGHT}/getclaims`, { ...other, cursor }, a.auth);
      assert.equal(res.status, 422, `${JSON.stringify(other)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'invalid_cursor');
      assert.match(res.body.detail, /filters changed/);
      assert.deepEqual(res.body.errors, [
        { field: '/cursor', code: 'invalid', message: 'is the next page of a list with other filters' },
      ]);
    }
    const theirs = await post(t.app, `${FLIGHT}/getclaims`, { ...asked, cursor }, b.auth);
    assert.deepEqual([theirs.status, theirs.body.code], [422, 'invalid_cursor'], "another partner's list");
    // the same filters (statuses in another order, another page size) go on where the first page stopped
    const next = await post(
      t.app,
      `${FLIGHT}/getClaims`,
      { ...asked, status: ['awaiting_bank_details', 'opened', 'opened'], limit: 10, cursor },
      a.auth,
    );
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.deepEqual(
      [...page1.body.claims, ...next.body.claims].map((c: { contractNumber: string }) => c.contractNumber).sort(),
      [first.contractNumber, second.contractNumber].sort(),
    );
    // a cursor handed out before cursors were bound (no binding, an instant before the release) still
    // goes on: this one, at the start, reads the whole list
    const unbound = (at: Date) =>
      Buffer.from(JSON.stringify([at.toISOString(), '00000000-0000-0000-0000-000000000000'])).toString('base64url');
    const old = await post(t.app, `${FLIGHT}/getclaims`, { ...asked, limit: 10, cursor: unbound(new Date(0)) }, a.auth);
    assert.equal(old.status, 200, JSON.stringify(old.body));
    assert.deepEqual(old.body.claims, [...page1.body.claims, ...next.body.claims]);
    // one at the release or after is a bound cursor stripped of its binding: refused
    const stripped = await post(
      t.app,
      `${FLIGHT}/getclaims`,
      { ...asked, cursor: unbound(UNBOUND_CURSORS_BEFORE) },
      a.auth,
    );
    assert.deepEqual([stripped.status, stripped.body.code], [422, 'invalid_cursor'], JSON.stringify(stripped.body));
  });

  it('asks for the dates when no contract is named, and refuses an unknown status', async () => {
    const res = await post(t.app, `${FLIGHT}/getclaims`, { status: 'paid' }, a.auth);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(
      res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [['/fromDate', 'required']],
    );
    const toOnly = await post(t.app, `${FLIGHT}/getclaims`, { fromDate: '2026-12-01' }, a.auth);
    assert.equal(toOnly.status, 422);
    assert.equal(toOnly.body.errors[0].field, '/toDate');
    const unknown = await post(
      t.app,
      `${FLIGHT}/getclaims`,
      { contractNumber: first.contractNumber, status: 'approved' },
      a.auth,
    );
    assert.equal(unknown.status, 422, JSON.stringify(unknown.body));
  });

  it("answers 404 for another partner's contract, even without dates", async () => {
    const res = await post(t.app, `${FLIGHT}/getclaims`, { contractNumber: first.contractNumber }, b.auth);
    assert.equal(res.status, 404, JSON.stringify(res.body));
    assert.equal(res.body.code, 'contract_not_found');
  });
});

describe('booking.reference — what agencies use, not only PNRs', () => {
  let t: TestApp;
  let a: TestPartner;
  before(async () => {
    t = await buildTestApp();
    a = await createTestPartner(t.db);
  });
  after(() => t.close());

  const subscribeWith = async (reference: string) => {
    const trip1 = trip(40);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, trip1, a.auth);
    assert.equal(quote.status, 200);
    return post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(quote.body.quoteReference, trip1, { booking: { reference } }),
      a.auth,
    );
  };

  it('accepts letters, digits, - and _ up to 64 characters (kept in capitals)', async () => {
    for (const reference of ['trip-2026_000417', 'X', 'A'.repeat(64), 'PNR9Z2']) {
      const res = await subscribeWith(reference);
      assert.equal(res.status, 201, `${reference}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.booking.reference, reference.toUpperCase());
    }
  });

  it('refuses other characters and longer references, naming the field', async () => {
    for (const reference of ['ABC 123', 'ABC/123', 'A'.repeat(65), '', 'réservation']) {
      const res = await subscribeWith(reference);
      assert.equal(res.status, 422, `${reference}: ${JSON.stringify(res.body)}`);
      assert.ok(
        res.body.errors.some((e: { field: string }) => e.field === '/booking/reference'),
        JSON.stringify(res.body.errors),
      );
    }
  });
});
