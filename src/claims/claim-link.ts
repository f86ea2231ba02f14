/** The claim steps of the bank-details link, for payouts/bank-details.ts (see index.ts). */
export { findClaimByTokenHash, markClaimPaymentPending, saveBankDetails, useClaimToken } from './claims-repo.ts';
