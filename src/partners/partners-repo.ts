import type { Insertable, Selectable } from 'kysely';
import type {
  AgreementDocumentsTable,
  AgreementsTable,
  AgreementVersionsTable,
  ApiKeysTable,
  PartnerConfigurationsTable,
  PartnersTable,
  UsersTable,
} from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import type { Formula } from './coverage.ts';
import type {
  Agreement,
  ApiKeyInfo,
  ApiName,
  Configuration,
  DocumentSet,
  DocumentSetInput,
  Environment,
  Partner,
} from './model.ts';

/** SQL for partners, agreements, subscriptions, configuration versions and API keys. */

const toPartner = (r: Selectable<PartnersTable>): Partner => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  brandName: r.brand_name,
  createdAt: r.created_at,
});

const toAgreement = (r: Selectable<AgreementsTable>): Agreement => ({
  partnerId: r.partner_id,
  version: 1,
  status: r.status,
  allowedFormulas: r.allowed_formulas as Formula[],
  currency: r.currency,
  taxRate: trimRate(r.tax_rate),
  commissionMin: trimRate(r.commission_min),
  commissionMax: trimRate(r.commission_max),
  compensationMin: r.compensation_min,
  compensationMax: r.compensation_max,
  signedAt: r.signed_at,
  signedBy: r.signed_by,
  effectiveAt: r.signed_at,
  reason: r.status === 'signed' ? 'original agreement' : null,
});

const toAgreementVersion = (r: Selectable<AgreementVersionsTable>): Agreement => ({
  partnerId: r.partner_id,
  version: r.version,
  status: 'signed',
  allowedFormulas: r.allowed_formulas as Formula[],
  currency: r.currency.trim(),
  taxRate: trimRate(r.tax_rate),
  commissionMin: trimRate(r.commission_min),
  commissionMax: trimRate(r.commission_max),
  compensationMin: Number(r.compensation_min),
  compensationMax: Number(r.compensation_max),
  signedAt: r.signed_at,
  signedBy: r.signed_by,
  effectiveAt: r.effective_at,
  reason: r.reason,
});

export const toConfiguration = (r: Selectable<PartnerConfigurationsTable>): Configuration => ({
  id: r.id,
  partnerId: r.partner_id,
  version: r.version,
  formula: r.formula as Formula,
  delayTiers: r.delay_tiers,
  cancellationAmount: r.cancellation_amount,
  commissionRate: trimRate(r.commission_rate),
  currency: r.currency,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

export const toApiKey = (r: Selectable<ApiKeysTable>): ApiKeyInfo => ({
  id: r.id,
  partnerId: r.partner_id,
  environment: r.environment,
  display: r.display,
  label: r.label,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

/** numeric(6,5) comes back as "0.20000"; show "0.2". */
function trimRate(value: string): string {
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}

export async function insertPartner(db: Executor, values: { slug: string; name: string }): Promise<Partner> {
  return toPartner(await db.insertInto('partners').values(values).returningAll().executeTakeFirstOrThrow());
}

export async function findPartner(db: Executor, idOrSlug: string): Promise<Partner | undefined> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrSlug);
  const row = await db
    .selectFrom('partners')
    .selectAll()
    .where(isUuid ? 'id' : 'slug', '=', isUuid ? idOrSlug.toLowerCase() : idOrSlug)
    .executeTakeFirst();
  return row && toPartner(row);
}

export async function updateBrandName(db: Executor, partnerId: string, brandName: string | null): Promise<void> {
  await db.updateTable('partners').set({ brand_name: brandName }).where('id', '=', partnerId).execute();
}

/** Whether any partner exists (the demo seed runs only on an empty database). */
export async function anyPartnerExists(db: Executor): Promise<boolean> {
  return (await db.selectFrom('partners').select('id').limit(1).executeTakeFirst()) !== undefined;
}

export async function insertUser(db: Executor, values: Insertable<UsersTable>): Promise<{ id: string; email: string }> {
  return db.insertInto('users').values(values).returning(['id', 'email']).executeTakeFirstOrThrow();
}

export async function listPartners(db: Executor): Promise<Partner[]> {
  return (await db.selectFrom('partners').selectAll().orderBy('created_at').orderBy('slug').execute()).map(toPartner);
}

/**
 * The agreement in force at `at` (now by default): the highest signed version already effective (or
 * version 1); the draft while the original agreement is not signed; undefined when there is none.
 */
export async function findAgreement(
  db: Executor,
  partnerId: string,
  at: Date = new Date(),
): Promise<Agreement | undefined> {
  // version 1 stands for any instant before its signature (amendments.ts, agreementAt)
  const version = await db
    .selectFrom('agreement_versions')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where((eb) => eb.or([eb('effective_at', '<=', at), eb('version', '=', 1)]))
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (version) return toAgreementVersion(version);
  const row = await db.selectFrom('agreements').selectAll().where('partner_id', '=', partnerId).executeTakeFirst();
  return row && toAgreement(row);
}

/** The original agreement as set and signed (the draft, or version 1's terms). */
export async function findOriginalAgreement(db: Executor, partnerId: string): Promise<Agreement | undefined> {
  const row = await db.selectFrom('agreements').selectAll().where('partner_id', '=', partnerId).executeTakeFirst();
  return row && toAgreement(row);
}

/**
 * Every version of a partner's agreement, oldest first: the signed versions, or the draft alone while
 * the original agreement is not signed (an empty list when there is no agreement).
 */
export async function listAgreementVersions(db: Executor, partnerId: string): Promise<Agreement[]> {
  const rows = await db
    .selectFrom('agreement_versions')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('version')
    .execute();
  if (rows.length) return rows.map(toAgreementVersion);
  const draft = await findOriginalAgreement(db, partnerId);
  return draft ? [draft] : [];
}

/** Inserts a signed version (version 1 at signature, the next number for an amendment). */
export async function insertAgreementVersion(
  db: Executor,
  a: Omit<Agreement, 'status' | 'signedAt' | 'signedBy' | 'effectiveAt' | 'reason'> & {
    effectiveAt: Date;
    signedAt: Date;
    signedBy: string;
    reason: string;
  },
): Promise<Agreement> {
  const row = await db
    .insertInto('agreement_versions')
    .values({
      partner_id: a.partnerId,
      version: a.version,
      allowed_formulas: a.allowedFormulas,
      currency: a.currency,
      tax_rate: a.taxRate,
      commission_min: a.commissionMin,
      commission_max: a.commissionMax,
      compensation_min: a.compensationMin,
      compensation_max: a.compensationMax,
      effective_at: a.effectiveAt,
      signed_at: a.signedAt,
      signed_by: a.signedBy,
      reason: a.reason,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAgreementVersion(row);
}

export async function upsertAgreement(
  db: Executor,
  a: Omit<Agreement, 'status' | 'signedAt' | 'signedBy' | 'version' | 'effectiveAt' | 'reason'>,
): Promise<Agreement> {
  const values = {
    partner_id: a.partnerId,
    status: 'draft' as const,
    allowed_formulas: a.allowedFormulas,
    currency: a.currency,
    tax_rate: a.taxRate,
    commission_min: a.commissionMin,
    commission_max: a.commissionMax,
    compensation_min: a.compensationMin,
    compensation_max: a.compensationMax,
    signed_at: null,
    signed_by: null,
    updated_at: new Date(),
  };
  const { partner_id: _partnerId, ...update } = values;
  const row = await db
    .insertInto('agreements')
    .values(values)
    .onConflict((oc) => oc.column('partner_id').doUpdateSet(update))
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAgreement(row);
}

export async function markAgreementSigned(db: Executor, partnerId: string, signedBy: string): Promise<Agreement> {
  const row = await db
    .updateTable('agreements')
    .set({ status: 'signed', signed_at: new Date(), signed_by: signedBy, updated_at: new Date() })
    .where('partner_id', '=', partnerId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAgreement(row);
}

export async function listSubscriptions(db: Executor, partnerId: string): Promise<ApiName[]> {
  const rows = await db
    .selectFrom('api_subscriptions')
    .select('api')
    .where('partner_id', '=', partnerId)
    .orderBy('api')
    .execute();
  return rows.map((r) => r.api as ApiName);
}

export async function insertSubscription(db: Executor, partnerId: string, api: ApiName): Promise<boolean> {
  const rows = await db
    .insertInto('api_subscriptions')
    .values({ partner_id: partnerId, api })
    .onConflict((oc) => oc.doNothing())
    .returning('api')
    .execute();
  return rows.length > 0;
}

export async function deleteSubscription(db: Executor, partnerId: string, api: ApiName): Promise<boolean> {
  const rows = await db
    .deleteFrom('api_subscriptions')
    .where('partner_id', '=', partnerId)
    .where('api', '=', api)
    .returning('api')
    .execute();
  return rows.length > 0;
}

export async function findCurrentConfiguration(db: Executor, partnerId: string): Promise<Configuration | undefined> {
  const row = await db
    .selectFrom('partner_configurations')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && toConfiguration(row);
}

export async function findConfigurationById(
  db: Executor,
  partnerId: string,
  id: string,
): Promise<Configuration | undefined> {
  const row = await db
    .selectFrom('partner_configurations')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toConfiguration(row);
}

export async function listConfigurations(db: Executor, partnerId: string): Promise<Configuration[]> {
  const rows = await db
    .selectFrom('partner_configurations')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('version', 'desc')
    .execute();
  return rows.map(toConfiguration);
}

/**
 * Locks the partner's row (no key update: a subscribe's foreign key share lock is not blocked): the
 * partner's terms — its agreement, amendments and configuration — change one writer at a time, each
 * reading what the one before it committed. A configuration save then sees the amendment signed just
 * before it, an amendment the configuration saved just before it, and each writer numbers its own
 * version. Callers take it first in their transaction, before any other lock (partner first: no deadlock).
 */
export async function lockPartnerTerms(trx: Executor, partnerId: string): Promise<void> {
  await trx.selectFrom('partners').select('id').where('id', '=', partnerId).forNoKeyUpdate().execute();
}

/**
 * Inserts the next version, numbered after the last one: callers lock the partner first
 * (`lockPartnerTerms`, in the same transaction), else two concurrent writers number the same version.
 */
export async function insertConfiguration(
  db: Executor,
  c: Omit<Configuration, 'id' | 'version' | 'createdAt'>,
): Promise<Configuration> {
  const last = await db
    .selectFrom('partner_configurations')
    .select((eb) => eb.fn.max('version').as('version'))
    .where('partner_id', '=', c.partnerId)
    .executeTakeFirst();
  const row = await db
    .insertInto('partner_configurations')
    .values({
      partner_id: c.partnerId,
      version: (last?.version ?? 0) + 1,
      formula: c.formula,
      delay_tiers: JSON.stringify(c.delayTiers),
      cancellation_amount: c.cancellationAmount,
      commission_rate: c.commissionRate,
      currency: c.currency,
      created_by: c.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toConfiguration(row);
}

export async function insertApiKey(
  db: Executor,
  k: { partnerId: string; environment: Environment; keyHash: string; display: string; label: string | null },
): Promise<ApiKeyInfo> {
  const row = await db
    .insertInto('api_keys')
    .values({
      partner_id: k.partnerId,
      environment: k.environment,
      key_hash: k.keyHash,
      display: k.display,
      label: k.label,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toApiKey(row);
}

export async function listApiKeys(db: Executor, partnerId: string): Promise<ApiKeyInfo[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('created_at')
    .execute();
  return rows.map(toApiKey);
}

/**
 * Revokes a key not yet revoked; undefined when there is no such key of the partner, or when it was
 * revoked already (by a transaction committed since the caller read it: the row is re-checked once
 * its lock is granted), so only one revocation is ever written and audited.
 */
export async function markApiKeyRevoked(
  db: Executor,
  partnerId: string,
  keyId: string,
): Promise<ApiKeyInfo | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('partner_id', '=', partnerId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row && toApiKey(row);
}

/** Last-used times are collected in memory and flushed here periodically, off the request path. */
export async function touchApiKeys(db: Executor, usedAt: Map<string, Date>): Promise<void> {
  for (const [id, at] of usedAt) {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }
}

const toDocuments = (r: Selectable<AgreementDocumentsTable>): DocumentSet => ({
  partnerId: r.partner_id,
  version: r.version,
  ipid: { url: r.ipid_url, version: r.ipid_version, sha256: r.ipid_sha256 },
  terms: { url: r.terms_url, version: r.terms_version, sha256: r.terms_sha256 },
  insurer: {
    name: r.insurer_name,
    registration: r.insurer_registration,
    address: r.insurer_address,
    regulator: r.insurer_regulator,
    complaints: { email: r.complaints_email, url: r.complaints_url },
  },
  createdBy: r.created_by,
  createdAt: r.created_at,
});

/** The agreement's current compliance pack (highest version), or a given version. */
export async function findDocuments(
  db: Executor,
  partnerId: string,
  version?: number,
): Promise<DocumentSet | undefined> {
  let q = db.selectFrom('agreement_documents').selectAll().where('partner_id', '=', partnerId);
  if (version !== undefined) q = q.where('version', '=', version);
  const row = await q.orderBy('version', 'desc').limit(1).executeTakeFirst();
  return row && toDocuments(row);
}

export async function listDocuments(db: Executor, partnerId: string): Promise<DocumentSet[]> {
  const rows = await db
    .selectFrom('agreement_documents')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('version', 'desc')
    .execute();
  return rows.map(toDocuments);
}

/** Inserts the next version of the pack: callers lock the partner first (`lockPartnerTerms`), as for a configuration. */
export async function insertDocuments(
  db: Executor,
  partnerId: string,
  createdBy: string,
  d: DocumentSetInput,
): Promise<DocumentSet> {
  const last = await db
    .selectFrom('agreement_documents')
    .select((eb) => eb.fn.max('version').as('v'))
    .where('partner_id', '=', partnerId)
    .executeTakeFirst();
  const row = await db
    .insertInto('agreement_documents')
    .values({
      partner_id: partnerId,
      version: Number(last?.v ?? 0) + 1,
      ipid_url: d.ipid.url,
      ipid_version: d.ipid.version,
      ipid_sha256: d.ipid.sha256,
      terms_url: d.terms.url,
      terms_version: d.terms.version,
      terms_sha256: d.terms.sha256,
      insurer_name: d.insurer.name,
      insurer_registration: d.insurer.registration,
      insurer_address: d.insurer.address,
      insurer_regulator: d.insurer.regulator,
      complaints_email: d.insurer.complaints.email,
      complaints_url: d.insurer.complaints.url,
      created_by: createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toDocuments(row);
}
