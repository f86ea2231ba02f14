import type { OnUndelivered } from '../notify/index.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { emitCustomerUnreachable } from '../webhooks/index.ts';
import { claimStatusOf } from './claims-repo.ts';

/**
 * What the claims domain does when a message to a claim's customer did not reach them (refused at
 * send, or undelivered by the carrier): while the claim still waits for the customer's bank details,
 * the partner is told (`claim.customer_unreachable`), in the transaction that learnt it — it knows
 * its customer and can correct the phone. The operator sees the same on the claim's page (the
 * message's delivery status) and can correct the phone and resend from the claim desk. A receipt
 * (`paid`) that does not arrive asks nothing of anyone, nor does a receipt arriving after a later
 * message of the claim (sent to a corrected phone, a reminder): that one's own receipt tells.
 */
export function tellPartnerCustomerUnreachable(jobs: JobQueue): OnUndelivered {
  return async (trx, sms) => {
    if (!sms.claimId || sms.kind === 'paid' || sms.superseded) return;
    const status = await claimStatusOf(trx, sms.claimId);
    if (status !== 'awaiting_bank_details' && status !== 'failed') return;
    await emitCustomerUnreachable(
      trx,
      jobs,
      sms.claimId,
      { message: sms.kind, deliveryStatus: sms.status, errorCode: sms.errorCode },
      sms.at,
    );
  };
}
