import type { DelayTier, Formula } from './coverage.ts';

export const APIS = ['flight-delay', 'demo', 'policy-admin'] as const;
export type ApiName = (typeof APIS)[number];

/** A partner's three worlds: test data, the partner's own acceptance tests, real customers. */
export const ENVIRONMENTS = ['sandbox', 'preproduction', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export interface Partner {
  id: string;
  slug: string;
  name: string;
  createdAt: Date;
}

/** The insurer's agreement with a partner. Rates are decimal strings ("0.09"); amounts minor units. */
export interface Agreement {
  partnerId: string;
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
