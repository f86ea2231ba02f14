import { emitClaimWebhookEvents, type ClaimWebhookEventType } from '../notify/webhook-events.ts';
import type { Executor } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';

export type ClaimEventType = ClaimWebhookEventType;

/**
 * Tells the partners what happened to their claims (Standard Webhooks, docs/webhooks.md), set-wise:
 * one call for any number of claims of one event type, in the transaction that made the change and
 * after it, so each event carries the claim's new state. Partners without an endpoint cost one query.
 */
export async function emitClaimEvents(trx: Executor, jobs: JobQueue, type: ClaimEventType, claimIds: readonly string[]): Promise<void> {
  if (claimIds.length === 0) return;
  await emitClaimWebhookEvents(trx, jobs, type, claimIds);
}
