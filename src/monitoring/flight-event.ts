import type { FlightEvent } from '../claims/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Decision, FlightStatus } from './flight-status.ts';

/**
 * The bridge from monitoring to claims: a decided status becomes the `FlightEvent` that
 * `openClaimsForFlightEvent` takes (the same use case as `POST /claims`), with the status record as
 * evidence. `on_time` and `pending` open nothing: undefined.
 */
export function flightEventFor(
  environment: Environment,
  status: FlightStatus,
  decision: Decision,
): FlightEvent | undefined {
  const base = {
    environment,
    flightNumber: status.flightNumber,
    departureDate: status.departureDate,
    source: `monitoring:${status.provider}`,
    evidence: evidence(status),
  };
  switch (decision.kind) {
    case 'delayed':
      return { ...base, status: 'delayed', arrivalDelayMinutes: decision.arrivalDelayMinutes };
    case 'cancelled':
      return { ...base, status: 'cancelled' };
    case 'diverted':
      return { ...base, status: 'diverted' };
    case 'on_time':
    case 'pending':
      return undefined;
  }
}

/** The status record as JSON-safe evidence (instants as ISO strings, the provider payload as is). */
export function evidence(status: FlightStatus): Record<string, unknown> {
  const iso = (d: Date | undefined) => d?.toISOString();
  return {
    provider: status.provider,
    providerFlightId: status.providerFlightId,
    providerStatus: status.providerStatus,
    origin: status.origin,
    destination: status.destination,
    scheduledDeparture: iso(status.scheduledDeparture),
    actualDeparture: iso(status.actualDeparture),
    scheduledArrival: iso(status.scheduledArrival),
    estimatedArrival: iso(status.estimatedArrival),
    actualArrival: iso(status.actualArrival),
    runwayArrival: iso(status.runwayArrival),
    cancelled: status.cancelled,
    diverted: status.diverted,
    divertedTo: status.divertedTo,
    final: status.final,
    observedAt: iso(status.observedAt),
    raw: status.raw,
  };
}
