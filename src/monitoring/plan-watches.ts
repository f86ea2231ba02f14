import { openClaimsInTransaction } from '../claims/index.ts';
import type { Db, Executor } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { MONITORING_SCHEDULE } from './schedule.ts';
import {
  closeWatchesWithoutContracts,
  earlyDecisionsOwingClaims,
  insertMissingWatches,
  lockWatch,
} from './watches-repo.ts';

const HOUR = 3_600_000;

export interface PlanResult {
  created: number;
  reopened: number;
  closed: number;
  /** Claims opened on legs sold after their flight was decided before departure (needs `jobs`). */
  claimsOpened: number;
}

/**
 * The planner (job `flights_plan`, every 5 minutes; callable directly): one watch per flight for
 * the active contract legs departing within the next 48 h — and those that departed up to 7 days
 * ago without one (a planner that was down) — set-wise, in two statements; watches whose contracts
 * were all cancelled are closed. Subscription knows nothing of it: a contract subscribed later on a
 * watched flight simply shares the watch.
 *
 * A flight decided before its departure (an operator's or a simulated event: a cancellation known
 * ahead) is not checked again, yet legs may still be sold on it, or moved onto it by a flight change,
 * until shortly before departure. With `jobs`, the planner gives those legs the flight's decision:
 * the claims it pays, opened as the decision opened the others' (one claim per leg, evidence the
 * record decided on; an operator's event in that operator's name, evidence `reportedBy` as its
 * report's claims), so every leg of a flight gets the same decision whenever it was sold.
 */
export async function planWatches(
  deps: { db: Executor; now: () => Date; jobs?: undefined } | { db: Db; now: () => Date; jobs: JobQueue },
  actor = 'system',
): Promise<PlanResult> {
  const now = deps.now().getTime();
  const since = new Date(now - MONITORING_SCHEDULE.planningLookbackDays * 24 * HOUR);
  const { created, reopened } = await insertMissingWatches(deps.db, {
    from: since,
    to: new Date(now + MONITORING_SCHEDULE.planningHorizonHours * HOUR),
  });
  const closed = await closeWatchesWithoutContracts(deps.db, actor);
  const claimsOpened = deps.jobs ? await openClaimsOwedByEarlyDecisions(deps.db, deps.jobs, since, actor, deps.now) : 0;
  return { created, reopened, closed, claimsOpened };
}

async function openClaimsOwedByEarlyDecisions(
  db: Db,
  jobs: JobQueue,
  since: Date,
  actor: string,
  now: () => Date,
): Promise<number> {
  let opened = 0;
  for (const flight of await earlyDecisionsOwingClaims(db, since, 500)) {
    opened += await db.transaction().execute(async (trx) => {
      // still decided (an operator's event meanwhile is waited for); claims stay one per leg anyway
      if (!(await lockWatch(trx, flight.id, ['decided']))) return 0;
      const fromMonitoring = flight.decision.source?.startsWith('monitoring:') ?? false;
      // an operator's event: its claims are that operator's, as the claims it opened when stated
      const reportedBy = typeof flight.decision.reportedBy === 'string' ? flight.decision.reportedBy : undefined;
      const claims = await openClaimsInTransaction(
        trx,
        jobs,
        {
          environment: flight.environment,
          flightNumber: flight.flightNumber,
          departureDate: flight.departureDate,
          status: flight.decision.kind,
          arrivalDelayMinutes: flight.decision.kind === 'delayed' ? flight.decision.arrivalDelayMinutes : undefined,
          source: flight.decision.source ?? 'monitoring',
          evidence:
            fromMonitoring && flight.lastStatus ? flight.lastStatus : reportedBy !== undefined ? { reportedBy } : {},
        },
        reportedBy ?? actor,
        now(),
      );
      return claims.length;
    });
  }
  return opened;
}
