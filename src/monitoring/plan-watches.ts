import type { Executor } from '../platform/db.ts';
import { MONITORING_SCHEDULE } from './schedule.ts';
import { closeWatchesWithoutContracts, insertMissingWatches } from './watches-repo.ts';

const HOUR = 3_600_000;

export interface PlanResult {
  created: number;
  reopened: number;
  closed: number;
}

/**
 * The planner (job `flights_plan`, every 5 minutes; callable directly): one watch per flight for
 * the active contract legs departing within the next 48 h — and those that departed up to 7 days
 * ago without one (a planner that was down) — set-wise, in two statements; watches whose contracts
 * were all cancelled are closed. Subscription knows nothing of it: a contract subscribed later on a
 * watched flight simply shares the watch.
 */
export async function planWatches(deps: { db: Executor; now: () => Date }, actor = 'system'): Promise<PlanResult> {
  const now = deps.now().getTime();
  const { created, reopened } = await insertMissingWatches(deps.db, {
    from: new Date(now - MONITORING_SCHEDULE.planningLookbackDays * 24 * HOUR),
    to: new Date(now + MONITORING_SCHEDULE.planningHorizonHours * HOUR),
  });
  const closed = await closeWatchesWithoutContracts(deps.db, actor);
  return { created, reopened, closed };
}
