/** The payouts domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export {
  claimForLink,
  submitBankDetails,
  usAccountOffered,
  type BankDetailsInput,
  type BankDetailsIssue,
  type BankDetailsOutcome,
  type ClaimForCustomer,
} from './bank-details.ts';
export { bicNeededForCurrency } from './bank-account.ts';
export { PAYOUT_STATUSES, type PayoutStatus } from './model.ts';
export { approveManualPayout, reviewClaim } from './manual-review.ts';
export { correctClaimCompensation, type CompensationCorrection } from './correct-compensation.ts';
export { voidClaim } from './void-claim.ts';
export { claimNumberFor, setPayoutBic, type PayoutBicInput } from './set-payout-bic.ts';
export {
  achReturnWindowPassed,
  LEFT_OUT_PAYOUT,
  listClaimPayoutAttempts,
  listPayouts,
  type PayoutAttemptRow,
} from './payouts-repo.ts';
export { operatorPayoutsPage } from './operator-payouts.ts';
export { HOLDER_NOT_OPENED, payWithSimulatedBank, type SettleWarning } from './payouts.ts';
export { ACH_SETTLE_ACTOR, achSettlementDue, settleAchPayouts } from './settle-ach.ts';
export { MAX_BANK_REPORT_BYTES, reconcilePayouts, type ReconciliationReport } from './reconcile.ts';
export {
  createPayoutBatches,
  createSepaBatch,
  debtorAddressWarning,
  exportSepaBatch,
  recordSentSepaBatch,
  leftOutBicFault,
  type RefusedCurrency,
} from './sepa-batch.ts';
export {
  FILE_RECOVERY_GRACE_MS,
  MAX_BATCHES_PER_RUN,
  PAYOUT_REPORT_BUSINESS_DAYS,
  payoutReportDueBefore,
  runScheduledSepaBatch,
  unreportedDue,
  SCHEDULE_ACTOR,
  type ScheduledBatchReport,
} from './sepa-schedule.ts';
export {
  isTargetBusinessDay,
  nextTargetBusinessDay,
  sepaExecutionDate,
  targetBusinessDaysBefore,
  TARGET_ZONE,
} from './target-calendar.ts';
