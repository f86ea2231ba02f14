import {
  OutboxSmsProvider,
  queueSms,
  renderClaimSms,
  renderPaymentFailedSms,
  smsExists,
  SqlOutboxStore,
  type ClaimEvent,
  type ClaimSms,
} from '../notify/index.ts';
import { audit } from '../platform/audit.ts';
import { decrypt, randomToken, sha256Hex, type Keyring } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import * as repo from './claims-repo.ts';

/** A claims_notify job: the first message of a claim, or the one after a rejected payment. */
export interface NotifyJob {
  claimId: string;
  /** Default `opened`. */
  kind?: 'opened' | 'payment_failed';
  /** For `payment_failed`: the payout attempt that failed (one message per failed attempt). */
  attempt?: number;
}

export interface NotifyDeps {
  db: Db;
  jobs: JobQueue;
  keys: Keyring;
  publicUrl: string;
  bankDetailsDays: number;
  now: () => Date;
}

/**
 * The job run for each claim opened, and after each rejected payment: gives the claim a
 * bank-details link (a 256-bit token, stored as its SHA-256, valid while the claim waits for bank
 * details; a new link replaces the old one), moves a new claim to `awaiting_bank_details` and texts
 * the customer in their language — one transaction, so a retry after a crash finds either nothing
 * done or everything done. Sandbox and preproduction messages go to the SQL outbox the partner can
 * read; production messages are queued for the SMS provider, sent by their own job after commit.
 */
export async function notifyClaim(deps: NotifyDeps, job: NotifyJob): Promise<'sent' | 'skipped'> {
  const kind = job.kind ?? 'opened';
  return deps.db.transaction().execute(async (trx) => {
    const row = await repo.findClaimToNotify(trx, job.claimId);
    if (!row) return 'skipped';
    const idempotencyKey =
      kind === 'opened' ? `claim:${row.id}:bank-details` : `claim:${row.id}:payment-failed:${job.attempt ?? 1}`;
    // already notified (a retried job), or the claim has moved on
    if (kind === 'opened' && row.status !== 'opened') return 'skipped';
    if (kind === 'payment_failed' && (row.status !== 'failed' || (await smsExists(trx, idempotencyKey))))
      return 'skipped';

    const now = deps.now();
    const dueAt =
      kind === 'opened' || !row.bank_details_due_at
        ? new Date(now.getTime() + deps.bankDetailsDays * 86_400_000)
        : row.bank_details_due_at;
    const token = randomToken(32);
    await repo.issueClaimToken(trx, row.id, sha256Hex(token), dueAt);
    await repo.markClaimAwaitingBankDetails(trx, row.id, kind === 'opened' ? 'awaiting_bank_details' : 'failed', dueAt);

    const input = {
      language: row.customer_language,
      flightNumber: row.flight_number,
      departureDate: row.departure_date,
      amount: Number(row.compensation_amount),
      currency: row.currency,
      publicUrl: deps.publicUrl,
      token,
    };
    const event: ClaimEvent =
      row.event === 'delayed' ? { kind: 'delayed', arrivalDelayMinutes: row.delay_minutes ?? 0 } : { kind: row.event };
    const sms: ClaimSms = kind === 'opened' ? renderClaimSms({ ...input, event }) : renderPaymentFailedSms(input);
    const to = decrypt(deps.keys.encryption, row.customer_phone_enc);
    let provider: string;
    if (row.environment === 'production') {
      await queueSms(trx, deps, {
        idempotencyKey,
        partnerId: row.partner_id,
        environment: row.environment,
        claimId: row.id,
        to,
        body: sms.body,
      });
      provider = 'queued';
    } else {
      const outbox = new OutboxSmsProvider({
        store: new SqlOutboxStore(
          trx,
          { partnerId: row.partner_id, environment: row.environment, contractId: row.contract_id, claimId: row.id },
          deps.keys.encryption,
        ),
        now: deps.now,
      });
      await outbox.send({ to, body: sms.body, link: sms.link, idempotencyKey });
      provider = outbox.name;
    }
    await audit(trx, {
      actor: 'system',
      partnerId: row.partner_id,
      environment: row.environment,
      entity: 'claim',
      entityId: row.claim_number,
      action: kind === 'opened' ? 'awaiting_bank_details' : 'new_bank_details_requested',
      data: { sms: { segments: sms.segments, provider }, bankDetailsDueAt: dueAt.toISOString() },
    });
    return 'sent';
  });
}
