import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { audit } from '../platform/audit.ts';
import { decrypt, type EncryptionKeys } from '../platform/crypto.ts';
import { describeRange, guardedLookup, nonPublicRange, spell, type Resolver } from './webhook-url.ts';
import * as repo from './webhooks-repo.ts';
import { pauseEndedReason, type DeliveryJob } from './model.ts';
import { tellPartnerEndpointPaused } from './pause-notice.ts';
import type { WebhookDeps } from './deps.ts';

/**
 * Delivering webhooks: one job per attempt. The job takes the delivery (a short lease, so two
 * workers never send it at once), signs the stored payload with Standard Webhooks, POSTs it, and
 * records the attempt; a failure schedules the next attempt as a new job (`startAfter`) in the
 * same transaction that records it, following RETRY_SCHEDULE_SECONDS, and the last failure marks
 * the delivery failed. The `webhook-id` is the event's id on every attempt, so a receiver can
 * drop duplicates; the signature and `webhook-timestamp` are those of the attempt.
 */

/** A delivery: retried while `pending`, then `succeeded` or `failed` (attempts exhausted, or its endpoint removed). */
export { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus } from './model.ts';

/**
 * Seconds to wait after each failed attempt before the next one: 10 attempts in all, the last
 * about 65.6 hours (2.7 days) after the first. After attempt n fails, attempt n+1 waits
 * RETRY_SCHEDULE_SECONDS[n-1]; when the schedule is exhausted the delivery is failed.
 */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [
  5,
  5 * 60,
  30 * 60,
  2 * 3600,
  5 * 3600,
  10 * 3600,
  10 * 3600,
  14 * 3600,
  24 * 3600,
];

/** The delay before the attempt after `attempt` (1-based), in ms, or null when none is left. */
export function retryDelayMs(attempt: number, schedule: readonly number[] = RETRY_SCHEDULE_SECONDS): number | null {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  const seconds = schedule[attempt - 1];
  return seconds === undefined ? null : seconds * 1000;
}

/** How many attempts a delivery gets in all. */
export const maxAttempts = (schedule: readonly number[] = RETRY_SCHEDULE_SECONDS): number => schedule.length + 1;

/** A receiver has this long to answer: to connect, take the whole request body and send its status (and a failure's body). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Why the pending deliveries of an endpoint paused on a 410 ended. */
const GONE = pauseEndedReason('gone');
/** A worker holds a delivery this long at most; longer than any attempt takes. */
const LEASE_MS = 45_000;

/** What the webhook use cases need, plus the delivery's own knobs (tests shorten them). */
export interface DeliveryDeps extends WebhookDeps {
  timeoutMs?: number | undefined;
  schedule?: readonly number[] | undefined;
}

export type DeliveryOutcome = 'succeeded' | 'retry_scheduled' | 'failed' | 'skipped';

export class DeliveryBusy extends Error {
  constructor(deliveryId: string) {
    super(`Delivery ${deliveryId} is being sent by another worker; the job will be retried.`);
    this.name = 'DeliveryBusy';
  }
}

/** The `webhook-signature` value: one `v1,…` per secret (the current one, and the previous one during a rotation). */
export function signatureHeader(secrets: readonly string[], msgId: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(msgId, at, body)).join(' ');
}

/**
 * The body POSTed: the payload's text as emitted, opened when it is sealed (SEALED_WEBHOOK_EVENT_TYPES,
 * sealed as JSON.stringify wrote it), else re-serialised from the json column (the same text: the
 * driver parses it, JSON.stringify writes its keys back in their order). Every attempt sends the same bytes.
 */
export function payloadText(
  keys: EncryptionKeys,
  target: Pick<repo.DeliveryTarget, 'payload' | 'payload_enc'>,
): string {
  return target.payload_enc === null ? JSON.stringify(target.payload) : decrypt(keys, target.payload_enc);
}

/** The job: makes attempt `job.attempt` of the delivery. */
export async function deliverWebhook(deps: DeliveryDeps, job: DeliveryJob): Promise<DeliveryOutcome> {
  const schedule = deps.schedule ?? RETRY_SCHEDULE_SECONDS;
  const claimedAt = deps.now();
  const claim = await repo.claimDelivery(
    deps.db,
    job.deliveryId,
    job.attempt,
    claimedAt,
    new Date(claimedAt.getTime() + LEASE_MS),
  );
  if (!claim.claimed) {
    if (claim.why === 'stale') return 'skipped'; // a duplicate job, or the delivery ended meanwhile
    throw new DeliveryBusy(job.deliveryId);
  }
  const target = await repo.findDeliveryTarget(deps.db, job.deliveryId);
  if (!target) return 'skipped';
  if (target.removed_at || !target.enabled) {
    await repo.abandonDelivery(
      deps.db,
      target.id,
      target.removed_at ? 'endpoint removed' : pauseEndedReason(target.paused_reason ?? 'manual'),
      deps.now(),
    );
    return 'failed';
  }

  const at = deps.now();
  const secrets = [decrypt(deps.keys.encryption, target.secret_enc)];
  if (
    target.previous_secret_enc &&
    target.previous_secret_expires_at &&
    target.previous_secret_expires_at.getTime() > at.getTime()
  ) {
    secrets.push(decrypt(deps.keys.encryption, target.previous_secret_enc));
  }
  const body = payloadText(deps.keys.encryption, target);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Parasol-Webhooks/1.0',
    'webhook-id': target.event_id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, target.event_id, at, body),
  };
  const result = await postWebhook(target.url, body, headers, {
    allowPrivate: deps.allowPrivate,
    resolve: deps.resolve,
    timeoutMs: deps.timeoutMs ?? DELIVERY_TIMEOUT_MS,
  });

  const succeeded = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  let paused = false;
  const outcome = await deps.db.transaction().execute(async (trx): Promise<DeliveryOutcome> => {
    // Every outcome reads the endpoint's row locked first, as every change of an endpoint does (the
    // endpoint, then its deliveries): one lock order, no deadlock. FOR SHARE — attempts of one endpoint
    // record side by side — except on a 410, which may pause it (FOR UPDATE, taken at once: a shared
    // lock upgraded later could deadlock with another 410). A pause (partner, sweep) takes FOR UPDATE,
    // so it waits for an outcome being recorded and then sees it: the failing sweep's re-check sees a
    // success recorded meanwhile and leaves the endpoint live (pause-failing.ts).
    // 410 Gone: the receiver is no more (Standard Webhooks). Still at the URL that answered, the delivery
    // ends without a retry and a live endpoint is paused; moved meanwhile, the 410 came from
    // a receiver that is no longer its own: an ordinary failure, whose next attempt goes to the new URL.
    // A failure whose endpoint was paused or removed while this attempt was being sent (the pause leaves
    // a delivery being sent to record its own attempt) ends here, its attempt logged and the pause's
    // reason given, rather than waiting hours for a retry that would only find the endpoint paused.
    const endpoint = await repo.findEndpoint(
      trx,
      {},
      target.endpoint_id,
      result.statusCode === 410 ? { forUpdate: true } : { forShare: true },
    );
    const gone = result.statusCode === 410 && (endpoint === undefined || endpoint.url === target.url);
    const stopped =
      succeeded || gone
        ? null
        : endpoint === undefined
          ? 'endpoint removed'
          : endpoint.enabled
            ? null
            : pauseEndedReason(endpoint.paused_reason ?? 'manual');
    const delay = succeeded || gone || stopped ? null : retryDelayMs(job.attempt, schedule);
    const nextAttemptAt = delay === null ? null : new Date(at.getTime() + delay);
    const recorded = await repo.recordAttempt(trx, target.id, {
      attempt: job.attempt,
      at,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: succeeded ? null : result.error,
      ...(stopped ? { deliveryError: excerpt(`${stopped}; last attempt: ${result.error ?? 'failed'}`, 500) } : {}),
      status: succeeded ? 'succeeded' : nextAttemptAt ? 'pending' : 'failed',
      nextAttemptAt,
    });
    if (!recorded) return 'skipped';
    if (gone && endpoint?.enabled) {
      await repo.updateEndpoint(trx, endpoint.id, { enabled: false, paused_reason: 'gone', paused_at: at });
      // a delivery another worker is sending records its own outcome (its 410 finds the endpoint paused)
      const ended = await repo.failPendingDeliveries(trx, endpoint.id, GONE, at, { skipHeldAt: deps.now() });
      await audit(trx, {
        actor: 'system:webhooks',
        partnerId: target.partner_id,
        environment: target.environment,
        entity: 'webhook_endpoint',
        entityId: target.endpoint_id,
        action: 'disabled',
        data: { reason: 'gone', deliveryId: target.id, pendingDeliveriesEnded: ended },
      });
      await tellPartnerEndpointPaused(deps, trx, {
        endpointId: endpoint.id,
        partnerId: endpoint.partner_id,
        environment: endpoint.environment,
        url: endpoint.url,
        reason: 'gone',
        pausedAt: at,
        days: 0,
        pendingEnded: ended,
      });
      paused = true;
    }
    if (nextAttemptAt) {
      await deps.jobs.send(
        'webhooks_deliver',
        { deliveryId: target.id, attempt: job.attempt + 1 },
        { trx, startAfter: nextAttemptAt },
      );
      return 'retry_scheduled';
    }
    return succeeded ? 'succeeded' : 'failed';
  });
  if (paused) deps.endpoints?.invalidate(); // other processes learn it from the change notification
  return outcome;
}

/**
 * The sweep behind `webhooks_requeue` (every 10 minutes): a delivery still pending an hour after its
 * attempt was due, held by no worker, lost its job — a worker that died more often than pg-boss
 * retries, a database outage longer than they last (about 6 minutes). Each gets the job of its next
 * attempt again, in the transaction that marks that attempt due now (the next sweep waits an hour
 * more), so every event is still attempted, late. A job that was not lost after all (workers stopped
 * for an hour) finds the attempt made by the first of the two and does nothing (`claimDelivery`).
 * Returns how many were queued.
 */
export async function requeueStaleDeliveries(
  deps: Pick<WebhookDeps, 'db' | 'jobs' | 'now'>,
  olderThanMinutes = 60,
  limit = 1_000,
): Promise<number> {
  const now = deps.now();
  const dueBefore = new Date(now.getTime() - olderThanMinutes * 60_000);
  return deps.db.transaction().execute(async (trx) => {
    const stale = await repo.markStaleDeliveriesDue(trx, { dueBefore, now, limit });
    await deps.jobs.sendMany(
      'webhooks_deliver',
      stale.map((d) => ({ deliveryId: d.id, attempt: d.attempts + 1 })),
      { trx },
    );
    return stale.length;
  });
}

export interface PostResult {
  /** The receiver's status code, or null when no response arrived. */
  statusCode: number | null;
  durationMs: number;
  /** Why the attempt failed (network error, timeout, refused address, or `HTTP 500: <body excerpt>`). */
  error: string | null;
}

const EXCERPT = 200;

/** Printable excerpt for the delivery log: no control characters, at most 200 characters. */
export function excerpt(text: string, max = EXCERPT): string {
  // eslint-disable-next-line no-control-regex -- control characters are what the excerpt removes
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * One POST, never following redirects (a 3xx is a failed attempt), with an overall deadline. The
 * connection goes only to addresses the URL policy accepts, checked on the addresses actually used.
 *
 * The status line decides: a `2xx` is a success as soon as it arrives and the whole request body has
 * been written, whatever its own body does after (never read, the connection closed) — a receiver that
 * answered 200 and then streams, or never ends, its body has taken the event, and a retry would be a
 * duplicate. A `2xx` that comes before the request body is all sent waits for it (cutting the upload
 * would leave the receiver half an event), within the deadline. A `101` (upgrade) is refused. Another status that arrived before
 * the deadline is kept in the result when its body does not end in time (`HTTP 503 (timeout …)`), so
 * the log shows what the receiver said and a `410 Gone` still pauses the endpoint.
 */
export async function postWebhook(
  urlText: string,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; resolve?: Resolver | undefined; timeoutMs: number },
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return { statusCode: null, durationMs: 0, error: 'invalid URL' };
  }
  if (!options.allowPrivate) {
    // IP literals never reach the lookup: check them here. Names are checked by guardedLookup,
    // on the addresses the connection then uses.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const range = nonPublicRange(host);
    if (range && range !== 'invalid')
      return {
        statusCode: null,
        durationMs: elapsed(),
        error: `url_not_allowed: ${spell(host)} is a ${describeRange(range)} address`,
      };
    if (url.protocol !== 'https:')
      return { statusCode: null, durationMs: elapsed(), error: 'url_not_allowed: https required' };
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    /** The status of the answer once its head arrived; its body read so far (a failure's, 1 KiB at most). */
    let answered: number | null = null;
    /** What a 3xx's log line says besides its status, kept when its body then breaks off. */
    let redirect = '';
    /** The request body has been handed whole to the connection ('finish'). */
    let sent = false;
    const chunks: Buffer[] = [];
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup({ allowPrivate: options.allowPrivate, resolve: options.resolve }) as never,
        agent: false,
      },
      (response) => {
        const statusCode = response.statusCode ?? null;
        answered = statusCode;
        if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
          // a success once the receiver has the whole body: its own body is neither kept nor waited for
          const succeed = () => {
            finish({ statusCode, error: null });
            request.destroy();
          };
          response.resume();
          if (sent) succeed();
          else request.once('finish', succeed);
          return;
        }
        if (statusCode !== null && statusCode >= 300 && statusCode < 400)
          redirect = ` (redirect to ${excerpt(String(response.headers.location ?? '?'), 100)} not followed)`;
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size >= 1024) return;
          chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () => {
          const text = excerpt(Buffer.concat(chunks).toString('utf8'));
          finish({ statusCode, error: excerpt(`HTTP ${statusCode}${redirect}${text ? `: ${text}` : ''}`) });
        });
        response.on('error', (error) => failed(error));
      },
    );
    /** The request or its answer broke off (the deadline, the connection): with the status, when one came. */
    const failed = (error: NodeJS.ErrnoException) => {
      if (answered === null) {
        const prefix = error.code === 'EWEBHOOKURL' ? 'url_not_allowed: ' : '';
        return finish({ statusCode: null, error: excerpt(`${prefix}${error.message}`) });
      }
      const text = excerpt(Buffer.concat(chunks).toString('utf8'));
      finish({
        statusCode: answered,
        error: excerpt(`HTTP ${answered}${redirect} (${error.message})${text ? `: ${text}` : ''}`),
      });
    };
    // The deadline settles the attempt itself: a request Node has let go of (an upgrade, a socket
    // handed over) emits nothing more after destroy(), and an attempt that never settles blocks its worker.
    const timer = setTimeout(() => {
      const error = new Error(`timeout after ${options.timeoutMs} ms`);
      request.destroy(error);
      failed(error);
    }, options.timeoutMs);
    request.on('finish', () => {
      sent = true;
    });
    // A `101 Switching Protocols` hands the socket over and ends the request without an 'error': refused.
    request.on('upgrade', (_response, socket) => {
      socket.destroy();
      answered = 101;
      finish({ statusCode: 101, error: 'HTTP 101 (upgrade refused)' });
    });
    request.on('error', (error: NodeJS.ErrnoException) => failed(error));
    request.end(body);
  });
}
