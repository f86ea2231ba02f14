import { audit } from '../platform/audit.ts';
import type { WebhookDeps } from './deps.ts';
import { pauseEndedReason } from './model.ts';
import * as repo from './webhooks-repo.ts';

/**
 * The sweep behind `webhooks_pause_failing` (hourly): an endpoint whose attempts of the last `days`
 * days number at least `attempts` failed and none succeeded — created and last resumed before that —
 * is paused with reason `failing`, as the partner would pause it: no new deliveries, its pending ones
 * end failed with that reason in the log (one a worker is sending records its attempt first), an
 * audit row (`disabled`, actor `system:webhooks`). The partner learns it from the endpoint's
 * `pausedReason`/`pausedAt` (API) and the console's webhooks page, which says it at the top; the
 * partner model has no contact address to email. Resuming it (enabled: true) starts a new window.
 *
 * Each endpoint in its own transaction, its row locked and the rule checked again under the lock:
 * two sweeps at once (or one run twice) pause it once, and an attempt that succeeded meanwhile
 * keeps it live. Returns the endpoints paused.
 */
export async function pauseFailingEndpoints(
  deps: Pick<WebhookDeps, 'db' | 'now' | 'endpoints'>,
  rule: { days: number; attempts: number },
): Promise<{ id: string; partnerId: string; failed: number }[]> {
  const now = deps.now();
  const since = new Date(now.getTime() - rule.days * 24 * 3600 * 1000);
  const candidates = await repo.failingEndpoints(deps.db, { since, minFailed: rule.attempts });
  const paused: { id: string; partnerId: string; failed: number }[] = [];
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
      return { id: row.id, partnerId: row.partner_id, failed: still.failed };
    });
    if (done) paused.push(done);
  }
  if (paused.length > 0) deps.endpoints?.invalidate(); // other processes learn it from the change notification
  return paused;
}
