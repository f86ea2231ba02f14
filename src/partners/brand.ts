import { audit } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { hasHiddenCharacter, hiddenCharacterError } from '../platform/hidden-characters.ts';
import * as repo from './partners-repo.ts';
import { requireActingUser } from './users.ts';

/** A brand name's bounds (the database checks them too, migration 0030). */
export const BRAND_NAME = { min: 2, max: 40 } as const;

/**
 * The brand name as stored (spaces collapsed) or the field errors; an empty name means none (the
 * partner's name). A brand name is shown to customers in every SMS, email and PDF: no control or
 * invisible character (platform/hidden-characters.ts, without its `joiners` option), where
 * "Sky\u202Eylf" would read as another name — nor a variation selector: an emoji is taken in its
 * plain form ("✈"), not with the VS16 that asks for its colour form ("✈\uFE0F"), which a customer's
 * phone or a PDF font may show or not.
 */
export function checkBrandName(raw: string): { value: string | null; errors: FieldError[] } {
  if (hasHiddenCharacter(raw)) return { value: null, errors: [hiddenCharacterError('brandName')] };
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
 * from then on use it. `userId`: the partner user setting it, its right (`configuration`) checked
 * again in the transaction (`requireActingUser`).
 */
export async function setBrandName(
  db: Db,
  actor: string,
  partnerId: string,
  raw: string,
  userId?: string,
): Promise<string | null> {
  const checked = checkBrandName(raw);
  if (checked.errors.length)
    throw new DomainError('validation_failed', 'The brand name is not valid.', { errors: checked.errors });
  await db.transaction().execute(async (trx) => {
    if (userId) await requireActingUser(trx, { userId, partnerId }, 'configuration');
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
