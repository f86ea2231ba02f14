import { findClaims } from '../claims/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { BearerError } from '../platform/auth.ts';
import type { OperatorCaller } from '../platform/operator-tokens.ts';
import {
  flightSpellings,
  openClaimsUnderSpellings,
  recordOperatorFlightEvent,
  type OperatorFlightEventResult,
} from '../monitoring/index.ts';
import type { Caller, FlightDeps } from './deps.ts';
import { claimView, type ClaimView } from './list-claims.ts';

export interface FlightEventRequest {
  flightNumber: string;
  /** Local departure date at the departure airport, as on the contract's flight. */
  departureDate: string;
  status: 'delayed' | 'cancelled' | 'diverted';
  /** Arrival delay at the gate, in minutes; required when delayed. The name claims answer with. */
  delayMinutes?: number | undefined;
  /** The former name of delayMinutes, still accepted. */
  arrivalDelayMinutes?: number | undefined;
  /** Operators: the environment concerned (default production). Partners: only their key's own. */
  environment?: Environment | undefined;
}

/**
 * POST /claims with a partner key: a partner rehearsing the claim flow reports what happened to a
 * flight, and the platform opens the claims of that partner's own active contracts on it, by the
 * same rules (and the same code) as the flight monitoring. Sandbox and preproduction only: in
 * production only the platform's monitoring and its operators report flight events. Runs in `trx`,
 * the request's transaction under its Idempotency-Key (`replyIdempotent`): reporting again opens
 * nothing more and answers no claim opened, so a retry whose first answer was lost replays that
 * answer rather than this one.
 */
export async function reportFlightEvent(
  deps: FlightDeps,
  trx: Trx,
  caller: Caller,
  input: FlightEventRequest,
): Promise<{ claimsOpened: ClaimView[] }> {
  if (caller.environment === 'production') {
    // RFC 6750 §3: the key does not reach this operation in production, an operator token does
    throw new BearerError(
      'forbidden',
      'In production, claims are opened by the platform from flight data; rehearse the claim flow with a sandbox or preproduction key.',
      'insufficient_scope',
    );
  }
  if (input.environment !== undefined && input.environment !== caller.environment) {
    throw new DomainError('validation_failed', `Your key reports events of ${caller.environment} only.`, {
      errors: [
        { field: '/environment', code: 'not_allowed', message: `must be ${caller.environment} (your key's) or absent` },
      ],
    });
  }
  const delay = checkEvent(input);
  // the flight however the legs spell it (AF006 ≡ AF6, docs/monitoring.md#designators), as the
  // monitoring and the operators' events find it: one transaction for all its spellings
  const flightNumbers = await flightSpellings(trx, caller.environment, input.flightNumber, input.departureDate);
  const bySpelling = await openClaimsUnderSpellings(
    trx,
    deps.jobs,
    flightNumbers,
    {
      environment: caller.environment,
      partnerId: caller.partnerId,
      departureDate: input.departureDate,
      status: input.status,
      arrivalDelayMinutes: delay,
      source: 'partner_report',
      evidence: { reportedBy: caller.actor },
    },
    caller.actor,
    deps.now(),
  );
  const rows = await findClaims(
    trx,
    caller,
    [...bySpelling.values()].flat().map((c) => c.id),
  );
  return { claimsOpened: rows.map(claimView) };
}

/**
 * POST /claims with an operator token: a flight event in any environment (production by default),
 * for every partner's active contracts on the flight — a flight the monitoring sent to manual
 * review, or a provider's error corrected. The operators' use case (`parasol flights event` too):
 * every spelling of the designator on the legs, and the flight's watches decided with the claims.
 */
export async function reportFlightEventAsOperator(
  deps: FlightDeps,
  operator: OperatorCaller,
  input: FlightEventRequest,
): Promise<{
  claimsOpened: ClaimView[];
  contractsReopened: string[];
  claimsNotChanged: OperatorFlightEventResult['claimsNotChanged'];
}> {
  const delay = checkEvent(input);
  const result = await recordOperatorFlightEvent(
    deps,
    {
      environment: input.environment ?? 'production',
      flightNumber: input.flightNumber,
      departureDate: input.departureDate,
      status: input.status,
      arrivalDelayMinutes: delay,
    },
    operator.actor,
  );
  const rows = await findClaims(
    deps.db,
    undefined,
    result.claimsOpened.map((c) => c.id),
  );
  return {
    claimsOpened: rows.map(claimView),
    contractsReopened: result.contractsReopened,
    claimsNotChanged: result.claimsNotChanged,
  };
}

/** The event's arrival delay, from delayMinutes or its former name arrivalDelayMinutes. */
function checkEvent(input: FlightEventRequest): number | undefined {
  const field =
    input.delayMinutes !== undefined || input.arrivalDelayMinutes === undefined
      ? 'delayMinutes'
      : 'arrivalDelayMinutes';
  if (input.delayMinutes !== undefined && input.arrivalDelayMinutes !== undefined)
    throw new DomainError('validation_failed', 'Give delayMinutes only (arrivalDelayMinutes is its former name).', {
      errors: [
        { field: '/arrivalDelayMinutes', code: 'not_allowed', message: 'not with delayMinutes (its former name)' },
      ],
    });
  const delay = input.delayMinutes ?? input.arrivalDelayMinutes;
  if (input.status === 'delayed' && delay === undefined) {
    throw new DomainError('validation_failed', 'A delayed flight needs delayMinutes.', {
      errors: [{ field: '/delayMinutes', code: 'required', message: 'is required when status is delayed' }],
    });
  }
  if (input.status !== 'delayed' && delay !== undefined) {
    throw new DomainError('validation_failed', `A ${input.status} flight has no arrival delay.`, {
      errors: [{ field: `/${field}`, code: 'not_allowed', message: 'only for status delayed' }],
    });
  }
  return delay;
}
