import crypto from 'node:crypto';
import { actionTokenError } from '../platform/action-token.ts';
import { audit } from '../platform/audit.ts';
import { decrypt, encrypt } from '../platform/crypto.ts';
import { decodeCursor, encodeCursor, listBinding } from '../platform/cursor.ts';
import type { Environment, WebhookDeliveryStatus, WebhookPausedReason } from '../platform/db-schema.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { maskTyped } from '../platform/personal-text.ts';
import { requireActingUser } from '../partners/index.ts';
import { pauseEndedReason, PREVIOUS_SECRET_GRACE_MS, ROTATION_SHOWN_AGAIN_MS } from './model.ts';
import type { WebhookDeps } from './deps.ts';
import {
  eventRow,
  isWebhookEventType,
  TEST_EVENT_TYPE,
  WEBHOOK_EVENT_TYPES,
  type TestEventData,
  type WebhookEventType,
} from './webhook-events.ts';
import { checkWebhookUrl } from './webhook-url.ts';
import * as repo from './webhooks-repo.ts';

/**
 * Managing webhook endpoints and reading the delivery log: the use cases behind the operator CLI
 * and the partner console. Each takes the dependencies and a scope first. The
 * partner console passes both `partnerId` and `environment` (its session's); the operator CLI
 * passes only what it restricts. An endpoint outside the scope answers exactly like a missing one
 * (404 webhook_endpoint_not_found). Every change writes its audit row in the same transaction, and
 * once committed drops this process's cache of live endpoints (`deps.endpoints`; other processes
 * learn it from the change notification). None of them emits an event: see endpoint-cache.ts.
 */

export type { WebhookDeps } from './deps.ts';

export interface WebhookScope {
  /** Recorded in the audit log: `operator:<name>`, `user:<id>`, … */
  actor: string;
  partnerId?: string | undefined;
  environment?: Environment | undefined;
  /**
   * The partner user writing from the console (with `partnerId`): its right (`webhooks`) is checked
   * again in the transaction that writes, first (partners' `requireActingUser`); absent for operators
   * and the partner API's keys.
   */
  userId?: string | undefined;
}

/** A console user's right read again, under the lock of its partner's users, before anything else is locked. */
async function recheckUser(trx: Trx, scope: WebhookScope): Promise<void> {
  if (scope.userId === undefined) return;
  if (scope.partnerId === undefined) throw new DomainError('forbidden', 'A user acts on its own partner only.');
  await requireActingUser(trx, { userId: scope.userId, partnerId: scope.partnerId }, 'webhooks');
}

export interface WebhookEndpointView {
  id: string;
  partnerId: string;
  environment: Environment;
  url: string;
  description: string | null;
  /** The event types sent to this endpoint; null = every type (including types added later). */
  eventTypes: WebhookEventType[] | null;
  enabled: boolean;
  /**
   * Why it is paused, null while enabled: `manual` (the partner or an operator), `gone` (the receiver
   * answered 410 Gone), `failing` (no successful attempt for days: pause-failing.ts).
   */
  pausedReason: WebhookPausedReason | null;
  pausedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface EndpointWithSecret {
  endpoint: WebhookEndpointView;
  /** `whsec_…`: shown once, stored only encrypted. */
  secret: string;
}

/** Live endpoints per partner and environment. */
export const MAX_ENDPOINTS = 10;

/** `whsec_` + base64 of 24 random bytes (192 bits), the Standard Webhooks secret format. */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString('base64')}`;
}

function view(row: repo.EndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    partnerId: row.partner_id,
    environment: row.environment,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types as WebhookEventType[] | null,
    enabled: row.enabled,
    // paused by a version before migration 0067's backfill ran: said manual, at its last change
    pausedReason: row.enabled ? null : (row.paused_reason ?? 'manual'),
    pausedAt: row.enabled ? null : (row.paused_at ?? row.updated_at).toISOString(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function notFound(id: string): DomainError {
  return new DomainError('webhook_endpoint_not_found', `No webhook endpoint ${id}.`);
}

/** Checks a list of event types; empty or absent = all (null). */
export function parseEventTypes(types: readonly string[] | null | undefined): WebhookEventType[] | null {
  if (types === undefined || types === null) return null;
  const errors: FieldError[] = [];
  const seen = new Set<WebhookEventType>();
  types.forEach((type, i) => {
    const t = type.trim();
    if (isWebhookEventType(t)) seen.add(t);
    else
      errors.push({
        field: `/eventTypes/${i}`,
        code: 'not_allowed',
        message: `unknown event type "${t}"; one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      });
  });
  if (errors.length) throw new DomainError('validation_failed', 'The event types are not valid.', { errors });
  if (seen.size === 0) {
    throw new DomainError('validation_failed', 'Give at least one event type, or none at all for every type.', {
      errors: [{ field: '/eventTypes', code: 'too_few', message: 'must not be empty' }],
    });
  }
  // kept in the documented order, whatever the order given
  return WEBHOOK_EVENT_TYPES.filter((t) => seen.has(t));
}

export interface AddEndpointInput {
  url: string;
  /** Absent = every event type. */
  eventTypes?: readonly string[] | null | undefined;
  description?: string | undefined;
}

/**
 * An endpoint's description as it is kept: trimmed (empty: none), at most 200 characters as typed
 * (checked before masking, as the API's schema does: `maskTyped`), with the IBANs, email addresses and
 * phone numbers it may quote masked like any free text kept (maskPersonalDataIn; docs/DECISIONS.md,
 * "Free text is kept with its personal data masked").
 */
function endpointDescription(text: string | null | undefined): string | null {
  const { masked, error } = maskTyped(text?.trim() ?? '', { field: '/description', typed: 200 });
  if (error) throw new DomainError('validation_failed', 'The description is too long.', { errors: [error] });
  return masked || null;
}

/**
 * Registers an endpoint; answers its secret, once. In its own transaction, or in `trx` when given
 * (the API's Idempotency-Key: the caller then drops `deps.endpoints` once it has committed).
 */
export async function addEndpoint(
  deps: WebhookDeps,
  scope: WebhookScope & { partnerId: string; environment: Environment },
  input: AddEndpointInput,
  trx?: Trx,
): Promise<EndpointWithSecret> {
  const eventTypes = parseEventTypes(input.eventTypes);
  const description = endpointDescription(input.description);
  const url = await checkWebhookUrl(input.url, { allowPrivate: deps.allowPrivate, resolve: deps.resolve });
  const secret = newWebhookSecret();
  const insert = async (trx: Trx) => {
    await recheckUser(trx, scope);
    // the partner row lock serialises concurrent additions, so the limit holds
    await repo.lockPartnerEndpoints(trx, scope.partnerId);
    if ((await repo.countLiveEndpoints(trx, scope.partnerId, scope.environment)) >= MAX_ENDPOINTS) {
      throw new DomainError(
        'webhook_endpoint_limit',
        `At most ${MAX_ENDPOINTS} webhook endpoints per environment; remove one first.`,
      );
    }
    const created = await repo.insertEndpoint(trx, {
      partner_id: scope.partnerId,
      environment: scope.environment,
      url: url.toString(),
      description,
      secret_enc: encrypt(deps.keys.encryption, secret),
      event_types: eventTypes,
    });
    await audit(trx, {
      actor: scope.actor,
      partnerId: scope.partnerId,
      environment: scope.environment,
      entity: 'webhook_endpoint',
      entityId: created.id,
      action: 'created',
      data: { url: created.url, eventTypes },
    });
    return created;
  };
  if (trx) return { endpoint: view(await insert(trx)), secret };
  const row = await deps.db.transaction().execute(insert);
  deps.endpoints?.invalidate();
  return { endpoint: view(row), secret };
}

export async function listEndpoints(
  deps: Pick<WebhookDeps, 'db'>,
  scope: WebhookScope & { partnerId: string },
): Promise<WebhookEndpointView[]> {
  return (await repo.listEndpoints(deps.db, scope.partnerId, scope.environment)).map(view);
}

export async function getEndpoint(
  deps: Pick<WebhookDeps, 'db'>,
  scope: WebhookScope,
  endpointId: string,
): Promise<WebhookEndpointView> {
  const row = UUID.test(endpointId) ? await repo.findEndpoint(deps.db, scope, endpointId) : undefined;
  if (!row) throw notFound(endpointId);
  return view(row);
}

/** Changes an endpoint in a transaction with its row locked; not found outside the scope. */
async function changeEndpoint<T>(
  deps: WebhookDeps,
  scope: WebhookScope,
  endpointId: string,
  change: (trx: Trx, row: repo.EndpointRow) => Promise<T>,
): Promise<T> {
  if (!UUID.test(endpointId)) throw notFound(endpointId);
  const changed = await deps.db.transaction().execute(async (trx) => {
    await recheckUser(trx, scope);
    const row = await repo.findEndpoint(trx, scope, endpointId, { forUpdate: true });
    if (!row) throw notFound(endpointId);
    return change(trx, row);
  });
  deps.endpoints?.invalidate(); // committed: this process's emissions see it at once
  return changed;
}

/**
 * Removes an endpoint: nothing more is sent to it, its pending deliveries end failed (`endpoint
 * removed`); one a worker is sending at that moment records its attempt, then ends with that reason
 * (webhook-delivery.ts), as on a pause. Answers the endpoint as it was before the removal.
 */
export async function removeEndpoint(
  deps: WebhookDeps,
  scope: WebhookScope,
  endpointId: string,
): Promise<WebhookEndpointView> {
  return changeEndpoint(deps, scope, endpointId, async (trx, row) => {
    const now = deps.now();
    await repo.updateEndpoint(trx, row.id, { removed_at: now, enabled: false });
    const ended = await repo.failPendingDeliveries(trx, row.id, 'endpoint removed', now, { skipHeldAt: now });
    await audit(trx, {
      actor: scope.actor,
      partnerId: row.partner_id,
      environment: row.environment,
      entity: 'webhook_endpoint',
      entityId: row.id,
      action: 'removed',
      data: { url: row.url, pendingDeliveriesEnded: ended },
    });
    return view(row); // as it was (OpenAPI): a removed endpoint is not paused, it has no pausedReason
  });
}

/**
 * Pauses (reason `manual`) or resumes an endpoint. A paused endpoint gets no new deliveries and its
 * pending ones end failed (they would otherwise arrive hours late, out of order); one a worker is
 * sending at that moment records its attempt, then ends (webhook-delivery.ts), so the log shows what
 * the receiver answered. Resuming clears the reason.
 */
export async function setEndpointEnabled(
  deps: WebhookDeps,
  scope: WebhookScope,
  endpointId: string,
  enabled: boolean,
): Promise<WebhookEndpointView> {
  return changeEndpoint(deps, scope, endpointId, async (trx, row) => {
    if (row.enabled === enabled) return view(row);
    const now = deps.now();
    const updated = await repo.updateEndpoint(
      trx,
      row.id,
      enabled
        ? { enabled, paused_reason: null, paused_at: null, resumed_at: now }
        : { enabled, paused_reason: 'manual', paused_at: now },
    );
    const ended = enabled
      ? 0
      : await repo.failPendingDeliveries(trx, row.id, pauseEndedReason('manual'), now, { skipHeldAt: now });
    await audit(trx, {
      actor: scope.actor,
      partnerId: row.partner_id,
      environment: row.environment,
      entity: 'webhook_endpoint',
      entityId: row.id,
      action: enabled ? 'enabled' : 'disabled',
      data: enabled ? { previousReason: row.paused_reason } : { reason: 'manual', pendingDeliveriesEnded: ended },
    });
    return view(updated);
  });
}

export interface UpdateEndpointInput {
  url?: string | undefined;
  /** null = every event type. */
  eventTypes?: readonly string[] | null | undefined;
  /** null or empty = none. */
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

/**
 * Changes an endpoint's URL (checked like a new one), event types, description and/or enabled
 * state; members absent stay as they are. Disabling ends its pending deliveries (setEndpointEnabled).
 */
export async function updateEndpointSettings(
  deps: WebhookDeps,
  scope: WebhookScope,
  endpointId: string,
  input: UpdateEndpointInput,
): Promise<WebhookEndpointView> {
  const eventTypes = input.eventTypes === undefined ? undefined : parseEventTypes(input.eventTypes);
  const description = input.description === undefined ? undefined : endpointDescription(input.description);
  const url =
    input.url === undefined
      ? undefined
      : (await checkWebhookUrl(input.url, { allowPrivate: deps.allowPrivate, resolve: deps.resolve })).toString();
  const changed = await changeEndpoint(deps, scope, endpointId, async (trx, row) => {
    const values = {
      ...(url !== undefined ? { url } : {}),
      // a new URL is a new receiver: the failing sweep counts its attempts from now (pause-failing.ts)
      ...(url !== undefined && url !== row.url ? { resumed_at: deps.now() } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(eventTypes !== undefined ? { event_types: eventTypes } : {}),
    };
    if (Object.keys(values).length === 0) return view(row);
    const updated = await repo.updateEndpoint(trx, row.id, values);
    await audit(trx, {
      actor: scope.actor,
      partnerId: row.partner_id,
      environment: row.environment,
      entity: 'webhook_endpoint',
      entityId: row.id,
      action: 'updated',
      data: { url: updated.url, eventTypes: updated.event_types, descriptionChanged: description !== undefined },
    });
    return view(updated);
  });
  return input.enabled === undefined ? changed : setEndpointEnabled(deps, scope, endpointId, input.enabled);
}

/** A rotation done: the new secret (shown once) and until when the previous one keeps signing. */
export type Rotated = EndpointWithSecret & { previousSecretValidUntil: string };

/**
 * A new secret, answered once. For 24 hours the previous secret keeps signing too (the
 * `webhook-signature` header then carries two signatures), so the receiver can switch without
 * losing a message; a second rotation within that window drops the oldest. With a one-time token
 * (OperatorOnce: the partner console's page) used already on this endpoint, nothing is rotated again
 * (`replayed: true`): while that rotation is still the one in force — the endpoint's
 * `secret_rotation_token` still names this token, and its previous secret ends no later than this
 * rotation's instant plus the grace (no rotation since, even by the previous version during a rolling
 * update, which leaves the link as it was) — and for ROTATION_SHOWN_AGAIN_MS after
 * it, the same answer as the first (the current secret, which this page's first answer showed already:
 * a double click's browser shows only the second answer); once a later rotation replaced it, or later,
 * no secret (`superseded: true`).
 */
export async function rotateSecret(deps: WebhookDeps, scope: WebhookScope, endpointId: string): Promise<Rotated>;
export async function rotateSecret(
  deps: WebhookDeps,
  scope: WebhookScope,
  endpointId: string,
  once: OperatorOnce,
): Promise<(Rotated & { replayed?: true }) | { replayed: true; superseded: true }>;
export async function rotateSecret(
  deps: WebhookDeps,
  scope: WebhookScope,
  endpointId: string,
  once: OperatorOnce = {},
): Promise<(Rotated & { replayed?: true }) | { replayed: true; superseded: true }> {
  const token = checkActionToken(once);
  const secret = newWebhookSecret();
  return changeEndpoint(deps, scope, endpointId, async (trx, row) => {
    // the endpoint's row is locked: a second submit of the same token waits here, then finds the first
    const key = token === undefined ? undefined : { actionToken: token, action: 'rotate' as const, targetId: row.id };
    const done = await doneBefore(trx, key, row.partner_id);
    if (done) {
      const until = row.previous_secret_expires_at;
      // the rotation that set the current secret is this token's (migration 0095: the link, not instants
      // compared to the millisecond) — and none since: a later rotation by a process of the previous
      // version (a rolling update: it leaves the link as it was) ends the previous secret later than this
      // rotation's instant plus the grace
      const inForce =
        row.secret_rotation_token === token &&
        until !== null &&
        until.getTime() <= done.created_at.getTime() + PREVIOUS_SECRET_GRACE_MS;
      const recent = deps.now().getTime() - done.created_at.getTime() <= ROTATION_SHOWN_AGAIN_MS;
      if (!until || !inForce || !recent) return { replayed: true as const, superseded: true as const };
      const current = decrypt(deps.keys.encryption, row.secret_enc);
      return {
        endpoint: view(row),
        secret: current,
        previousSecretValidUntil: until.toISOString(),
        replayed: true as const,
      };
    }
    const now = deps.now();
    if (key)
      await repo.recordOperatorAction(trx, key, {
        delivery_id: null,
        event_id: null,
        attempt: null,
        actor: scope.actor,
        at: now,
      });
    const until = new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS);
    // the previous secret re-encrypted as it is (checked to open with today's key)
    const previous = encrypt(deps.keys.encryption, decrypt(deps.keys.encryption, row.secret_enc));
    const updated = await repo.updateEndpoint(trx, row.id, {
      secret_enc: encrypt(deps.keys.encryption, secret),
      previous_secret_enc: previous,
      previous_secret_expires_at: until,
      secret_rotation_token: token ?? null,
    });
    await audit(trx, {
      actor: scope.actor,
      partnerId: row.partner_id,
      environment: row.environment,
      entity: 'webhook_endpoint',
      entityId: row.id,
      action: 'secret_rotated',
      data: { previousSecretValidUntil: until.toISOString() },
    });
    return { endpoint: view(updated), secret, previousSecretValidUntil: until.toISOString() };
  });
}

/**
 * The one-time token of an operator's action (the operator webhooks page's, or `--once` of the CLI):
 * the same token twice on the same target does the action once, the second time answering what the
 * first queued (`replayed`). Absent: no such guard (the partner API has its own).
 */
export interface OperatorOnce {
  actionToken?: string | undefined;
}

/** The one-time token, checked as the claim desk's (platform/action-token.ts): a malformed one is a stale form. */
function checkActionToken(once: OperatorOnce): string | undefined {
  if (once.actionToken === undefined) return undefined;
  const error = actionTokenError(once.actionToken);
  if (error) throw new DomainError('validation_failed', 'The action is not valid.', { errors: [error] });
  return once.actionToken;
}

/**
 * The action done already under this key, once its target (of `partnerId`) is locked. A token used
 * already on another partner's endpoint or delivery is refused as a stale form: a page's token is
 * its partner's only (the partner console's, the operator page of one partner, a CLI `--once`).
 */
async function doneBefore(
  trx: Trx,
  key: repo.OperatorActionKey | undefined,
  partnerId: string,
): Promise<repo.OperatorActionFound | undefined> {
  if (key === undefined) return undefined;
  if (await repo.operatorActionOfOtherPartner(trx, key.actionToken, partnerId))
    throw new DomainError('validation_failed', 'The action is not valid.', {
      errors: [{ field: '/actionToken', code: 'invalid_format', message: 'the form is stale: open the page again' }],
    });
  return repo.findOperatorAction(trx, key);
}

/** What a test or a send again found done queued: never null for them (0091's `webhook_operator_actions_queued`). */
function queuedOf(done: repo.OperatorActionFound): repo.OperatorActionDone {
  const { delivery_id, event_id, attempt } = done;
  if (delivery_id === null || event_id === null || attempt === null)
    throw new Error('A test or send again recorded without what it queued.');
  return { delivery_id, event_id, attempt };
}

/**
 * Sends a `webhook.test` event to this endpoint only (whatever its event types), through the usual
 * delivery. With a one-time token (OperatorOnce) used already on this endpoint: nothing queued, the
 * first test's ids answered with `replayed: true`.
 */
export async function sendTestEvent(
  deps: WebhookDeps,
  scope: WebhookScope,
  endpointId: string,
  once: OperatorOnce = {},
): Promise<{ eventId: string; deliveryId: string; replayed?: true }> {
  const token = checkActionToken(once);
  return changeEndpoint(deps, scope, endpointId, async (trx, row) => {
    // the endpoint's row is locked: a second submit of the same token waits here, then finds the first
    const key = token === undefined ? undefined : { actionToken: token, action: 'test' as const, targetId: row.id };
    const done = await doneBefore(trx, key, row.partner_id);
    if (done) {
      const queued = queuedOf(done);
      return { eventId: queued.event_id, deliveryId: queued.delivery_id, replayed: true as const };
    }
    if (!row.enabled)
      throw new DomainError('webhook_endpoint_disabled', `Webhook endpoint ${row.id} is disabled; enable it first.`);
    const data: TestEventData = { endpointId: row.id, message: 'This is a test event from Parasol.' };
    const event = eventRow(row.partner_id, row.environment, TEST_EVENT_TYPE, data, deps.now());
    await repo.insertEvents(trx, [event]);
    const [deliveryId] = await repo.insertDeliveries(trx, [
      { event_id: event.id, endpoint_id: row.id, partner_id: row.partner_id, environment: row.environment },
    ]);
    await deps.jobs.send('webhooks_deliver', { deliveryId: deliveryId!, attempt: 1 }, { trx });
    if (key)
      await repo.recordOperatorAction(trx, key, {
        delivery_id: deliveryId!,
        event_id: event.id,
        attempt: 1,
        actor: scope.actor,
        at: deps.now(),
      });
    await audit(trx, {
      actor: scope.actor,
      partnerId: row.partner_id,
      environment: row.environment,
      entity: 'webhook_endpoint',
      entityId: row.id,
      action: 'test_sent',
      data: { eventId: event.id },
    });
    return { eventId: event.id, deliveryId: deliveryId! };
  });
}

export interface DeliveryAttemptView {
  attempt: number;
  at: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  /** The event id, sent as `webhook-id`. */
  eventId: string;
  eventType: string;
  endpointId: string;
  url: string;
  environment: Environment;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  completedAt: string | null;
  attemptLog: DeliveryAttemptView[];
}

export interface ListDeliveriesInput {
  limit?: number | undefined;
  cursor?: string | undefined;
  endpointId?: string | undefined;
  status?: WebhookDeliveryStatus | undefined;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The delivery log, newest first, with each delivery's attempts; `nextCursor` for the next page, bound
 * to its list (the partner, environment, endpoint and status): given with other filters, it is
 * refused (422 invalid_cursor) rather than skipping or repeating deliveries.
 */
export async function listDeliveries(
  deps: Pick<WebhookDeps, 'db' | 'keys'>,
  scope: WebhookScope & { partnerId: string },
  input: ListDeliveriesInput = {},
): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }> {
  const limit = input.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new DomainError('validation_failed', 'The limit is not valid.', {
      errors: [{ field: 'querystring:/limit', code: 'out_of_range', message: 'must be 1 to 100' }],
    });
  }
  if (input.status !== undefined && !['pending', 'succeeded', 'failed'].includes(input.status)) {
    throw new DomainError('validation_failed', 'The status is not valid.', {
      errors: [{ field: '/status', code: 'not_allowed', message: 'must be pending, succeeded or failed' }],
    });
  }
  if (input.endpointId !== undefined && !UUID.test(input.endpointId)) throw notFound(input.endpointId);
  const list = listBinding(deps.keys.lookup, [
    'webhooks.deliveries',
    scope.partnerId,
    scope.environment ?? null,
    // read in any case (UUID) and compared as a uuid: one endpoint, one list
    input.endpointId?.toLowerCase() ?? null,
    input.status ?? null,
  ]);
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor, 'querystring:/cursor', list);
  const rows = await repo.listDeliveries(
    deps.db,
    { partnerId: scope.partnerId, environment: scope.environment, endpointId: input.endpointId, status: input.status },
    { limit: limit + 1, after },
  );
  const page = rows.slice(0, limit);
  const attempts = await repo.attemptsOf(
    deps.db,
    page.map((r) => r.id),
  );
  const byDelivery = new Map<string, DeliveryAttemptView[]>();
  for (const a of attempts) {
    const log = byDelivery.get(a.delivery_id) ?? [];
    log.push({
      attempt: a.attempt,
      at: a.at.toISOString(),
      statusCode: a.status_code,
      durationMs: a.duration_ms,
      error: a.error,
    });
    byDelivery.set(a.delivery_id, log);
  }
  const last = page.at(-1);
  return {
    deliveries: page.map((r) => ({
      id: r.id,
      eventId: r.event_id,
      eventType: r.event_type,
      endpointId: r.endpoint_id,
      url: r.url,
      environment: r.environment,
      status: r.status,
      attempts: r.attempts,
      nextAttemptAt: iso(r.next_attempt_at),
      lastAttemptAt: iso(r.last_attempt_at),
      lastStatusCode: r.last_status_code,
      lastError: r.last_error,
      createdAt: r.created_at.toISOString(),
      completedAt: iso(r.completed_at),
      attemptLog: byDelivery.get(r.id) ?? [],
    })),
    nextCursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id, list) : null,
  };
}

/**
 * Sends a past delivery again: an ended delivery (succeeded or failed) goes back to pending and its
 * next attempt is queued at once, with the same `webhook-id` (the event's id), so a receiver that
 * already processed it can drop it. It continues the delivery's attempt numbering and, on failure,
 * the retry schedule where it stopped (a delivery whose schedule is spent gets this one attempt).
 * A delivery still pending answers 409 webhook_delivery_pending; a disabled endpoint 409
 * webhook_endpoint_disabled; another partner's or a removed endpoint's delivery 404. With a one-time
 * token (OperatorOnce) used already on this delivery: nothing queued again — not refused as pending
 * either —, the first redelivery's attempt answered with `replayed: true`.
 */
export async function redeliver(
  deps: WebhookDeps,
  scope: WebhookScope,
  deliveryId: string,
  once: OperatorOnce = {},
): Promise<{ deliveryId: string; eventId: string; attempt: number; replayed?: true }> {
  const missing = () => new DomainError('webhook_delivery_not_found', `No webhook delivery ${deliveryId}.`);
  if (!UUID.test(deliveryId)) throw missing();
  const token = checkActionToken(once);
  return deps.db.transaction().execute(async (trx) => {
    await recheckUser(trx, scope);
    // the delivery's row is locked: a second submit of the same token waits here, then finds the first
    const row = await repo.findDeliveryForUpdate(trx, scope, deliveryId);
    if (!row || row.removed_at) throw missing();
    const key =
      token === undefined ? undefined : { actionToken: token, action: 'redeliver' as const, targetId: row.id };
    const done = await doneBefore(trx, key, row.partner_id);
    if (done)
      return { deliveryId: row.id, eventId: row.event_id, attempt: queuedOf(done).attempt, replayed: true as const };
    if (!row.enabled)
      throw new DomainError(
        'webhook_endpoint_disabled',
        `Webhook endpoint ${row.endpoint_id} is disabled; enable it first.`,
      );
    if (row.status === 'pending')
      throw new DomainError(
        'webhook_delivery_pending',
        `Webhook delivery ${row.id} is still being attempted; redeliver it once it has succeeded or failed.`,
      );
    const attempt = row.attempts + 1;
    await repo.reopenDelivery(trx, row.id, deps.now());
    await deps.jobs.send('webhooks_deliver', { deliveryId: row.id, attempt }, { trx });
    if (key)
      await repo.recordOperatorAction(trx, key, {
        delivery_id: row.id,
        event_id: row.event_id,
        attempt,
        actor: scope.actor,
        at: deps.now(),
      });
    await audit(trx, {
      actor: scope.actor,
      partnerId: row.partner_id,
      environment: row.environment,
      entity: 'webhook_endpoint',
      entityId: row.endpoint_id,
      action: 'redelivery_requested',
      data: { deliveryId: row.id, eventId: row.event_id, attempt },
    });
    return { deliveryId: row.id, eventId: row.event_id, attempt };
  });
}

/** An endpoint flagged failing: its latest attempt of the last day failed (no success since). */
export interface EndpointHealth {
  failing: boolean;
  failedLastDay: number;
  succeededLastDay: number;
  /**
   * While failing, when asked (`{ failingSince: true }`): its first failed attempt after the latest
   * successful attempt of any of its deliveries (re-sends included: a delivery sent again that
   * succeeded counts from that attempt), looked for over the last FAILING_SINCE_LOOKBACK_DAYS (failing
   * longer: the first failure of that window); else null.
   */
  failingSince: string | null;
  /** Failing already before the look-back began (failingSince is then only the window's first failure). */
  failingLonger: boolean;
}

/** How far back `failingSince` looks for the latest success. */
export const FAILING_SINCE_LOOKBACK_DAYS = 30;

/**
 * The health of each endpoint over the last 24 hours: failing when its latest attempt failed — a
 * failure later than its latest successful attempt of any delivery, a re-sent one included (its
 * `succeeded_at`, as failingSince: the flag and the date agree; a retry still pending counts: the
 * receiver is down now); a success clears it. Asked for, a failing endpoint also says since when (`failingSince`: one more
 * query, per failing endpoint, which the partner console does not need).
 */
export async function endpointsHealth(
  deps: Pick<WebhookDeps, 'db' | 'now'>,
  endpointIds: readonly string[],
  options: { failingSince?: boolean } = {},
): Promise<Map<string, EndpointHealth>> {
  const since = new Date(deps.now().getTime() - 24 * 3600 * 1000);
  const rows = await repo.endpointHealth(deps.db, endpointIds, since);
  const out = new Map<string, EndpointHealth>();
  for (const id of endpointIds)
    out.set(id, { failing: false, failedLastDay: 0, succeededLastDay: 0, failingSince: null, failingLonger: false });
  for (const r of rows)
    out.set(r.endpoint_id, {
      failing:
        r.last_failed_at !== null &&
        (r.last_succeeded_at === null || r.last_failed_at.getTime() > r.last_succeeded_at.getTime()),
      failedLastDay: r.failed,
      succeededLastDay: r.succeeded,
      failingSince: null,
      failingLonger: false,
    });
  const failing = [...out].filter(([, h]) => h.failing).map(([id]) => id);
  if (options.failingSince && failing.length > 0) {
    const lookback = new Date(deps.now().getTime() - FAILING_SINCE_LOOKBACK_DAYS * 24 * 3600 * 1000);
    for (const r of await repo.failingSince(deps.db, failing, lookback)) {
      const health = out.get(r.endpoint_id)!;
      health.failingSince = r.since.toISOString();
      health.failingLonger = r.failing_before;
    }
  }
  return out;
}
