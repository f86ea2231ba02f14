import { emitWebhookEvents, type AnyWebhookEventInput } from '../../src/webhooks/webhook-events.ts';
import type { TestApp } from '../helper.ts';

/** Emits the events in one transaction, as a use case does (their deliveries and jobs with them). */
export async function emitEvents(t: TestApp, events: AnyWebhookEventInput[]) {
  return t.db
    .transaction()
    .execute((trx) => emitWebhookEvents(trx, t.app.parasol.jobs, t.app.parasol.keys.encryption, events));
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
