import type { OnEmailRejected, OnUndelivered } from '../notify/index.ts';
import type { Executor } from '../platform/db.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { emitCustomerUnreachable } from '../webhooks/index.ts';
import { claimStatusOf } from './claims-repo.ts';

/**
 * What the claims domain does when a message to a claim's customer did not reach them (an SMS refused
 * at send or undelivered by the carrier; an email whose address the mail server refused): while the
 * claim still waits for the customer's bank details, the partner is told (`claim.customer_unreachable`,
 * its `channel` saying which), in the transaction that learnt it — it knows its customer and can
 * correct the phone or the address. The operator sees the same on the claim's page (the
 * message's delivery status) and can correct the phone and resend from the claim desk. A receipt
 * (`paid`) that does not arrive asks nothing of anyone, nor does a receipt arriving after a later
 * message of the claim (sent to a corrected phone, a reminder): that one's own receipt tells.
 */
export function tellPartnerCustomerUnreachable(jobs: JobQueue): OnUndelivered {
  return async (trx, sms) => {
    if (!sms.claimId || sms.superseded) return;
    await tellIfWaiting(trx, jobs, sms.claimId, {
      channel: 'sms',
      message: sms.kind,
      deliveryStatus: sms.status,
      errorCode: sms.errorCode,
      at: sms.at,
    });
  };
}

/**
 * The same for a claim's email refused for its address (SMTP 550 5.1.1…; not a refusal of our server,
 * which is retried): `claim.customer_unreachable` with `channel` `email`, `deliveryStatus` `rejected`
 * and the SMTP reply code — once per message (the send job marks it rejected once). The partner can
 * correct the address (PATCH /contracts/{contractNumber}/customer): the next messages use it.
 */
export function tellPartnerEmailRejected(jobs: JobQueue): OnEmailRejected {
  return async (trx, email) => {
    if (!email.claimId) return;
    await tellIfWaiting(trx, jobs, email.claimId, {
      channel: 'email',
      message: email.kind,
      deliveryStatus: 'rejected',
      errorCode: email.errorCode,
      at: email.at,
    });
  };
}

async function tellIfWaiting(
  trx: Executor,
  jobs: JobQueue,
  claimId: string,
  r: {
    channel: 'sms' | 'email';
    message: string;
    deliveryStatus: 'rejected' | 'undelivered' | 'failed';
    errorCode: number | null;
    at: Date;
  },
): Promise<void> {
  if (r.message === 'paid') return;
  const status = await claimStatusOf(trx, claimId);
  if (status !== 'awaiting_bank_details' && status !== 'failed') return;
  await emitCustomerUnreachable(
    trx,
    jobs,
    claimId,
    { channel: r.channel, message: r.message, deliveryStatus: r.deliveryStatus, errorCode: r.errorCode },
    r.at,
  );
}
