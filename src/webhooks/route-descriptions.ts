/** The long OpenAPI descriptions of the webhook operations (routes.ts), kept out of the route options. */

export const CREATE_ENDPOINT_DESCRIPTION =
  'Registers an HTTPS endpoint on the public Internet for the given event types (all when absent). ' +
  'The answer carries its signing secret, once. ' +
  'At most 10 endpoints per environment (409 webhook_endpoint_limit); ' +
  'a URL that is not HTTPS or resolves to a private address answers 422 webhook_url_not_allowed. ' +
  'Honours Idempotency-Key: a retry with the same key and body within 48 hours answers the same 201, byte for byte ' +
  '(the same endpoint and the same secret, kept sealed with the response; `Idempotent-Replayed: true`) and registers nothing more; ' +
  'the same key with another body answers 422 idempotency_key_reused.';

export const UPDATE_ENDPOINT_DESCRIPTION =
  'Changes the URL (checked like a new one), the event types, the description or the enabled state; ' +
  'members absent stay as they are. Disabling pauses it (`pausedReason` manual) and ends its pending deliveries (failed; ' +
  'one being sent at that moment records what the receiver answered first); enabling resumes it and clears `pausedReason`. ' +
  'Deliveries still pending go to the new URL at their next attempt, and keep their events even when the new event types leave them out.';

export const REDELIVER_DESCRIPTION =
  'Puts an ended delivery (succeeded or failed) ' +
  'back to pending and queues its next attempt now, with the same `webhook-id`, so a receiver that already processed it can drop it. ' +
  'On failure it continues the retry schedule where it stopped. ' +
  '409 webhook_delivery_pending while it is still being attempted; ' +
  '409 webhook_endpoint_disabled when its endpoint is paused.';
