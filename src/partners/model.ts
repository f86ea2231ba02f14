import type { DelayTier, Formula } from './coverage.ts';

export const APIS = ['flight-delay', 'demo', 'policy-admin'] as const;
export type ApiName = (typeof APIS)[number];

/** A partner's three worlds: test data, the partner's own acceptance tests, real customers. */
export const ENVIRONMENTS = ['sandbox', 'preproduction', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/**
 * What a partner user may do (docs/portal.md, "Users and roles"): a viewer reads only; a developer
 * also manages API keys and webhooks; an admin also changes the configuration and manages users.
 */
export const USER_ROLES = ['admin', 'developer', 'viewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface Partner {
  id: string;
  slug: string;
  name: string;
  /** The name customers know the partner by, in their SMS, emails and pages; null: `name`. */
  brandName: string | null;
  createdAt: Date;
}

/**
 * The insurer's agreement with a partner, one version of it. Rates are decimal strings ("0.09");
 * amounts minor units. Version 1 is the original agreement (a draft until signed); each amendment is
 * a new signed version with its effective instant (agreements.ts).
 */
export interface Agreement {
  partnerId: string;
  version: number;
  status: 'draft' | 'signed';
  allowedFormulas: Formula[];
  currency: string;
  taxRate: string;
  commissionMin: string;
  commissionMax: string;
  compensationMin: number;
  compensationMax: number;
  signedAt: Date | null;
  signedBy: string | null;
  /** From when this version applies to new quotes; null while the original is a draft. */
  effectiveAt: Date | null;
  /** Why the operator signed this version ("original agreement" for version 1); null for a draft. */
  reason: string | null;
}

/** A document the customer receives before buying: where, which version, and the SHA-256 of the file. */
export interface DocumentRef {
  url: string;
  version: string;
  sha256: string;
}

/** The insurer's legal identity and complaints contact, given with every quote. */
export interface Insurer {
  name: string;
  /** Registration number and form, e.g. "SA, RCS Paris 123 456 789". */
  registration: string;
  address: string;
  /** Supervisory authority, e.g. "ACPR, 4 place de Budapest, 75009 Paris". */
  regulator: string;
  complaints: { email: string; url: string | null };
}

export interface DocumentSetInput {
  ipid: DocumentRef;
  terms: DocumentRef;
  insurer: Insurer;
}

/** One immutable version of an agreement's compliance pack (documents/documents.ts). */
export interface DocumentSet extends DocumentSetInput {
  partnerId: string;
  version: number;
  createdBy: string;
  createdAt: Date;
}

/** One immutable version of a partner's configuration. */
export interface Configuration {
  id: string;
  partnerId: string;
  version: number;
  formula: Formula;
  delayTiers: DelayTier[];
  cancellationAmount: number;
  commissionRate: string;
  currency: string;
  createdBy: string;
  createdAt: Date;
}

export interface ApiKeyInfo {
  id: string;
  partnerId: string;
  environment: Environment;
  display: string;
  label: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}
