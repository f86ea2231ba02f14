/** The webhooks domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export type { DeliveryJob } from './model.ts';
export {
  deliverWebhook,
  requeueStaleDeliveries,
  WEBHOOK_DELIVERY_STATUSES,
  type WebhookDeliveryStatus,
} from './webhook-delivery.ts';
export {
  WEBHOOK_EVENT_TYPES,
  emitClaimWebhookEvents,
  emitCustomerUnreachable,
  emitWebhookEvent,
  type ClaimWebhookEventType,
} from './webhook-events.ts';
export {
  addEndpoint,
  endpointsHealth,
  FAILING_SINCE_LOOKBACK_DAYS,
  getEndpoint,
  redeliver,
  listDeliveries,
  listEndpoints,
  removeEndpoint,
  rotateSecret,
  sendTestEvent,
  setEndpointEnabled,
  updateEndpointSettings,
  type DeliveryView,
  type EndpointHealth,
  type OperatorOnce,
  type WebhookDeps,
  type WebhookEndpointView,
} from './webhooks.ts';
export { WebhookEndpointCache } from './endpoint-cache.ts';
export { pauseFailingEndpoints } from './pause-failing.ts';
export type { Resolver } from './webhook-url.ts';
export { webhookApiRoutes } from './routes.ts';
export { webhookDocumentation } from './event-schemas.ts';
