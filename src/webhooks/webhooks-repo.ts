import type { ClaimEventKind, ClaimReason } from '../platform/db-schema.ts';
import { sql, type Insertable, type Selectable } from 'kysely';
import type {
  ClaimStatus,
  Environment,
  WebhookDeliveryAttemptsTable,
  WebhookDeliveryStatus,
  WebhookEndpointsTable,
  WebhookEventsTable,
  WebhookPausedReason,
} from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';

/** SQL for webhook endpoints, events, deliveries and attempts. Every function takes the database or an open transaction. */

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type AttemptRow = Selectable<WebhookDeliveryAttemptsTable>;
export type NewEvent = Insertable<WebhookEventsTable> & { id: string; created_at: Date };

/** Restricts to one partner and/or environment; absent members restrict nothing (operator). */
export interface Scope {
  partnerId?: string | undefined;
  environment?: Environment | undefined;
}

/** Rows per multi-row insert: far below PostgreSQL's 65,535 parameters, few statements for thousands. */
const CHUNK = 1000;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

// ---------------------------------------------------------------------------------------------
// emission

export interface LiveEndpoint {
  id: string;
  partner_id: string;
  environment: Environment;
  event_types: string[] | null;
}

/** The enabled, not removed endpoints of the (partner, environment) pairs of these events: one query. */
export async function liveEndpointsFor(
  db: Executor,
  events: readonly { partnerId: string; environment: Environment }[],
): Promise<LiveEndpoint[]> {
  const pairs = new Map<string, { partnerId: string; environment: Environment }>();
  for (const e of events)
    pairs.set(`${e.partnerId}/${e.environment}`, { partnerId: e.partnerId, environment: e.environment });
  const partnerIds = [...new Set([...pairs.values()].map((p) => p.partnerId))];
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'partner_id', 'environment', 'event_types'])
    .where('partner_id', 'in', partnerIds)
    .where('removed_at', 'is', null)
    .where('enabled', '=', true)
    .execute();
  return rows.filter((r) => pairs.has(`${r.partner_id}/${r.environment}`));
}

export async function insertEvents(db: Executor, rows: readonly NewEvent[]): Promise<void> {
  for (const part of chunks(rows)) await db.insertInto('webhook_events').values(part).execute();
}

/** One delivery per (event, endpoint); a pair already there is skipped. Returns the new ids. */
export async function insertDeliveries(
  db: Executor,
  rows: readonly {
    event_id: string;
    endpoint_id: string;
    partner_id: string;
    environment: Environment;
    created_at?: Date;
  }[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const part of chunks(rows)) {
    const inserted = await db
      .insertInto('webhook_deliveries')
      .values(part.map((r) => ({ ...r, created_at: r.created_at ?? sql<Date>`now()` })))
      .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
      .returning('id')
      .execute();
    ids.push(...inserted.map((r) => r.id));
  }
  return ids;
}

// ---------------------------------------------------------------------------------------------
// endpoints

export async function insertEndpoint(db: Executor, values: Insertable<WebhookEndpointsTable>): Promise<EndpointRow> {
  return db.insertInto('webhook_endpoints').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Row-locks the partner: concurrent additions of endpoints are serialised, so the per-environment limit holds. */
export async function lockPartnerEndpoints(trx: Executor, partnerId: string): Promise<void> {
  await trx.selectFrom('partners').select('id').where('id', '=', partnerId).forUpdate().executeTakeFirst();
}

export async function countLiveEndpoints(db: Executor, partnerId: string, environment: Environment): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('partner_id', '=', partnerId)
    .where('environment', '=', environment)
    .where('removed_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A live (not removed) endpoint within the scope, or undefined: another partner's id is not found. */
export async function findEndpoint(
  db: Executor,
  scope: Scope,
  id: string,
  options: { forUpdate?: boolean; forShare?: boolean } = {},
): Promise<EndpointRow | undefined> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).where('removed_at', 'is', null);
  if (scope.partnerId !== undefined) query = query.where('partner_id', '=', scope.partnerId);
  if (scope.environment !== undefined) query = query.where('environment', '=', scope.environment);
  if (options.forUpdate) query = query.forUpdate();
  else if (options.forShare) query = query.forShare();
  return query.executeTakeFirst();
}

export async function listEndpoints(
  db: Executor,
  partnerId: string,
  environment: Environment | undefined,
): Promise<EndpointRow[]> {
  let query = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('removed_at', 'is', null);
  if (environment !== undefined) query = query.where('environment', '=', environment);
  return query.orderBy('environment').orderBy('created_at').orderBy('id').execute();
}

export async function updateEndpoint(
  db: Executor,
  id: string,
  values: Partial<
    Pick<
      Insertable<WebhookEndpointsTable>,
      | 'secret_enc'
      | 'previous_secret_enc'
      | 'previous_secret_expires_at'
      | 'secret_rotation_token'
      | 'enabled'
      | 'paused_reason'
      | 'paused_at'
      | 'resumed_at'
      | 'removed_at'
      | 'url'
      | 'description'
      | 'event_types'
    >
  >,
): Promise<EndpointRow> {
  return db
    .updateTable('webhook_endpoints')
    .set({ ...values, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Ends the pending deliveries of an endpoint (removed or disabled): set-wise, one statement. With
 * `skipHeldAt`, those a worker holds at that time (being sent) are left to record their own outcome.
 */
export async function failPendingDeliveries(
  db: Executor,
  endpointId: string,
  error: string,
  at: Date,
  options: { skipHeldAt?: Date } = {},
): Promise<number> {
  let query = db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: error, next_attempt_at: null, locked_until: null, completed_at: at })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending');
  const held = options.skipHeldAt;
  if (held) query = query.where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', held)]));
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

// ---------------------------------------------------------------------------------------------
// delivery (the job)

export type ClaimResult = { claimed: true } | { claimed: false; why: 'stale' | 'locked' };

/**
 * Takes the delivery for attempt `attempt` until `leaseUntil`: only when it is still pending, that
 * attempt has not been made, and no other worker holds it. One statement, so two workers never
 * both send.
 */
export async function claimDelivery(
  db: Executor,
  id: string,
  attempt: number,
  now: Date,
  leaseUntil: Date,
): Promise<ClaimResult> {
  const taken = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: leaseUntil })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('attempts', '=', attempt - 1)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning('id')
    .executeTakeFirst();
  if (taken) return { claimed: true };
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(['status', 'attempts'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row || row.status !== 'pending' || row.attempts !== attempt - 1) return { claimed: false, why: 'stale' };
  return { claimed: false, why: 'locked' };
}

export interface DeliveryTarget {
  id: string;
  event_id: string;
  endpoint_id: string;
  partner_id: string;
  environment: Environment;
  /** The payload as the driver parsed it (json), or NULL when it is sealed in `payload_enc` (migration 0056). */
  payload: unknown;
  payload_enc: string | null;
  url: string;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  enabled: boolean;
  paused_reason: WebhookPausedReason | null;
  removed_at: Date | null;
}

/** Deliveries (`d`) with their event (`ev`) and endpoint (`e`): the join every read of a delivery starts from. */
export function deliveriesWithEndpoints(db: Executor) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id');
}

export async function findDeliveryTarget(db: Executor, id: string): Promise<DeliveryTarget | undefined> {
  return deliveriesWithEndpoints(db)
    .select([
      'd.id',
      'd.event_id',
      'd.endpoint_id',
      'd.partner_id',
      'd.environment',
      'ev.payload',
      'ev.payload_enc',
      'e.url',
      'e.secret_enc',
      'e.previous_secret_enc',
      'e.previous_secret_expires_at',
      'e.enabled',
      'e.paused_reason',
      'e.removed_at',
    ])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

export interface AttemptOutcome {
  attempt: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The delivery's `last_error` when it differs from the attempt's (why it ended: its endpoint paused). */
  deliveryError?: string | undefined;
  status: WebhookDeliveryStatus;
  nextAttemptAt: Date | null;
}

/**
 * Records an attempt and the delivery's new state, guarded by the attempt number: returns false
 * (and writes nothing) when that attempt was already recorded.
 */
export async function recordAttempt(db: Executor, deliveryId: string, o: AttemptOutcome): Promise<boolean> {
  const updated = await db
    .updateTable('webhook_deliveries')
    .set({
      status: o.status,
      attempts: o.attempt,
      last_attempt_at: o.at,
      last_status_code: o.statusCode,
      last_error: o.deliveryError ?? o.error,
      next_attempt_at: o.nextAttemptAt,
      locked_until: null,
      completed_at: o.status === 'pending' ? null : o.at,
      // its latest successful attempt: kept by a later failed re-send (failingSince, endpointHealth)
      ...(o.error === null ? { succeeded_at: o.at } : {}),
    })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .where('attempts', '=', o.attempt - 1)
    .returning('id')
    .executeTakeFirst();
  if (!updated) return false;
  await db
    .insertInto('webhook_delivery_attempts')
    .values({
      delivery_id: deliveryId,
      attempt: o.attempt,
      at: o.at,
      status_code: o.statusCode,
      duration_ms: o.durationMs,
      error: o.error,
    })
    .execute();
  return true;
}

/**
 * Deliveries still pending whose attempt was due before `dueBefore` and that no worker holds: their
 * job was lost (its pg-boss retries spent, or the queue's row gone). Their attempt is due again `now`
 * (so the next sweep leaves them alone for as long); oldest due first, rows another sweep holds
 * skipped. The partial index of pending deliveries (0007) keeps the scan to them.
 */
export async function markStaleDeliveriesDue(
  trx: Executor,
  q: { dueBefore: Date; now: Date; limit: number },
): Promise<{ id: string; attempts: number }[]> {
  const result = await sql<{ id: string; attempts: number }>`
    UPDATE webhook_deliveries SET next_attempt_at = ${q.now}
    WHERE id IN (
      SELECT id FROM webhook_deliveries
      WHERE status = 'pending' AND coalesce(next_attempt_at, created_at) < ${q.dueBefore}
        AND (locked_until IS NULL OR locked_until <= ${q.now})
      ORDER BY coalesce(next_attempt_at, created_at) LIMIT ${q.limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING id, attempts`.execute(trx);
  return result.rows;
}

/** A delivery within the scope, its row locked, with what a redelivery needs to know of its endpoint. */
export async function findDeliveryForUpdate(
  trx: Executor,
  scope: Scope,
  id: string,
): Promise<
  | {
      id: string;
      event_id: string;
      endpoint_id: string;
      partner_id: string;
      environment: Environment;
      status: WebhookDeliveryStatus;
      attempts: number;
      enabled: boolean;
      removed_at: Date | null;
    }
  | undefined
> {
  let query = deliveriesWithEndpoints(trx)
    .select([
      'd.id',
      'd.event_id',
      'd.endpoint_id',
      'd.partner_id',
      'd.environment',
      'd.status',
      'd.attempts',
      'e.enabled',
      'e.paused_reason',
      'e.removed_at',
    ])
    .where('d.id', '=', id);
  if (scope.partnerId !== undefined) query = query.where('d.partner_id', '=', scope.partnerId);
  if (scope.environment !== undefined) query = query.where('d.environment', '=', scope.environment);
  return query.forUpdate('d').executeTakeFirst();
}

/** Puts an ended delivery back to pending for one more attempt (a redelivery asked by the partner). */
export async function reopenDelivery(trx: Executor, id: string, at: Date): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: at, locked_until: null, completed_at: null })
    .where('id', '=', id)
    .where('status', '<>', 'pending')
    .execute();
}

// ---------------------------------------------------------------------------------------------
// operator actions done once per one-time token (migrations 0079, 0091)

export interface OperatorActionKey {
  actionToken: string;
  action: 'test' | 'redeliver' | 'rotate';
  /** The endpoint tested or rotated, the delivery sent again. */
  targetId: string;
}

/** What a test or a send again queued, recorded under its token: a repeated submit answers it again. */
export interface OperatorActionDone {
  delivery_id: string;
  event_id: string;
  attempt: number;
}

/**
 * An action found done under a token: what it queued — a test's and a send again's always there
 * (0091's `webhook_operator_actions_queued`), a rotation's null (it queues nothing) — and when it
 * was done (`created_at`, the action's own instant: a rotation's replay compares it with the
 * endpoint's `previous_secret_expires_at`).
 */
export type OperatorActionFound = { [K in keyof OperatorActionDone]: OperatorActionDone[K] | null } & {
  created_at: Date;
};

/** The action already done under this token, on this target; undefined the first time. */
export async function findOperatorAction(
  db: Executor,
  key: OperatorActionKey,
): Promise<OperatorActionFound | undefined> {
  return db
    .selectFrom('webhook_operator_actions')
    .select(['delivery_id', 'event_id', 'attempt', 'created_at'])
    .where('action_token', '=', key.actionToken)
    .where('action', '=', key.action)
    .where('target_id', '=', key.targetId)
    .executeTakeFirst();
}

/**
 * Whether this token was used already on another partner's endpoint or delivery (through the
 * delivery each action queued): a token is one partner's, never answered on another's. Read by the
 * primary key's first column.
 */
export async function operatorActionOfOtherPartner(
  db: Executor,
  actionToken: string,
  partnerId: string,
): Promise<boolean> {
  // a test's and a send again's partner is their delivery's; a rotation's (no delivery), its endpoint's
  const row = await db
    .selectFrom('webhook_operator_actions as a')
    .leftJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .leftJoin('webhook_endpoints as e', (join) => join.onRef('e.id', '=', 'a.target_id').on('a.action', '=', 'rotate'))
    .select('a.action_token')
    .where('a.action_token', '=', actionToken)
    .where((eb) => eb(eb.fn.coalesce('d.partner_id', 'e.partner_id'), '<>', partnerId))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Records an operator action done at `at`, in its transaction (its target's row locked: never twice at once). */
export async function recordOperatorAction(
  trx: Executor,
  key: OperatorActionKey,
  done: (OperatorActionDone | Record<keyof OperatorActionDone, null>) & { actor: string; at: Date },
): Promise<void> {
  await trx
    .insertInto('webhook_operator_actions')
    .values({
      action_token: key.actionToken,
      action: key.action,
      target_id: key.targetId,
      delivery_id: done.delivery_id,
      event_id: done.event_id,
      attempt: done.attempt,
      actor: done.actor,
      created_at: done.at,
    })
    .execute();
}

/**
 * Per endpoint, its deliveries attempted since `since` (each by its last attempt): how many whose last
 * attempt failed (retry pending or given up) and how many succeeded, and when the latest of each was.
 * Counted on the attempts, not on the deliveries' creation or end: a delivery is only marked failed
 * 2.7 days after it was created, so an endpoint down for a day has no failed delivery yet, only failed
 * attempts. Read through the index on (endpoint_id, last_attempt_at) (migration 0068).
 */
export async function endpointHealth(
  db: Executor,
  endpointIds: readonly string[],
  since: Date,
): Promise<
  {
    endpoint_id: string;
    failed: number;
    succeeded: number;
    last_failed_at: Date | null;
    last_succeeded_at: Date | null;
  }[]
> {
  if (endpointIds.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [
      'endpoint_id',
      eb.fn.countAll<number>().filterWhere('last_error', 'is not', null).as('failed'),
      eb.fn.countAll<number>().filterWhere('status', '=', 'succeeded').as('succeeded'),
      eb.fn.max('last_attempt_at').filterWhere('last_error', 'is not', null).as('last_failed_at'),
      // the latest successful attempt of any delivery (a re-sent one that failed again included), as failingSince
      eb.fn.max('succeeded_at').filterWhere('succeeded_at', '>=', since).as('last_succeeded_at'),
    ])
    .where('endpoint_id', 'in', endpointIds)
    .where('last_attempt_at', '>=', since)
    .groupBy('endpoint_id')
    .execute();
  return rows.map((r) => ({
    endpoint_id: r.endpoint_id,
    failed: Number(r.failed),
    succeeded: Number(r.succeeded),
    last_failed_at: r.last_failed_at === null ? null : new Date(r.last_failed_at),
    last_succeeded_at: r.last_succeeded_at === null ? null : new Date(r.last_succeeded_at),
  }));
}

/**
 * Since when each endpoint fails: its first failed attempt after its latest successful attempt (an
 * attempt without error) of any of its deliveries — a re-send included: a delivery sent again whose
 * attempt succeeded counts from that attempt, even when a later re-send of it failed (its
 * `succeeded_at` keeps it; its status then no longer says it succeeded). Both looked for from `since`
 * on: an endpoint failing from before then answers its first failure of the window, and
 * `failing_before` (no success in the window and the latest delivery attempted before it had failed —
 * it was failing already, for longer than the window). Endpoints with no failed attempt after their
 * latest success are left out.
 *
 * Per endpoint: its latest success is the first row of one backward scan of the index on
 * (endpoint_id, succeeded_at) (migration 0079) — no attempt read for it. Its first failure after that
 * success: the deliveries attempted after it (the index on (endpoint_id, last_attempt_at), 0068), and
 * in each its first failed attempt after it, one probe of the index of failed attempts on
 * (delivery_id, at) (migration 0086) — a LATERAL … LIMIT 1, so never a hash join reading every failed
 * attempt of the table (which the planner chose for an endpoint failing for weeks: ~0.5 s on 1M
 * attempts). It costs one probe per delivery of the endpoint attempted since the success (or the
 * look-back's start): a large gain while the endpoint is a small part of the table, little for a very
 * busy endpoint failing for long, whose deliveries since are most of what there is to read.
 */
export async function failingSince(
  db: Executor,
  endpointIds: readonly string[],
  since: Date,
): Promise<{ endpoint_id: string; since: Date; failing_before: boolean }[]> {
  if (endpointIds.length === 0) return [];
  const result = await sql<{ endpoint_id: string; since: Date | string; failing_before: boolean | null }>`
    SELECT e.id AS endpoint_id, f.since,
      ok.found IS NULL AND (
        SELECT d.last_error IS NOT NULL FROM webhook_deliveries d
        WHERE d.endpoint_id = e.id AND d.last_attempt_at < ${since}
        ORDER BY d.last_attempt_at DESC LIMIT 1
      ) AS failing_before
    FROM (VALUES ${sql.join(endpointIds.map((id) => sql`(${id}::uuid)`))}) AS e(id)
    CROSS JOIN LATERAL (
      SELECT (
        SELECT d.succeeded_at FROM webhook_deliveries d
        WHERE d.endpoint_id = e.id AND d.succeeded_at >= ${since}
        ORDER BY d.succeeded_at DESC LIMIT 1
      ) AS found
    ) latest
    CROSS JOIN LATERAL (SELECT latest.found, coalesce(latest.found, ${since}) AS at) ok
    CROSS JOIN LATERAL (
      SELECT min(first.at) AS since
      FROM webhook_deliveries d
      CROSS JOIN LATERAL (
        SELECT a.at FROM webhook_delivery_attempts a
        WHERE a.delivery_id = d.id AND a.error IS NOT NULL AND a.at > ok.at AND a.at >= ${since}
        ORDER BY a.at LIMIT 1
      ) first
      WHERE d.endpoint_id = e.id AND d.last_attempt_at > ok.at AND d.last_attempt_at >= ${since}
    ) f
    WHERE f.since IS NOT NULL`.execute(db);
  return result.rows.map((r) => ({
    endpoint_id: r.endpoint_id,
    since: new Date(r.since),
    failing_before: r.failing_before === true,
  }));
}

/** Ends a delivery without an attempt (its endpoint was removed or disabled meanwhile). */
export async function abandonDelivery(db: Executor, deliveryId: string, error: string, at: Date): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: error, next_attempt_at: null, locked_until: null, completed_at: at })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .execute();
}

// ---------------------------------------------------------------------------------------------
// the delivery log

export interface DeliveryLogRow {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  url: string;
  environment: Environment;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

/** Newest first, keyset-paginated on (created_at, id). */
export async function listDeliveries(
  db: Executor,
  filter: {
    partnerId: string;
    environment?: Environment | undefined;
    endpointId?: string | undefined;
    status?: WebhookDeliveryStatus | undefined;
  },
  page: { limit: number; after?: { at: Date; id: string } | undefined },
): Promise<DeliveryLogRow[]> {
  let query = deliveriesWithEndpoints(db)
    .select([
      'd.id',
      'd.event_id',
      'ev.type as event_type',
      'd.endpoint_id',
      'e.url',
      'd.environment',
      'd.status',
      'd.attempts',
      'd.next_attempt_at',
      'd.last_attempt_at',
      'd.last_status_code',
      'd.last_error',
      'd.created_at',
      'd.completed_at',
    ])
    .where('d.partner_id', '=', filter.partnerId);
  if (filter.environment !== undefined) query = query.where('d.environment', '=', filter.environment);
  if (filter.endpointId !== undefined) query = query.where('d.endpoint_id', '=', filter.endpointId);
  if (filter.status !== undefined) query = query.where('d.status', '=', filter.status);
  const after = page.after;
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('d.created_at', '<', after.at),
        eb.and([eb('d.created_at', '=', after.at), eb('d.id', '<', after.id)]),
      ]),
    );
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(page.limit).execute();
}

export async function attemptsOf(db: Executor, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('delivery_id', 'in', [...deliveryIds])
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute();
}

// ---------------------------------------------------------------------------------------------
// claim events

export interface ClaimEventRow {
  partner_id: string;
  environment: Environment;
  claim_number: string;
  contract_number: string;
  flight_number: string;
  operating_flight_number: string | null;
  departure_date: string;
  reason: ClaimReason;
  event: ClaimEventKind;
  delay_minutes: number | null;
  compensation_amount: number;
  currency: string;
  status: ClaimStatus;
  opened_at: Date;
  paid_at: Date | null;
  updated_at: Date;
  failure_reason: string | null;
  iban_last4: string | null;
  received_at: Date | null;
  /** The claim's payout is `returned`: paid, then sent back by the customer's bank (claim.failed says so). */
  payment_returned: boolean;
  /** The voided claim this one replaces (its evidence's `replaces`: claims' opening writes it); null for any other. */
  replaces: string | null;
}

/**
 * The live endpoints that want `type` for the (partner, environment) pairs of these claims: one
 * statement, the only read of endpoints a claim.* emission makes.
 */
export async function liveEndpointsForClaims(
  trx: Executor,
  claimIds: readonly string[],
  type: string,
): Promise<LiveEndpoint[]> {
  const rows = await sql<LiveEndpoint>`
    SELECT e.id, e.partner_id, e.environment, e.event_types
    FROM webhook_endpoints e
    WHERE e.removed_at IS NULL AND e.enabled
      AND (e.event_types IS NULL OR ${type} = ANY(e.event_types))
      AND (e.partner_id, e.environment) IN (
        SELECT DISTINCT cl.partner_id, cl.environment FROM claims cl WHERE cl.id = ANY(${[...claimIds]}::uuid[]))
  `.execute(trx);
  return rows.rows;
}

/**
 * The claims (with contract, leg and bank details) whose claim.* events are being emitted, in one
 * statement; only those of the partners named (the ones with an endpoint wanting the event).
 */
export async function findClaimsForEvents(
  trx: Executor,
  claimIds: readonly string[],
  partnerIds: readonly string[],
): Promise<ClaimEventRow[]> {
  const rows = await sql<ClaimEventRow>`
    SELECT cl.partner_id, cl.environment, cl.claim_number, c.contract_number, l.flight_number, l.operating_flight_number, l.departure_date,
           cl.reason, cl.event, cl.delay_minutes, cl.compensation_amount, cl.currency, cl.status, cl.opened_at,
           cl.paid_at, cl.updated_at, cl.failure_reason, b.iban_last4, b.received_at,
           coalesce(p.status = 'returned', false) AS payment_returned,
           -- as the claims API's evidence reads it (claims/evidence.ts): a claim number, or nothing
           CASE WHEN cl.evidence->>'replaces' ~ '^[A-Z]{3}-[0-9]{8}$' THEN cl.evidence->>'replaces' END AS replaces
    FROM claims cl
    JOIN contracts c ON c.id = cl.contract_id
    JOIN contract_legs l ON l.id = cl.leg_id
    LEFT JOIN claim_bank_details b ON b.claim_id = cl.id
    LEFT JOIN payouts p ON p.claim_id = cl.id
    WHERE cl.id = ANY(${[...claimIds]}::uuid[]) AND cl.partner_id = ANY(${[...partnerIds]}::uuid[])
    ORDER BY cl.claim_number
  `.execute(trx);
  return rows.rows;
}

// ---------------------------------------------------------------------------------------------
// the failing sweep (pause-failing.ts)

export interface FailingEndpoint {
  id: string;
  partner_id: string;
  environment: Environment;
  url: string;
  failed: number;
}

/**
 * The enabled, live endpoints (all, or the one named) created and last resumed before `since` whose
 * attempts since `since` number at least `minFailed` failed and none succeeded (an attempt without
 * error). An enabled endpoint whose `paused_at` is still set was resumed by a process of a version
 * before migration 0067 (a rolling deploy: it sets `enabled` only, leaving `resumed_at` as it was):
 * resumed after that pause, so `paused_at` stands for its last resume, a lower bound of it. Read per
 * endpoint through the deliveries' index on (endpoint_id, last_attempt_at) (migration 0068: a delivery
 * attempted since then has its last attempt since then), then their attempts.
 */
export async function failingEndpoints(
  db: Executor,
  q: { since: Date; minFailed: number; endpointId?: string | undefined },
): Promise<FailingEndpoint[]> {
  const only = q.endpointId === undefined ? sql`` : sql`AND e.id = ${q.endpointId}`;
  const result = await sql<FailingEndpoint>`
    SELECT e.id, e.partner_id, e.environment, e.url, s.failed::int AS failed
    FROM webhook_endpoints e
    CROSS JOIN LATERAL (
      SELECT count(*) FILTER (WHERE a.error IS NOT NULL) AS failed,
             count(*) FILTER (WHERE a.error IS NULL) AS succeeded
      FROM webhook_deliveries d
      JOIN webhook_delivery_attempts a ON a.delivery_id = d.id AND a.at >= ${q.since}
      WHERE d.endpoint_id = e.id AND d.last_attempt_at >= ${q.since}
    ) s
    WHERE e.enabled AND e.removed_at IS NULL ${only}
      AND e.created_at <= ${q.since} AND (e.resumed_at IS NULL OR e.resumed_at <= ${q.since})
      AND (e.paused_at IS NULL OR e.paused_at <= ${q.since})
      AND s.succeeded = 0 AND s.failed >= ${q.minFailed}
    ORDER BY e.id`.execute(db);
  return result.rows.map((r) => ({ ...r, failed: Number(r.failed) }));
}
