import type { Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import * as repo from './claims-repo.ts';

/**
 * A contract ends `completed` when every insured leg is over: settled (its claim `paid` or
 * `expired`) or flown without a claim (departed, its flight watch decided, and nothing to pay). Set-wise: one
 * statement for any number of contracts. `at`: the caller's clock, their `completed` audit rows' time;
 * `actor`: who those rows name (`system`, or the operator whose command settled them: `parasol claims expire`).
 * Returns the ids completed by this call.
 */
export async function completeSettledContracts(
  db: Executor,
  contractIds: readonly string[],
  at: Date,
  actor = 'system',
): Promise<string[]> {
  if (contractIds.length === 0) return [];
  return repo.completeContractsOver(db, contractIds, at, actor);
}

/** After a flight is decided: the active contracts with a leg on it that are now over. */
export async function completeContractsOnFlight(
  db: Executor,
  flight: { environment: Environment; flightNumber: string; departureDate: string },
  at: Date,
): Promise<string[]> {
  return completeSettledContracts(db, await repo.activeContractIdsOnFlight(db, flight), at);
}

/**
 * An operator's correction opened claims on legs of contracts already completed (flown, nothing to
 * pay, as the monitoring had it): those contracts are active again until the new claims settle.
 * Returns the contract numbers reopened.
 */
export async function reopenContractsOfCorrectedClaims(
  db: Executor,
  claims: readonly { contractId: string }[],
  actor: string,
  flight: { flightNumber: string; departureDate: string; status: string; delayMinutes: number | null },
  at: Date,
): Promise<string[]> {
  return repo.reopenCompletedContracts(
    db,
    claims.map((c) => c.contractId),
    actor,
    { reason: 'flight_corrected', ...flight },
    at,
  );
}

/**
 * The periodic sweep (with the claims expiry job): active contracts whose last departure is more
 * than a day past, completed when over — whatever a crash between a decision and its completion
 * left behind. Set-wise, a batch at a time. `actor`: as `completeSettledContracts`.
 */
export async function completeFinishedContracts(
  db: Executor,
  now: Date,
  limit = 5_000,
  actor = 'system',
): Promise<string[]> {
  return completeSettledContracts(
    db,
    await repo.finishedContractIdsOver(db, new Date(now.getTime() - 86_400_000), limit),
    now,
    actor,
  );
}
