import { audit, auditAll } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { emitClaimWebhookEvents } from '../webhooks/index.ts';
import {
  expireOverdueClaims,
  NOTIFICATION_ABANDONED,
  NOTIFICATION_REQUEUED,
  touchClaimsNeverNotified,
  type NeverNotifiedClaim,
} from './claims-repo.ts';
import { completeFinishedContracts, completeSettledContracts } from './contract-completion.ts';

/**
 * Claims whose customer gave no bank details in time (PARASOL_BANK_DETAILS_DAYS after the link, or
 * after a rejected payment) become `expired`: set-wise, a batch at a time, each batch in one
 * transaction with its webhook events, the completion of the contracts it settles and its audit rows —
 * one per claim under its number (`claim_expired`, with the due date it passed: the claim's trail on
 * the desk, as its other status changes), in one statement, and the batch's `claims_expired` naming
 * them all (the claims bordereau reads a claim's status at a period's end from it). A scheduled job
 * runs it every 15 minutes.
 *
 * With it, the sweep of the contracts a crash left uncompleted (`completeFinishedContracts`). The
 * same job (and `parasol claims expire`) then runs `requeueNeverNotified`.
 *
 * `actor`: who the audit rows name — `system` for the scheduled job (the default), the operator for
 * `parasol claims expire` (`operator:<name>`, as every other command they run).
 */
export async function expireClaims(deps: { db: Db; jobs: JobQueue; now: () => Date; actor?: string }): Promise<number> {
  const actor = deps.actor ?? 'system';
  let total = 0;
  for (;;) {
    const expired = await deps.db.transaction().execute(async (trx) => {
      const now = deps.now();
      const claims = await expireOverdueClaims(trx, now);
      if (claims.length === 0) return claims;
      await emitClaimWebhookEvents(
        trx,
        deps.jobs,
        'claim.expired',
        claims.map((c) => c.id),
        now,
      );
      await auditAll(
        trx,
        claims.map((c) => ({
          actor,
          partnerId: c.partnerId,
          environment: c.environment,
          entity: 'claim',
          entityId: c.claimNumber,
          action: 'claim_expired',
          at: now,
          data: { bankDetailsDueAt: c.bankDetailsDueAt.toISOString() },
        })),
      );
      // the customer is told, once (claims_notify of kind `expired`: not paid, whom to ask), after commit
      await deps.jobs.sendMany(
        'claims_notify',
        claims.map((c) => ({ claimId: c.id, kind: 'expired' as const })),
        { trx },
      );
      await completeSettledContracts(trx, [...new Set(claims.map((c) => c.contractId))], now, actor);
      await audit(trx, {
        actor,
        entity: 'claims',
        entityId: 'expiry',
        action: 'claims_expired',
        at: now,
        data: { claims: claims.map((c) => c.claimNumber) },
      });
      return claims;
    });
    total += expired.length;
    if (expired.length === 0) break;
  }
  await completeFinishedContracts(deps.db, deps.now(), undefined, actor);
  return total;
}

/**
 * How long a claim may stay `opened` (its link not yet sent) before its first message is queued
 * again, and how long between two of those: beyond `claims_notify`'s retry window (12 retries from 3 s
 * with back-off: 3.4 to 6.8 h, jobs/registry.ts), so the job queued before can no longer be retrying —
 * its retries are exhausted, or it was never written — and each claim has at most one of these jobs alive.
 */
export const NEVER_NOTIFIED_AFTER_MS = 8 * 60 * 60_000;
/** How many times a claim's first message is queued again before the claim is left for the desk. */
export const MAX_NOTIFICATION_REQUEUES = 3;
/** A claim opened longer ago than this is left for the desk, never texted by the sweep (an old claim on the first run). */
export const NEVER_NOTIFIED_WITHIN_MS = 3 * 86_400_000;

export interface NeverNotifiedSweep {
  /** How many claims had their first message queued again. */
  requeued: number;
  /** The claims left for the desk by this sweep (their numbers): queued again too often already, or opened too long ago. */
  abandoned: string[];
}

/**
 * A claim whose `claims_notify` job was lost — its retries exhausted (a long database outage…), or a
 * message that can never be sent (its phone sealed under a key the keyring no longer has) — stays
 * `opened`: no link, no due date, so no reminder and no expiry, and its contract never completes.
 * Each claim still `opened` NEVER_NOTIFIED_AFTER_MS after its opening, and as long again after the
 * sweep last took it, gets a new `claims_notify` job (kind `opened`) and a `claim_notification_requeued`
 * audit row, in the transaction that marks it — at most MAX_NOTIFICATION_REQUEUES times, and only when
 * opened within NEVER_NOTIFIED_WITHIN_MS. Past either bound it is left for the desk: one
 * `claim_notification_abandoned` row (with the re-queues made and why), never queued again; it stays
 * `opened` (`parasol claims list --status opened`). The job sends the message once whoever runs it
 * (the claim row locked, its status checked). Answers what was done; the caller logs it at warn.
 * `actor`: as `expireClaims` (`system` for the job, the operator for `parasol claims expire`).
 */
export async function requeueNeverNotified(deps: {
  db: Db;
  jobs: JobQueue;
  now: () => Date;
  actor?: string;
}): Promise<NeverNotifiedSweep> {
  const actor = deps.actor ?? 'system';
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.now();
    const before = new Date(now.getTime() - NEVER_NOTIFIED_AFTER_MS);
    const openedSince = now.getTime() - NEVER_NOTIFIED_WITHIN_MS;
    const claims = await touchClaimsNeverNotified(trx, { before, now, limit: 1_000 });
    const tooOld = (c: NeverNotifiedClaim) => c.openedAt.getTime() < openedSince;
    const requeue = claims.filter((c) => c.requeues < MAX_NOTIFICATION_REQUEUES && !tooOld(c));
    const abandon = claims.filter((c) => !requeue.includes(c));
    await auditAll(trx, [
      ...requeue.map((c) => ({
        actor,
        partnerId: c.partnerId,
        environment: c.environment,
        entity: 'claim',
        entityId: c.claimNumber,
        action: NOTIFICATION_REQUEUED,
        at: now,
        data: { requeue: c.requeues + 1, of: MAX_NOTIFICATION_REQUEUES },
      })),
      ...abandon.map((c) => ({
        actor,
        partnerId: c.partnerId,
        environment: c.environment,
        entity: 'claim',
        entityId: c.claimNumber,
        action: NOTIFICATION_ABANDONED,
        at: now,
        data: { requeues: c.requeues, reason: tooOld(c) ? 'opened_too_long_ago' : 'requeues_exhausted' },
      })),
    ]);
    await deps.jobs.sendMany(
      'claims_notify',
      requeue.map((c) => ({ claimId: c.id })),
      { trx },
    );
    return { requeued: requeue.length, abandoned: abandon.map((c) => c.claimNumber) };
  });
}
