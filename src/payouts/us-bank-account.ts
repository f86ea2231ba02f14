/**
 * A US bank account, checked the way a NACHA ACH file needs it (nacha-file.ts): the bank's ABA routing
 * number and the account number at that bank (the "DFI account number"), and whether it is a checking
 * or a savings account (the entry's transaction code: 22 or 32). Issues carry a code, as the IBAN's
 * do (bank-account.ts), so the bank-details page words them in the customer's language.
 *
 * - Routing number: 9 digits; the ABA check digit (weights 3 7 1 repeated: the weighted sum of the
 *   nine digits is a multiple of 10); the first two digits a Federal Reserve routing symbol that ACH
 *   uses — 00 to 12 (the twelve Federal Reserve districts; 00: the US government), 21 to 32 (thrift
 *   institutions), 61 to 72 (electronic), 80 (traveler's cheques). Others (13–20, 33–60, 73–79,
 *   81–99) are unassigned or not ACH.
 * - Account number: the NACHA field is 17 alphanumeric characters. Customers type it as their cheque
 *   or statement shows it: spaces and hyphens are dropped, letters put in upper case; then 1 to 17
 *   of 0-9 A-Z, with at least one digit.
 */
import { abaChecksumValid } from '../platform/routing-number.ts';

export type AccountType = 'checking' | 'savings';
export const ACCOUNT_TYPES: readonly AccountType[] = Object.freeze(['checking', 'savings']);

export type UsBankAccountIssueCode =
  | 'routing_required'
  | 'routing_invalid'
  | 'routing_check_digit'
  | 'routing_unknown_prefix'
  | 'account_number_required'
  | 'account_number_invalid'
  | 'account_number_too_long'
  | 'account_type_invalid';

export interface UsBankAccountIssue {
  readonly field: 'routingNumber' | 'accountNumber' | 'accountType';
  readonly code: UsBankAccountIssueCode;
  readonly message: string;
}

export interface UsBankAccount {
  /** 9 digits. */
  readonly routingNumber: string;
  /** 1 to 17 of 0-9 A-Z, no spaces or hyphens. */
  readonly accountNumber: string;
  readonly accountType: AccountType;
}

export type UsBankAccountCheck = { ok: true; account: UsBankAccount } | { ok: false; issues: UsBankAccountIssue[] };

/** The longest DFI account number NACHA carries. */
export const MAX_ACCOUNT_NUMBER = 17;

/** Whether the first two digits are a Federal Reserve routing symbol ACH uses: 00–12, 21–32, 61–72, 80. */
export function isAchRoutingPrefix(prefix: number): boolean {
  return (
    (prefix >= 0 && prefix <= 12) || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80
  );
}

/** The ABA check (platform/routing-number.ts: the insurer's configured banks use it too). */
export { abaChecksumValid } from '../platform/routing-number.ts';

/** The routing number as typed, without spaces and hyphens. */
export function normaliseRoutingNumber(text: string): string {
  return (text ?? '').replace(/[\s-]+/g, '');
}

/** The account number as typed, without spaces and hyphens, in upper case. */
export function normaliseAccountNumber(text: string): string {
  return (text ?? '').replace(/[\s-]+/g, '').toUpperCase();
}

export function checkUsBankAccount(input: {
  routingNumber: string;
  accountNumber: string;
  accountType: string;
}): UsBankAccountCheck {
  const issues: UsBankAccountIssue[] = [];
  const routingNumber = normaliseRoutingNumber(input.routingNumber);
  if (routingNumber === '')
    issues.push({ field: 'routingNumber', code: 'routing_required', message: 'the routing number is required' });
  else if (!/^[0-9]{9}$/.test(routingNumber))
    issues.push({ field: 'routingNumber', code: 'routing_invalid', message: 'a routing number is 9 digits' });
  else if (!isAchRoutingPrefix(Number(routingNumber.slice(0, 2))))
    issues.push({
      field: 'routingNumber',
      code: 'routing_unknown_prefix',
      message: `no ACH routing number starts with ${routingNumber.slice(0, 2)}`,
    });
  else if (!abaChecksumValid(routingNumber))
    issues.push({
      field: 'routingNumber',
      code: 'routing_check_digit',
      message: 'the check digit of this routing number does not match',
    });

  const accountNumber = normaliseAccountNumber(input.accountNumber);
  if (accountNumber === '')
    issues.push({ field: 'accountNumber', code: 'account_number_required', message: 'the account number is required' });
  else if (accountNumber.length > MAX_ACCOUNT_NUMBER)
    issues.push({
      field: 'accountNumber',
      code: 'account_number_too_long',
      message: `an account number is at most ${MAX_ACCOUNT_NUMBER} characters`,
    });
  else if (!/^[0-9A-Z]+$/.test(accountNumber) || !/[0-9]/.test(accountNumber))
    issues.push({
      field: 'accountNumber',
      code: 'account_number_invalid',
      message: 'an account number is digits (and letters at some banks)',
    });

  const accountType = (input.accountType ?? '').trim().toLowerCase();
  if (!ACCOUNT_TYPES.includes(accountType as AccountType))
    issues.push({ field: 'accountType', code: 'account_type_invalid', message: 'must be checking or savings' });

  return issues.length > 0
    ? { ok: false, issues }
    : { ok: true, account: { routingNumber, accountNumber, accountType: accountType as AccountType } };
}

/** "000123456789" → "•••• 6789": the only form an account number is shown in after entry (as `maskIban`). */
export function maskAccountNumber(accountNumber: string): string {
  return `•••• ${normaliseAccountNumber(accountNumber).slice(-4)}`;
}
