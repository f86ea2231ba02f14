import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { FORMULAS, MAX_POLICY_PASSENGERS, type Formula } from './coverage.ts';
import { audit } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { hasHiddenCharacter, hiddenCharacterError } from '../platform/hidden-characters.ts';
import { amountOrError, currencyError, largestTransfer, toDecimalString } from '../platform/money.ts';
import { APIS, type Agreement, type ApiName, type Partner } from './model.ts';
import * as repo from './partners-repo.ts';

/** Operator use cases: partners, agreements and API subscriptions. `actor` names the operator. */

export async function createPartner(db: Db, actor: string, input: { slug: string; name: string }): Promise<Partner> {
  const errors: FieldError[] = [];
  if (!/^[a-z0-9][a-z0-9-]{1,62}$/.test(input.slug))
    errors.push({
      field: '/slug',
      code: 'invalid_format',
      message: 'must be 2-63 lowercase letters, digits or dashes',
    });
  // empty: `required`; too long: `too_long` — as every required text of the platform is refused
  if (input.name.trim().length === 0) errors.push({ field: '/name', code: 'required', message: 'is required' });
  else if (input.name.length > 200)
    errors.push({ field: '/name', code: 'too_long', message: 'must be at most 200 characters' });
  // the brand on every SMS, email and page of a partner without a brand name: the brand name's rule
  // (platform/hidden-characters.ts, no joiner), on the name as stored
  else if (hasHiddenCharacter(input.name.trim())) errors.push(hiddenCharacterError('/name'));
  if (errors.length) throw new DomainError('validation_failed', 'The partner is not valid.', { errors });
  return db.transaction().execute(async (trx) => {
    if (await repo.findPartner(trx, input.slug))
      throw new DomainError('conflict', `A partner with slug "${input.slug}" already exists.`);
    const partner = await repo.insertPartner(trx, { slug: input.slug, name: input.name.trim() });
    await audit(trx, {
      actor,
      partnerId: partner.id,
      entity: 'partner',
      entityId: partner.id,
      action: 'created',
      data: input,
    });
    return partner;
  });
}

export async function requirePartner(db: Db, idOrSlug: string): Promise<Partner> {
  const partner = await repo.findPartner(db, idOrSlug);
  if (!partner) throw new DomainError('partner_not_found', `No partner "${idOrSlug}".`);
  return partner;
}

export interface AgreementInput {
  allowedFormulas: Formula[];
  currency: string;
  taxRate: string;
  commissionMin: string;
  commissionMax: string;
  compensationMin: number;
  compensationMax: number;
}

/**
 * The state of a partner's agreement a form was opened on, compared when it is saved (the hidden field
 * of the operator's agreement and amendment forms): `none`; `v3` for signed version 3 (the latest — an
 * amendment adds the next); for a draft, a digest of its terms (a draft has no version: another
 * operator's save changes its terms). A save whose revision is no longer the current one is refused,
 * `agreement_changed`, nothing written.
 */
export function agreementRevision(agreement: Agreement | undefined): string {
  if (!agreement) return 'none';
  if (agreement.status === 'signed') return `v${agreement.version}`;
  return draftRevision(agreement);
}

/** The digest of an agreement's terms, whatever its status: the revision of a draft with those terms. */
function draftRevision(agreement: Agreement): string {
  const terms = [
    [...agreement.allowedFormulas].sort(),
    agreement.currency,
    agreement.taxRate,
    agreement.commissionMin,
    agreement.commissionMax,
    agreement.compensationMin,
    agreement.compensationMax,
  ];
  return `draft-${createHash('sha256').update(JSON.stringify(terms)).digest('hex').slice(0, 16)}`;
}

/** The refusal of a save made from an agreement's revision another save replaced meanwhile. */
export function agreementChanged(expected: string, current: Agreement | undefined): DomainError {
  const now = current?.status === 'signed' ? `version ${current.version} is the latest` : 'its draft was saved again';
  return new DomainError(
    'agreement_changed',
    `The agreement changed since the form was opened (${now}): nothing was saved. Reload to see its current terms.`,
    { expectedRevision: expected, currentRevision: agreementRevision(current) },
  );
}

/** The agreement's terms as typed: an operator's form fields, the CLI's options. */
export interface AgreementText {
  allowedFormulas: string[];
  currency: string;
  taxRate: string;
  commissionMin: string;
  commissionMax: string;
  compensationMin: string;
  compensationMax: string;
}

/**
 * Reads typed terms (the operator console's agreement forms, the CLI's `agreement set` and `amend`): the
 * compensation bounds in major units of the currency (`parseMajorAmount`: "10.00" or "10,00" is 1000
 * cents, more decimals than the currency has refused); what cannot be read goes to `errors` — an unknown
 * currency (its decimals unknown), a bound that is not an amount of it. The terms' own rules are
 * `checkAgreement`'s.
 */
export function agreementTermsFrom(text: AgreementText, errors: FieldError[]): AgreementInput {
  const currency = text.currency.trim().toUpperCase();
  let compensationMin = 0;
  let compensationMax = 0;
  const refused = currencyError(currency, '/currency');
  if (refused) errors.push(refused);
  else {
    compensationMin = amountOrError(text.compensationMin, currency, '/compensationMin', errors);
    compensationMax = amountOrError(text.compensationMax, currency, '/compensationMax', errors);
  }
  return {
    allowedFormulas: text.allowedFormulas.map((f) => f.trim()).filter((f) => f !== '') as Formula[],
    currency,
    taxRate: text.taxRate.trim(),
    commissionMin: text.commissionMin.trim(),
    commissionMax: text.commissionMax.trim(),
    compensationMin,
    compensationMax,
  };
}

export function checkAgreement(input: AgreementInput): FieldError[] {
  const errors: FieldError[] = [];
  const rate = (field: string, value: string, max: number) => {
    let d: Decimal | undefined;
    try {
      d = new Decimal(value);
    } catch {
      d = undefined;
    }
    if (!d || d.isNaN() || d.lt(0) || d.gt(max) || d.decimalPlaces() > 5) {
      errors.push({
        field,
        code: 'out_of_range',
        message: `must be a decimal between 0 and ${max} with at most 5 decimals`,
      });
      return undefined;
    }
    return d;
  };
  if (input.allowedFormulas.length === 0 || input.allowedFormulas.some((f) => !FORMULAS.includes(f))) {
    errors.push({
      field: '/allowedFormulas',
      code: 'not_allowed',
      message: `must list one or more of ${FORMULAS.join(', ')}`,
    });
  }
  // an ISO 4217 code (money.ts's written-out list of the codes in force), not any three letters: every amount of the agreement, its contracts and
  // the ledger is in minor units of that currency, whose number of decimals only a real code tells; and
  // one a bank transfer pays in (not XDR, HRK…): its customers' compensation is paid in it — refused now,
  // not when a claim waits
  const refused = currencyError(input.currency, '/currency');
  if (refused) errors.push(refused);
  rate('/taxRate', input.taxRate, 0.99);
  const min = rate('/commissionMin', input.commissionMin, 0.9);
  const max = rate('/commissionMax', input.commissionMax, 0.9);
  if (min && max && max.lt(min))
    errors.push({ field: '/commissionMax', code: 'out_of_range', message: 'must be at least commissionMin' });
  if (!Number.isInteger(input.compensationMin) || input.compensationMin <= 0) {
    errors.push({
      field: '/compensationMin',
      code: 'out_of_range',
      message: 'must be an amount above zero',
    });
  }
  if (!Number.isInteger(input.compensationMax) || input.compensationMax < input.compensationMin) {
    errors.push({
      field: '/compensationMax',
      code: 'out_of_range',
      message: 'must be at least compensationMin',
    });
  }
  // a claim pays up to this amount for each of its passengers in one transfer: above what one transfer
  // carries (a NACHA entry for USD, the SEPA rulebook for EUR, a safe integer of minor units for the
  // others) its payout would be left out of every file
  const largest = largestTransfer(input.currency);
  const perPassenger = Math.floor(largest.amount / MAX_POLICY_PASSENGERS);
  if (Number.isInteger(input.compensationMax) && input.compensationMax > perPassenger)
    errors.push({
      field: '/compensationMax',
      code: 'out_of_range',
      message: `must be at most ${toDecimalString(perPassenger, input.currency)} ${input.currency}: a claim pays it for each of up to ${MAX_POLICY_PASSENGERS} passengers in one transfer, and ${largest.rule}`,
    });
  return errors;
}

/**
 * Sets the terms of a draft agreement (creating it if needed). A signed agreement is not edited.
 * It takes its turn with the partner's configuration saves and amendments (`lockPartnerTerms`); a form's
 * `expectedRevision` (`agreementRevision` of the draft it showed) is compared under that lock.
 */
export async function setAgreement(
  db: Db,
  actor: string,
  partnerId: string,
  save: AgreementInput & { expectedRevision?: string | undefined },
): Promise<Agreement> {
  const { expectedRevision, ...input } = save;
  const errors = checkAgreement(input);
  if (errors.length) throw new DomainError('validation_failed', 'The agreement is not valid.', { errors });
  return db.transaction().execute(async (trx) => {
    await repo.lockPartnerTerms(trx, partnerId);
    const current = await repo.findAgreement(trx, partnerId);
    if (current?.status === 'signed') {
      throw new DomainError('agreement_already_signed', 'The agreement is signed; its terms can no longer change.');
    }
    if (expectedRevision !== undefined && expectedRevision !== agreementRevision(current))
      throw agreementChanged(expectedRevision, current);
    const agreement = await repo.upsertAgreement(trx, {
      partnerId,
      ...input,
      allowedFormulas: [...new Set(input.allowedFormulas)],
    });
    await audit(trx, { actor, partnerId, entity: 'agreement', entityId: partnerId, action: 'set', data: input });
    return agreement;
  });
}

/**
 * Signs the draft: version 1 of the agreement, in force from now (taking its turn like setAgreement).
 * With `expectedRevision` (the operator's page: the draft it showed), a draft another save changed since
 * is not signed (`agreement_changed`): the operator signs the terms read, never others.
 * The draft is checked again as `setAgreement` checks it (`validation_failed`): one saved before a
 * rule existed is not signed as it is.
 */
export async function signAgreement(
  db: Db,
  actor: string,
  partnerId: string,
  expectedRevision?: string,
): Promise<Agreement> {
  return db.transaction().execute(async (trx) => {
    await repo.lockPartnerTerms(trx, partnerId);
    const current = await repo.findAgreement(trx, partnerId);
    if (!current) throw new DomainError('agreement_missing', 'Set the agreement terms before signing.');
    // signed meanwhile (another operator, or this page twice): success only for the terms the page showed
    if (current.status === 'signed') {
      if (expectedRevision?.startsWith('draft-') && expectedRevision !== draftRevision(current))
        throw agreementChanged(expectedRevision, current);
      return current;
    }
    if (expectedRevision !== undefined && expectedRevision !== agreementRevision(current))
      throw agreementChanged(expectedRevision, current);
    // checked again: a draft saved before a check existed (e.g. the cap on compensationMax) is not
    // signed as it is — the operator saves it again within the rules first
    const errors = checkAgreement(current);
    if (errors.length)
      throw new DomainError('validation_failed', 'The draft agreement is not valid: save it again within the rules.', {
        errors,
      });
    const signed = await repo.markAgreementSigned(trx, partnerId, actor);
    // the signed original is version 1 of the agreement, in force from its signature (agreements.ts)
    const agreement = await repo.insertAgreementVersion(trx, {
      ...signed,
      version: 1,
      effectiveAt: signed.signedAt!,
      signedAt: signed.signedAt!,
      signedBy: actor,
      reason: 'original agreement',
    });
    await audit(trx, { actor, partnerId, entity: 'agreement', entityId: partnerId, action: 'signed' });
    return agreement;
  });
}

export function parseApiName(value: string): ApiName {
  if (!(APIS as readonly string[]).includes(value)) {
    throw new DomainError('validation_failed', `Unknown API "${value}" (known: ${APIS.join(', ')}).`, {
      errors: [{ field: '/api', code: 'not_allowed', message: `must be one of ${APIS.join(', ')}` }],
    });
  }
  return value as ApiName;
}

export async function setSubscription(
  db: Db,
  actor: string,
  partnerId: string,
  api: ApiName,
  subscribed: boolean,
): Promise<ApiName[]> {
  return db.transaction().execute(async (trx) => {
    const changed = subscribed
      ? await repo.insertSubscription(trx, partnerId, api)
      : await repo.deleteSubscription(trx, partnerId, api);
    if (changed) {
      await audit(trx, {
        actor,
        partnerId,
        entity: 'subscription',
        entityId: `${partnerId}/${api}`,
        action: subscribed ? 'added' : 'removed',
      });
    }
    return repo.listSubscriptions(trx, partnerId);
  });
}
