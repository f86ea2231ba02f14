import { DateTime } from 'luxon';
import {
  claimEvidence,
  findClaimByNumber,
  listClaims,
  type ClaimEvidence,
  type ClaimListRow,
  type FlightEventType,
} from '../claims/index.ts';
import type { ClaimStatus } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import * as contracts from './contracts-repo.ts';
import { money, type Caller, type FlightDeps, type Money } from './deps.ts';
import {
  commitHorizon,
  decodeCursor,
  listBinding,
  oldestFirstPage,
  statusFilter,
  type Keyset,
} from '../platform/cursor.ts';

export interface ClaimsQuery {
  /** Required unless contractNumber is given. */
  fromDate?: string | undefined;
  /** Required unless contractNumber is given. */
  toDate?: string | undefined;
  contractNumber?: string | undefined;
  /** One status or several: only the claims in them. */
  status?: ClaimStatus | ClaimStatus[] | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

export interface ClaimView {
  claimNumber: string;
  contractNumber: string;
  status: ClaimStatus;
  reason: 'delay' | 'cancellation';
  event: FlightEventType;
  /** The flight the customer booked (a codeshare: its marketing flight). */
  flightNumber: string;
  /** A codeshare's operating flight, whose event opened the claim; null otherwise. */
  operatingFlightNumber: string | null;
  departureDate: string;
  delayMinutes: number | null;
  compensation: Money;
  openedAt: string;
  paidAt: string | null;
  /** Why the claim was opened: the flight facts, the delay computed, the rule that pays (claims/evidence.ts). */
  evidence: ClaimEvidence;
}

export const CLAIMS_PAGE = { default: 50, max: 200, maxRangeDays: 366 } as const;

/**
 * POST /getclaims: the caller's claims opened between two dates (inclusive, UTC days) or of one
 * contract (dates then optional), optionally in some statuses, oldest first, paginated with an
 * opaque cursor. A page stops at the commit horizon (platform/cursor.ts): a claim still being written
 * by an open transaction is never passed over, so following nextCursor sees every claim once, including
 * those committed while paging; nextCursor is null only when no claim was left to read. A cursor is
 * bound to its list (the key's partner and environment, the dates, contract and statuses): given with
 * other filters, it is refused (422 invalid_cursor) rather than skipping or repeating claims.
 */
export async function listPartnerClaims(
  deps: FlightDeps,
  caller: Caller,
  q: ClaimsQuery,
): Promise<{ claims: ClaimView[]; nextCursor: string | null }> {
  const { from, to } = dateRange(q);
  let contractId: string | undefined;
  if (q.contractNumber) {
    const contract = await contracts.findContract(deps.db, caller, q.contractNumber.trim().toUpperCase());
    if (!contract) throw new DomainError('contract_not_found', `No contract ${q.contractNumber}.`);
    contractId = contract.id;
  }
  const limit = q.limit ?? CLAIMS_PAGE.default;
  const statuses = statusFilter(q.status);
  const list = listBinding(deps.keys.lookup, [
    'flight.claims',
    caller.partnerId,
    caller.environment,
    from?.toISODate() ?? null,
    to?.toISODate() ?? null,
    contractId ?? null,
    statuses ?? null,
  ]);
  const after = q.cursor ? decodeCursor(q.cursor, '/cursor', list) : undefined;
  const horizon = await commitHorizon(deps.db); // before the rows: see commitHorizon
  const rows = await listClaims(deps.db, {
    partnerId: caller.partnerId,
    environment: caller.environment,
    from: from?.toJSDate(),
    toExclusive: to?.plus({ days: 1 }).toJSDate(),
    contractId,
    statuses,
    after: after && keysetOf(after),
    limit: limit + 1,
  });
  const { page, nextCursor } = oldestFirstPage(rows, keyOf, horizon, limit, after, list);
  return { claims: page.map(claimView), nextCursor };
}

/**
 * The days asked for: both dates, or — when one contract is named — either or none (all of that
 * contract's claims). A range is at most CLAIMS_PAGE.maxRangeDays long.
 */
function dateRange(q: ClaimsQuery): { from?: DateTime; to?: DateTime } {
  const day = (value: string | undefined, field: string): DateTime | undefined => {
    if (value === undefined) {
      if (q.contractNumber) return undefined;
      throw new DomainError('validation_failed', `${field} is required unless contractNumber is given.`, {
        errors: [{ field: `/${field}`, code: 'required', message: 'required unless contractNumber is given' }],
      });
    }
    const date = DateTime.fromISO(value, { zone: 'utc' });
    if (!date.isValid)
      throw new DomainError('validation_failed', `${field} is not a valid date.`, {
        errors: [{ field: `/${field}`, code: 'invalid_format', message: 'must be a date YYYY-MM-DD' }],
      });
    return date;
  };
  const from = day(q.fromDate, 'fromDate');
  const to = day(q.toDate, 'toDate');
  if (from && to && to < from)
    throw new DomainError('validation_failed', 'toDate is before fromDate.', {
      errors: [{ field: '/toDate', code: 'out_of_range', message: 'must be on or after fromDate' }],
    });
  if (from && to && to.diff(from, 'days').days > CLAIMS_PAGE.maxRangeDays) {
    throw new DomainError('validation_failed', `The date range is longer than ${CLAIMS_PAGE.maxRangeDays} days.`, {
      errors: [
        { field: '/toDate', code: 'out_of_range', message: `at most ${CLAIMS_PAGE.maxRangeDays} days after fromDate` },
      ],
    });
  }
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

export function claimView(r: ClaimListRow): ClaimView {
  return {
    claimNumber: r.claim_number,
    contractNumber: r.contract_number,
    status: r.status,
    reason: r.reason,
    event: r.event,
    flightNumber: r.flight_number,
    operatingFlightNumber: r.operating_flight_number,
    departureDate: r.departure_date,
    delayMinutes: r.delay_minutes,
    compensation: money(Number(r.compensation_amount), r.currency),
    openedAt: r.opened_at.toISOString(),
    paidAt: r.paid_at ? r.paid_at.toISOString() : null,
    evidence: claimEvidence(r),
  };
}

/** GET /claims/{claimNumber}: one of the caller's claims with its evidence; 404 for any other. */
export async function readPartnerClaim(deps: FlightDeps, caller: Caller, claimNumber: string): Promise<ClaimView> {
  const row = await findClaimByNumber(
    deps.db,
    { partnerId: caller.partnerId, environment: caller.environment },
    claimNumber.toUpperCase(),
  );
  if (!row) throw new DomainError('claim_not_found', `No claim ${claimNumber}.`);
  return claimView(row);
}

// The cursor is the (opened_at, id) of the last claim returned (platform/cursor.ts).
const keysetOf = (k: Keyset) => ({ openedAt: k.at, id: k.id });
const keyOf = (r: ClaimListRow): Keyset => ({ at: r.opened_at, id: r.id });
