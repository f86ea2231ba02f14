import { DateTime } from 'luxon';
import { listClaims, type ClaimListRow } from '../claims/index.ts';
import { findWatchesOfFlight, type FlightWatch } from '../monitoring/index.ts';
import { decodeCursor, encodeCursor, listBinding, statusFilter } from '../platform/cursor.ts';
import { openField } from '../platform/crypto.ts';
import { DomainError } from '../platform/errors.ts';
import type { CustomerLang } from '../platform/language.ts';
import { CONTRACT_STATUSES, type ContractStatus } from './model.ts';
import * as contracts from './contracts-repo.ts';
import { money, type Caller, type FlightDeps, type Money } from './deps.ts';
import { claimView, type ClaimView } from './list-claims.ts';
import { versionView, type ContractVersionView } from './contract-versions.ts';
import { bookingReferenceHashes, canonicalBookingReference } from './booking-reference.ts';
import { contractView, type ContractView } from './subscribe.ts';

/** What the platform decided happened to an insured flight. */
export interface FlightOutcomeView {
  /** landed: on time or early; delayed (with delayMinutes) for any late arrival, even one that pays nothing. */
  event: 'cancelled' | 'delayed' | 'diverted' | 'landed';
  /** The arrival delay at the gate when delayed; null otherwise. */
  delayMinutes: number | null;
}

/** What the platform knows of an insured flight: the watch's state and, once decided, when and what. */
export interface FlightStatusView {
  /**
   * `scheduled` until the platform watches the flight; then the watch's state (docs/monitoring.md);
   * `decided` as soon as a decision was taken on the leg (a claim opened by an operator's or a
   * reported event), watched or not.
   */
  state: FlightWatch['state'] | 'scheduled';
  lastCheckedAt: string | null;
  decidedAt: string | null;
  /** The decision taken on the leg; null while none was. */
  outcome: FlightOutcomeView | null;
}

export interface ContractDetailView extends ContractView {
  customer: { firstName: string; lastName: string; email: string; phone: string; language: CustomerLang };
  flights: (ContractView['flights'][number] & { flightStatus: FlightStatusView })[];
  cancellation: { cancelledAt: string; reason: string; refund: Money } | null;
  claims: ClaimView[];
  /** Oldest first; empty while the contract was never changed (version 1 is written by the first change). */
  versions: ContractVersionView[];
}

export const CONTRACTS_PAGE = { default: 50, max: 200 } as const;

export interface ContractSearch {
  bookingReference?: string | undefined;
  status?: ContractStatus | ContractStatus[] | undefined;
  /** First day (inclusive, UTC) on which the contracts were subscribed. */
  createdFrom?: string | undefined;
  /** Last day (inclusive, UTC) on which the contracts were subscribed. */
  createdTo?: string | undefined;
  cursor?: string | undefined;
  /** A query string's digits. */
  limit?: string | undefined;
}

/**
 * GET /contracts/{contractNumber}: one of the caller's contracts with its customer, flights (and what
 * monitoring knows of each), cancellation and claims. Another partner's or environment's: 404.
 */
export async function readContract(
  deps: FlightDeps,
  caller: Caller,
  contractNumber: string,
): Promise<ContractDetailView> {
  const row = await contracts.findContract(deps.db, caller, contractNumber.trim().toUpperCase());
  if (!row) throw new DomainError('contract_not_found', `No contract ${contractNumber}.`);
  const legs = await contracts.findLegs(deps.db, row.id);
  const [watches, claims, versions] = await Promise.all([
    Promise.all(
      legs.map((l) => findWatchesOfFlight(deps.db, caller.environment, l.monitored_flight_number, l.departure_date)),
    ),
    listClaims(deps.db, { ...caller, contractId: row.id, limit: 100 }),
    contracts.findVersions(deps.db, row.id),
  ]);
  const key = deps.keys.encryption;
  const view = contractView(key, row, legs);
  return {
    ...view,
    customer: {
      firstName: openField(key, row.customer_first_name_enc, row.customer_first_name),
      lastName: openField(key, row.customer_last_name_enc, row.customer_last_name),
      email: openField(key, row.customer_email_enc, null),
      phone: openField(key, row.customer_phone_enc, null),
      language: row.customer_language,
    },
    flights: view.flights.map((f, i) => ({
      ...f,
      flightStatus: flightStatus(
        watches[i]?.[0],
        claims.find(
          (c) =>
            c.status !== 'voided' &&
            c.flight_number === legs[i]?.flight_number &&
            c.departure_date === legs[i]?.departure_date,
        ),
      ),
    })),
    cancellation:
      row.status === 'cancelled' && row.cancelled_at
        ? {
            cancelledAt: row.cancelled_at.toISOString(),
            reason: row.cancel_reason ?? '',
            refund: money(Number(row.refund_amount ?? 0), row.currency),
          }
        : null,
    claims: claims.map(claimView),
    versions: versions.map((v) => versionView(v, row.currency)),
  };
}

/**
 * GET /contracts: the caller's contracts, newest first, by booking reference, status and the days
 * they were subscribed on, paginated with an opaque cursor. A cursor is bound to its list (the key's
 * partner and environment, every filter as read): given with other filters, it is refused (422
 * invalid_cursor) rather than skipping or repeating contracts.
 */
export async function searchContracts(
  deps: FlightDeps,
  caller: Caller,
  q: ContractSearch,
): Promise<{ contracts: ContractView[]; nextCursor: string | null }> {
  const from = day(q.createdFrom, 'createdFrom');
  const to = day(q.createdTo, 'createdTo');
  if (from && to && to < from)
    throw new DomainError('validation_failed', 'createdTo is before createdFrom.', {
      errors: [{ field: 'querystring:/createdTo', code: 'out_of_range', message: 'must be on or after createdFrom' }],
    });
  const limit = q.limit === undefined ? CONTRACTS_PAGE.default : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > CONTRACTS_PAGE.max)
    throw new DomainError('validation_failed', `limit is 1 to ${CONTRACTS_PAGE.max}.`, {
      errors: [{ field: 'querystring:/limit', code: 'out_of_range', message: `must be 1 to ${CONTRACTS_PAGE.max}` }],
    });
  const booking = canonicalBookingReference(q.bookingReference ?? '');
  const statuses = statusFilter(q.status)?.filter((s) => CONTRACT_STATUSES.includes(s));
  // keyed-hashed, as the reference is everywhere it is kept: no cursor gives it back
  const list = listBinding(deps.keys.lookup, [
    'flight.contracts',
    caller.partnerId,
    caller.environment,
    booking || null,
    statuses ?? null,
    from?.toISODate() ?? null,
    to?.toISODate() ?? null,
  ]);
  const rows = await contracts.searchContracts(deps.db, caller, {
    bookingReferenceHashes: booking ? bookingReferenceHashes(deps.keys.encryption, booking) : undefined,
    statuses,
    createdFrom: from?.toJSDate(),
    createdBefore: to?.plus({ days: 1 }).toJSDate(),
    before: q.cursor ? keyset(decodeCursor(q.cursor, 'querystring:/cursor', list)) : undefined,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const legs = await contracts.findLegsOf(
    deps.db,
    page.map((r) => r.id),
  );
  const last = page[page.length - 1];
  return {
    contracts: page.map((r) =>
      contractView(
        deps.keys.encryption,
        r,
        legs.filter((l) => l.contract_id === r.id),
      ),
    ),
    nextCursor: rows.length > limit && last ? encodeCursor(new Date(last.created_at.getTime()), last.id, list) : null,
  };
}

const keyset = (k: { at: Date; id: string }) => ({ at: k.at, id: k.id });

function day(value: string | undefined, field: string): DateTime | undefined {
  if (value === undefined) return undefined;
  const date = DateTime.fromISO(value, { zone: 'utc' });
  if (!date.isValid)
    throw new DomainError('validation_failed', `${field} is not a valid date.`, {
      errors: [{ field: `querystring:/${field}`, code: 'invalid_format', message: 'must be a date YYYY-MM-DD' }],
    });
  return date;
}

/**
 * A leg's flight status: its watch's, with the decision taken on the leg. The leg's claim (not voided)
 * is that decision wherever it came from (the monitoring, an operator's event, a partner's reported
 * event in sandbox), and is one even when no watch exists yet (an event reported ahead of the
 * monitoring's horizon); without a claim, the watch's decision (a flight on time, a delay under the
 * first tier). `decidedAt`: the claim's opening, else the watch's decision.
 */
function flightStatus(watch: FlightWatch | undefined, claim: ClaimListRow | undefined): FlightStatusView {
  const decided = watch?.decidedAt ? watch : undefined;
  const outcome = claim ? claimOutcome(claim) : decided ? watchOutcome(decided.decision) : null;
  const state =
    claim && (!watch || watch.state === 'watching' || watch.state === 'manual_review')
      ? 'decided'
      : (watch?.state ?? 'scheduled');
  return {
    state,
    lastCheckedAt: watch?.lastCheckedAt ? watch.lastCheckedAt.toISOString() : null,
    // the claim's opening when there is one, as /getclaims and claim.opened say; else the watch's decision
    decidedAt: claim ? claim.opened_at.toISOString() : decided?.decidedAt ? decided.decidedAt.toISOString() : null,
    outcome,
  };
}

const claimOutcome = (claim: ClaimListRow): FlightOutcomeView => ({
  event: claim.event,
  delayMinutes: claim.event === 'delayed' ? claim.delay_minutes : null,
});

/** The decision a watch recorded (check-flight.ts, operator-flight-event.ts): `{ kind, arrivalDelayMinutes? }`. */
function watchOutcome(decision: unknown): FlightOutcomeView | null {
  const { kind, arrivalDelayMinutes } = (decision ?? {}) as { kind?: unknown; arrivalDelayMinutes?: unknown };
  const minutes = typeof arrivalDelayMinutes === 'number' ? arrivalDelayMinutes : null;
  switch (kind) {
    case 'cancelled':
    case 'diverted':
      return { event: kind, delayMinutes: null };
    case 'delayed':
      return { event: 'delayed', delayMinutes: minutes };
    case 'on_time':
      return { event: 'landed', delayMinutes: null };
    default:
      return null;
  }
}
