import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { CheckDeps } from '../../src/monitoring/check-flight.ts';
import type { FlightProviders } from '../../src/monitoring/providers.ts';
import type { Environment } from '../../src/platform/db-schema.ts';
import { buildTestApp, FLIGHT, post, type TestApp, type TestPartner, consent } from '../helper.ts';

/**
 * Shared by the monitoring's database tests: an app whose clock the test moves (workers off: the
 * tests run the planner, dispatcher and checks themselves), flights of their own, contracts
 * subscribed through the API.
 *
 * On a shared PostgreSQL, every test's flights are far in the future (2031–2032, a random day) with
 * random numbers, so that no other test's data — nor a real-time dispatcher of another process —
 * meets them.
 */

export interface Clock {
  now: () => Date;
  set(date: Date | string): Date;
}

export function clock(start: Date): Clock {
  let current = start;
  return {
    now: () => current,
    set: (date) => (current = new Date(date)),
  };
}

export async function monitoringApp(c: Clock): Promise<TestApp> {
  return buildTestApp({ now: c.now, env: { PARASOL_WORKERS: 'off' } });
}

/** A random day of 2031, at 00:00Z: this run's flights depart on it or the days after. */
export function randomDay(): Date {
  const day = 40 + Math.floor(Math.random() * 300);
  return new Date(Date.UTC(2031, 0, 1) + day * 86_400_000);
}

let used = new Set<number>();
/** A flight number of its own: Air France, four digits (unique in this process). */
export function flightNumber(options: { leadingZero?: boolean } = {}): string {
  for (;;) {
    const n = options.leadingZero ? 100 + Math.floor(Math.random() * 900) : 1000 + Math.floor(Math.random() * 9000);
    if (used.has(n)) continue;
    used.add(n);
    return options.leadingZero ? `AF0${n}` : `AF${n}`;
  }
}
export function resetFlightNumbers(): void {
  used = new Set();
}

export interface Contract {
  contractNumber: string;
  flightNumber: string;
  departureDate: string;
  departureAt: Date;
}

/**
 * Subscribes a CDG→JFK contract on `flight`, departing `day` at 10:30 Paris time, through the API
 * (the clock is set the day before departure for the quote and back afterwards); a codeshare when
 * `operatingFlightNumber` is given.
 */
export async function subscribe(
  t: TestApp,
  c: Clock,
  partner: TestPartner,
  flight: string,
  day: Date,
  options: { passengers?: number; operatingFlightNumber?: string; airline?: string; returnFlight?: string } = {},
): Promise<Contract> {
  const back = c.now();
  const date = day.toISOString().slice(0, 10);
  c.set(new Date(day.getTime() - 86_400_000));
  try {
    const body = {
      departureAirport: 'CDG',
      arrivalAirport: 'JFK',
      airline: options.airline ?? 'AF',
      departureDateTime: `${date}T10:30`,
      // a round trip: the return a week later (its flight decided by nothing in these tests)
      ...(options.returnFlight
        ? { returnDepartureDateTime: `${new Date(day.getTime() + 7 * 86_400_000).toISOString().slice(0, 10)}T18:00` }
        : {}),
      ...(options.passengers ? { additionalPassengers: options.passengers - 1 } : {}),
    };
    const quote = await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth);
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
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
        consent: consent(1, c.now()),
        flights: [
          {
            flightNumber: flight,
            ...(options.operatingFlightNumber ? { operatingFlightNumber: options.operatingFlightNumber } : {}),
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: body.departureDateTime,
          },
          ...(options.returnFlight
            ? [
                {
                  flightNumber: options.returnFlight,
                  departureAirport: 'JFK',
                  arrivalAirport: 'CDG',
                  departureDateTime: body.returnDepartureDateTime!,
                },
              ]
            : []),
        ],
      },
      partner.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return {
      contractNumber: res.body.contractNumber,
      flightNumber: flight,
      departureDate: date,
      departureAt: new Date(res.body.flights[0].departureAt),
    };
  } finally {
    c.set(back);
  }
}

export async function cancel(t: TestApp, c: Clock, partner: TestPartner, contract: Contract): Promise<void> {
  const back = c.now();
  c.set(new Date(contract.departureAt.getTime() - 86_400_000));
  try {
    const res = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: contract.contractNumber, reason: 'ticket_cancelled' },
      partner.auth,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
  } finally {
    c.set(back);
  }
}

export const silentLog = { info: () => {}, warn: () => {}, error: () => {} };

export function checkDeps(
  t: TestApp,
  c: Clock,
  providers: FlightProviders,
  log: CheckDeps['log'] = silentLog,
): CheckDeps {
  return { db: t.db, jobs: t.app.parasol.jobs, providers, now: c.now, log, random: () => 0 };
}

export async function watchOf(t: TestApp, environment: Environment, flight: string, date: string) {
  return t.db
    .selectFrom('flight_watches')
    .selectAll()
    .where('environment', '=', environment)
    .where('flight_number', '=', flight)
    .where('departure_date', '=', date)
    .executeTakeFirst();
}

/** Claims of a flight's legs (as the legs spell it), with their leg and amount. */
export async function claimsOf(t: TestApp, environment: Environment, flight: string, date: string) {
  return t.db
    .selectFrom('claims as cl')
    .innerJoin('contract_legs as l', 'l.id', 'cl.leg_id')
    .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
    .select([
      'cl.id',
      'cl.claim_number',
      'cl.status',
      'cl.leg_id',
      'cl.reason',
      'cl.event',
      'cl.delay_minutes',
      'cl.compensation_amount',
      'cl.evidence',
      'cl.contract_id',
      'c.contract_number',
    ])
    .where('l.environment', '=', environment)
    .where('l.flight_number', '=', flight)
    .where('l.departure_date', '=', date)
    .orderBy('c.contract_number')
    .execute();
}

export async function auditOf(t: TestApp, watchId: string) {
  return t.db
    .selectFrom('audit_log')
    .select(['actor', 'action', 'data'])
    .where('entity', '=', 'flight_watch')
    .where('entity_id', '=', watchId)
    .orderBy('id')
    .execute();
}

/** check jobs queued for these watches (pg-boss table). */
export async function queuedChecks(t: TestApp, watchIds: string[]): Promise<number> {
  const result = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'flights_check' AND singleton_key = ANY(${watchIds}::text[])`.execute(
    t.db,
  );
  return result.rows[0]!.n;
}

export const minutes = (n: number) => n * 60_000;
export const plus = (d: Date, ms: number) => new Date(d.getTime() + ms);
