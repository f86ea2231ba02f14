import { audit } from '../platform/audit.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Db, Executor } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { keptReason, REASON_LENGTH } from '../platform/personal-text.ts';
import { ENVIRONMENTS } from '../partners/index.ts';
import { parseDeparture, parseInstant, requireAirline, requireAirport } from '../reference/index.ts';
import * as repo from './limits-repo.ts';
import type { StopSaleListing } from './limits-repo.ts';

/**
 * Stop-sales (docs/limits.md): the operator suspends sales for an airline, an airport, a route of
 * an airline or one flight, for the departures of a period, in one environment or all. Quotes and
 * subscriptions of a covered leg answer 409 sales_suspended until the period ends or sales resume.
 * Suspending again what is suspended (same scope, period and reason) answers the stop-sale in force,
 * `alreadySuspended`, and audits nothing.
 */

export interface SuspendInput {
  /** Absent or 'all': every environment. */
  environment?: string | undefined;
  airline?: string | undefined;
  airport?: string | undefined;
  /** A route: both or neither. */
  departureAirport?: string | undefined;
  arrivalAirport?: string | undefined;
  /** One flight: its local departure 'YYYY-MM-DDTHH:mm' (with the airline and the route); sets the period. */
  departureLocal?: string | undefined;
  /** ISO 8601 instants; the departures in [startsAt, endsAt) are covered. */
  startsAt?: string | undefined;
  /** Required, unless `untilResumed`. */
  endsAt?: string | undefined;
  /**
   * No end: every departure from startsAt on, until the operator resumes sales (an embargo, an
   * airline in administration). Said explicitly — a forgotten end is refused as required, not read
   * as a stop-sale with no end — and refused with an end.
   */
  untilResumed?: boolean | undefined;
  reason: string;
}

function instant(value: string | undefined, field: string, errors: FieldError[]): Date | undefined {
  if (value === undefined || value === '') {
    errors.push({ field, code: 'required', message: 'is required (an ISO 8601 instant such as 2026-12-01T06:00Z)' });
    return undefined;
  }
  // a date or time that does not exist, an offset outside -12:00 to +14:00: refused, not read as another
  const at = parseInstant(value);
  if (!at) {
    errors.push({
      field,
      code: 'invalid_format',
      message: 'must be an ISO 8601 instant with its offset (-12:00 to +14:00), such as 2026-12-01T06:00Z',
    });
    return undefined;
  }
  return at;
}

function code<T>(read: () => T, errors: FieldError[]): T | null {
  try {
    return read();
  } catch (error) {
    if (error instanceof DomainError) {
      errors.push(...(error.extra.errors ?? [{ field: '/', code: 'invalid', message: error.detail }]));
      return null;
    }
    throw error;
  }
}

export async function suspendSales(
  db: Db,
  actor: string,
  input: SuspendInput,
  now: Date,
): Promise<repo.StopSale & { alreadySuspended: boolean }> {
  const errors: FieldError[] = [];
  const env =
    input.environment === undefined || input.environment === '' || input.environment === 'all'
      ? null
      : input.environment;
  if (env !== null && !(ENVIRONMENTS as readonly string[]).includes(env))
    errors.push({
      field: '/environment',
      code: 'not_allowed',
      message: `must be all or one of ${ENVIRONMENTS.join(', ')}`,
    });
  const airline = input.airline
    ? code(() => requireAirline(input.airline!.trim().toUpperCase(), '/airline'), errors)
    : null;
  const airport = input.airport
    ? code(() => requireAirport(input.airport!.trim().toUpperCase(), '/airport'), errors)
    : null;
  const from = input.departureAirport
    ? code(() => requireAirport(input.departureAirport!.trim().toUpperCase(), '/departureAirport'), errors)
    : null;
  const to = input.arrivalAirport
    ? code(() => requireAirport(input.arrivalAirport!.trim().toUpperCase(), '/arrivalAirport'), errors)
    : null;
  if (!input.departureAirport !== !input.arrivalAirport)
    errors.push({
      field: input.departureAirport ? '/arrivalAirport' : '/departureAirport',
      code: 'required',
      message: 'a route needs both airports',
    });
  if (!input.airline && !input.airport && !input.departureAirport)
    errors.push({ field: '/airline', code: 'required', message: 'name an airline, an airport, a route or a flight' });
  let startsAt: Date | undefined;
  let endsAt: Date | null | undefined;
  if (input.departureLocal) {
    // one flight: the airline's route at that local departure, i.e. the departures of that minute
    if (!input.airline || !input.departureAirport)
      errors.push({ field: '/departureLocal', code: 'required', message: 'a flight needs its airline and route' });
    // one flight's period is its departure minute: a period given too would be silently ignored
    if (input.startsAt || input.endsAt || input.untilResumed)
      errors.push({
        field: input.startsAt ? '/startsAt' : input.endsAt ? '/endsAt' : '/untilResumed',
        code: 'not_allowed',
        message: 'one flight (its local departure) or a period of departures, not both',
      });
    if (from) {
      const departure = code(() => parseDeparture(input.departureLocal!, from, '/departureLocal'), errors);
      if (departure) {
        startsAt = departure.at;
        endsAt = new Date(departure.at.getTime() + 60_000);
      }
    }
  } else {
    startsAt = instant(input.startsAt, '/startsAt', errors);
    const endGiven = input.endsAt !== undefined && input.endsAt.trim() !== '';
    if (input.untilResumed && endGiven)
      errors.push({
        field: '/untilResumed',
        code: 'not_allowed',
        message: 'an end or until sales are resumed, not both',
      });
    else if (input.untilResumed)
      // no end: open-ended, until the operator resumes sales (an embargo, an airline in administration)
      endsAt = null;
    else if (!endGiven)
      errors.push({
        field: '/endsAt',
        code: 'required',
        message: 'is required (an ISO 8601 instant such as 2026-12-05T00:00Z), or say until sales are resumed',
      });
    else endsAt = instant(input.endsAt, '/endsAt', errors);
    if (startsAt && endsAt && endsAt.getTime() <= startsAt.getTime())
      errors.push({ field: '/endsAt', code: 'out_of_range', message: 'must be after startsAt' });
  }
  if (endsAt && endsAt.getTime() <= now.getTime())
    errors.push({ field: '/endsAt', code: 'out_of_range', message: 'is in the past' });
  // an operator's free text: the personal data it may quote is masked (platform/personal-text.ts) —
  // its length as typed checked first: a text too long to be a reason is never masked (slow on it)
  // too long as typed or once masked: one refusal, the claim desk's (`too_long`, "must be at most 500 characters")
  const { kept: reason, error: reasonError } = keptReason(
    input.reason,
    { field: '/reason', ...REASON_LENGTH },
    'is required: why, for partners (the 409 detail)',
  );
  if (reasonError) errors.push(reasonError);
  if (errors.length) throw new DomainError('validation_failed', 'The stop-sale is not valid.', { errors });
  const values = {
    environment: env as Environment | null,
    airline,
    airport,
    departureAirport: from,
    arrivalAirport: to,
    startsAt: startsAt!,
    endsAt: endsAt ?? null,
    reason,
  };
  return db.transaction().execute(async (trx) => {
    // a form sent twice, a command run again: the stop-sale in force, not a second one that resuming
    // the first would leave in force. Two at once (READ COMMITTED: neither would see the other's
    // insert) queue on a lock on this stop-sale's identity, so the second finds the first's row.
    await repo.lockStopSaleIdentity(trx, values);
    const same = await repo.findSameStopSale(trx, values);
    if (same) return { ...same, alreadySuspended: true };
    const stop = await repo.insertStopSale(trx, { ...values, createdBy: actor });
    await audit(trx, {
      actor,
      environment: stop.environment,
      entity: 'stop_sale',
      entityId: stop.id,
      action: 'created',
      data: {
        airline,
        airport,
        departureAirport: from,
        arrivalAirport: to,
        startsAt: stop.startsAt.toISOString(),
        endsAt: stop.endsAt?.toISOString() ?? null,
        reason,
      },
    });
    return { ...stop, alreadySuspended: false };
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ends a stop-sale now. Resuming a resumed stop-sale answers it as it is. */
export async function resumeSales(db: Db, actor: string, id: string, now: Date): Promise<repo.StopSale> {
  if (!UUID.test(id)) throw new DomainError('stop_sale_not_found', `No stop-sale ${id}.`);
  return db.transaction().execute(async (trx) => {
    const resumed = await repo.markStopSaleResumed(trx, id, now, actor);
    if (!resumed) {
      const existing = await repo.findStopSale(trx, id);
      if (!existing) throw new DomainError('stop_sale_not_found', `No stop-sale ${id}.`);
      return existing;
    }
    await audit(trx, {
      actor,
      environment: resumed.environment,
      entity: 'stop_sale',
      entityId: id,
      action: 'resumed',
      data: {},
    });
    return resumed;
  });
}

/** At most this many stop-sales are listed (`listStopSales`); `countStopSales` tells how many there are. */
export const STOP_SALES_LISTED = 1000;

export async function listStopSales(
  db: Executor,
  options: { now: Date; state?: StopSaleListing | undefined },
): Promise<repo.StopSale[]> {
  // a listing for the operator: quotes and subscriptions read every stop-sale in force, whatever their number
  return repo.listStopSales(db, { after: options.now, state: options.state ?? 'inForce', limit: STOP_SALES_LISTED });
}

/** How many stop-sales `listStopSales` would list without its limit (to say how many it left out). */
export function countStopSales(
  db: Executor,
  options: { now: Date; state?: StopSaleListing | undefined },
): Promise<number> {
  return repo.countStopSales(db, { after: options.now, state: options.state ?? 'inForce' });
}

/** The listings of `parasol sales list --state` and the console's stop-sales filter. */
export const STOP_SALE_LISTINGS: readonly StopSaleListing[] = ['inForce', 'current', 'future', 'past', 'all'];
