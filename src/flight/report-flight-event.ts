import { findClaims, openClaimsForFlightEvent } from '../claims/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import type { OperatorCaller } from '../platform/operator-tokens.ts';
import { recordOperatorFlightEvent } from '../monitoring/index.ts';
import type { Caller, FlightDeps } from './deps.ts';
import { claimView, type ClaimView } from './list-claims.ts';

export interface FlightEventRequest {
  flightNumber: string;
  /** Local departure date at the departure airport, as on the contract's flight. */
  departureDate: string;
  status: 'delayed' | 'cancelled' | 'diverted';
  /** Arrival delay at the gate, in minutes; required when delayed. */
  arrivalDelayMinutes?: number | undefined;
  /** Operators: the environment concerned (default production). Partners: only their key's own. */
  environment?: Environment | undefined;
}

/**
 * POST /claims with a partner key: a partner rehearsing the claim flow reports what happened to a
 * flight, and the platform opens the claims of that partner's own active contracts on it, by the
 * same rules (and the same code) as the flight monitoring. Sandbox and preproduction only: in
 * production only the platform's monitoring and its operators report flight events.
 */
export async function reportFlightEvent(
  deps: FlightDeps,
  caller: Caller,
  input: FlightEventRequest,
): Promise<{ claimsOpened: ClaimView[] }> {
  if (caller.environment === 'production') {
    throw new DomainError(
      'forbidden',
      'In production, claims are opened by the platform from flight data; rehearse the claim flow with a sandbox or preproduction key.',
    );
  }
  if (input.environment !== undefined && input.environment !== caller.environment) {
    throw new DomainError('validation_failed', `Your key reports events of ${caller.environment} only.`, {
      errors: [{ field: '/environment', message: `must be ${caller.environment} (your key's) or absent` }],
    });
  }
  checkEvent(input);
  const opened = await openClaimsForFlightEvent(
    deps,
    {
      environment: caller.environment,
      partnerId: caller.partnerId,
      flightNumber: input.flightNumber.replace(/\s+/g, '').toUpperCase(),
      departureDate: input.departureDate,
      status: input.status,
      arrivalDelayMinutes: input.arrivalDelayMinutes,
      source: 'partner_report',
      evidence: { reportedBy: caller.actor },
    },
    caller.actor,
  );
  const rows = await findClaims(
    deps.db,
    caller,
    opened.map((c) => c.id),
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
): Promise<{ claimsOpened: ClaimView[] }> {
  checkEvent(input);
  const result = await recordOperatorFlightEvent(
    deps,
    {
      environment: input.environment ?? 'production',
      flightNumber: input.flightNumber,
      departureDate: input.departureDate,
      status: input.status,
      arrivalDelayMinutes: input.arrivalDelayMinutes,
    },
    operator.actor,
  );
  const rows = await findClaims(
    deps.db,
    undefined,
    result.claimsOpened.map((c) => c.id),
  );
  return { claimsOpened: rows.map(claimView) };
}

function checkEvent(input: FlightEventRequest): void {
  if (input.status === 'delayed' && input.arrivalDelayMinutes === undefined) {
    throw new DomainError('validation_failed', 'A delayed flight needs arrivalDelayMinutes.', {
      errors: [{ field: '/arrivalDelayMinutes', message: 'is required when status is delayed' }],
    });
  }
  if (input.status !== 'delayed' && input.arrivalDelayMinutes !== undefined) {
    throw new DomainError('validation_failed', `A ${input.status} flight has no arrival delay.`, {
      errors: [{ field: '/arrivalDelayMinutes', message: 'only for status delayed' }],
    });
  }
}
