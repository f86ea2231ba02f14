/**
 * What the webhook files share (use cases, events, delivery), in one file that imports none of
 * them: webhooks.ts, webhook-events.ts and webhook-delivery.ts depend on it, not on each other in a
 * cycle.
 */

export interface DeliveryJob {
  deliveryId: string;
  /** The attempt this job makes (1 = first). A job for an attempt already made does nothing. */
  attempt: number;
}

/** Previous secret keeps signing this long after a rotation (see rotateSecret). */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;
/**
 * A rotate form sent again (its page's one-time token used already) shows the secret its first answer
 * showed for this long after that rotation — a double click, a slow network's resend —, not later (a
 * page kept open or saved, the back button days after): then no secret, rotate again.
 */
export const ROTATION_SHOWN_AGAIN_MS = 10 * 60_000;

/** A delivery: retried while `pending`, then `succeeded` or `failed` (attempts exhausted, or its endpoint removed). */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** Why a delivery ended without its attempts when its endpoint was paused (its `last_error`), per pause reason. */
export function pauseEndedReason(reason: 'manual' | 'gone' | 'failing'): string {
  return {
    manual: 'endpoint disabled',
    gone: 'endpoint disabled: the receiver answered 410 Gone',
    failing: 'endpoint paused: no successful attempt for days (failing)',
  }[reason];
}
