/** The claims domain's public face: what other domains may import (docs/ARCHITECTURE.md, import rules). */
export {
  CLAIM_NUMBER,
  CLAIM_STATUSES,
  checkVoidCause,
  voidCauseError,
  isSettledClaim,
  isVoidableClaim,
  LINK_USELESS_CLAIM_STATUSES,
  SETTLED_CLAIM_STATUSES,
  VOID_CAUSES,
  type ClaimEventKind,
  type ClaimReason,
  type ClaimStatus,
} from './model.ts';
/**
 * The claim's side of the customer's link (payouts/bank-details.ts): find the claim by its token, use
 * the token, keep the bank details, move the claim to payment_pending — in the caller's transaction.
 */
export * as claimLink from './claim-link.ts';
export { claimEvidence, type ClaimEvidence } from './evidence.ts';
/** The operator's claim desk (payouts/manual-review.ts adds the payment actions through these). */
export {
  auditDeskAction,
  beginDeskAction,
  checkDeskAction,
  claimTrail,
  correctClaimPhone,
  maxCompensation,
  refuseDeskAction,
  releaseClaimReview,
  resendClaimLink,
  setClaimCompensation,
  setClaimReview,
  REASON_MAX,
  type DeskAction,
  type DeskOutcome,
} from './desk.ts';
export {
  findClaimByNumber,
  findClaimForDesk,
  findClaims,
  type DeskClaimRow,
  listClaims,
  listClaimsForOperators,
  type OperatorClaimRow,
  type ClaimListRow,
  claimsPaidDifferently,
  type DifferentClaim,
  type FlightEventType,
  type OpenedClaim,
  payoutLaterals,
} from './claims-repo.ts';
export { completeContractsOnFlight, reopenContractsOfCorrectedClaims } from './contract-completion.ts';
export { tellPartnerCustomerUnreachable, tellPartnerEmailRejected } from './customer-unreachable.ts';
export { expireClaims, requeueNeverNotified, type NeverNotifiedSweep } from './expire-claims.ts';
export { operatorClaimsPage } from './operator-claims.ts';
export { notifyClaim, type NotifyJob, type ResendRequest } from './notify-claim.ts';
export { resendLinks } from './resend-links.ts';
export { heldReminders, remindClaims, type RemindDeps } from './remind-claims.ts';
export { openClaimsForFlightEvent, openClaimsInTransaction, type FlightEvent } from './open-claims.ts';
export { correctVoidCause } from './void-cause.ts';
export { markClaimFailed, markClaimPaid, markClaimPaymentReturned, markClaimVoided } from './settle-claim.ts';
