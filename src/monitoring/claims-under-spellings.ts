import { openClaimsInTransaction, type FlightEvent, type OpenedClaim } from '../claims/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { normaliseFlightNumber } from '../reference/index.ts';
import { legSpellings } from './watches-repo.ts';

/**
 * The designators a reported flight is insured under (AF006 ≡ AF6, docs/monitoring.md#designators):
 * every spelling its legs of that date use, or the designator as given (normalised) when none has it.
 */
export async function flightSpellings(
  trx: Executor,
  environment: Environment,
  flightNumber: string,
  departureDate: string,
): Promise<string[]> {
  const spellings = await legSpellings(trx, environment, flightNumber, departureDate);
  return spellings.length ? spellings : [normaliseFlightNumber(flightNumber)];
}

/**
 * A flight event's claims under each of those spellings, in the caller's transaction: the claims
 * opened, by spelling (the operators' events count them per watch).
 */
export async function openClaimsUnderSpellings(
  trx: Executor,
  jobs: JobQueue,
  flightNumbers: readonly string[],
  event: Omit<FlightEvent, 'flightNumber'>,
  actor: string,
  /** The caller's clock: the claims' opening time (openClaimsInTransaction). */
  at: Date,
): Promise<Map<string, OpenedClaim[]>> {
  const opened = new Map<string, OpenedClaim[]>();
  for (const flightNumber of flightNumbers)
    opened.set(flightNumber, await openClaimsInTransaction(trx, jobs, { ...event, flightNumber }, actor, at));
  return opened;
}
