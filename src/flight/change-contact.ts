import { audit } from '../platform/audit.ts';
import { decrypt, encrypt } from '../platform/crypto.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { CustomerLang } from '../platform/language.ts';
import { resendLinks } from '../claims/index.ts';
import * as contracts from './contracts-repo.ts';
import { customerPhoneError, customerPhoneRefusal } from '../notify/index.ts';
import type { Caller, FlightDeps } from './deps.ts';

export interface ContactChange {
  phone?: string | undefined;
  email?: string | undefined;
  language?: CustomerLang | undefined;
}

/**
 * PATCH /contracts/{number}/customer: the customer's new phone, email or language. The messages sent
 * from then on use them (the SMS job reads the contract's contact when it sends). Sealed like at
 * subscription; the audit row names the fields changed, never their values. A cancelled contract
 * has nothing left to send: 409 contract_cancelled. A landline: 422 phone_not_mobile. A new phone
 * texts the links of the claims waiting for bank details to it; a new email with no new phone sends
 * them by SMS and to the new address (`resendLinks`: one new link per claim, on both channels).
 */
export async function changeContact(
  deps: FlightDeps,
  trx: Trx,
  caller: Caller,
  contractNumber: string,
  change: ContactChange,
): Promise<{ contractNumber: string; changed: (keyof ContactChange)[] }> {
  const row = await contracts.findContract(trx, caller, contractNumber.trim().toUpperCase(), { forUpdate: true });
  if (!row) throw new DomainError('contract_not_found', `No contract ${contractNumber}.`);
  if (row.status === 'cancelled')
    throw new DomainError(
      'contract_cancelled',
      `Contract ${row.contract_number} is cancelled: nothing is sent to its customer.`,
    );
  const set: Parameters<typeof contracts.updateContact>[2] = {};
  const changed: (keyof ContactChange)[] = [];
  let newPhone = false;
  if (change.phone !== undefined) {
    const phoneError = customerPhoneError(change.phone, '/phone');
    if (phoneError?.code === 'invalid_format') throw customerPhoneRefusal(phoneError);
    // the same number sent again (a client that PATCHes the whole contact) is no new phone
    newPhone = decrypt(deps.keys.encryption, row.customer_phone_enc) !== change.phone;
    // a number the SMS cannot reach is refused as a new phone; a contract that has one keeps it until
    // changed, so the whole contact sent again with that old number is no error
    if (phoneError && newPhone) throw customerPhoneRefusal(phoneError);
    set.customer_phone_enc = encrypt(deps.keys.encryption, change.phone);
    changed.push('phone');
  }
  let newEmail = false;
  if (change.email !== undefined) {
    const email = change.email.trim().toLowerCase();
    // the same address sent again is no new address
    newEmail = row.customer_email_enc === null || decrypt(deps.keys.encryption, row.customer_email_enc) !== email;
    set.customer_email_enc = encrypt(deps.keys.encryption, email);
    changed.push('email');
  }
  if (change.language !== undefined) {
    set.customer_language = change.language;
    changed.push('language');
  }
  const now = deps.now();
  await contracts.updateContact(trx, row.id, set);
  await audit(trx, {
    actor: caller.actor,
    partnerId: caller.partnerId,
    environment: caller.environment,
    entity: 'contract',
    entityId: row.contract_number, // as every contract row: its trail is searched by number
    action: 'contact_changed',
    at: now,
    data: { fields: changed },
  });
  // a new phone: the links of the contract's claims still waiting for bank details are texted to it
  if (newPhone) await resendLinks(trx, deps.jobs, row.id, caller.actor, now, 'phone');
  // a new address, the phone unchanged: the new links are texted and emailed to it (a new phone's resend emails nothing)
  else if (newEmail) await resendLinks(trx, deps.jobs, row.id, caller.actor, now, 'email');
  return { contractNumber: row.contract_number, changed };
}
