import { homeRiskView, type HomeRisk } from '../home/index.ts';
import { decrypt, openField, type EncryptionKeys } from '../platform/crypto.ts';
import type { PolicyProduct, PremiumFrequency } from '../platform/db-schema.ts';
import type { PolicyRow } from './policies-repo.ts';

/** The policy model of the API to manage policies: its vocabularies, status rule and public view. */

export const PRODUCTS = [
  'home',
  'flight_delay',
  'travel',
  'motor',
  'other',
] as const satisfies readonly PolicyProduct[];
export type Product = (typeof PRODUCTS)[number];
export const PREMIUM_FREQUENCIES = [
  'single',
  'annual',
  'semiannual',
  'quarterly',
  'monthly',
] as const satisfies readonly PremiumFrequency[];
/** The statuses a policy may be created with. */
export const CREATE_STATUSES = ['active', 'pending'] as const;
export const POLICY_STATUSES = ['pending', 'active', 'cancelled', 'expired'] as const;
export type PolicyStatus = (typeof POLICY_STATUSES)[number];
export const CANCEL_REASONS = [
  'customer_request',
  'non_payment',
  'risk_ended',
  'replaced',
  'duplicate',
  'created_in_error',
  'other',
] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];
/** What a pending policy was waiting for when the partner's system activates it (kept in the audit log). */
export const ACTIVATION_REASONS = ['payment_received', 'documents_received', 'underwriting_accepted', 'other'] as const;
export type ActivationReason = (typeof ACTIVATION_REASONS)[number];

/** Why a policyholder's names or birth date are corrected (kept, with the values sealed, in the audit log). */
export const CORRECTION_REASONS = ['typo', 'civil_status_change', 'document_mismatch', 'other'] as const;
export type CorrectionReason = (typeof CORRECTION_REASONS)[number];

export const POLICY_PAGE = {
  default: 50,
  min: 1,
  max: 200,
} as const;

export interface Address {
  line1: string;
  line2?: string | undefined;
  postalCode: string;
  city: string;
  country: string;
}

export interface PolicyView {
  policyNumber: string;
  externalReference: string;
  product: Product;
  status: PolicyStatus;
  policyholder: {
    firstName: string;
    lastName: string;
    birthDate: string;
    email: string;
    phone: string;
    address: Address;
  };
  effectiveDate: string;
  expiryDate: string;
  premium: { amount: number; currency: string; frequency: PremiumFrequency };
  risk: Record<string, unknown>;
  quoteReference: string | null;
  /** The policy number of the term this policy renews, and of the term renewing it. */
  renews: string | null;
  renewedBy: string | null;
  /** The status today of the term renewing it (`renewedBy`): a renewal cancelled after its start keeps its link. */
  renewedByStatus: PolicyStatus | null;
  /** A cancellation recorded: in effect (status cancelled), or scheduled from a day to come (status pending or active). */
  cancellation: { reason: CancelReason; effectiveDate: string; cancelledAt: string } | null;
  /** 1 at creation, +1 with every change written on it: the ETag of its answers, which If-Match compares. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** 'YYYY-MM-DD' plus whole years, as text that compares correctly with other dates (29 Feb included). */
export function plusYears(date: string, years: number): string {
  return `${String(Number(date.slice(0, 4)) + years).padStart(4, '0')}${date.slice(4)}`;
}

/** Calendar days are UTC days: "today" for expiry decisions. */
export const todayOf = (now: Date): string => now.toISOString().slice(0, 10);

/**
 * A policy covers from its effective date (included) to its expiry date (excluded): a pending or
 * active policy is expired from its expiry date on. A cancellation takes effect on its date: recorded
 * from a day still to come, it is scheduled (the status stays pending or active, the date in
 * `cancellation_date`) and the policy reads cancelled from that day — before its expiry date, so a
 * policy cancelled never reads expired. Cancelled stays cancelled. The listing filters alike
 * (policies-repo.ts, searchPolicies).
 */
export function statusOn(
  row: Pick<PolicyRow, 'status' | 'expiry_date' | 'cancellation_date'>,
  today: string,
): PolicyStatus {
  if (row.status === 'cancelled' || (row.cancellation_date !== null && row.cancellation_date <= today))
    return 'cancelled';
  return row.expiry_date <= today ? 'expired' : row.status;
}

/** The insured risk as stored: sealed (`risk_enc`), or in clear on a row the start has not sealed yet. */
export function storedRisk(row: PolicyRow, encryptionKey: EncryptionKeys): Record<string, unknown> {
  return row.risk_enc !== null
    ? (JSON.parse(decrypt(encryptionKey, row.risk_enc)) as Record<string, unknown>)
    : (row.risk as Record<string, unknown>);
}

/** The insured risk as answered. */
function riskOf(row: PolicyRow, encryptionKey: EncryptionKeys): Record<string, unknown> {
  const risk = storedRisk(row, encryptionKey);
  return row.product === 'home' ? { ...homeRiskView(risk as unknown as HomeRisk) } : risk;
}

/** The policyholder as stored, opened. */
export function policyholderOf(row: PolicyRow, encryptionKey: EncryptionKeys): PolicyView['policyholder'] {
  return {
    firstName: openField(encryptionKey, row.holder_first_name_enc, row.holder_first_name),
    lastName: openField(encryptionKey, row.holder_last_name_enc, row.holder_last_name),
    birthDate: decrypt(encryptionKey, row.holder_birth_date_enc),
    email: decrypt(encryptionKey, row.holder_email_enc),
    phone: decrypt(encryptionKey, row.holder_phone_enc),
    address: JSON.parse(decrypt(encryptionKey, row.holder_address_enc)) as Address,
  };
}

/** What the view of a policy needs of the term renewing it. */
export type NextTerm = Pick<PolicyRow, 'status' | 'expiry_date' | 'cancellation_date'>;

/**
 * The policy as answered. `renewal` is the row its `renewed_by_policy_number` names (undefined when
 * none): policy-answer.ts reads it; a view built without it would answer a renewal's status it does
 * not know.
 */
export function policyView(
  row: PolicyRow,
  encryptionKey: EncryptionKeys,
  today: string,
  renewal: NextTerm | undefined,
): PolicyView {
  return {
    policyNumber: row.policy_number,
    externalReference: row.external_reference,
    product: row.product,
    status: statusOn(row, today),
    policyholder: policyholderOf(row, encryptionKey),
    effectiveDate: row.effective_date,
    expiryDate: row.expiry_date,
    premium: { amount: row.premium_amount, currency: row.currency, frequency: row.premium_frequency },
    risk: riskOf(row, encryptionKey),
    quoteReference: row.quote_reference,
    renews: row.renews_policy_number,
    renewedBy: row.renewed_by_policy_number,
    renewedByStatus: row.renewed_by_policy_number && renewal ? statusOn(renewal, today) : null,
    cancellation:
      row.cancelled_at && row.cancel_reason && row.cancellation_date
        ? {
            reason: row.cancel_reason as CancelReason,
            effectiveDate: row.cancellation_date,
            cancelledAt: row.cancelled_at.toISOString(),
          }
        : null,
    version: row.version,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
