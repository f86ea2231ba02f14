import { audit } from '../../platform/audit.ts';
import type { Breaker, Granted } from '../../platform/circuit-breaker.ts';
import { decrypt, encrypt, type Keyring } from '../../platform/crypto.ts';
import type { Environment } from '../../platform/db-schema.ts';
import type { Db, Executor } from '../../platform/db.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import type { QuietHours } from '../../platform/config.ts';
import { giveUpStaleMessages } from '../give-up-stale.ts';
import { holdQueuedMessage, skipDeadLinkMessage } from '../link-messages-repo.ts';
import { holdForQuietHours } from '../quiet-hold.ts';
import { messageKind } from '../sms/claim-messages.ts';
import * as repo from './email-repo.ts';
import { EmailRejectedError, EmailRetryableError, type EmailProvider } from './email.ts';
import type { EmailStatus } from './model.ts';

/**
 * Email: the message is written in the transaction of the change that causes it (recipient, subject
 * and bodies sealed: they carry single-use links) with its send job, announced after commit; the job
 * sends it through the provider after commit. A server that cannot be reached, or answers 4xx, is
 * retried with back-off (`EMAIL_QUEUE_POLICY`), and so is a server that refuses us (credentials,
 * relay, policy: `reason` `refused`, ours to fix); a message refused for its recipient's address or its
 * content (5xx) is marked `rejected` and audited — for the address, the message's owner is told
 * (`onRejected`: the partner, `claim.customer_unreachable`). Exactly once: one row per dedupe key whatever the retries; a send
 * holds its row with a lease; a crash between the server's acceptance and our record may send it
 * again (SMTP has no idempotency), with the same Message-ID, at most MAX_EMAIL_ATTEMPTS times.
 */

/** 8 retries from 5 s (about 21 minutes to 42 minutes in all); expiry 60 s: three SMTP timeouts of 10 s and more. */
export const EMAIL_QUEUE_POLICY = { retryLimit: 8, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 } as const;
/**
 * Sends that may have delivered the message, at most per message, whatever the jobs: an attempt the
 * server refused with a 4xx or that opened no connection (`EmailRetryableError.notSent`) is given
 * back, so an SMTP outage longer than the job's retries leaves the message to `requeueStaleEmails`.
 */
export const MAX_EMAIL_ATTEMPTS = 9;

export interface QueuedEmail {
  /** What the message is, for the outbox and the metrics: `user_invitation`, `password_reset`, `claim_opened`… */
  kind: string;
  /**
   * Unique per logical message: the same key queued twice writes one message. A claim's email has its
   * SMS's idempotency key (`claim:<id>:bank-details`, `claim:<id>:reminder:<due>`…: the send job reads
   * the claim and the kind word in it); a partner user's, `user:<id>:invitation:<link id>`.
   */
  dedupeKey: string;
  to: string;
  subject: string;
  text: string;
  html?: string | undefined;
  /** The partner the message is about, when there is one (customer emails, partner users). */
  partnerId?: string | null | undefined;
  /** A customer's environment: sandbox and preproduction messages are kept in the outbox, never sent. */
  environment?: Environment | null | undefined;
}

/**
 * Writes an email in the caller's transaction and its send job (announced after commit when `trx`
 * was opened by `transaction()`). Answers false when a message with this dedupe key already exists
 * (nothing written, no job).
 */
export async function queueEmail(
  trx: Executor,
  deps: { jobs: JobQueue; keys: Pick<Keyring, 'encryption'> },
  email: QueuedEmail,
): Promise<boolean> {
  const seal = (value: string) => encrypt(deps.keys.encryption, value);
  const emailId = await repo.insertQueuedEmail(trx, {
    kind: email.kind,
    dedupe_key: email.dedupeKey,
    partner_id: email.partnerId ?? null,
    environment: email.environment ?? null,
    to_enc: seal(email.to),
    subject_enc: seal(email.subject),
    text_enc: seal(email.text),
    html_enc: email.html === undefined ? null : seal(email.html),
    status: 'queued',
  });
  if (!emailId) return false;
  await deps.jobs.send('email_send', { emailId }, { trx, singletonKey: emailSendKey(emailId) });
  return true;
}

/**
 * The singleton key of an email's send jobs: one chain of retries per message (`requeueStaleEmails`
 * starts none beside a live one).
 */
export const emailSendKey = (emailId: string): string => `email:${emailId}`;

/**
 * A production customer's message while no SMTP server is configured: it stays queued (the outbox is
 * for test environments and for the platform's own messages), the job is retried, then fails, and
 * `requeueStaleEmails` sends it once PARASOL_SMTP_* is set.
 */
export class EmailProviderMissing extends Error {
  constructor() {
    super(
      "No SMTP server is configured (set PARASOL_SMTP_*): a production customer's email stays queued; the job is retried a few times, then fails, and the message is sent once SMTP is configured.",
    );
    this.name = 'EmailProviderMissing';
  }
}

/** How long a send may hold its message: the job's own expiry. */
const SEND_LEASE_SECONDS = EMAIL_QUEUE_POLICY.expireInSeconds;

/** A claim's email the server refused for its recipient's address (`EmailRejectedError.recipient`). */
export interface RejectedEmail {
  emailId: string;
  /** The claim its dedupe key names (`claim:<id>:<word>…`); null for any other message. */
  claimId: string | null;
  partnerId: string | null;
  environment: Environment | null;
  /** What the message was: a claim's, as its SMS's (opened, reminder, paid: `messageKind`); else the row's kind. */
  kind: string;
  /** The SMTP reply code (550, 553…), or null (an address that is none, refused before any reply). */
  errorCode: number | null;
  at: Date;
}

/**
 * What the owner of a message does when its recipient's address is refused, in the transaction that
 * marks it `rejected` (once per message): the claims domain tells the partner
 * (`claim.customer_unreachable`, channel `email`).
 */
export type OnEmailRejected = (trx: Executor, email: RejectedEmail) => Promise<void>;

const CLAIM_KEY = /^claim:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):/;

/**
 * The SMTP circuit's settings: opened by the first refused login (a refusal is ours to fix, not a
 * passing error), closed by the next login that works; one probe every 5 minutes meanwhile (an
 * operator's fix is picked up within 5 minutes), a probe that never answered (the send's 60 s expiry)
 * replaced after 2. Its instants are the database's clock (as every `SharedCircuitBreaker`'s): every
 * worker compares the one probe's mark and the cool-down's end on the same clock, whatever its own says.
 */
export const SMTP_CIRCUIT = {
  key: 'email:smtp',
  options: { failureThreshold: 1, coolDownMs: 5 * 60_000, probeTimeoutMs: 2 * 60_000 },
} as const;

export interface EmailProviders {
  /**
   * Sandbox and preproduction messages; without `smtp`, the platform's own messages too (partner
   * users' invitations and resets: an operator passes their links on). Never a production customer's.
   */
  outbox: EmailProvider;
  /** Every other message, when configured. */
  smtp: EmailProvider | undefined;
}

/**
 * The send job. Takes the message with a lease (two jobs for one message never send it at once),
 * sends it, records the outcome. Returns what happened; throws to have the queue retry. A production
 * customer email carrying a bank-details link (claim opened, reminder) whose link no longer works or
 * is no longer wanted by the time it is sent (SMTP down or not configured meanwhile) is not sent, as
 * its SMS is not (`skipDeadLinkMessage`): its claim in `linkUselessClaimStatuses` (the claims
 * domain's: voided, paid, expired, or bank details given — payment pending), a newer link of the
 * claim (a later reminder, resend, rejected payment's), or the link used or past its due date. Marked
 * `rejected`, `skipped: …` its error (why), no audit row, and `skipped` answered. Other messages (the
 * receipt, the platform's own) and sandbox/preproduction ones (kept in the outbox) are sent whatever
 * the claim.
 */
export async function sendQueuedEmail(
  deps: {
    db: Db;
    keys: Pick<Keyring, 'encryption'>;
    providers: EmailProviders;
    now?: () => Date;
    linkUselessClaimStatuses: readonly string[];
    /** Told when the server refuses the recipient's address (not our server, not the message): once per message. */
    onRejected?: OnEmailRejected | undefined;
    /**
     * To queue a held message's send job for the morning (quiet hours) or for the SMTP circuit's
     * probe; without it a held message waits for the `email_requeue` sweep.
     */
    jobs?: JobQueue | undefined;
    /** The customer's night, when a reminder waits (config.smsQuietHours, the SMS's); absent: any hour. */
    quietHours?: QuietHours | null | undefined;
    /**
     * The SMTP back-off every send shares (the worker's: platform's `SharedCircuitBreaker`,
     * provider_circuits row `email:smtp`, opened by one refused login — `SMTP_CIRCUIT`): once our
     * server refuses our login or our sender (`reason` `refused`), the other queued messages wait for
     * the circuit's cool-down instead of each logging in and failing on its own schedule; one probe
     * then, whose success closes it. A send not made, or that told nothing of our login (a network
     * error, a 4xx), gives the probe's turn back (`release`). Absent: each message tries on its own.
     */
    smtpGate?: Breaker | undefined;
  },
  emailId: string,
): Promise<'sent' | 'rejected' | 'skipped' | 'held' | 'circuit_open'> {
  const { linkUselessClaimStatuses } = deps;
  const now = (deps.now ?? (() => new Date()))();
  if (await skipDeadLinkMessage(deps.db, 'email', emailId, { linkUselessClaimStatuses, now })) return 'skipped';
  if (!deps.providers.smtp) {
    const state = await repo.findEmailState(deps.db, emailId);
    if (state?.environment === 'production') {
      if (state.status !== 'queued') return 'skipped';
      throw new EmailProviderMissing();
    }
  }
  const jobs = deps.jobs;
  const sendAgainAt = async (trx: Executor, startAfter: Date) => {
    if (jobs) await jobs.send('email_send', { emailId }, { trx, startAfter, singletonKey: emailSendKey(emailId) });
  };
  if (deps.quietHours) {
    // a reminder an outage kept queued waits for the customer's morning, as its SMS does (one hold for both)
    const held = await holdForQuietHours(deps, 'email', emailId, {
      now,
      quiet: deps.quietHours,
      giveUpHours: EMAIL_GIVE_UP_HOURS,
      queueSend: sendAgainAt,
    });
    if (held) return held;
  }
  // the SMTP back-off: after a refused login, the other messages wait for the circuit's probe
  let permit: Granted | undefined;
  const gate = deps.smtpGate;
  if (gate && deps.providers.smtp) {
    const state = await repo.findEmailState(deps.db, emailId);
    if (!state || state.status !== 'queued') return 'skipped';
    const bySmtp = state.environment !== 'sandbox' && state.environment !== 'preproduction';
    if (bySmtp) {
      const p = await gate.acquire(now);
      if (!p.allowed) {
        // held (no attempt used) until the circuit lets a probe through, its send job queued then
        const startAfter = new Date(Date.now() + Math.max(0, p.retryAt.getTime() - now.getTime()));
        return deps.db.transaction().execute(async (trx) => {
          if (!(await holdQueuedMessage(trx, 'email', emailId, startAfter))) return 'skipped' as const;
          await sendAgainAt(trx, startAfter);
          return 'circuit_open' as const;
        });
      }
      permit = p;
    }
  }
  const row = await repo.leaseQueuedEmail(deps.db, emailId, {
    leaseSeconds: SEND_LEASE_SECONDS,
    maxAttempts: MAX_EMAIL_ATTEMPTS,
  });
  if (!row) {
    // sent, refused, or being sent by another job: no login tried, the probe's turn given back
    if (permit) await gate?.release(permit);
    return 'skipped';
  }
  const customerTest = row.environment === 'sandbox' || row.environment === 'preproduction';
  const provider = customerTest ? deps.providers.outbox : (deps.providers.smtp ?? deps.providers.outbox);
  const open = (sealed: string) => decrypt(deps.keys.encryption, sealed);
  try {
    const sent = await provider.send({
      to: open(row.to_enc),
      subject: open(row.subject_enc),
      text: open(row.text_enc),
      html: row.html_enc === null ? undefined : open(row.html_enc),
      dedupeKey: row.dedupe_key,
    });
    await repo.markEmailSent(deps.db, emailId, {
      provider: provider.name,
      providerMessageId: sent.providerMessageId,
      at: (deps.now ?? (() => new Date()))(),
    });
    if (permit) await gate?.success(permit);
    return 'sent';
  } catch (error) {
    if (error instanceof EmailRejectedError) {
      // the server took our login and judged the message: the circuit may close — not when our own
      // check refused the address before any connection (`local`): that told nothing of the server
      if (permit) await (error.local ? gate?.release(permit) : gate?.success(permit));
      return deps.db.transaction().execute(async (trx) => {
        if (!(await repo.markEmailRejected(trx, emailId, provider.name, error.message))) return 'skipped';
        await audit(trx, {
          actor: 'system',
          partnerId: row.partner_id,
          environment: row.environment,
          entity: 'email',
          entityId: emailId,
          action: 'email_rejected',
          data: { kind: row.kind, responseCode: error.responseCode ?? null, recipient: error.recipient },
        });
        // the customer's address, not our server nor the message: someone who knows the customer can correct it
        if (error.recipient && deps.onRejected) {
          const claim = CLAIM_KEY.exec(row.dedupe_key);
          await deps.onRejected(trx, {
            emailId,
            claimId: claim?.[1] ?? null,
            partnerId: row.partner_id,
            environment: row.environment,
            kind: claim ? messageKind(row.dedupe_key) : row.kind,
            errorCode: error.responseCode ?? null,
            at: (deps.now ?? (() => new Date()))(),
          });
        }
        return 'rejected' as const;
      });
    }
    const message = error instanceof EmailRetryableError ? error.message : 'unexpected error';
    // our login or sender refused (not a refusal of one recipient or message at RCPT TO or DATA):
    // every other send waits for the circuit's cool-down
    if (permit) {
      if (error instanceof EmailRetryableError && error.atLogin)
        await gate?.failure((deps.now ?? (() => new Date()))(), permit);
      // refused at RCPT TO or DATA: the server took our login, the circuit may close
      else if (error instanceof EmailRetryableError && error.reason === 'refused') await gate?.success(permit);
      // a network failure, a 4xx, anything else: nothing known of our login, the probe's turn given back
      else await gate?.release(permit);
    }
    await repo.releaseEmail(deps.db, emailId, message, {
      notSent: error instanceof EmailRetryableError && error.notSent,
    });
    throw error;
  }
}

export interface EmailView {
  id: string;
  kind: string;
  partner: string | null;
  environment: Environment | null;
  status: EmailStatus;
  provider: string | null;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
  to: string;
  subject: string;
  /** The body of a message kept in the outbox (never sent); null for one sent by SMTP. */
  text: string | null;
}

/**
 * The emails, newest first, opened: the outbox (what the outbox provider kept, bodies included) and
 * the messages sent or waiting (recipient and subject only: a real message's body, with its links, is
 * the recipient's alone).
 */
export async function readEmails(
  db: Executor,
  keys: Pick<Keyring, 'encryption'>,
  o: { offset?: number; limit?: number; kind?: string | undefined } = {},
): Promise<EmailView[]> {
  const rows = await repo.listEmails(db, { offset: o.offset ?? 0, limit: o.limit ?? 50, kind: o.kind });
  const open = (sealed: string) => decrypt(keys.encryption, sealed);
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    partner: r.partner_slug,
    environment: r.environment,
    status: r.status,
    provider: r.provider,
    attempts: r.attempts,
    lastError: r.last_error,
    createdAt: r.created_at,
    sentAt: r.sent_at,
    to: open(r.to_enc),
    subject: open(r.subject_enc),
    text: r.provider === 'outbox' ? open(r.text_enc) : null,
  }));
}

/**
 * Production customers' messages, and the platform's own (no environment: invitations, resets,
 * webhook pause notices), still queued after their send jobs gave up (the SMTP server was
 * unreachable, or not configured for a production customer's, longer than the retries last — about 20 to 40 minutes, so an hour
 * leaves a message still being retried alone): queued again, a batch at a time, while they have
 * attempts left, unless a send job of theirs is still alive (waiting, retrying or running: one chain of
 * retries per message, `emailSendKey`). The worker runs it every 10 minutes when SMTP is configured; each
 * message is sent by one job at a time (the lease), and a claim's link email whose link no longer
 * works (its claim moved on, or a newer link replaced it) is then dropped by the send
 * (`sendQueuedEmail`), not sent.
 */
export async function requeueStaleEmails(
  deps: { db: Db; jobs: JobQueue },
  olderThanMinutes = 60,
  limit = 1_000,
): Promise<number> {
  const stale = await repo.findStaleQueuedEmails(deps.db, { olderThanMinutes, maxAttempts: MAX_EMAIL_ATTEMPTS, limit });
  // a message whose send job is still waiting, retrying or running keeps that one chain: a server that
  // refuses us gives every attempt back, and a new chain every sweep would pile up beside the old
  const live = await deps.jobs.liveSingletonKeys('email_send', stale.map(emailSendKey));
  const ids = stale.filter((id) => !live.has(emailSendKey(id)));
  await deps.jobs.sendMany(
    'email_send',
    ids.map((emailId) => ({ emailId })),
    { singletonKey: (d) => emailSendKey(d.emailId) },
  );
  return ids.length;
}

/**
 * How long a production email may wait in the queue: past it, one still `queued` (SMTP down or not
 * configured that long, or its sends used up) is given up, so someone knows. Docs: OPERATIONS.md.
 */
export const EMAIL_GIVE_UP_HOURS = 24;
/** `last_error` of an email given up: no personal data. */
export const EMAIL_GIVEN_UP = `given up: still queued ${EMAIL_GIVE_UP_HOURS} hours after it was written; not sent`;

/**
 * Marks `rejected` the emails a provider sends for real (a production customer's, and the platform's
 * own, which have no environment: invitations, resets, webhook pause notices — `QUEUES.email`,
 * queued-messages-repo.ts) still queued `EMAIL_GIVE_UP_HOURS` after they were written and not being
 * sent (`EMAIL_GIVEN_UP` their error), each with an `email_rejected` audit row (reason
 * `given_up`). Run by the `email_requeue` sweep, SMTP configured or not (`giveUpStaleMessages`,
 * the SMS's sweep too). Answers how many.
 */
export async function giveUpStaleEmails(
  deps: { db: Db; now?: () => Date },
  o: { olderThanHours?: number; limit?: number } = {},
): Promise<number> {
  return giveUpStaleMessages(deps, 'email', {
    olderThanHours: o.olderThanHours ?? EMAIL_GIVE_UP_HOURS,
    limit: o.limit ?? 1_000,
    error: EMAIL_GIVEN_UP,
    onGivenUp: async (trx, row) => {
      await audit(trx, {
        actor: 'system',
        partnerId: row.partner_id,
        environment: row.environment,
        entity: 'email',
        entityId: row.id,
        action: 'email_rejected',
        data: { kind: row.kind, reason: 'given_up', attempts: Number(row.attempts) },
      });
    },
  });
}

/** Why a send job failed and will be retried, for the metrics: `EmailRetryableError.reason`, `no_provider`, or `unexpected`. */
export function emailRetryReason(error: unknown): string {
  if (error instanceof EmailRetryableError) return error.reason;
  if (error instanceof EmailProviderMissing) return 'no_provider';
  return 'unexpected';
}
