import { audit, auditAll } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { emitClaimWebhookEvents } from '../webhooks/index.ts';
import { expireOverdueClaims } from './claims-repo.ts';
import { completeFinishedContracts, completeSettledContracts } from './contract-completion.ts';

/**
 * Claims whose customer gave no bank details in time (PARASOL_BANK_DETAILS_DAYS after the link, or
 * after a rejected payment) become `expired`: set-wise, a batch at a time, each batch in one
 * transaction with its webhook events, the completion of the contracts it settles and its audit rows —
 * one per claim under its number (`claim_expired`, with the due date it passed: the claim's trail on
 * the desk, as its other status changes), in one statement, and the batch's `claims_expired` naming
 * them all (the claims bordereau reads a claim's status at a period's end from it). A scheduled job
 * runs it every 15 minutes.
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
  return total;
}
