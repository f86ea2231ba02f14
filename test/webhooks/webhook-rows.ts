import { sql } from 'kysely';
import { emitWebhookEvents, type AnyWebhookEventInput } from '../../src/webhooks/webhook-events.ts';
import type { TestApp, TestPartner } from '../helper.ts';

/** Emits the events in one transaction, as a use case does (their deliveries and jobs with them). */
export async function emitEvents(t: TestApp, events: AnyWebhookEventInput[]) {
  return t.db
    .transaction()
    .execute((trx) => emitWebhookEvents(trx, t.app.parasol.jobs, t.app.parasol.keys.encryption, events));
}

let contractSeq = 0;

/**
 * Emits `count` sandbox contract.cancelled events of the partner, in one transaction: one delivery per
 * live endpoint of its sandbox wanting them. Each its own contract number (`FD-<prefix>-nnnn`).
 */
export async function emitCancellations(t: TestApp, partner: TestPartner, count = 1, prefix = 'EMIT') {
  const events: AnyWebhookEventInput[] = Array.from({ length: count }, () => ({
    partnerId: partner.id,
    environment: 'sandbox',
    type: 'contract.cancelled',
    occurredAt: new Date(),
    data: {
      contractNumber: `FD-${prefix}-${String(++contractSeq).padStart(4, '0')}`,
      status: 'cancelled',
      reason: 'customer_request',
      cancelledAt: new Date().toISOString(),
      refund: { amount: 100, currency: 'EUR' },
    },
  }));
  return emitEvents(t, events);
}

/** An endpoint's deliveries, oldest first. */
export async function deliveriesOf(t: TestApp, endpointId: string) {
  return t.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A delivery's attempts, in order. */
export async function attemptsOf(t: TestApp, deliveryId: string) {
  return t.db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute();
}

/** The attempt numbers of a delivery's queued pg-boss jobs (`webhooks_deliver`), in order. */
export async function queuedAttempts(t: TestApp, deliveryId: string): Promise<number[]> {
  const rows = await sql<{ attempt: number }>`
    SELECT (data->>'attempt')::int AS attempt FROM pgboss.job
    WHERE name = 'webhooks_deliver' AND data->>'deliveryId' = ${deliveryId} ORDER BY 1`.execute(t.db);
  return rows.rows.map((r) => Number(r.attempt));
}
