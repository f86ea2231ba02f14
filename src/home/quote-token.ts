import crypto from 'node:crypto';
import { hmac } from '../platform/crypto.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import type { HomeRisk } from './home-risk.ts';

/**
 * A home quote reference carries its own priced terms, signed, as flight quotes do
 * (flight/quote-token.ts), so the Demo API's /getPrice writes nothing to the database:
 * `h1.<payload base64url>.<HMAC-SHA256 truncated to 128 bits, base64url>`, with the quote-signing key.
 * The prefix is part of the signed text, so a flight quote (`q1.`) never passes for a home quote.
 * The payload is not secret (the partner sent or received every value in it), only tamper-proof.
 */
export interface HomeQuoteTerms {
  id: string;
  partnerId: string;
  environment: Environment;
  tariffVersion: string;
  currency: string;
  /** Integer minor units. */
  annualPremium: number;
  monthlyPremium: number;
  risk: HomeRisk;
  issuedAt: Date;
  expiresAt: Date;
}

const PREFIX = 'h1';

export function signHomeQuote(key: Buffer, terms: HomeQuoteTerms): string {
  const payload = JSON.stringify([
    terms.id,
    Math.floor(terms.issuedAt.getTime() / 1000),
    Math.floor(terms.expiresAt.getTime() / 1000),
    terms.partnerId,
    terms.environment,
    terms.tariffVersion,
    terms.currency,
    terms.annualPremium,
    terms.monthlyPremium,
    terms.risk,
  ]);
  const body = `${PREFIX}.${Buffer.from(payload).toString('base64url')}`;
  return `${body}.${signature(key, body)}`;
}

/** Verifies the signature and decodes; whose quote it is and its expiry are the caller's business. */
export function verifyHomeQuote(key: Buffer, reference: string, field = '/quoteReference'): HomeQuoteTerms {
  const invalid = () => new DomainError('quote_invalid', 'The quote reference is not one this platform issued to you.', { errors: [{ field, message: 'unknown or altered quote reference' }] });
  const parts = reference.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX) throw invalid();
  const body = `${parts[0]}.${parts[1]}`;
  const expected = Buffer.from(signature(key, body));
  const given = Buffer.from(parts[2]!);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw invalid();
  try {
    const [id, iat, exp, partnerId, environment, tariffVersion, currency, annualPremium, monthlyPremium, risk] = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return { id, partnerId, environment, tariffVersion, currency, annualPremium, monthlyPremium, risk, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
  } catch {
    throw invalid();
  }
}

function signature(key: Buffer, body: string): string {
  return hmac(key, body).subarray(0, 16).toString('base64url');
}
