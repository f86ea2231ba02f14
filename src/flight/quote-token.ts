import crypto from 'node:crypto';
import { hmac } from '../platform/crypto.ts';
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
  const payload = `["${id}",${Math.floor(issuedAt.getTime() / 1000)},${Math.floor(expiresAt.getTime() / 1000)},${prepared}]`;
  const body = `${PREFIX}.${Buffer.from(payload).toString('base64url')}`;
  return `${body}.${signature(key, body)}`;
}

export function signQuote(key: Buffer, terms: QuoteTerms): string {
  return signPrepared(key, prepareQuote(terms), terms.id, terms.issuedAt, terms.expiresAt);
}

function signature(key: Buffer, body: string): string {
  return hmac(key, body).subarray(0, 16).toString('base64url');
}

/** Verifies the signature and decodes; expiry is the caller's business (it needs the clock). */
export function verifyQuote(key: Buffer, reference: string): QuoteTerms {
  const invalid = () => new DomainError('quote_invalid', 'The quote reference is not one this platform issued to you.', { errors: [{ field: '/quoteReference', message: 'unknown or altered quote reference' }] });
  const parts = reference.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX) throw invalid();
  const body = `${parts[0]}.${parts[1]}`;
  const expected = Buffer.from(signature(key, body));
  const given = Buffer.from(parts[2]!);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw invalid();
  try {
    const [id, iat, exp, partnerId, environment, configurationId, formula, passengers, currency, premium, legs] = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    const [net, tax, commission, total] = premium;
    return { id, partnerId, environment, configurationId, formula, passengers, currency, premium: { net, tax, commission, total }, legs, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
  } catch {
    throw invalid();
  }
}
