import crypto from 'node:crypto';
import { openJson, sealJson } from '../platform/signed-token.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import type { Formula } from '../partners/index.ts';
import type { PremiumBreakdown } from './pricing.ts';

/**
 * A quote reference carries its own priced terms, signed, so issuing a quote writes nothing to the
 * database: `q3.<terms base64url>.<tag>.<id>`, the tag being HMAC-SHA256 (truncated to 128 bits) of
 * `q3.<terms>`. The terms — partner, environment, configuration, formula, passengers, currency,
 * premium, legs (with the flight number when the quote was priced for one), the risk model version,
 * issue and expiry minute — are not secret (the partner has every value), only
 * tamper-proof. The id (96 random bits) tells apart the quotes issued on the same signed terms: it is
 * not signed, so that one signature serves every quote of a trip within a minute (signing each quote
 * cost a third of /getPrice's throughput). Changing it gives nothing a new /getPrice would not:
 * the same terms, under another id. A quote subscribes once: contracts.quote_id (`<tag>.<id>`) is
 * unique.
 *
 * `q2.<terms>.<tag>.<id>` references (the same without the model version, all priced by version
 * 'v1') and `q1.<payload>.<tag>` references (id and times inside the signed payload) are still
 * accepted until the last of them has expired (24 h after the next format was introduced at most).
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
  /**
   * Per leg: [departureAirport, arrivalAirport, airline, departureLocal, flightNumber when quoted for
   * one, its operating flight when a codeshare was quoted].
   */
  legs: QuotedLeg[];
  /** Version of the risk model the premium was priced with. */
  modelVersion: string;
  /** Version of the agreement's compliance pack given with the quote (0 in quotes issued before it existed). */
  documentsVersion: number;
  /**
   * Version of the agreement in force when the quote was priced (0: an unsigned draft; undefined in
   * quotes signed before agreement versions existed — the version in force at issuedAt).
   */
  agreementVersion?: number | undefined;
  /**
   * Each leg's net premium per passenger as the quote priced it, in minor units: the weights of the
   * legs' shares at subscribe (shares.ts). Absent from quotes signed before 2026-11-25.
   */
  legNets?: number[];
  issuedAt: Date;
  expiresAt: Date;
}

export type QuotedLeg =
  | [string, string, string, string]
  | [string, string, string, string, string]
  | [string, string, string, string, string, string];

const PREFIX = 'q3';
// signed terms: [partnerId, environment, configurationId, formula, passengers, currency,
//                [net, tax, commission, total], legs, modelVersion, documentsVersion, agreementVersion,
//                legNets, issuedAt (epoch s), expiresAt (epoch s)] — q3 terms signed before 2026-11-25 have
//                neither agreementVersion (issue 14 §2: the version in force at issuedAt) nor legNets (the
//                legs' shares priced again at subscribe), and before the compliance pack (issue 13 §2) no
//                documentsVersion (read as 0: no documents were quoted).
const PREVIOUS_PREFIX = 'q2';
// q2 terms: the same without modelVersion (every q2 quote was priced by version 'v1').
const PREVIOUS_MODEL_VERSION = 'v1';
const LEGACY_PREFIX = 'q1';
// q1 payload: [id, issuedAt (epoch s), expiresAt (epoch s), partnerId, environment, configurationId,
//              formula, passengers, currency, [net, tax, commission, total], legs]
const QUOTE_ID = /^[A-Za-z0-9_-]{16}$/;

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

/** Serialises the shared part once; `signTerms` then only adds the times. */
export function prepareQuote(body: QuoteBody): string {
  const p = body.premium;
  return JSON.stringify([
    body.partnerId,
    body.environment,
    body.configurationId,
    body.formula,
    body.passengers,
    body.currency,
    [p.net, p.tax, p.commission, p.total],
    body.legs,
    body.modelVersion,
    body.documentsVersion,
    ...(body.agreementVersion === undefined && body.legNets === undefined
      ? []
      : [body.agreementVersion ?? null, body.legNets ?? null]),
  ]).slice(1, -1);
}

/** Signs the terms of a trip for a validity window: `q3.<terms>.<tag>`, shared by the quotes of that window. */
export function signTerms(key: Buffer, prepared: string, issuedAt: Date, expiresAt: Date): string {
  return sealJson(
    key,
    PREFIX,
    `[${prepared},${Math.floor(issuedAt.getTime() / 1000)},${Math.floor(expiresAt.getTime() / 1000)}]`,
  );
}

/** One quote: the signed terms and a fresh id. */
export function quoteReference(signedTerms: string, id: string): string {
  return `${signedTerms}.${id}`;
}

/** Verifies the signature and decodes; expiry is the caller's business (it needs the clock). */
export function verifyQuote(key: Buffer, reference: string): QuoteTerms {
  if (reference.startsWith(`${LEGACY_PREFIX}.`)) return verifyLegacy(key, reference);
  const previous = reference.startsWith(`${PREVIOUS_PREFIX}.`);
  const cut = reference.lastIndexOf('.');
  const signed = reference.slice(0, cut);
  const id = reference.slice(cut + 1);
  if (cut < 0 || !QUOTE_ID.test(id)) throw invalidQuote();
  const payload = openJson(key, previous ? PREVIOUS_PREFIX : PREFIX, signed);
  if (!Array.isArray(payload)) throw invalidQuote();
  const tag = signed.slice(signed.lastIndexOf('.') + 1);
  let documentsVersion = 0;
  let agreementVersion: number | undefined;
  let legNets: number[] | undefined;
  if (!previous && payload.length === 14) {
    const [version, nets] = payload.splice(10, 2) as [unknown, unknown];
    if (version !== null) {
      if (!Number.isInteger(version) || (version as number) < 0) throw invalidQuote();
      agreementVersion = version as number;
    }
    if (nets !== null) {
      if (!Array.isArray(nets) || !nets.every((n) => Number.isSafeInteger(n) && n >= 0)) throw invalidQuote();
      legNets = nets as number[];
    }
  }
  if (!previous && payload.length === 12) {
    documentsVersion = payload.splice(9, 1)[0] as number;
    if (!Number.isInteger(documentsVersion) || documentsVersion < 0) throw invalidQuote();
  }
  if (previous) {
    const [partnerId, environment, configurationId, formula, passengers, currency, premium, legs, iat, exp] =
      payload as [string, Environment, string, Formula, number, string, number[], QuoteTerms['legs'], number, number];
    return terms(`${tag}.${id}`, [
      partnerId,
      environment,
      configurationId,
      formula,
      passengers,
      currency,
      premium,
      legs,
      PREVIOUS_MODEL_VERSION,
      iat,
      exp,
    ]);
  }
  const [
    partnerId,
    environment,
    configurationId,
    formula,
    passengers,
    currency,
    premium,
    legs,
    modelVersion,
    iat,
    exp,
  ] = payload as [
    string,
    Environment,
    string,
    Formula,
    number,
    string,
    number[],
    QuoteTerms['legs'],
    string,
    number,
    number,
  ];
  const quote = terms(
    `${tag}.${id}`,
    [partnerId, environment, configurationId, formula, passengers, currency, premium, legs, modelVersion, iat, exp],
    documentsVersion,
    agreementVersion,
  );
  if (legNets && legNets.length !== quote.legs.length) throw invalidQuote();
  return legNets ? { ...quote, legNets } : quote;
}

function verifyLegacy(key: Buffer, reference: string): QuoteTerms {
  const payload = openJson(key, LEGACY_PREFIX, reference);
  if (!payload) throw invalidQuote();
  const [id, iat, exp, partnerId, environment, configurationId, formula, passengers, currency, premium, legs] =
    payload as [
      string,
      number,
      number,
      string,
      Environment,
      string,
      Formula,
      number,
      string,
      number[],
      QuoteTerms['legs'],
    ];
  return terms(id, [
    partnerId,
    environment,
    configurationId,
    formula,
    passengers,
    currency,
    premium,
    legs,
    PREVIOUS_MODEL_VERSION,
    iat,
    exp,
  ]);
}

function terms(
  id: string,
  [partnerId, environment, configurationId, formula, passengers, currency, premium, legs, modelVersion, iat, exp]: [
    string,
    Environment,
    string,
    Formula,
    number,
    string,
    number[],
    QuoteTerms['legs'],
    string,
    number,
    number,
  ],
  documentsVersion = 0,
  agreementVersion?: number,
): QuoteTerms {
  if (
    !Array.isArray(premium) ||
    !Array.isArray(legs) ||
    typeof modelVersion !== 'string' ||
    !Number.isInteger(iat) ||
    !Number.isInteger(exp)
  )
    throw invalidQuote();
  const [net, tax, commission, total] = premium as [number, number, number, number];
  return {
    id,
    partnerId,
    environment,
    configurationId,
    formula,
    passengers,
    currency,
    premium: { net, tax, commission, total },
    legs,
    modelVersion,
    documentsVersion,
    ...(agreementVersion === undefined ? {} : { agreementVersion }),
    issuedAt: new Date(iat * 1000),
    expiresAt: new Date(exp * 1000),
  };
}

const invalidQuote = () =>
  new DomainError('quote_invalid', 'The quote reference is not one this platform issued to you.', {
    errors: [{ field: '/quoteReference', code: 'invalid', message: 'unknown or altered quote reference' }],
  });
