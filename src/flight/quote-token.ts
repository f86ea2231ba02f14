import crypto from 'node:crypto';
import { openJson, sealJson } from '../platform/signed-token.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import type { Formula } from './coverage.ts';
import type { PremiumBreakdown } from './pricing.ts';

/**
 * A quote reference carries its own priced terms, signed, so issuing a quote writes nothing to the
 * database: `q1.<payload base64url>.<HMAC-SHA256 truncated to 128 bits, base64url>`.
 * The payload is not secret (the partner already has every value in it), only tamper-proof.
 * A quote subscribes once: contracts.quote_id is unique.
 */
export interface QuoteTerms {
  /** Random id of this quote (96 bits). */
  id: string;
  partnerId: string;
  environment: Environment;
  configurationId: string;
  formula: Formula;
  passengers: number;
  currency: string;
  premium: PremiumBreakdown;
  /** Per leg: [departureAirport, arrivalAirport, airline, departureLocal]. */
  legs: [string, string, string, string][];
  issuedAt: Date;
  expiresAt: Date;
}

const PREFIX = 'q1';
// payload: [id, issuedAt (epoch s), expiresAt (epoch s), partnerId, environment, configurationId,
//           formula, passengers, currency, [net, tax, commission, total], legs]

// Quote ids come from a pool of random bytes refilled 4 KiB at a time: one CSPRNG call per ~340
// quotes instead of one per quote.
const pool = Buffer.alloc(4096);
let offset = pool.length;

export function newQuoteId(): string {
  if (offset + 12 > pool.length) {
    crypto.randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + 12);
  offset += 12;
  return id;
}

/** The parts of a quote shared by every quote of the same trip and terms (memoised by the caller). */
export type QuoteBody = Omit<QuoteTerms, 'id' | 'issuedAt' | 'expiresAt'>;

/** Serialises the shared part once; `signPrepared` then only adds the id and times. */
export function prepareQuote(body: QuoteBody): string {
  const p = body.premium;
  return JSON.stringify([body.partnerId, body.environment, body.configurationId, body.formula, body.passengers, body.currency, [p.net, p.tax, p.commission, p.total], body.legs]).slice(1, -1);
}

export function signPrepared(key: Buffer, prepared: string, id: string, issuedAt: Date, expiresAt: Date): string {
  return sealJson(key, PREFIX, `["${id}",${Math.floor(issuedAt.getTime() / 1000)},${Math.floor(expiresAt.getTime() / 1000)},${prepared}]`);
}

/** Verifies the signature and decodes; expiry is the caller's business (it needs the clock). */
export function verifyQuote(key: Buffer, reference: string): QuoteTerms {
  const payload = openJson(key, PREFIX, reference);
  if (!payload) throw invalidQuote();
  const [id, iat, exp, partnerId, environment, configurationId, formula, passengers, currency, premium, legs] = payload as [string, number, number, string, Environment, string, Formula, number, string, number[], QuoteTerms['legs']];
  if (!Array.isArray(premium) || !Array.isArray(legs)) throw invalidQuote();
  const [net, tax, commission, total] = premium as [number, number, number, number];
  return { id, partnerId, environment, configurationId, formula, passengers, currency, premium: { net, tax, commission, total }, legs, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
}

const invalidQuote = () =>
  new DomainError('quote_invalid', 'The quote reference is not one this platform issued to you.', { errors: [{ field: '/quoteReference', message: 'unknown or altered quote reference' }] });
