import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { refitFromOutcomes } from './model-versions.ts';

/**
 * The scheduled refit (docs/pricing.md, "Model versions"): every Monday at 03:17 UTC a new version
 * is fitted when the platform decided new production flights since the last one. It is never
 * activated by the job: the operator compares it (`parasol risk export` + `risk evaluate`) and
 * activates it.
 */
export const RISK_REFIT_QUEUE = 'risk_refit';

export async function registerRiskRefit(jobs: JobQueue): Promise<void> {
  // A fit reads every decided flight and rebuilds the statistics: minutes at most, never urgent.
  await jobs.queue(RISK_REFIT_QUEUE, { retryLimit: 2, retryDelay: 600, expireInSeconds: 1800 });
  await jobs.schedule(RISK_REFIT_QUEUE, '17 3 * * 1');
}

export async function workRiskRefit(jobs: JobQueue, deps: { db: Db; now: () => Date; log: { info: (o: object, m: string) => void } }): Promise<void> {
  // scheduled, or asked for in the operator console (who asked is the version's author)
  await jobs.work<{ requestedBy?: string }>(RISK_REFIT_QUEUE, async (job) => {
    const outcome = await refitFromOutcomes(deps.db, job.data.requestedBy ?? 'system', deps.now());
    deps.log.info({ outcome }, 'risk model refit');
  });
}
