import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { encrypt } from '../../src/platform/crypto.ts';
import { UNBOUND_CURSORS_BEFORE } from '../../src/platform/cursor.ts';
import {
  allClaims,
  buildTestApp,
  createTestPartner,
  CUSTOMER,
  eventually,
  FLIGHT,
  insureFlight,
  operatorToken,
  post,
  runCliOn,
  subscribeTrip,
  trip,
  type InsuredFlight,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

describe('GET /contracts/{number} and GET /contracts — the contract after the sale', () => {
  let t: TestApp;
  let a: TestPartner;
  let b: TestPartner;
  let claimed: InsuredFlight;
  let cancelled: string;
  // the application's clock, moved past a flight's departure by the tests that state its outcome
  let clock: Date | undefined;
  const DAY = 86_400_000;
  before(async () => {
    t = await buildTestApp({ now: () => clock ?? new Date(), env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    a = await createTestPartner(t.db);
    b = await createTestPartner(t.db);
    claimed = await insureFlight(t.app, a, { flightNumber: 'AF5201', returnFlight: 'AF5202', passengers: 2 });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF5201', departureDate: claimed.departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(opened.body.claimsOpened.length, 1, JSON.stringify(opened.body));
    const sold = await subscribeTrip(t.app, a, trip(45));
    assert.equal(sold.status, 201, JSON.stringify(sold.body));
    cancelled = sold.body.contractNumber;
    const cancel = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: cancelled, reason: 'ticket_cancelled' },
      a.auth,
    );
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
  });
  after(() => t.close());

  const get = async (url: string, who: TestPartner) => {
    const res = await t.app.inject({ method: 'GET', url: `${FLIGHT}${url}`, headers: who.auth });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };

  it('reads a contract with its customer, flights, claims and versions', async () => {
    const res = await get(`/contracts/${claimed.contractNumber}`, a);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const c = res.body;
    assert.equal(c.contractNumber, claimed.contractNumber);
    assert.equal(c.status, 'active');
    assert.equal(c.passengers, 2);
    assert.equal(c.customer.phone, CUSTOMER.phone, 'opened from its sealed column');
    assert.equal(c.customer.lastName, CUSTOMER.lastName);
    assert.equal(c.customer.language, 'en');
    assert.deepEqual(
      c.flights.map((f: { flightNumber: string }) => f.flightNumber),
      ['AF5201', 'AF5202'],
    );
    assert.deepEqual(
      c.flights.map((f: { flightStatus: object }) => f.flightStatus),
      [
        {
          state: 'decided',
          lastCheckedAt: null,
          decidedAt: c.claims[0].openedAt,
          outcome: { event: 'cancelled', delayMinutes: null },
        },
        { state: 'scheduled', lastCheckedAt: null, decidedAt: null, outcome: null },
      ],
      'the reported cancellation is the decision on the outbound, watched or not; nothing decided on the return',
    );
    assert.equal(c.claims.length, 1);
    assert.equal(c.claims[0].reason, 'cancellation');
    assert.equal(c.cancellation, null);
    assert.equal(typeof c.modelVersion, 'string');
    assert.equal(typeof c.configurationVersion, 'number');
    assert.equal(c.premium.total.currency, 'EUR');
  });

  it("shows the decision an operator's events took on each leg: cancelled, delayed N, landed", async () => {
    const operator = await operatorToken(t, 'flight-status');
    const c = await createTestPartner(t.db); // its own contracts: the searches below count a's
    const event = (flightNumber: string, departureDate: string, status: string, delayMinutes?: number) =>
      post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber, departureDate, status, environment: 'sandbox', ...(delayMinutes ? { delayMinutes } : {}) },
        operator.auth,
      );
    const trip = await insureFlight(t.app, c, { flightNumber: 'AF5211', returnFlight: 'AF5212' });
    const cancelled = await event('AF5211', trip.departureDate, 'cancelled');
    assert.equal(cancelled.body.claimsOpened?.length, 1, JSON.stringify(cancelled.body));
    clock = new Date(Date.now() + 21 * DAY); // the return has flown (19 days ahead)
    const delayed = await event('AF5212', trip.returnDate!, 'delayed', 200).finally(() => (clock = undefined));
    assert.equal(delayed.body.claimsOpened?.length, 1, JSON.stringify(delayed.body));
    const read = await get(`/contracts/${trip.contractNumber}`, c);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.deepEqual(
      read.body.flights.map((f: { flightStatus: { state: string; outcome: unknown } }) => [
        f.flightStatus.state,
        f.flightStatus.outcome,
      ]),
      [
        ['decided', { event: 'cancelled', delayMinutes: null }],
        ['decided', { event: 'delayed', delayMinutes: 200 }],
      ],
      'not scheduled: each leg shows what the platform decided',
    );

    // on time, no claim: the watch's decision shows, as landed
    const flown = await insureFlight(t.app, c, { flightNumber: 'AF5221' });
    const departure = new Date(Date.now() + 12 * 86_400_000);
    await t.db
      .insertInto('flight_watches')
      .values({
        environment: 'sandbox',
        flight_number: 'AF5221',
        departure_date: flown.departureDate,
        origin: 'CDG',
        destination: 'JFK',
        scheduled_departure: departure,
        scheduled_arrival: null,
        state: 'watching',
        next_check_at: departure,
        last_checked_at: null,
        last_outcome: null,
        last_error: null,
        review_reason: null,
        decided_at: null,
      })
      .execute();
    const landedAt = new Date(Date.now() + 13 * DAY);
    const onTime = await runCliOn(
      t,
      ['--json', 'flights', 'event', '--env', 'sandbox', 'AF5221', flown.departureDate, '--status', 'on_time'],
      { actor: 'operator:flight-status', now: () => landedAt },
    );
    assert.equal(onTime.code, 0, onTime.err);
    const landed = await get(`/contracts/${flown.contractNumber}`, c);
    const status = landed.body.flights[0].flightStatus;
    assert.equal(status.state, 'decided', JSON.stringify(status));
    assert.deepEqual(status.outcome, { event: 'landed', delayMinutes: null }, JSON.stringify(status));
    assert.equal(status.decidedAt, landedAt.toISOString(), 'the watch decided at the event’s clock');
  });

  it('a leg decided before any watch exists: GET contract, /getclaims and claim.opened agree', async () => {
    const d = await createTestPartner(t.db);
    const endpoint = await post(t.app, `${FLIGHT}/webhooks/endpoints`, { url: 'http://127.0.0.1:9/hooks' }, d.auth);
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    const trip = await insureFlight(t.app, d, { flightNumber: 'AF5231', returnFlight: 'AF5232' });
    const simulated = await insureFlight(t.app, d, { flightNumber: 'AF5233' });
    const reported = await insureFlight(t.app, d, { flightNumber: 'AF5234' });
    const watches = await t.db
      .selectFrom('flight_watches')
      .select('flight_number')
      .where('flight_number', 'in', ['AF5231', 'AF5232', 'AF5233', 'AF5234'])
      .execute();
    assert.deepEqual(watches, [], 'twelve days out: no watch yet');
    // clocks far from real time, each its own: a value read back says which clock wrote it
    const clocks = {
      cancelledAhead: new Date(Date.now() + 2 * DAY), // before the return's departure
      reportedAt: new Date(Date.now() + 3 * DAY),
      restatedAt: new Date(Date.now() + 4 * DAY),
      simulatedAt: new Date(Date.now() + 5 * DAY),
      landedAt: new Date(Date.now() + 13 * DAY), // the outbound has flown
    };
    const cli = async (at: Date, ...argv: string[]) => {
      const run = await runCliOn(t, ['--json', 'flights', ...argv], { actor: 'operator:flight-status', now: () => at });
      assert.equal(run.code, 0, run.err);
      return JSON.parse(run.out);
    };
    // the operator states the outbound on time once flown and the return cancelled ahead; the
    // simulator delays another flight; the partner reports a cancellation (sandbox) that the
    // operator states again later, deciding the watch after the claim opened
    const onTime = await cli(
      clocks.landedAt,
      'event',
      '--env',
      'sandbox',
      'AF5231',
      trip.departureDate,
      '--status',
      'on_time',
    );
    const cancelled = await cli(
      clocks.cancelledAhead,
      'event',
      '--env',
      'sandbox',
      'AF5232',
      trip.returnDate!,
      '--status',
      'cancelled',
    );
    assert.equal(cancelled.claimsOpened.length, 1, JSON.stringify(cancelled));
    await cli(
      clocks.simulatedAt,
      'simulate',
      '--env',
      'sandbox',
      'AF5233',
      simulated.departureDate,
      '--status',
      'delayed',
      '--delay',
      '190',
    );
    const checked = await cli(clocks.simulatedAt, 'check', 'sandbox', 'AF5233', simulated.departureDate);
    assert.equal(checked.checks[0].outcome, 'decided', JSON.stringify(checked));
    clock = clocks.reportedAt;
    const report = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF5234', departureDate: reported.departureDate, status: 'cancelled' },
      d.auth,
    ).finally(() => (clock = undefined));
    assert.equal(report.body.claimsOpened?.length, 1, JSON.stringify(report.body));
    const restated = await cli(
      clocks.restatedAt,
      'event',
      '--env',
      'sandbox',
      'AF5234',
      reported.departureDate,
      '--status',
      'cancelled',
    );
    assert.deepEqual([restated.claimsOpened.length, restated.watchesDecided], [0, 1], JSON.stringify(restated));

    const legs = async (contractNumber: string) => {
      const read = await get(`/contracts/${contractNumber}`, d);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      return read.body.flights.map((f: { flightNumber: string; flightStatus: Record<string, any> }) => ({
        flightNumber: f.flightNumber,
        state: f.flightStatus.state,
        outcome: f.flightStatus.outcome,
        decidedAt: f.flightStatus.decidedAt,
      }));
    };
    // a claim opens at its transaction's start (/getclaims' key): the leg's decidedAt, not its watch's
    const claimsListed = [
      ...(await allClaims(t.app, d, { contractNumber: trip.contractNumber })),
      ...(await allClaims(t.app, d, { contractNumber: simulated.contractNumber })),
      ...(await allClaims(t.app, d, { contractNumber: reported.contractNumber })),
    ];
    const openedAt = (flight: string) => claimsListed.find((cl) => cl.flightNumber === flight)?.openedAt;
    const watchDecided = await t.db
      .selectFrom('flight_watches')
      .select('decided_at')
      .where('flight_number', '=', 'AF5234')
      .executeTakeFirstOrThrow();
    assert.deepEqual(watchDecided.decided_at, clocks.restatedAt, 'the watch decided later than the claim opened');
    const shown = [
      ...(await legs(trip.contractNumber)),
      ...(await legs(simulated.contractNumber)),
      ...(await legs(reported.contractNumber)),
    ];
    assert.deepEqual(
      shown,
      [
        {
          flightNumber: 'AF5231',
          state: 'decided',
          outcome: { event: 'landed', delayMinutes: null },
          decidedAt: clocks.landedAt.toISOString(),
        },
        {
          flightNumber: 'AF5232',
          state: 'decided',
          outcome: { event: 'cancelled', delayMinutes: null },
          decidedAt: openedAt('AF5232'),
        },
        {
          flightNumber: 'AF5233',
          state: 'decided',
          outcome: { event: 'delayed', delayMinutes: 190 },
          decidedAt: openedAt('AF5233'),
        },
        {
          flightNumber: 'AF5234',
          state: 'decided',
          outcome: { event: 'cancelled', delayMinutes: null },
          decidedAt: openedAt('AF5234'),
        },
      ],
      'every leg shows what was decided, on time included; a leg with a claim, when its claim opened',
    );
    assert.equal(onTime.watchesDecided, 1, 'the watch of the flight on time made and decided by the event');

    const listed = [
      ...(await allClaims(t.app, d, { contractNumber: trip.contractNumber })),
      ...(await allClaims(t.app, d, { contractNumber: simulated.contractNumber })),
      ...(await allClaims(t.app, d, { contractNumber: reported.contractNumber })),
    ].map((cl) => [cl.flightNumber, cl.event, cl.delayMinutes, cl.openedAt, cl.claimNumber]);
    assert.deepEqual(
      listed.map(([flight, event, minutes, openedAt]) => [flight, event, minutes, openedAt]),
      shown
        .filter((leg) => leg.flightNumber !== 'AF5231')
        .map((leg) => [leg.flightNumber, leg.outcome.event, leg.outcome.delayMinutes, leg.decidedAt]),
      '/getclaims: a claim for each leg whose event pays, none for the flight on time, opened when GET contract says',
    );
    const sent = await eventually(async () => {
      const rows = await t.db
        .selectFrom('webhook_events')
        .select('payload')
        .where('partner_id', '=', d.id)
        .where('type', '=', 'claim.opened')
        .execute();
      return rows.length === 3 ? rows : undefined;
    });
    const events = sent.map((e) => (e.payload as { data: Record<string, unknown> }).data);
    assert.deepEqual(
      events
        .map((e) => [e.flightNumber, e.event, e.delayMinutes, e.openedAt, e.claimNumber])
        .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      listed,
      'claim.opened says what /getclaims says',
    );
  });

  it('shows the cancellation and its refund', async () => {
    const res = await get(`/contracts/${cancelled.toLowerCase()}`, a);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'cancelled');
    assert.equal(res.body.cancellation.reason, 'ticket_cancelled');
    assert.deepEqual(res.body.cancellation.refund, res.body.premium.total);
    assert.deepEqual(res.body.claims, []);
  });

  it("answers 404 for another partner's contract and for an unknown number", async () => {
    const theirs = await get(`/contracts/${claimed.contractNumber}`, b);
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.code, 'contract_not_found');
    assert.equal(theirs.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal((await get('/contracts/FD-0000-0000', a)).status, 404);
    assert.equal((await get(`/contracts/${'X'.repeat(41)}`, a)).status, 422);
  });

  it('searches by booking reference and status, newest first, never across partners', async () => {
    const all = await get('/contracts', a);
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(
      all.body.contracts.map((c: { contractNumber: string }) => c.contractNumber),
      [cancelled, claimed.contractNumber],
    );
    const active = await get('/contracts?status=active', a);
    assert.deepEqual(
      active.body.contracts.map((c: { contractNumber: string }) => c.contractNumber),
      [claimed.contractNumber],
    );
    const both = await get('/contracts?status=active&status=cancelled', a);
    assert.equal(both.body.contracts.length, 2);
    const byBooking = await get('/contracts?bookingReference=pnr123', a);
    assert.deepEqual(
      byBooking.body.contracts.map((c: { contractNumber: string }) => c.contractNumber),
      [claimed.contractNumber],
      'insureFlight books PNR123; subscribeTrip ABC123',
    );
    assert.deepEqual((await get('/contracts', b)).body.contracts, []);
    // a second partner holding the same booking reference finds its own contract, never the first's
    const theirs = await insureFlight(t.app, b, { flightNumber: 'AF5203' });
    const bookedByB = await get('/contracts?bookingReference=PNR123', b);
    assert.deepEqual(
      bookedByB.body.contracts.map((c: { contractNumber: string }) => c.contractNumber),
      [theirs.contractNumber],
    );
    assert.deepEqual(
      (await get('/contracts?bookingReference=PNR123', a)).body.contracts.map(
        (c: { contractNumber: string }) => c.contractNumber,
      ),
      [claimed.contractNumber],
    );
    assert.equal((await get('/contracts?status=lapsed', a)).status, 422);
    assert.equal((await get('/contracts?bookingReference=a%20b', a)).status, 422);
  });

  it('pages with a cursor and bounds the days', async () => {
    const first = await get('/contracts?limit=1', a);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.contracts.length, 1);
    assert.ok(first.body.nextCursor);
    const second = await get(`/contracts?limit=1&cursor=${first.body.nextCursor}`, a);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.deepEqual(
      [...first.body.contracts, ...second.body.contracts].map((c: { contractNumber: string }) => c.contractNumber),
      [cancelled, claimed.contractNumber],
    );
    assert.equal(second.body.nextCursor, null);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal((await get(`/contracts?createdFrom=${today}&createdTo=${today}`, a)).body.contracts.length, 2);
    assert.deepEqual((await get('/contracts?createdTo=2020-01-01', a)).body.contracts, []);
    const reversed = await get(`/contracts?createdFrom=${today}&createdTo=2020-01-01`, a);
    assert.equal(reversed.status, 422);
    assert.equal((await get('/contracts?cursor=not-ours', a)).status, 422);
    assert.equal((await get('/contracts?limit=201', a)).status, 422);
    assert.equal((await get('/contracts?limit=0', a)).status, 422);
  });

  it('refuses a cursor given with other filters than its first page (or by another partner): 422 invalid_cursor', async () => {
    const again = await subscribeTrip(t.app, a, trip(50)); // a second ABC123, so that the first page has a next
    assert.equal(again.status, 201, JSON.stringify(again.body));
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - DAY).toISOString().slice(0, 10);
    const asked = `bookingReference=abc123&status=active&status=cancelled&createdFrom=${today}&createdTo=${today}`;
    const page1 = await get(`/contracts?${asked}&limit=1`, a);
    assert.equal(page1.status, 200, JSON.stringify(page1.body));
    assert.deepEqual(
      page1.body.contracts.map((c: { contractNumber: string }) => c.contractNumber),
      [again.body.contractNumber],
    );
    const cursor: string = page1.body.nextCursor;
    assert.ok(cursor, 'a second contract to read');
    for (const other of [
      `bookingReference=abc123&status=active&createdFrom=${today}&createdTo=${today}`,
      `bookingReference=abc123&status=active&status=cancelled&createdFrom=${yesterday}&createdTo=${today}`,
      `bookingReference=abc123&status=active&status=cancelled`,
      `bookingReference=pnr123&status=active&status=cancelled&createdFrom=${today}&createdTo=${today}`,
      `status=active&status=cancelled&createdFrom=${today}&createdTo=${today}`,
    ]) {
      const res = await get(`/contracts?${other}&cursor=${cursor}`, a);
      assert.equal(res.status, 422, `${other}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'invalid_cursor');
      assert.match(res.body.detail, /filters changed/);
      assert.deepEqual(res.body.errors, [
        { field: 'querystring:/cursor', code: 'invalid', message: 'is the next page of a list with other filters' },
      ]);
    }
    const theirs = await get(`/contracts?${asked}&cursor=${cursor}`, b);
    assert.deepEqual([theirs.status, theirs.body.code], [422, 'invalid_cursor'], "another partner's list");
    // the same filters (the reference in capitals, statuses in another order and repeated, another
    // page size) go on where the first page stopped
    const next = await get(
      `/contracts?bookingReference=ABC123&status=cancelled&status=active&status=active&createdFrom=${today}&createdTo=${today}&limit=10&cursor=${cursor}`,
      a,
    );
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.deepEqual(
      next.body.contracts.map((c: { contractNumber: string }) => c.contractNumber),
      [cancelled],
    );
    assert.equal(next.body.nextCursor, null);
    // an unbound cursor: one handed out before the release goes on; at the release or after, it is a
    // bound cursor stripped of its binding, refused
    const unbound = (at: number) =>
      Buffer.from(JSON.stringify([new Date(at).toISOString(), 'ffffffff-ffff-ffff-ffff-ffffffffffff'])).toString(
        'base64url',
      );
    const old = await get(`/contracts?${asked}&cursor=${unbound(UNBOUND_CURSORS_BEFORE.getTime() - 1)}`, a);
    assert.equal(old.status, 200, JSON.stringify(old.body));
    const stripped = await get(`/contracts?${asked}&cursor=${unbound(UNBOUND_CURSORS_BEFORE.getTime())}`, a);
    assert.deepEqual([stripped.status, stripped.body.code], [422, 'invalid_cursor'], JSON.stringify(stripped.body));
  });
});

describe('PATCH /contracts/{number}/customer — the customer changes phone, email or language', () => {
  let t: TestApp;
  let a: TestPartner;
  let b: TestPartner;
  before(async () => {
    t = await buildTestApp();
    a = await createTestPartner(t.db);
    b = await createTestPartner(t.db);
  });
  after(() => t.close());

  const patch = async (number: string, body: unknown, who: TestPartner, headers: Record<string, string> = {}) => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: `${FLIGHT}/contracts/${number}/customer`,
      payload: body as object,
      headers: { 'content-type': 'application/json', ...who.auth, ...headers },
    });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };

  it('texts the next claim to the new number, in the new language, and audits the fields only', async () => {
    const c = await insureFlight(t.app, a, { flightNumber: 'AF5301', language: 'en' });
    const res = await patch(c.contractNumber, { phone: '+33698765432', language: 'fr' }, a, {
      'idempotency-key': 'contact-1',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { contractNumber: c.contractNumber, changed: ['phone', 'language'] });
    const replay = await patch(c.contractNumber, { phone: '+33698765432', language: 'fr' }, a, {
      'idempotency-key': 'contact-1',
    });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const read = await t.app.inject({ method: 'GET', url: `${FLIGHT}/contracts/${c.contractNumber}`, headers: a.auth });
    assert.equal(read.json().customer.phone, '+33698765432');
    assert.equal(read.json().customer.language, 'fr');
    const audit = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'contact_changed')
      .where('partner_id', '=', a.id)
      .execute();
    assert.equal(audit.length, 1);
    assert.doesNotMatch(JSON.stringify(audit[0]), /698765432/, 'no personal data in the audit trail');
    assert.deepEqual(
      [audit[0]!.entity, audit[0]!.entity_id],
      ['contract', c.contractNumber],
      'under the contract number, as every row of a contract’s life',
    );

    await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF5301', departureDate: c.departureDate, status: 'cancelled' },
      a.auth,
    );
    const messages = await eventually(async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `${FLIGHT}/sandbox/messages?contractNumber=${c.contractNumber}`,
        headers: a.auth,
      });
      const list = res.json().messages as { to: string; body: string }[];
      return list.length > 0 ? list : undefined;
    });
    assert.equal(messages[0]!.to, '+33698765432');
    assert.notEqual(messages[0]!.to, CUSTOMER.phone);
  });

  it('migration 0063 moves the contact changes written under the contract id to its number', async () => {
    const c = await insureFlight(t.app, a, { flightNumber: 'AF5303' });
    const row = await t.db
      .selectFrom('contracts')
      .select('id')
      .where('contract_number', '=', c.contractNumber)
      .executeTakeFirstOrThrow();
    // as the release before 0063 wrote it
    const old = await t.db
      .insertInto('audit_log')
      .values({
        actor: 'key:old',
        partner_id: a.id,
        environment: 'sandbox',
        entity: 'contract',
        entity_id: row.id,
        action: 'contact_changed',
        data: JSON.stringify({ fields: ['email'] }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const other = await insureFlight(t.app, a, { flightNumber: 'AF5304' });
    const untouched = await t.db
      .insertInto('audit_log')
      .values({
        actor: 'key:old',
        partner_id: a.id,
        environment: 'sandbox',
        entity: 'contract',
        entity_id: other.contractNumber,
        action: 'contact_changed',
        data: JSON.stringify({ fields: ['phone'] }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const migration = readFileSync(
      new URL('../../migrations/0063_contact_changed_by_contract_number.sql', import.meta.url),
      'utf8',
    );
    await sql.raw(migration).execute(t.db);
    const entityOf = async (id: typeof old.id) =>
      (await t.db.selectFrom('audit_log').select('entity_id').where('id', '=', id).executeTakeFirstOrThrow()).entity_id;
    assert.equal(await entityOf(old.id), c.contractNumber, 'the old row now under the contract number');
    assert.equal(await entityOf(untouched.id), other.contractNumber, 'a row already under its number is left alone');
  });

  it('refuses a bad phone, an empty change, a cancelled contract and another partner’s', async () => {
    const c = await insureFlight(t.app, a, { flightNumber: 'AF5302' });
    const bad = await patch(c.contractNumber, { phone: '+3369' }, a);
    assert.equal(bad.status, 422);
    assert.equal(bad.body.errors[0].field, '/phone');
    const invalid = await patch(c.contractNumber, { phone: '+99912345678' }, a);
    assert.equal(invalid.status, 422, JSON.stringify(invalid.body));
    // a landline cannot get the SMS; a US number (fixed line or mobile: the plan does not tell) can
    const landline = await patch(c.contractNumber, { phone: '+33123456789' }, a);
    assert.equal(landline.status, 422);
    assert.equal(landline.body.code, 'phone_not_mobile');
    assert.equal(landline.body.errors[0].field, '/phone');
    // nor a number of a type that takes no SMS: toll-free (0800), premium-rate…
    const tollFree = await patch(c.contractNumber, { phone: '+33800123456' }, a);
    assert.equal(tollFree.status, 422);
    assert.equal(tollFree.body.code, 'phone_not_mobile');
    assert.match(tollFree.body.errors[0].message, /cannot receive an SMS/);
    assert.equal((await patch(c.contractNumber, { phone: '+14155552345' }, a)).status, 200);
    // a contract sold with a landline before they were refused: its whole contact sent again is no error
    await t.db
      .updateTable('contracts')
      .set({ customer_phone_enc: encrypt(t.app.parasol.keys.encryption, '+33123456789') })
      .where('contract_number', '=', c.contractNumber)
      .execute();
    const resent = await patch(c.contractNumber, { phone: '+33123456789', email: 'same@example.com' }, a);
    assert.equal(resent.status, 200, JSON.stringify(resent.body));
    assert.equal((await patch(c.contractNumber, {}, a)).status, 422);
    assert.equal((await patch(c.contractNumber, { language: 'xx' }, a)).status, 422);
    const theirs = await patch(c.contractNumber, { email: 'new@example.com' }, b);
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.code, 'contract_not_found');
    const sold = await subscribeTrip(t.app, a, trip(50));
    await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: sold.body.contractNumber, reason: 'ticket_cancelled' },
      a.auth,
    );
    const cancelled = await patch(sold.body.contractNumber, { email: 'new@example.com' }, a);
    assert.equal(cancelled.status, 409);
    assert.equal(cancelled.body.code, 'contract_cancelled');
  });
});
