import { audit } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import * as repo from './partners-repo.ts';

/** A brand name's bounds (the database checks them too, migration 0030). */
export const BRAND_NAME = { min: 2, max: 40 } as const;

/**
 * Control characters, and the invisible format characters that reorder or hide text (bidirectional
 * marks, embeddings, overrides and isolates; zero-width spaces and joiners; the BOM): a brand name is
 * shown to customers in every SMS and email, where "Sky\u202Eylf" would read as another name.
 */
const CONTROL =
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a brand name may not hold
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** The brand name as stored (spaces collapsed) or the field errors; an empty name means none (the partner's name). */
export function checkBrandName(raw: string): { value: string | null; errors: FieldError[] } {
  if (CONTROL.test(raw))
    return {
      value: null,
      errors: [{ field: 'brandName', code: 'invalid_format', message: 'must not contain control characters' }],
    };
  const value = raw.replace(/\s+/g, ' ').trim();
  if (value === '') return { value: null, errors: [] };
  if (value.length < BRAND_NAME.min)
    return {
      value: null,
      errors: [{ field: 'brandName', code: 'too_short', message: `must be at least ${BRAND_NAME.min} characters` }],
    };
  if (value.length > BRAND_NAME.max)
    return {
      value: null,
      errors: [{ field: 'brandName', code: 'too_long', message: `must be at most ${BRAND_NAME.max} characters` }],
    };
  return { value, errors: [] };
}

/**
 * The partner sets the name its customers know it by (partner console): their SMS, emails and the
 * bank-details page say e.g. "SkyFly flight delay cover, insured by …". Audited; messages written
 * from then on use it.
 */
export async function setBrandName(db: Db, actor: string, partnerId: string, raw: string): Promise<string | null> {
  const checked = checkBrandName(raw);
  if (checked.errors.length)
    throw new DomainError('validation_failed', 'The brand name is not valid.', { errors: checked.errors });
  await db.transaction().execute(async (trx) => {
    await repo.updateBrandName(trx, partnerId, checked.value);
    await audit(trx, {
      actor,
      partnerId,
      entity: 'partner',
      entityId: partnerId,
      action: 'brand_name_set',
      data: { brandName: checked.value },
    });
  });
  return checked.value;
}
