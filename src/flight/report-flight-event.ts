import { findClaims } from '../claims/claims-repo.ts';
import { openClaimsForFlightEvent } from '../claims/open-claims.ts';
import { DomainError } from '../platform/errors.ts';
import type { Caller, FlightDeps } from './deps.ts';
import { claimView, type ClaimView } from './list-claims.ts';

export interface FlightEventRequest {
  flightNumber: string;
  /** Local departure date at the departure airport, as on the contract's flight. */
  departureDate: string;
  status: 'delayed' | 'cancelled' | 'diverted';
  /** Arrival delay at the gate, in minutes; required when delayed. */
  arrivalDelayMinutes?: number | undefined;
}

/**
 * POST /claims with a partner key: a partner rehearsing the claim flow reports what happened to a
 * flight, and the platform opens the claims of that partner's own active contracts on it, by the
 * same rules (and the same code) as the flight monitoring. Sandbox and preproduction only: in
 * production only the platform's monitoring and its operators report flight events.
 */
export async function reportFlightEvent(deps: FlightDeps, caller: Caller, input: FlightEventRequest): Promise<{ claimsOpened: ClaimView[] }> {
  if (caller.environment === 'production') {
    throw new DomainError('forbidden', 'In production, claims are opened by the platform from flight data; rehearse the claim flow with a sandbox or preproduction key.');
  }
  if (input.status === 'delayed' && input.arrivalDelayMinutes === undefined) {
    throw new DomainError('validation_failed', 'A delayed flight needs arrivalDelayMinutes.', { errors: [{ field: '/arrivalDelayMinutes', message: 'is required when status is delayed' }] });
  }
  if (input.status !== 'delayed' && input.arrivalDelayMinutes !== undefined) {
    throw new DomainError('validation_failed', `A ${input.status} flight has no arrival delay.`, { errors: [{ field: '/arrivalDelayMinutes', message: 'only for status delayed' }] });
  }
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
  const rows = await findClaims(deps.db, caller, opened.map((c) => c.id));
  return { claimsOpened: rows.map(claimView) };
}
