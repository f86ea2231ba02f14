import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';
import { LINK_MESSAGE_WORDS } from './sms/model.ts';

/**
 * SQL the two channels share: a production message carrying the customer's bank-details link (its
 * key's word is one of `LINK_MESSAGE_WORDS`; an email's dedupe key is its SMS's idempotency key) is
 * checked against its link when it is sent, by the SMS job (`sms_messages`) and by the email job
 * (`emails`) alike. Sandbox and preproduction messages are not: their SMS are in the outbox at once,
 * and their emails stay in the email outbox whatever the claim (docs/OPERATOR.md, "Email").
 */

const CLAIM_CLOSED = ['skipped: the claim is ', ', its link closed; not sent'] as const;

/** Why a link message was not sent: its row's `last_error` (the job's outcome `skipped`). */
export const LINK_SKIPPED = {
  /** The claim no longer waits on its link (the claims domain's `LINK_USELESS_CLAIM_STATUSES`). */
  claimClosed: (status: string) => `${CLAIM_CLOSED[0]}${status}${CLAIM_CLOSED[1]}`,
  /** A later message (a reminder, a resend, a rejected payment's) gave the claim a new link: this one no longer works. */
  replaced: 'skipped: a newer link replaced this one; not sent',
  /** Its link was used (bank details given, the payment's outcome not yet known). */
  used: 'skipped: its link was already used; not sent',
  /** Its link is past its due date (the claim about to expire), and the claim is not under the desk's review. */
  expired: 'skipped: its link is past its due date; not sent',
} as const;

/** The two queues, and how each names a message's key and claim. */
const CHANNELS = {
  sms: { table: 'sms_messages', key: 'idempotency_key', claimId: sql`m.claim_id` },
  email: {
    table: 'emails',
    key: 'dedupe_key',
    // a claim message's dedupe key is `claim:<claim id>:<word>[:…]`; any other key names no claim
    claimId: sql`CASE WHEN m.dedupe_key ~ '^claim:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:'
                      THEN split_part(m.dedupe_key, ':', 2)::uuid END`,
  },
} as const;

/**
 * A queued production link message (not leased) whose link no longer works, or is no longer worth
 * sending, marked `rejected` with the reason (`LINK_SKIPPED`) as its error, never sent — as the link
 * page sees it (payouts/bank-details.ts): the claim in `linkUselessClaimStatuses` (settled, or its
 * bank details given: the claims domain's, given by the job); a newer link of the claim (one live
 * link per claim, `claim_tokens`: the token and its messages are written in one transaction, so they
 * share its `now()`, and a later link's is later); the link used, or past its due date outside the
 * desk's review (`now`: the application's clock, the link page's). Answers whether it was.
 */
export async function skipDeadLinkMessage(
  db: Executor,
  channel: keyof typeof CHANNELS,
  messageId: string,
  o: { linkUselessClaimStatuses: readonly string[]; now: Date },
): Promise<boolean> {
  const c = CHANNELS[channel];
  const table = sql.table(c.table);
  const key = sql.ref(`m.${c.key}`);
  const useless =
    o.linkUselessClaimStatuses.length > 0
      ? sql`cl.status IN (${sql.join([...o.linkUselessClaimStatuses])})`
      : sql`false`;
  const result = await sql`
    WITH verdict AS (
      SELECT m.id, CASE
          WHEN ${useless} THEN ${CLAIM_CLOSED[0]} || cl.status || ${CLAIM_CLOSED[1]}
          WHEN ct.created_at > m.created_at THEN ${LINK_SKIPPED.replaced}
          WHEN ct.used_at IS NOT NULL THEN ${LINK_SKIPPED.used}
          WHEN ct.expires_at <= ${o.now} AND cl.manual_review_at IS NULL THEN ${LINK_SKIPPED.expired}
        END AS reason
      FROM ${table} m
      JOIN claims cl ON cl.id = ${c.claimId}
      LEFT JOIN claim_tokens ct ON ct.claim_id = cl.id
      WHERE m.id = ${messageId} AND m.environment = 'production'
        AND split_part(${key}, ':', 3) IN (${sql.join([...LINK_MESSAGE_WORDS])}))
    UPDATE ${table} m SET status = 'rejected', locked_until = NULL, last_error = v.reason
    FROM verdict v
    WHERE m.id = v.id AND v.reason IS NOT NULL AND m.status = 'queued'
      AND (m.locked_until IS NULL OR m.locked_until < now())`.execute(db);
  return (result.numAffectedRows ?? 0n) > 0n;
}

/**
 * A queued production claim message of one of `words` (its key's word: `reminder`, `expired`), for
 * the quiet-hours hold of its send job, on either channel: the customer's phone sealed (the SMS's own
 * recipient; an email's claim's contract's phone — the zone comes from the number on both channels),
 * the claim's due date, the trip's ends (a number of no country), when it was written, and whether
 * another job holds its lease. Undefined: not queued, not production, or another kind; `phone_enc`
 * null: an email whose claim is gone (no zone known: sent at any hour).
 */
export async function findMessageToHold(
  db: Executor,
  channel: keyof typeof CHANNELS,
  messageId: string,
  words: readonly string[],
) {
  const c = CHANNELS[channel];
  const table = sql.table(c.table);
  const key = sql.ref(`m.${c.key}`);
  const phone = channel === 'sms' ? sql`m.to_enc` : sql`co.customer_phone_enc`;
  if (words.length === 0) return undefined;
  const result = await sql<{
    key: string;
    phone_enc: string | null;
    created_at: Date;
    bank_details_due_at: Date | null;
    trip_departure_airport: string | null;
    trip_arrival_airport: string | null;
    leased: boolean;
  }>`
    SELECT ${key} AS key, ${phone} AS phone_enc, m.created_at, cl.bank_details_due_at,
      (SELECT l.departure_airport FROM contract_legs l WHERE l.contract_id = cl.contract_id
        ORDER BY l.leg_index ASC LIMIT 1) AS trip_departure_airport,
      (SELECT l.arrival_airport FROM contract_legs l WHERE l.contract_id = cl.contract_id
        ORDER BY l.leg_index DESC LIMIT 1) AS trip_arrival_airport,
      coalesce(m.locked_until >= now(), false) AS leased
    FROM ${table} m
    LEFT JOIN claims cl ON cl.id = ${c.claimId}
    LEFT JOIN contracts co ON co.id = cl.contract_id
    WHERE m.id = ${messageId} AND m.status = 'queued' AND m.environment = 'production'
      AND split_part(${key}, ':', 3) IN (${sql.join([...words])})`.execute(db);
  const row = result.rows[0];
  return row
    ? {
        ...row,
        created_at: new Date(row.created_at),
        bank_details_due_at: row.bank_details_due_at === null ? null : new Date(row.bank_details_due_at),
      }
    : undefined;
}

/**
 * Holds a queued message not leased until `until` (quiet hours, or the SMTP back-off): no job nor the
 * sweep takes it before; no attempt counted, its error kept. Whether it was (not when another job
 * holds it).
 */
export async function holdQueuedMessage(
  db: Executor,
  channel: keyof typeof CHANNELS,
  messageId: string,
  until: Date,
): Promise<boolean> {
  const table = sql.table(CHANNELS[channel].table);
  const result = await sql`
    UPDATE ${table} SET locked_until = ${until}
    WHERE id = ${messageId} AND status = 'queued' AND (locked_until IS NULL OR locked_until < now())`.execute(db);
  return (result.numAffectedRows ?? 0n) > 0n;
}
