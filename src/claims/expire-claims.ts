import { audit, auditAll } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { emitClaimWebhookEvents } from '../webhooks/index.ts';
import { expireOverdueClaims, touchClaimsNeverNotified } from './claims-repo.ts';
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
 * With it, two sweeps: the contracts a crash left uncompleted (`completeFinishedContracts`), and the
 * claims whose first message was never written (`requeueNeverNotified`).
 */
export async function expireClaims(deps: { db: Db; jobs: JobQueue; now: () => Date }): Promise<number> {
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
          actor: 'system',
          partnerId: c.partnerId,
          environment: c.environment,
          entity: 'claim',
          entityId: c.claimNumber,
          action: 'claim_expired',
          at: now,
          data: { bankDetailsDueAt: c.bankDetailsDueAt.toISOString() },
        })),
      );
      await completeSettledContracts(trx, [...new Set(claims.map((c) => c.contractId))], now);
      await audit(trx, {
        actor: 'system',
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
  await completeFinishedContracts(deps.db, deps.now());
  await requeueNeverNotified(deps);
  return total;
}

/** How long a claim may stay `opened` (its link not yet sent) before its notification is queued again. */
export const NEVER_NOTIFIED_AFTER_MS = 60 * 60_000;

/**
 * A claim whose `claims_notify` job was lost — its retries exhausted (a long database outage…) — stays
 * `opened`: no link, no due date, so no reminder and no expiry, and its contract never completes. The
 * claims still `opened` an hour after their opening get a new `claims_notify` job (kind `opened`), at
 * most one an hour each, in the transaction that marks them. Safe beside a job still retrying: the
 * first to lock the claim sends the message, the other finds it `awaiting_bank_details` and does
 * nothing (and the message's idempotency key is unique). Answers how many were queued.
 */
export async function requeueNeverNotified(deps: { db: Db; jobs: JobQueue; now: () => Date }): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.now();
    const before = new Date(now.getTime() - NEVER_NOTIFIED_AFTER_MS);
    const ids = await touchClaimsNeverNotified(trx, { openedBefore: before, touchedBefore: before, now, limit: 1_000 });
    await deps.jobs.sendMany(
      'claims_notify',
      ids.map((claimId) => ({ claimId })),
      { trx },
    );
    return ids.length;
  });
}
