import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openClaimsForFlightEvent } from '../../src/claims/open-claims.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  usingPostgres,
  type TestApp,
} from '../helper.ts';

/**
 * A flight event opening claims while the partner cancels the leg on that flight (PostgreSQL: PGlite
 * runs one transaction at a time). The leg's claim and its refund must not both happen — and the
 * event must not fail either: the leg is gone, so it opens nothing.
 */
describe('a claim opening racing a leg cancellation', () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp({ env: { PARASOL_WORKERS: 'off' } })));
  after(() => t.close());

  const blocked = async () =>
    (
      await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0`.execute(t.db)
    ).rows[0]!.n;

  it('the leg cancelled first: the event opens nothing on it, and does not fail', async (ctx) => {
    if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
    const a = await createTestPartner(t.db);
    const returnFlight = `AF${5600 + (process.pid % 300)}`;
    const c = await insureFlight(t.app, a, {
      flightNumber: `AF${5000 + (process.pid % 300)}`,
      returnFlight,
      days: 20,
    });
    const leg = await t.db
      .selectFrom('contract_legs')
      .select(['departure_local'])
      .where('flight_number', '=', returnFlight)
      .executeTakeFirstOrThrow();
    let opening: Promise<unknown> | undefined;
    let cancelling: Promise<Awaited<ReturnType<typeof post>>> | undefined;
    await t.db.transaction().execute(async (trx) => {
      // holds the cancellation after it locked the contract and removed the leg (at its exposure release)
      await sql`SELECT 1 FROM flight_exposure WHERE departure_airport = 'JFK' AND arrival_airport = 'CDG'
                  AND departure_local = ${leg.departure_local} FOR UPDATE`.execute(trx);
      cancelling = post(
        t.app,
        `${FLIGHT}/contracts/${c.contractNumber}/partial-cancellation`,
        { leg: 1, reason: 'ticket_cancelled' },
        a.auth,
      );
      await eventually(async () => ((await blocked()) >= 1 ? true : undefined));
      opening = openClaimsForFlightEvent(
        { db: t.app.parasol.db, jobs: t.app.parasol.jobs, now: () => new Date() },
        {
          environment: 'sandbox',
          flightNumber: returnFlight,
          departureDate: c.returnDate!,
          status: 'cancelled',
          source: 'test',
        },
      );
      opening.catch(() => {});
      // the event waits for the cancellation's contract lock
      await eventually(async () => ((await blocked()) >= 2 ? true : undefined));
    });
    const cancelled = await cancelling!;
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.deepEqual(await opening!, [], 'the leg is no longer insured: no claim, and no failure');
  });

  it('the contract cancelled first (/cancel, full refund): the event opens nothing, and does not fail', async (ctx) => {
    if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
    const a = await createTestPartner(t.db);
    const flightNumber = `AF${5300 + (process.pid % 300)}`;
    const c = await insureFlight(t.app, a, { flightNumber, days: 21 });
    const leg = await t.db
      .selectFrom('contract_legs')
      .select(['departure_local'])
      .where('flight_number', '=', flightNumber)
      .executeTakeFirstOrThrow();
    let opening: Promise<unknown> | undefined;
    let cancelling: Promise<Awaited<ReturnType<typeof post>>> | undefined;
    await t.db.transaction().execute(async (trx) => {
      // holds the cancellation after it locked and cancelled the contract (at its exposure release)
      await sql`SELECT 1 FROM flight_exposure WHERE departure_airport = 'CDG' AND arrival_airport = 'JFK'
                  AND departure_local = ${leg.departure_local} FOR UPDATE`.execute(trx);
      cancelling = post(
        t.app,
        `${FLIGHT}/cancel`,
        { contractNumber: c.contractNumber, reason: 'ticket_cancelled' },
        a.auth,
      );
      await eventually(async () => ((await blocked()) >= 1 ? true : undefined));
      opening = openClaimsForFlightEvent(
        { db: t.app.parasol.db, jobs: t.app.parasol.jobs, now: () => new Date() },
        {
          environment: 'sandbox',
          flightNumber,
          departureDate: c.departureDate,
          status: 'cancelled',
          source: 'test',
        },
      );
      opening.catch(() => {});
      // the event waits for the cancellation's contract lock
      await eventually(async () => ((await blocked()) >= 2 ? true : undefined));
    });
    const cancelled = await cancelling!;
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'cancelled');
    assert.deepEqual(await opening!, [], 'refunded: no claim as well, and no failure');
  });
});
