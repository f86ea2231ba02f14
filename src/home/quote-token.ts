import { openJson, sealJson } from '../platform/signed-token.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import type { HomeRisk } from './home-risk.ts';

/**
 * A home quote reference carries its own priced terms, signed, as flight quotes do
 * (flight/quote-token.ts), so the Demo API's /getPrice writes nothing to the database:
 * `h1.<payload base64url>.<HMAC-SHA256 truncated to 128 bits, base64url>`, with the quote-signing key.
 * The prefix is part of the signed text, so a flight quote (`q2.`, formerly `q1.`) never passes for a home quote.
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
  return sealJson(key, PREFIX, payload);
}

/** Verifies the signature and decodes; whose quote it is and its expiry are the caller's business. */
export function verifyHomeQuote(key: Buffer, reference: string, field = '/quoteReference'): HomeQuoteTerms {
  const payload = openJson(key, PREFIX, reference);
  if (!payload)
    throw new DomainError('quote_invalid', 'The quote reference is not one this platform issued to you.', {
      errors: [{ field, code: 'invalid', message: 'unknown or altered quote reference' }],
    });
  const [id, iat, exp, partnerId, environment, tariffVersion, currency, annualPremium, monthlyPremium, risk] =
    payload as [string, number, number, string, Environment, string, string, number, number, HomeRisk];
  return {
    id,
    partnerId,
    environment,
    tariffVersion,
    currency,
    annualPremium,
    monthlyPremium,
    risk,
    issuedAt: new Date(iat * 1000),
    expiresAt: new Date(exp * 1000),
  };
}
