import { audit } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { emitClaimWebhookEvents } from '../webhooks/index.ts';
import { expireOverdueClaims } from './claims-repo.ts';
import { completeFinishedContracts, completeSettledContracts } from './contract-completion.ts';

/**
 * Claims whose customer gave no bank details in time (PARASOL_BANK_DETAILS_DAYS after the link, or
 * after a rejected payment) become `expired`: set-wise, a batch at a time, each batch in one
 * transaction with its webhook events and the completion of the contracts it settles. A scheduled
 * job runs it every 15 minutes.
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
