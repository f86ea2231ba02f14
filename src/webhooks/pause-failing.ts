import { audit } from '../platform/audit.ts';
import type { WebhookDeps } from './deps.ts';
import { pauseEndedReason } from './model.ts';
import { tellPartnerEndpointPaused } from './pause-notice.ts';
import * as repo from './webhooks-repo.ts';

export interface PausedEndpoint {
  id: string;
  partnerId: string;
  failed: number;
  /** Emails queued to the partner's users (pause-notice.ts). */
  emailed: number;
}

/**
 * The sweep behind `webhooks_pause_failing` (hourly): an endpoint whose attempts of the last `days`
 * days number at least `attempts` failed and none succeeded — created and last resumed before that —
 * is paused with reason `failing`, as the partner would pause it: no new deliveries, its pending ones
 * end failed with that reason in the log (one a worker is sending records its attempt first), an
 * audit row (`disabled`, actor `system:webhooks`), and an email to the partner's users who may change
 * its webhooks (pause-notice.ts), queued in the same transaction. The partner also sees it in the
 * endpoint's `pausedReason`/`pausedAt` (API) and at the top of the console's webhooks page. Resuming
 * it (enabled: true) or changing its URL starts a new window.
 *
 * Each endpoint in its own transaction, its row locked and the rule checked again under the lock:
 * two sweeps at once (or one run twice) pause it once, and an attempt that succeeded meanwhile
 * keeps it live: a worker recording an outcome holds the endpoint's row FOR SHARE (webhook-delivery.ts),
 * so this FOR UPDATE waits for it and the re-check sees it. Returns the endpoints paused, with the
 * number of emails queued.
 */
export async function pauseFailingEndpoints(
  deps: Pick<WebhookDeps, 'db' | 'now' | 'endpoints' | 'jobs' | 'keys' | 'publicUrl'>,
  rule: { days: number; attempts: number },
): Promise<PausedEndpoint[]> {
  const now = deps.now();
  const since = new Date(now.getTime() - rule.days * 24 * 3600 * 1000);
  const candidates = await repo.failingEndpoints(deps.db, { since, minFailed: rule.attempts });
  const paused: PausedEndpoint[] = [];
  for (const candidate of candidates) {
    const done = await deps.db.transaction().execute(async (trx) => {
      const row = await repo.findEndpoint(trx, {}, candidate.id, { forUpdate: true });
      if (!row?.enabled) return undefined; // paused or removed meanwhile
      const [still] = await repo.failingEndpoints(trx, { since, minFailed: rule.attempts, endpointId: row.id });
      if (!still) return undefined; // an attempt succeeded meanwhile
      await repo.updateEndpoint(trx, row.id, { enabled: false, paused_reason: 'failing', paused_at: now });
      const ended = await repo.failPendingDeliveries(trx, row.id, pauseEndedReason('failing'), now, {
        skipHeldAt: now,
      });
      await audit(trx, {
        actor: 'system:webhooks',
        partnerId: row.partner_id,
        environment: row.environment,
        entity: 'webhook_endpoint',
        entityId: row.id,
        action: 'disabled',
        data: {
          reason: 'failing',
          days: rule.days,
          failedAttempts: still.failed,
          pendingDeliveriesEnded: ended,
        },
      });
      const emailed = await tellPartnerEndpointPaused(deps, trx, {
        endpointId: row.id,
        partnerId: row.partner_id,
        environment: row.environment,
        url: row.url,
        reason: 'failing',
        pausedAt: now,
        days: rule.days,
        pendingEnded: ended,
      });
      return { id: row.id, partnerId: row.partner_id, failed: still.failed, emailed };
    });
    if (done) paused.push(done);
  }
  if (paused.length > 0) deps.endpoints?.invalidate(); // other processes learn it from the change notification
  return paused;
}
