import { t } from '../i18n/index.ts';
import { queueEmail } from '../notify/index.ts';
import { can, findPartner, listUsers } from '../partners/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Trx } from '../platform/db.ts';
import type { WebhookDeps } from './deps.ts';

/** What the partner is told about an endpoint Parasol paused. */
export interface PauseNotice {
  endpointId: string;
  partnerId: string;
  environment: Environment;
  url: string;
  reason: 'gone' | 'failing';
  /** The pause's time: with the endpoint, the message's dedupe key (one message per user and pause). */
  pausedAt: Date;
  /** The failing rule's window (days); unused for `gone`. */
  days: number;
  pendingEnded: number;
}

/**
 * Emails the partner's users who may change its webhooks (the `webhooks` permission: admins and
 * developers, invitation accepted) that Parasol paused one of its endpoints (410 Gone, or failing for
 * days), each in its own language (`users.language`, else English), with a link to the console's
 * webhooks page. Queued in `trx`, the pause's transaction (notify's email queue: sealed, sent after
 * commit): no pause, no email; the dedupe key (endpoint, pause time, user) keeps it to one message per
 * user and pause. Answers how many were queued (the count only is logged: no address).
 */
export async function tellPartnerEndpointPaused(
  deps: Pick<WebhookDeps, 'jobs' | 'keys' | 'publicUrl'>,
  trx: Trx,
  notice: PauseNotice,
): Promise<number> {
  const partner = await findPartner(trx, notice.partnerId);
  if (!partner) return 0;
  const recipients = (await listUsers(trx, notice.partnerId)).filter(
    (u) => u.activatedAt !== null && can(u.role, 'webhooks'),
  );
  const link = deps.publicUrl ? `${deps.publicUrl.replace(/\/+$/, '')}/console/webhooks` : null;
  let queued = 0;
  for (const user of recipients) {
    const w = t(user.language ?? 'en').webhookPausedMail;
    const wrote = await queueEmail(trx, deps, {
      kind: 'webhook_endpoint_paused',
      dedupeKey: `webhook-endpoint:${notice.endpointId}:paused:${notice.pausedAt.toISOString()}:user:${user.id}`,
      to: user.email,
      partnerId: notice.partnerId,
      subject: w.subject({ partner: partner.name, environment: notice.environment }),
      text: w.text({
        partner: partner.name,
        environment: notice.environment,
        url: notice.url,
        endpointId: notice.endpointId,
        reason: notice.reason,
        days: notice.days,
        pendingEnded: notice.pendingEnded,
        link,
      }),
    });
    if (wrote) queued++;
  }
  return queued;
}
