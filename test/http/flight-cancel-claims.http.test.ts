import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openClaimsForFlightEvent } from '../../src/claims/open-claims.ts';
import {
  allClaims,
  allPages,
  buildTestApp,
  createTestPartner,
  FLIGHT,
  post,
  trip,
  type TestApp,
  type TestPartner,
  consent,
  daysAhead,
} from '../helper.ts';

describe('Flight Delay API — cancellation and claims', () => {
  let t: TestApp;
  let a: TestPartner;
  let b: TestPartner;
  let clock = new Date();
  const at = (d: Date) => (clock = d);
  before(async () => {
    t = await buildTestApp({ now: () => clock });
    a = await createTestPartner(t.db);
    b = await createTestPartner(t.db);
  });
  after(() => t.close());

  /** A distinct flight number per test: claims are opened per flight. */
  let flightSeq = 100;
  async function contract(
    who: TestPartner,
    options: {
      days?: number;
      returnTrip?: boolean;
      passengers?: number;
      flight?: string;
      /** Another outbound than Paris → New York at 10:30, `days` ahead. */
      outbound?: { departureAirport: string; arrivalAirport: string; departureDateTime: string };
    } = {},
  ) {
    at(new Date());
    const body = {
      ...trip(options.days ?? 10, {
        returnTrip: options.returnTrip,
        additionalPassengers: (options.passengers ?? 1) - 1,
      }),
      ...options.outbound,
    };
    const quote = await post(t.app, `${FLIGHT}/getPrice`, body, who.auth);
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const flight = options.flight ?? `AF${flightSeq++}`;
    const flights = [
      {
        flightNumber: flight,
        departureAirport: body.departureAirport,
        arrivalAirport: body.arrivalAirport,
        departureDateTime: body.departureDateTime,
      },
    ];
    if (options.returnTrip)
      flights.push({
        flightNumber: `AF${flightSeq++}`,
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        departureDateTime: body.returnDepartureDateTime!,
      });
    const res = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: {
          firstName: 'Ada',
          lastName: 'Byron',
          email: 'ada@example.com',
          phone: '+447911123456',
          language: 'en',
        },
        booking: { reference: 'PNR123' },
        consent: consent(),
        flights,
      },
      who.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }

  const event = (
    flightNumber: string,
    departureDate: string,
    status: 'delayed' | 'cancelled' | 'diverted',
    arrivalDelayMinutes?: number,
  ) =>
    openClaimsForFlightEvent(
      { db: t.app.parasol.db, jobs: t.app.parasol.jobs, now: () => new Date() },
      {
        environment: 'sandbox',
        flightNumber,
        departureDate,
        status,
        arrivalDelayMinutes,
        source: 'test',
      },
    );
  const today = () => new Date().toISOString().slice(0, 10);

  describe('POST /cancel', () => {
    it('cancels before departure with the full premium refunded, and answers the same when repeated', async () => {
      const c = await contract(a);
      const first = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: c.contractNumber, reason: 'ticket_cancelled' },
        a.auth,
      );
      assert.equal(first.status, 200);
      assert.equal(first.body.status, 'cancelled');
      assert.deepEqual(first.body.refund, c.premium.total);
      const again = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: c.contractNumber, reason: 'customer_request' },
        a.auth,
      );
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
    });

    it('answers 409 contract_not_cancellable after the first departure', async (ctx) => {
      const c = await contract(a, { days: 5 });
      ctx.after(() => at(new Date()));
      at(new Date(new Date(c.flights[0].departureAt).getTime() + 60_000));
      const res = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: c.contractNumber, reason: 'ticket_cancelled' },
        a.auth,
      );
      assert.equal(res.status, 409);
      assert.equal(res.body.code, 'contract_not_cancellable');
    });

    it('cancels with the full premium up to the instant of the first departure, not at it', async (ctx) => {
      ctx.after(() => at(new Date()));
      const before = await contract(a, { days: 5 });
      at(new Date(new Date(before.flights[0].departureAt).getTime() - 1));
      const justBefore = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: before.contractNumber, reason: 'ticket_cancelled' },
        a.auth,
      );
      assert.equal(justBefore.status, 200, JSON.stringify(justBefore.body));
      assert.deepEqual(justBefore.body.refund, before.premium.total);
      const atDeparture = await contract(a, { days: 5 });
      at(new Date(atDeparture.flights[0].departureAt));
      const res = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: atDeparture.contractNumber, reason: 'ticket_cancelled' },
        a.auth,
      );
      assert.equal(res.status, 409);
      assert.equal(res.body.code, 'contract_not_cancellable');
    });

    it('a return trip: not cancellable once the outbound has departed, the return still ahead', async (ctx) => {
      ctx.after(() => at(new Date()));
      const c = await contract(a, { returnTrip: true });
      at(new Date(new Date(c.flights[0].departureAt).getTime() + 60_000));
      assert.ok(new Date(c.flights[1].departureAt).getTime() > clock.getTime(), 'the return leg departs after now');
      const res = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: c.contractNumber, reason: 'ticket_cancelled' },
        a.auth,
      );
      assert.equal(res.status, 409);
      assert.equal(res.body.code, 'contract_not_cancellable');
    });

    it('answers 409 once a claim is open on the contract', async () => {
      const c = await contract(a);
      await event(c.flights[0].flightNumber, c.flights[0].departureDateTime.slice(0, 10), 'cancelled');
      const res = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: c.contractNumber, reason: 'ticket_cancelled' },
        a.auth,
      );
      assert.equal(res.status, 409);
      assert.equal(res.body.code, 'contract_not_cancellable');
    });

    it("answers 404 for an unknown contract and for another partner's", async () => {
      const c = await contract(a);
      const foreign = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: c.contractNumber, reason: 'ticket_cancelled' },
        b.auth,
      );
      const unknown = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: 'FD-0000-0000', reason: 'ticket_cancelled' },
        b.auth,
      );
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 'contract_not_found');
      assert.deepEqual(
        { ...foreign.body, detail: '', requestId: '' },
        { ...unknown.body, detail: '', requestId: '' },
        'indistinguishable from missing',
      );
      const still = await t.db
        .selectFrom('contracts')
        .select('status')
        .where('contract_number', '=', c.contractNumber)
        .executeTakeFirstOrThrow();
      assert.equal(still.status, 'active');
    });

    it('refuses unknown reasons', async () => {
      const res = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: 'FD-0000-0000', reason: 'changed_my_mind' },
        a.auth,
      );
      assert.equal(res.status, 422);
      assert.equal(res.body.errors[0].field, '/reason');
      assert.match(res.body.errors[0].message, /ticket_cancelled/);
    });

    it('honours Idempotency-Key', async () => {
      const c = await contract(a);
      const headers = { ...a.auth, 'idempotency-key': `cancel-${c.contractNumber}` };
      const first = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: c.contractNumber, reason: 'duplicate' },
        headers,
      );
      const retry = await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: c.contractNumber, reason: 'duplicate' },
        headers,
      );
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.deepEqual(retry.body, first.body);
      // the same key with another body (another reason, another contract): 422, nothing done
      const other = await contract(a);
      for (const body of [
        { contractNumber: c.contractNumber, reason: 'customer_request' },
        { contractNumber: other.contractNumber, reason: 'duplicate' },
      ]) {
        const reused = await post(t.app, `${FLIGHT}/cancel`, body, headers);
        assert.equal(reused.status, 422, JSON.stringify(reused.body));
        assert.equal(reused.body.code, 'idempotency_key_reused');
      }
      const untouched = await t.db
        .selectFrom('contracts')
        .select('status')
        .where('contract_number', '=', other.contractNumber)
        .executeTakeFirstOrThrow();
      assert.equal(untouched.status, 'active');
    });

    it("the first departure is the origin airport's local time: New York's 18:00 is 23:00Z, cancellable until then", async (ctx) => {
      ctx.after(() => at(new Date()));
      const day = daysAhead(10, '18:00');
      const subscribeFrom = () =>
        contract(a, { outbound: { departureAirport: 'JFK', arrivalAirport: 'CDG', departureDateTime: day } });
      const cancel = (contractNumber: string) =>
        post(t.app, `${FLIGHT}/cancel`, { contractNumber, reason: 'ticket_cancelled' }, a.auth);
      const first = await subscribeFrom();
      const departureAt = new Date(first.flights[0].departureAt);
      // New York is 5 hours behind UTC in winter, 4 in summer: never the wall clock read as UTC
      const behind = (departureAt.getTime() - new Date(`${day}:00Z`).getTime()) / 3_600_000;
      assert.ok(behind === 5 || behind === 4, `${first.flights[0].departureAt} for ${day} in New York`);
      at(new Date(departureAt.getTime() - 1));
      const justBefore = await cancel(first.contractNumber);
      assert.equal(justBefore.status, 200, JSON.stringify(justBefore.body));
      assert.deepEqual(justBefore.body.refund, first.premium.total);
      const second = await subscribeFrom();
      at(departureAt);
      const atDeparture = await cancel(second.contractNumber);
      assert.equal(atDeparture.status, 409, JSON.stringify(atDeparture.body));
      assert.equal(atDeparture.body.code, 'contract_not_cancellable');
      assert.match(atDeparture.body.detail, new RegExp(departureAt.toISOString()));
    });
  });

  describe('claims opened by the domain function, listed by POST /getclaims', () => {
    it('opens one claim per affected leg with the highest tier reached, per passenger', async () => {
      const c = await contract(a, { passengers: 3 });
      const leg = c.flights[0];
      const opened = await event(leg.flightNumber, leg.departureDateTime.slice(0, 10), 'delayed', 195);
      assert.equal(opened.length, 1);
      assert.equal(opened[0]!.compensationAmount, 3 * 10_000);
      const claims = await allClaims(t.app, a, {
        fromDate: today(),
        toDate: today(),
        contractNumber: c.contractNumber,
      });
      assert.equal(claims.length, 1, JSON.stringify(claims));
      const claim = claims[0]!;
      assert.match(claim.claimNumber, /^CLM-\d{8}$/);
      assert.equal(claim.contractNumber, c.contractNumber);
      // the app's own worker may already have texted the customer: opened, or awaiting bank details
      assert.ok(['opened', 'awaiting_bank_details'].includes(claim.status), claim.status);
      assert.equal(claim.reason, 'delay');
      assert.equal(claim.delayMinutes, 195);
      assert.equal(claim.flightNumber, leg.flightNumber);
      assert.equal(claim.departureDate, leg.departureDateTime.slice(0, 10));
      assert.deepEqual(claim.compensation, { amount: 30_000, currency: 'EUR' });
      assert.equal(claim.paidAt, null);
    });

    it('never opens two claims for a leg, whatever the duplicates', async () => {
      const c = await contract(a);
      const leg = c.flights[0];
      const date = leg.departureDateTime.slice(0, 10);
      const results = await Promise.all(Array.from({ length: 10 }, () => event(leg.flightNumber, date, 'cancelled')));
      assert.equal(results.flat().length, 1);
      assert.deepEqual(
        await event(leg.flightNumber, date, 'delayed', 400),
        [],
        'a later event on the same leg opens nothing',
      );
      const count = await t.db
        .selectFrom('claims')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where(
          'contract_id',
          '=',
          (
            await t.db
              .selectFrom('contracts')
              .select('id')
              .where('contract_number', '=', c.contractNumber)
              .executeTakeFirstOrThrow()
          ).id,
        )
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 1);
    });

    it('opens nothing for a delay below the lowest tier, or for a cancelled contract', async () => {
      const c = await contract(a);
      assert.deepEqual(
        await event(c.flights[0].flightNumber, c.flights[0].departureDateTime.slice(0, 10), 'delayed', 119),
        [],
      );
      const cancelled = await contract(a);
      await post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: cancelled.contractNumber, reason: 'ticket_cancelled' },
        a.auth,
      );
      assert.deepEqual(
        await event(
          cancelled.flights[0].flightNumber,
          cancelled.flights[0].departureDateTime.slice(0, 10),
          'cancelled',
        ),
        [],
      );
    });

    it('pays a diverted leg as cancelled when cancellation is covered, else the highest tier', async () => {
      const both = await contract(a);
      const [d1] = await event(
        both.flights[0].flightNumber,
        both.flights[0].departureDateTime.slice(0, 10),
        'diverted',
      );
      assert.equal(d1!.reason, 'cancellation');
      assert.equal(d1!.compensationAmount, 15_000);
      const delayOnly = await createTestPartner(t.db, { configuration: { formula: 'delay' } });
      const c = await contract(delayOnly);
      const [d2] = await event(c.flights[0].flightNumber, c.flights[0].departureDateTime.slice(0, 10), 'diverted');
      assert.equal(d2!.reason, 'delay');
      assert.equal(d2!.compensationAmount, 10_000);
      assert.deepEqual(
        await event(c.flights[0].flightNumber, c.flights[0].departureDateTime.slice(0, 10), 'cancelled'),
        [],
      );
    });

    it('opens one claim per leg of a return trip', async () => {
      const c = await contract(a, { returnTrip: true });
      for (const leg of c.flights) await event(leg.flightNumber, leg.departureDateTime.slice(0, 10), 'cancelled');
      // the /getClaims alias answers like /getclaims
      const claims = await allClaims(
        t.app,
        a,
        { fromDate: today(), toDate: today(), contractNumber: c.contractNumber },
        '/getClaims',
      );
      assert.deepEqual(
        claims.map((x) => x.flightNumber),
        c.flights.map((f: { flightNumber: string }) => f.flightNumber).sort(),
      );
    });

    it("lists only the caller's claims: partner B never sees A's", async () => {
      const shared = `AF${flightSeq++}`;
      const ca = await contract(a, { flight: shared });
      const cb = await contract(b, { flight: shared });
      await event(shared, ca.flights[0].departureDateTime.slice(0, 10), 'cancelled');
      const claimsB = await allClaims(t.app, b, { fromDate: today(), toDate: today() });
      assert.ok(claimsB.length >= 1, 'B lists its claims');
      for (const claim of claimsB) assert.notEqual(claim.contractNumber, ca.contractNumber);
      assert.ok(
        claimsB.some((x) => x.contractNumber === cb.contractNumber),
        'B lists the claim of its contract',
      );
      const foreign = await post(
        t.app,
        `${FLIGHT}/getclaims`,
        { fromDate: today(), toDate: today(), contractNumber: ca.contractNumber },
        b.auth,
      );
      assert.equal(foreign.status, 404);
    });

    it('filters on the opening day, inclusive, and paginates without gaps or repeats', async () => {
      const fresh = await createTestPartner(t.db);
      const flight = `AF${flightSeq++}`;
      const contracts = [];
      for (let i = 0; i < 5; i++) contracts.push(await contract(fresh, { flight }));
      await event(flight, contracts[0].flights[0].departureDateTime.slice(0, 10), 'cancelled');
      let pages = 0;
      const seen = await allPages('getclaims by pages of 2', async (cursor) => {
        const page = await post(
          t.app,
          `${FLIGHT}/getclaims`,
          { fromDate: today(), toDate: today(), limit: 2, ...(cursor ? { cursor } : {}) },
          fresh.auth,
        );
        assert.equal(page.status, 200, JSON.stringify(page.body));
        assert.ok(page.body.claims.length <= 2, `a page of ${page.body.claims.length} claims, limit 2`);
        pages++;
        return {
          rows: page.body.claims.map((x: { claimNumber: string }) => x.claimNumber),
          nextCursor: page.body.nextCursor,
        };
      });
      // three pages of two, or more when a page stops at the commit horizon (a notification job's transaction open)
      assert.ok(pages >= 3, `${pages} pages`);
      assert.equal(seen.length, 5, `claims seen: ${seen.join(', ')}`);
      assert.equal(new Set(seen).size, 5, `claims seen: ${seen.join(', ')}`);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      assert.deepEqual(await allClaims(t.app, fresh, { fromDate: yesterday, toDate: yesterday }), []);
      const bad = await post(t.app, `${FLIGHT}/getclaims`, { fromDate: today(), toDate: yesterday }, fresh.auth);
      assert.equal(bad.status, 422);
      assert.equal(bad.body.errors[0].field, '/toDate');
      const cursorBad = await post(
        t.app,
        `${FLIGHT}/getclaims`,
        { fromDate: today(), toDate: today(), cursor: 'nonsense' },
        fresh.auth,
      );
      assert.equal(cursorBad.body.code, 'invalid_cursor');
    });

    it('keeps sandbox and production apart', async () => {
      const prod = await createTestPartner(t.db, { environment: 'production' });
      const flight = `AF${flightSeq++}`;
      const c = await contract(prod, { flight });
      assert.deepEqual(
        await event(flight, c.flights[0].departureDateTime.slice(0, 10), 'cancelled'),
        [],
        'a sandbox event never touches production',
      );
      const opened = await openClaimsForFlightEvent(
        { db: t.app.parasol.db, jobs: t.app.parasol.jobs, now: () => new Date() },
        {
          environment: 'production',
          flightNumber: flight,
          departureDate: c.flights[0].departureDateTime.slice(0, 10),
          status: 'cancelled',
          source: 'test',
        },
      );
      assert.equal(opened.length, 1);
    });
  });
});
