import { audit } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { keptReason, REASON_LENGTH } from '../platform/personal-text.ts';
import { parseInstant } from '../reference/index.ts';
import type { Agreement, Configuration } from './model.ts';
import { agreementChanged, agreementRevision, checkAgreement, type AgreementInput } from './partners.ts';
import * as repo from './partners-repo.ts';
import { checkTerms } from './terms.ts';

/**
 * Amendments of a signed agreement (issue 14 §2). The signed original is version 1; an amendment is
 * the next version, with its own terms, signed by an operator at once (who, when, why), effective
 * from an instant that is not in the past. Versions are immutable (migration 0029).
 *
 * The version in force at an instant is the highest signed version whose effective instant has
 * passed (`agreementAt`): quotes are priced under it, contracts record it. The effective instants
 * are data, not events: a cache holding the versions (PartnerDirectory) switches to an amendment at
 * its effective instant without being told.
 */

/**
 * The version in force at `at`: the latest signed version already effective; the draft while unsigned.
 * Version 1 (the signed draft, the same terms) stands for any instant before its own signature.
 */
export function agreementAt(versions: readonly Agreement[], at: Date): Agreement | undefined {
  let inForce: Agreement | undefined;
  for (const v of versions) {
    if (v.status === 'draft') return v;
    if (v.effectiveAt && v.effectiveAt.getTime() <= at.getTime() && (!inForce || v.version > inForce.version))
      inForce = v;
  }
  return inForce ?? versions.find((v) => v.version === 1);
}

/** One term that differs between two versions. */
export interface AgreementChange {
  field: 'allowedFormulas' | 'taxRate' | 'commissionMin' | 'commissionMax' | 'compensationMin' | 'compensationMax';
  from: string | number | string[];
  to: string | number | string[];
}

/** What changed from one version to the next (pure). */
export function agreementChanges(previous: Agreement, next: Agreement): AgreementChange[] {
  const changes: AgreementChange[] = [];
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));
  if (!same(previous.allowedFormulas, next.allowedFormulas))
    changes.push({ field: 'allowedFormulas', from: previous.allowedFormulas, to: next.allowedFormulas });
  for (const field of ['taxRate', 'commissionMin', 'commissionMax', 'compensationMin', 'compensationMax'] as const) {
    if (String(previous[field]) !== String(next[field]))
      changes.push({ field, from: previous[field], to: next[field] });
  }
  return changes;
}

/** A signed version not yet effective, and what of the given terms it will reject. */
export interface FutureViolation {
  version: number;
  effectiveAt: Date;
  errors: FieldError[];
}

/** The signed versions effective after `at` that would reject the configuration (pure). */
export function futureViolations(
  versions: readonly Agreement[],
  configuration: Pick<Configuration, 'formula' | 'delayTiers' | 'cancellationAmount' | 'commissionRate'>,
  at: Date,
): FutureViolation[] {
  return versions
    .filter((v) => v.status === 'signed' && v.effectiveAt && v.effectiveAt.getTime() > at.getTime())
    .map((v) => ({ version: v.version, effectiveAt: v.effectiveAt!, errors: checkTerms(v, configuration) }))
    .filter((v) => v.errors.length > 0);
}

/**
 * An effective instant as the operator gives it: a date (`2026-12-01`, from 00:00 UTC that day; today
 * means at once) or an ISO 8601 instant with its offset, read as the stop-sales' are (`parseInstant`: 30
 * February, 24:00 or an offset outside -12:00 to +14:00 are refused, not read as another instant).
 * Undefined when it is neither.
 */
export function parseEffective(text: string, now: Date): Date | undefined {
  const value = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = new Date(`${value}T00:00:00Z`);
    if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) return undefined;
    return value === now.toISOString().slice(0, 10) ? now : day;
  }
  return parseInstant(value);
}

export interface AmendmentInput extends AgreementInput {
  /** From when the amendment applies; not before the signature. */
  effectiveAt: Date;
  reason: string;
  /** The form's `agreementRevision` of the latest version it amended; another amendment since refuses it. */
  expectedRevision?: string | undefined;
}

export interface Amendment {
  agreement: Agreement;
  /** What changed from the previous version. */
  changes: AgreementChange[];
  /** What the partner's current configuration will break at the effective instant (quotes are refused then). */
  violations: FieldError[];
}

/**
 * Signs an amendment: the next version of a signed agreement. Its currency is the agreement's (the
 * platform's limits, configurations and contracts are per currency); its effective instant is not
 * before now, nor before the latest version's. A configuration the amendment would reject does not
 * stop it: the answer lists the violations, and from the effective instant quotes are refused until
 * the partner adjusts the configuration (docs/DECISIONS.md, "Amendable agreements"). It takes its turn
 * with the partner's configuration saves (`lockPartnerTerms`): its violations are those of the
 * configuration saved last, and a save made meanwhile is checked against this amendment. A form's
 * `expectedRevision` is compared under that lock: of two amendments from one version, one is signed.
 */
export async function amendAgreement(
  db: Db,
  actor: string,
  partnerId: string,
  input: AmendmentInput,
  now: Date = new Date(),
): Promise<Amendment> {
  const { effectiveAt, reason: rawReason, expectedRevision, ...terms } = input;
  const errors = checkAgreement(terms);
  // an operator's free text: the personal data it may quote is masked (platform/personal-text.ts)
  // its length as typed checked first: a text too long to be a reason is never masked (slow on it)
  // too long as typed or once masked: `too_long`, the 500 kept named; empty: `required` — a desk's or
  // stop-sale's reason's rule (`keptReason`)
  const { kept: reason, error: reasonError } = keptReason(
    rawReason,
    { field: '/reason', ...REASON_LENGTH },
    'is required: why the agreement is amended',
  );
  if (reasonError) errors.push(reasonError);
  // a minute's grace: "now" typed in a form reaches the server a moment later
  if (Number.isNaN(effectiveAt.getTime()) || effectiveAt.getTime() < now.getTime() - 60_000)
    errors.push({ field: '/effectiveAt', code: 'out_of_range', message: 'must be today or later, never in the past' });
  if (errors.length) throw new DomainError('validation_failed', 'The amendment is not valid.', { errors });
  return db.transaction().execute(async (trx) => {
    await repo.lockPartnerTerms(trx, partnerId);
    const versions = await repo.listAgreementVersions(trx, partnerId);
    const latest = versions.at(-1);
    if (!latest || latest.status !== 'signed')
      throw new DomainError('conflict', 'Only a signed agreement is amended: set and sign the agreement first.');
    if (expectedRevision !== undefined && expectedRevision !== agreementRevision(latest))
      throw agreementChanged(expectedRevision, latest);
    const fieldErrors: FieldError[] = [];
    if (terms.currency !== latest.currency)
      fieldErrors.push({
        field: '/currency',
        code: 'not_allowed',
        message: `an amendment keeps the agreement's currency (${latest.currency})`,
      });
    if (effectiveAt.getTime() < latest.effectiveAt!.getTime())
      fieldErrors.push({
        field: '/effectiveAt',
        code: 'out_of_range',
        message: `must not be before the effective date of version ${latest.version} (${latest.effectiveAt!.toISOString()})`,
      });
    if (fieldErrors.length)
      throw new DomainError('validation_failed', 'The amendment is not valid.', { errors: fieldErrors });
    const agreement = await repo.insertAgreementVersion(trx, {
      partnerId,
      version: latest.version + 1,
      ...terms,
      allowedFormulas: [...new Set(terms.allowedFormulas)],
      effectiveAt: effectiveAt.getTime() < now.getTime() ? now : effectiveAt,
      signedAt: now,
      signedBy: actor,
      reason,
    });
    const configuration = await repo.findCurrentConfiguration(trx, partnerId);
    const violations = configuration ? checkTerms(agreement, configuration) : [];
    const changes = agreementChanges(latest, agreement);
    await audit(trx, {
      actor,
      partnerId,
      entity: 'agreement',
      entityId: `${partnerId}/${agreement.version}`,
      action: 'amended',
      data: { version: agreement.version, effectiveAt: agreement.effectiveAt, reason, changes, violations },
    });
    return { agreement, changes, violations };
  });
}
