import {
  resolveHomeRisk,
  riskDifferences,
  storedHomeRiskErrors,
  verifyHomeQuote,
  type HomeQuoteTerms,
  type HomeRisk,
  type HomeRiskInput,
} from '../home/index.ts';
import { audit } from '../platform/audit.ts';
import { encrypt } from '../platform/crypto.ts';
import { currencyError } from '../platform/money.ts';
import type { PremiumFrequency } from '../platform/db-schema.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { findAirline, findAirport } from '../reference/index.ts';
import type { Caller, PolicyDeps } from './deps.ts';
import * as repo from './policies-repo.ts';
import { plusYears, policyView, todayOf, type Address, type PolicyView, type Product } from './policy.ts';
import { newPolicyNumber } from './policy-number.ts';
import { checkCountry } from './country.ts';
import {
  checkAddress,
  checkBirthDate,
  checkNames,
  checkPhone,
  hasHiddenCharacter,
  normalEmail,
  trimAddress,
} from './policyholder.ts';
import { checkVehicle, type MotorRisk } from './vehicle.ts';
import { hiddenCharacterError } from '../platform/hidden-characters.ts';

export interface CreatePolicyInput {
  product: Product;
  externalReference: string;
  policyholder: {
    firstName: string;
    lastName: string;
    birthDate: string;
    email: string;
    phone: string;
    address: Address;
  };
  effectiveDate: string;
  expiryDate: string;
  premium: { amount: number; currency: string; frequency: PremiumFrequency };
  /** Already checked against the product's schema (the route does it). */
  risk: object;
  quoteReference?: string | undefined;
  status?: 'active' | 'pending' | undefined;
}

/** The longest period of cover, in years, by product: a trip's cover lasts at most a year. */
export const MAX_COVER_YEARS: Record<Product, number> = { home: 10, motor: 10, other: 10, travel: 1, flight_delay: 1 };
/** How far ahead a policy may start (sold in advance), and how far back one may be recorded (a migration). */
export const MAX_YEARS_AHEAD = 1;
export const MAX_YEARS_BACK = 10;

/**
 * POST /policies: records a policy written by the partner's policy-administration system. The
 * external reference is unique per partner and environment (409 otherwise: an idempotent retry never
 * gets here, it replays). A home policy's risk is checked like a Demo API quote, and when it names
 * a quote it must be the quoted risk and premium. Runs in the caller's transaction (the idempotency
 * layer's), so the policy and its audit row commit together.
 */
export async function createPolicy(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  input: CreatePolicyInput,
): Promise<PolicyView> {
  const now = deps.now();
  const today = todayOf(now);
  const errors = checkTerms(input, today);
  if (input.quoteReference !== undefined && input.product !== 'home')
    errors.push({ field: '/quoteReference', code: 'not_allowed', message: 'only applies to product home' });
  if (errors.length) throw invalid(errors);

  const risk = resolveRisk(input.product, input.risk, now);
  let quote: HomeQuoteTerms | undefined;
  if (input.quoteReference !== undefined)
    quote = checkQuote(deps, caller, input.quoteReference, risk as HomeRisk, input.premium, now, postalCodeName(input));
  const row = await recordPolicy(deps, trx, caller, { ...input, risk }, now, { quoteId: quote?.id ?? null });
  return policyView(row, deps.keys.encryption, today, undefined); // just recorded: not renewed
}

/**
 * The policyholder, the period of cover (with the risk's dates) and the premium's currency, as a
 * create checks them. `renewal`: the terms of a renewal, the policyholder and risk as stored, checked
 * by today's rules — but for a rule no call can satisfy on a stored value: a motor risk's make and
 * model (no endpoint changes them) are not checked for a control or invisible character, a rule
 * added after policies were stored with one. A stored home risk (no call changes it either) is
 * blocked only by what the tariff cannot cover or rate (storedHomeRiskErrors: a territory outside it,
 * 975xx; a département in no zone of the current rating table); the rules of a quote it may break
 * (rooms against area, decimals, a CEDEX code, the city, the construction year) are findings for the
 * renewal's audit row (renew-policy.ts). A creation checks the whole home risk afterwards
 * (resolveRisk), with its own error codes.
 */
export function checkTerms(input: CreatePolicyInput, today: string, options: { renewal?: boolean } = {}): FieldError[] {
  const errors = [
    ...checkPolicyholder(input.policyholder, input.effectiveDate, today),
    ...checkCoverPeriod(input, today, options.renewal ?? false),
  ];
  const premiumCurrency = currencyError(input.premium.currency, '/premium/currency');
  if (premiumCurrency) errors.push(premiumCurrency);
  if (options.renewal && input.product === 'home') {
    errors.push(...storedHomeRiskErrors(input.risk as HomeRisk, '/risk'));
  }
  return errors;
}

/**
 * Inserts a checked policy (its risk as stored) under a fresh policy number, with its `created` audit
 * row; a renewal names the policy it renews. 409 external_reference_conflict when the partner already
 * has a policy with the external reference. `now` is the use case's clock: the `created` audit row's
 * time. `created_at` is not: it is the inserting transaction's start on the database's clock, the key
 * GET /policies pages by behind a commit horizon of transaction starts (search-policies.ts;
 * docs/ARCHITECTURE.md, "Clocks"); the first `updated_at` is the same value, so a new policy's
 * `updatedAt` equals its `createdAt` (as a claim's first `updated_at` equals its `opened_at`).
 */
export async function recordPolicy(
  deps: PolicyDeps,
  trx: Trx,
  caller: Caller,
  input: CreatePolicyInput,
  now: Date,
  origin: { quoteId?: string | null; renews?: { policyNumber: string; anniversaryDate: string } },
): Promise<repo.PolicyRow> {
  const holder = input.policyholder;
  const values = {
    partner_id: caller.partnerId,
    environment: caller.environment,
    external_reference: input.externalReference,
    product: input.product,
    status: input.status ?? 'active',
    holder_first_name_enc: encrypt(deps.keys.encryption, holder.firstName.trim()),
    holder_last_name_enc: encrypt(deps.keys.encryption, holder.lastName.trim()),
    holder_birth_date_enc: encrypt(deps.keys.encryption, holder.birthDate),
    holder_email_enc: encrypt(deps.keys.encryption, normalEmail(holder.email)),
    holder_phone_enc: encrypt(deps.keys.encryption, holder.phone),
    holder_address_enc: encrypt(deps.keys.encryption, JSON.stringify(trimAddress(holder.address))),
    effective_date: input.effectiveDate,
    expiry_date: input.expiryDate,
    premium_amount: input.premium.amount,
    currency: input.premium.currency,
    premium_frequency: input.premium.frequency,
    risk: null,
    risk_enc: encrypt(deps.keys.encryption, JSON.stringify(input.risk)),
    quote_reference: input.quoteReference ?? null,
    renews_policy_number: origin.renews?.policyNumber ?? null,
    term_start_date: input.effectiveDate,
    anniversary_date: origin.renews?.anniversaryDate ?? input.effectiveDate,
  };
  let row: repo.PolicyRow | undefined;
  for (let attempt = 0; !row && attempt < 5; attempt++) {
    row = await repo.insertPolicy(trx, { ...values, policy_number: newPolicyNumber() });
    if (!row) {
      const existing = await repo.findByExternalReference(trx, caller, input.externalReference);
      if (existing) {
        throw new DomainError(
          'external_reference_conflict',
          `You already have policy ${existing.policy_number} with the external reference ${input.externalReference}.`,
          {
            policyNumber: existing.policy_number,
            errors: [
              { field: '/externalReference', code: 'invalid', message: 'is already used by another of your policies' },
            ],
          },
        );
      }
    }
  }
  if (!row) throw new Error('Could not draw a free policy number');
  await audit(trx, {
    actor: caller.actor,
    partnerId: caller.partnerId,
    environment: caller.environment,
    entity: 'policy',
    entityId: row.policy_number,
    action: 'created',
    at: now,
    data: {
      externalReference: row.external_reference,
      product: row.product,
      status: row.status,
      effectiveDate: row.effective_date,
      expiryDate: row.expiry_date,
      premium: { amount: row.premium_amount, currency: row.currency, frequency: row.premium_frequency },
      quoteId: origin.quoteId ?? null,
      ...(origin.renews ? { renews: origin.renews.policyNumber } : {}),
    },
  });
  return row;
}

export function invalid(errors: FieldError[], extra: Record<string, unknown> = {}): DomainError {
  return new DomainError(
    'validation_failed',
    errors.length === 1 ? `${errors[0]!.field} ${errors[0]!.message}.` : `${errors.length} fields are invalid.`,
    { errors, ...extra },
  );
}

function checkPolicyholder(
  holder: CreatePolicyInput['policyholder'],
  effectiveDate: string,
  today: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const at = '/policyholder';
  errors.push(...checkNames(holder, at));
  errors.push(...checkPhone(holder.phone, `${at}/phone`));
  errors.push(...checkBirthDate(holder.birthDate, effectiveDate, today, `${at}/birthDate`));
  errors.push(...checkAddress(holder.address, `${at}/address`));
  return errors;
}

/**
 * The period of cover [effectiveDate, expiryDate) against today and the product, and the dates of the
 * risk against that period: a trip, a flight, a vehicle's first registration.
 */
function checkCoverPeriod(input: CreatePolicyInput, today: string, renewal: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const { effectiveDate, expiryDate, product } = input;
  const latestStart = plusYears(today, MAX_YEARS_AHEAD);
  const earliestStart = plusYears(today, -MAX_YEARS_BACK);
  if (effectiveDate > latestStart)
    errors.push({
      field: '/effectiveDate',
      code: 'out_of_range',
      message: `must be on or before ${shown(latestStart)} (at most ${MAX_YEARS_AHEAD} year ahead)`,
    });
  else if (effectiveDate < earliestStart)
    errors.push({
      field: '/effectiveDate',
      code: 'out_of_range',
      message: `must be on or after ${shown(earliestStart)} (at most ${MAX_YEARS_BACK} years back)`,
    });
  const longest = MAX_COVER_YEARS[product];
  if (expiryDate <= effectiveDate)
    errors.push({ field: '/expiryDate', code: 'out_of_range', message: 'must be after effectiveDate' });
  // a policy recorded late may have ended (active: its history); a pending one could never come into force
  else if (input.status === 'pending' && expiryDate <= today)
    errors.push({
      field: '/expiryDate',
      code: 'out_of_range',
      message: `must be after today (${today}) for a pending policy: past its expiry date it could never be activated`,
    });
  else if (expiryDate > plusYears(effectiveDate, longest))
    errors.push({
      field: '/expiryDate',
      code: 'out_of_range',
      message: `must be on or before ${shown(plusYears(effectiveDate, longest))}: a ${product} policy covers at most ${longest} year${longest > 1 ? 's' : ''}`,
    });
  const within = (date: string) => date >= effectiveDate && date < expiryDate;
  const period = `within the period of cover, ${effectiveDate} to the day before ${expiryDate}`;
  switch (product) {
    case 'travel': {
      const trip = input.risk as { departureDate: string; returnDate: string; destinationCountry: string };
      errors.push(...checkCountry(trip.destinationCountry, '/risk/destinationCountry'));
      if (!within(trip.departureDate))
        errors.push({ field: '/risk/departureDate', code: 'out_of_range', message: `must be ${period}` });
      if (trip.returnDate >= trip.departureDate && !within(trip.returnDate))
        errors.push({ field: '/risk/returnDate', code: 'out_of_range', message: `must be ${period}` });
      break;
    }
    case 'flight_delay': {
      const flights = (input.risk as { flights: { departureDate: string }[] }).flights;
      flights.forEach((f, i) => {
        if (!within(f.departureDate))
          errors.push({
            field: `/risk/flights/${i}/departureDate`,
            code: 'out_of_range',
            message: `must be ${period}`,
          });
        else if (i > 0 && f.departureDate < flights[i - 1]!.departureDate)
          errors.push({
            field: `/risk/flights/${i}/departureDate`,
            code: 'out_of_range',
            message: 'must be on or after the departure date of the flight before it',
          });
      });
      break;
    }
    case 'motor': {
      const vehicle = input.risk as MotorRisk;
      for (const field of ['make', 'model'] as const)
        if (!vehicle[field].trim())
          errors.push({ field: `/risk/${field}`, code: 'required', message: 'must not be blank' });
        else if (!renewal && hasHiddenCharacter(vehicle[field])) errors.push(hiddenCharacterError(`/risk/${field}`));
      errors.push(...checkVehicle(vehicle, today, '/risk'));
      break;
    }
    default:
      break;
  }
  return errors;
}

/** A bound from plusYears as a real date: 29 February of a common year is the 28th (the same bound for real dates). */
const shown = (date: string): string =>
  date.endsWith('-02-29') && new Date(`${date}T00:00:00Z`).getUTCDate() !== 29 ? `${date.slice(0, 8)}28` : date;

/** The product's own rules beyond its schema; returns the risk to store. */
function resolveRisk(product: Product, risk: object, now: Date): object {
  switch (product) {
    case 'home':
      return resolveHomeRisk(risk as HomeRiskInput, '/risk', now).risk;
    case 'flight_delay': {
      const flights = (
        risk as { flights: { flightNumber: string; departureAirport: string; arrivalAirport: string }[] }
      ).flights;
      const errors = flights.flatMap((f, i) =>
        (['departureAirport', 'arrivalAirport'] as const)
          .filter((field) => !findAirport(f[field]))
          .map((field) => ({
            field: `/risk/flights/${i}/${field}`,
            code: 'invalid' as const,
            message: 'is not a known IATA airport code',
          })),
      );
      if (errors.length) throw new DomainError('unknown_airport', 'Unknown airport.', { errors });
      // the designator's first two characters are its airline, checked like the Flight Delay API's
      const airlines: FieldError[] = flights.flatMap((f, i) =>
        findAirline(f.flightNumber.slice(0, 2))
          ? []
          : [
              {
                field: `/risk/flights/${i}/flightNumber`,
                code: 'invalid',
                message: `${f.flightNumber.slice(0, 2)} is not a known active IATA airline code`,
              },
            ],
      );
      if (airlines.length) throw new DomainError('unknown_airline', 'Unknown airline.', { errors: airlines });
      // as the Flight Delay API's legs (flight/legs.ts): a flight goes somewhere else
      const loops: FieldError[] = flights.flatMap((f, i) =>
        f.departureAirport === f.arrivalAirport
          ? [
              {
                field: `/risk/flights/${i}/arrivalAirport`,
                code: 'invalid',
                message: 'must differ from departureAirport',
              },
            ]
          : [],
      );
      if (loops.length) throw invalid(loops);
      return risk;
    }
    case 'travel': {
      const trip = risk as { departureDate: string; returnDate: string; tripCost?: { currency: string } };
      const errors: FieldError[] = [];
      if (trip.returnDate < trip.departureDate)
        errors.push({ field: '/risk/returnDate', code: 'out_of_range', message: 'must be on or after departureDate' });
      const tripCurrency = trip.tripCost && currencyError(trip.tripCost.currency, '/risk/tripCost/currency');
      if (tripCurrency) errors.push(tripCurrency);
      if (errors.length) throw invalid(errors);
      return risk;
    }
    case 'motor': {
      // stored trimmed, as checked (a line break sent last is no part of the make)
      const vehicle = risk as MotorRisk;
      return { ...vehicle, make: vehicle.make.trim(), model: vehicle.model.trim() };
    }
    default:
      return risk;
  }
}

/** The name the caller gave a home risk's postal code by: postalCode or zipCode (home-risk.ts). */
const postalCodeName = (input: CreatePolicyInput): string =>
  (input.risk as { zipCode?: string }).zipCode === undefined ? 'postalCode' : 'zipCode';

/** A Demo API quote named by a home policy: yours, live, and the very risk and premium quoted. */
function checkQuote(
  deps: PolicyDeps,
  caller: Caller,
  reference: string,
  risk: HomeRisk,
  premium: CreatePolicyInput['premium'],
  now: Date,
  postalCodeField: string,
): HomeQuoteTerms {
  const quote = verifyHomeQuote(deps.keys.quoteSigning, reference);
  if (quote.partnerId !== caller.partnerId || quote.environment !== caller.environment) {
    // another partner's (or another environment's) quote is indistinguishable from a forged one
    throw new DomainError('quote_invalid', 'The quote reference is not one this platform issued to you.', {
      errors: [{ field: '/quoteReference', code: 'invalid', message: 'unknown quote reference' }],
    });
  }
  if (quote.expiresAt.getTime() <= now.getTime()) {
    throw new DomainError(
      'quote_expired',
      `The quote expired at ${quote.expiresAt.toISOString()}; ask the Demo API /getPrice for a new one.`,
      {
        errors: [{ field: '/quoteReference', code: 'invalid', message: 'expired' }],
      },
    );
  }
  const errors: FieldError[] = riskDifferences(quote.risk, risk).map((d) => ({
    field: `/risk${d.field === '/zipCode' ? `/${postalCodeField}` : d.field}`,
    code: 'invalid',
    message: `the quote says ${JSON.stringify(d.expected)}`,
  }));
  if (premium.currency !== quote.currency)
    errors.push({ field: '/premium/currency', code: 'invalid', message: `the quote says ${quote.currency}` });
  if (premium.frequency === 'annual' && premium.amount !== quote.annualPremium) {
    errors.push({ field: '/premium/amount', code: 'invalid', message: `the quote says ${quote.annualPremium} a year` });
  } else if (premium.frequency === 'monthly' && premium.amount !== quote.monthlyPremium) {
    errors.push({
      field: '/premium/amount',
      code: 'invalid',
      message: `the quote says ${quote.monthlyPremium} a month`,
    });
  } else if (premium.frequency !== 'annual' && premium.frequency !== 'monthly') {
    errors.push({
      field: '/premium/frequency',
      code: 'invalid',
      message: 'the quote prices annual or monthly payments',
    });
  }
  if (errors.length) throw new DomainError('quote_mismatch', 'The policy does not match the quote.', { errors });
  return quote;
}
