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
