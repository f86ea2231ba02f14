import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { decrypt, type EncryptionKeys } from '../../platform/crypto.ts';
import type { Executor } from '../../platform/db.ts';
import { listClaimMessages } from './sms-repo.ts';

/** One message of a claim as the operator's claim page shows it: the phone number masked. */
export interface ClaimMessage {
  /** What it was: `opened`, `payment_failed`, `reminder`, `paid`, `resend` (from its idempotency key). */
  kind: string;
  /** `sms` (production, through the provider) or `outbox` (sandbox and preproduction). */
  channel: 'sms' | 'outbox';
  status: string;
  provider: string | null;
  providerMessageId: string | null;
  attempts: number;
  lastError: string | null;
  /** The number it went to, all but its last two digits hidden. */
  to: string;
  createdAt: Date;
  sentAt: Date | null;
  /** What the carrier did with it (Twilio's delivery receipt), with the provider's error code; null until a receipt arrives. */
  delivery: { status: string; errorCode: number | null } | null;
}

/** The message's status as the claim page and `parasol claims show` print it: `sent → undelivered (30003)`. */
export function messageStatusText(m: Pick<ClaimMessage, 'status' | 'lastError' | 'delivery'>): string {
  const done = m.lastError ? `${m.status}: ${m.lastError}` : m.status;
  if (!m.delivery) return done;
  return `${done} → ${m.delivery.status}${m.delivery.errorCode !== null ? ` (${m.delivery.errorCode})` : ''}`;
}

const KINDS: Record<string, string> = {
  'bank-details': 'opened',
  'payment-failed': 'payment_failed',
  reminder: 'reminder',
  paid: 'paid',
  resend: 'resend',
  voided: 'voided',
  expired: 'expired',
};

/** `claim:<id>:<kind>[:…]` → the kind. */
export function messageKind(idempotencyKey: string): string {
  const word = idempotencyKey.split(':')[2] ?? '';
  return KINDS[word] ?? word;
}

/** A phone number shown as its country code and last two digits: `+33 •••• 78`. */
export function maskPhone(phone: string): string {
  const code = parsePhoneNumberFromString(phone)?.countryCallingCode;
  return `${code ? `+${code} ` : ''}•••• ${phone.slice(-2)}`;
}

/** Every message of a claim, oldest first, for the claim page and `parasol claims show`. */
export async function claimMessages(db: Executor, key: EncryptionKeys, claimId: string): Promise<ClaimMessage[]> {
  const rows = await listClaimMessages(db, claimId);
  return rows.map((r) => ({
    kind: messageKind(r.idempotency_key),
    channel: r.channel,
    status: r.status,
    provider: r.provider,
    providerMessageId: r.provider_message_id,
    attempts: Number(r.attempts),
    lastError: r.last_error,
    to: maskPhone(decrypt(key, r.to_enc)),
    createdAt: r.created_at,
    sentAt: r.sent_at,
    delivery: r.delivery_status ? { status: r.delivery_status, errorCode: r.delivery_error } : null,
  }));
}
