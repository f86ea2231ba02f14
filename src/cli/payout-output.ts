import { leftOutBicFault } from '../payouts/index.ts';
import type { LeftOutCode, PayoutStatus } from '../platform/db-schema.ts';
import { when } from './kit.ts';

/** What the payout commands and `parasol claims show` print of a payout. */

/** How long a payout has been left out of its file: "3 d", "5 h", "< 1 h". */
export function leftOutFor(since: Date, now: Date): string {
  const hours = Math.floor((now.getTime() - since.getTime()) / 3_600_000);
  return hours >= 48 ? `${Math.floor(hours / 24)} d` : hours >= 1 ? `${hours} h` : '< 1 h';
}

/**
 * What the operator does about a payout a batch left out, from its mark (`leftOutBicFault`): the BIC
 * alone at fault → `parasol payouts set-bic`; the BIC and something else → set the BIC, then the other
 * fault stays; the insurer's address missing → the variable to set; the BIC not at fault → the reason
 * itself (pay it another way: docs/OPERATOR.md).
 */
export function leftOutWhy(code: string, reason: string | null): string {
  if (code === 'no_bic') return 'no BIC (parasol payouts set-bic)';
  // a bank outside the EEA: the insurer's setting, not the customer's details
  if (code === 'no_debtor_address')
    return 'no insurer address for a bank outside the EEA (set PARASOL_SEPA_DEBTOR_ADDRESS, then restart)';
  const fault = leftOutBicFault(code as LeftOutCode, reason);
  const why = `invalid: ${reason ?? 'refused by the file'}`;
  return fault === 'all'
    ? `${why} (parasol payouts set-bic)`
    : fault === 'some'
      ? `${why} (parasol payouts set-bic, then the other fault stays)`
      : why;
}

/**
 * The mark of a pending payout a batch left out of its file — why and what to do, since when, for how
 * long: "no BIC (parasol payouts set-bic) since 2026-11-20 08:00:00Z (3 d)" — or null when it is not
 * (not pending, or never left out). One format for every listing (`payouts list`, `claims show`).
 */
export function leftOutMark(
  p: {
    status: PayoutStatus;
    left_out_at: Date | null;
    left_out_code: string | null;
    left_out_reason: string | null;
  },
  now: Date,
): string | null {
  if (p.status !== 'pending' || !p.left_out_at) return null;
  return `${leftOutWhy(p.left_out_code ?? 'invalid', p.left_out_reason)} since ${when(p.left_out_at)} (${leftOutFor(p.left_out_at, now)})`;
}
