import { emitWebhookEvent } from '../webhooks/index.ts';
import { auditWrite } from '../platform/audit.ts';
import { encrypt, type EncryptionKeys } from '../platform/crypto.ts';
import { afterCommit, type CountedWrite, type Trx } from '../platform/db.ts';
import type { ConsentChannel } from '../platform/db-schema.ts';
import type { CustomerLang } from '../platform/language.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import {
  agreementAt,
  coverageFor,
  findAgreement,
  findConfigurationById,
  findDocuments,
  type Formula,
} from '../partners/index.ts';
import { movementsWrite, saleMovements } from '../ledger/index.ts';
import type { ContractStatus } from './model.ts';
import { reserveExposure } from '../limits/index.ts';
import { canonicalBookingReference, openBookingReference, sealBookingReference } from './booking-reference.ts';
import { newContractNumber } from './contract-number.ts';
import * as contracts from './contracts-repo.ts';
import { customerPhoneError, customerPhoneRefusal } from '../notify/index.ts';
import type { Caller, FlightDeps } from './deps.ts';
import { flyingAirline, operatingFlight, throwFlightErrors } from './flight-numbers.ts';
import { normaliseFlightNumber } from '../reference/index.ts';
import { parseDeparture } from './legs.ts';
import { personNameError } from '../platform/person-name.ts';
import {
  compensationView,
  legView,
  legWeights,
  premiumView,
  pricingLeg,
  type CompensationView,
  type LegView,
  type PremiumView,
} from './price-quote.ts';
import { verifyQuote, type QuoteTerms } from './quote-token.ts';
import { perPassenger, splitPremium } from './shares.ts';

export interface SubscribeRequest {
  quoteReference: string;
  customer: { firstName: string; lastName: string; email: string; phone: string; language: CustomerLang };
  booking: { reference: string };
  flights: {
    flightNumber: string;
    /** Codeshares: the flight that flies (monitored), when flightNumber is a marketing number. */
    operatingFlightNumber?: string | undefined;
    departureAirport: string;
    arrivalAirport: string;
    departureDateTime: string;
  }[];
  consent: Consent;
}

/** The customer's acceptance of the quote's pre-contract documents, as the partner collected it. */
export interface Consent {
  acceptedAt: string;
  documentsVersion: number;
  channel: ConsentChannel;
}

/** Tolerance on the partner's clock for consent.acceptedAt. */
const CONSENT_CLOCK_SKEW_MS = 5 * 60_000;
/** How long before the quote the customer may have accepted the same documents (one shopping session). */
const CONSENT_MAX_AGE_MS = 24 * 3_600_000;

export interface ContractView {
  contractNumber: string;
  status: ContractStatus;
  formula: Formula;
  passengers: number;
  premium: PremiumView;
  compensation: CompensationView;
  configurationVersion: number;
  /** The agreement version the contract was sold under; null under an unsigned draft (sandbox). */
  agreementVersion: number | null;
  /** Version of the risk model the quote was priced with. */
  modelVersion: string;
  booking: { reference: string };
  /** flightNumber: the flight the customer booked; operatingFlightNumber: a codeshare's flight that flies, else null. */
  flights: (LegView & { leg: number; flightNumber: string; operatingFlightNumber: string | null })[];
  /** 1 as sold, one more at each change (migration 0024). */
  version: number;
  /** null on contracts sold before consent was recorded (migration 0022). */
  consent: Consent | null;
  createdAt: string;
}

/**
 * POST /subscribe: turns a live quote into an active contract, binding exactly the quoted premium,
 * the coverage of the quoted configuration version and the quoted flights. Runs in the caller's
 * transaction (the idempotency layer's), so the contract, its legs and its audit row commit together.
 * `storeResponse`, when given, turns the contract into the caller's own write that must commit with it
 * (the idempotency layer's stored response: platform/idempotency.ts `StoreResponse`), sent with the last
 * statement.
 */
export async function subscribe(
  deps: FlightDeps,
  trx: Trx,
  caller: Caller,
  input: SubscribeRequest,
  options: { storeResponse?: ((contract: ContractView) => CountedWrite | undefined) | undefined } = {},
): Promise<ContractView> {
  const quote = verifyQuote(deps.keys.quoteSigning, input.quoteReference);
  if (quote.partnerId !== caller.partnerId || quote.environment !== caller.environment) {
    // another partner's (or another environment's) quote is indistinguishable from a forged one
    throw new DomainError('quote_invalid', 'The quote reference is not one this platform issued to you.', {
      errors: [{ code: 'invalid', field: '/quoteReference', message: 'unknown quote reference' }],
    });
  }
  const now = deps.now();
  if (quote.expiresAt.getTime() <= now.getTime()) {
    throw new DomainError(
      'quote_expired',
      `The quote expired at ${quote.expiresAt.toISOString()}; ask /getPrice for a new one.`,
    );
  }
  // A quote signed before documents existed (documentsVersion 0, issued minutes before the upgrade)
  // is checked against the agreement's current documents, which the partner shows.
  const quotedDocuments =
    quote.documentsVersion > 0 ? quote.documentsVersion : ((await findDocuments(trx, caller.partnerId))?.version ?? 0);
  const consent = checkConsent(quote, quotedDocuments, input.consent, now);
  const customer = checkCustomer(input.customer);
  const legs = matchFlights(quote, input.flights);
  const bookingReference = canonicalBookingReference(input.booking.reference);

  // A quote subscribed already is found by the contract's insert (its quote is unique, the insert skips
  // it), not by a query of its own first: one round trip less per subscription. When the insert skips,
  // the quote is checked; when it is free, the contract number was taken and another one is drawn.
  // A configuration version is immutable: the partner's current one, cached by the directory, is the
  // quote's in the common case (no round trip); otherwise it is read here, and the cache is filled
  // again once this transaction has committed (not within it: the embedded database has one connection).
  const terms = deps.directory.cachedTerms(caller.partnerId);
  if (!terms) afterCommit(trx, () => void deps.directory.partnerTerms(caller.partnerId).catch(() => undefined));
  const current = terms?.configuration;
  const configuration =
    current?.id === quote.configurationId
      ? current
      : await findConfigurationById(trx, caller.partnerId, quote.configurationId);
  if (!configuration) {
    await refuseUsedQuote(trx, quote.id);
    throw new DomainError('quote_invalid', 'The quote refers to a configuration that no longer exists.');
  }
  // the agreement version the quote was priced under (a quote signed before versions: the one in force then)
  let agreementVersion = quote.agreementVersion;
  if (agreementVersion === undefined) {
    const then = await findAgreement(trx, caller.partnerId, quote.issuedAt);
    agreementVersion = then?.status === 'signed' ? then.version : 0;
  }
  const coverage = coverageFor(configuration.formula, configuration.delayTiers, configuration.cancellationAmount);
  // The legs' weights are their nets as the quote priced them (signed in the quote); a quote signed
  // before they were carried is priced again for them.
  const weights =
    quote.legNets ??
    legWeights(
      deps.riskModels.get(quote.modelVersion),
      legs.map((leg, i) => pricingLeg(leg, quote.legs[i]![4], quote.legs[i]![5])),
      {
        coverage,
        commissionRate: configuration.commissionRate,
        taxRate:
          agreementAt(deps.directory.cachedTerms(caller.partnerId)?.versions ?? [], quote.issuedAt)?.taxRate ?? '0',
      },
      quote.currency,
    );
  // each leg's share of the premium, per passenger, in proportion to its own price (shares.ts)
  const shares = splitPremium(perPassenger(quote.premium, quote.passengers), weights);
  // the contract and its legs are written by one statement
  const newLegs = legs.map((leg, index) => ({
    leg_index: index,
    partner_id: caller.partnerId,
    environment: caller.environment,
    flight_number: leg.flightNumber,
    operating_flight_number: leg.operatingFlightNumber ?? null,
    airline: leg.airline,
    departure_airport: leg.departureAirport,
    arrival_airport: leg.arrivalAirport,
    departure_local: leg.departureLocal,
    departure_date: leg.departureDate,
    departure_at: leg.departureAt,
    share_net: shares[index]!.net,
    share_tax: shares[index]!.tax,
    share_commission: shares[index]!.commission,
  }));
  let inserted: { contract: contracts.ContractRow; legs: contracts.LegRow[] } | undefined;
  for (let attempt = 0; !inserted && attempt < 5; attempt++) {
    if (attempt > 0) await refuseUsedQuote(trx, quote.id);
    inserted = await contracts.insertContractWithLegs(
      trx,
      {
        contract_number: newContractNumber(),
        partner_id: caller.partnerId,
        environment: caller.environment,
        quote_id: quote.id,
        configuration_id: configuration.id,
        configuration_version: configuration.version,
        // The quoted premium is bound as signed: the model is not asked again, so a change of the
        // active version after the quote refuses nothing; the contract records the quote's version.
        risk_model_version: quote.modelVersion,
        status: 'active',
        // the sale's time, on the application's clock as every time the ledger records (the sale's
        // entries are at it; the backfill reads it back): docs/bordereaux.md, "One clock"
        created_at: now,
        formula: coverage.formula,
        coverage: JSON.stringify(coverage),
        passengers: quote.passengers,
        currency: quote.currency,
        premium_net: quote.premium.net,
        premium_tax: quote.premium.tax,
        premium_commission: quote.premium.commission,
        premium_total: quote.premium.total,
        customer_first_name_enc: encrypt(deps.keys.encryption, customer.firstName),
        customer_last_name_enc: encrypt(deps.keys.encryption, customer.lastName),
        customer_email_enc: encrypt(deps.keys.encryption, customer.email),
        customer_phone_enc: encrypt(deps.keys.encryption, customer.phone),
        customer_language: customer.language,
        ...sealBookingReference(deps.keys.encryption, bookingReference),
        first_departure_at: legs[0]!.departureAt,
        quoted_at: quote.issuedAt,
        consent_accepted_at: consent.acceptedAt,
        consent_documents_version: consent.documentsVersion,
        consent_channel: consent.channel,
        agreement_version: agreementVersion > 0 ? agreementVersion : null,
      },
      newLegs,
    );
  }
  if (!inserted) {
    await refuseUsedQuote(trx, quote.id);
    throw new Error('Could not draw a free contract number');
  }
  const { contract: row, legs: legRows } = inserted;
  const contract = contractView(deps.keys.encryption, row, legRows);
  await emitWebhookEvent(
    trx,
    deps.jobs,
    deps.keys.encryption,
    {
      partnerId: caller.partnerId,
      environment: caller.environment,
      type: 'contract.created',
      occurredAt: row.created_at,
      data: {
        contractNumber: contract.contractNumber,
        status: 'active',
        booking: contract.booking,
        passengers: contract.passengers,
        premium: contract.premium,
        flights: contract.flights.map((f) => ({
          leg: f.leg,
          flightNumber: f.flightNumber,
          ...(f.operatingFlightNumber ? { operatingFlightNumber: f.operatingFlightNumber } : {}),
          departureAirport: f.departureAirport,
          arrivalAirport: f.arrivalAirport,
          airline: f.airline,
          departureDateTime: f.departureDateTime,
          departureAt: f.departureAt,
        })),
        createdAt: contract.createdAt,
      },
    },
    deps.webhookEndpoints,
  );
  // the premium, its tax and the commission enter the ledger in the sale's transaction; they, the audit
  // row and the caller's stored response are sent with the exposure's reservation: one statement
  const along = [
    movementsWrite(
      trx,
      saleMovements(
        {
          id: row.id,
          partnerId: caller.partnerId,
          environment: caller.environment,
          currency: row.currency,
          premiumNet: row.premium_net,
          premiumTax: row.premium_tax,
          premiumCommission: row.premium_commission,
        },
        row.created_at,
        caller.actor,
      ),
    ),
    auditWrite(trx, {
      actor: caller.actor,
      partnerId: caller.partnerId,
      environment: caller.environment,
      entity: 'contract',
      entityId: row.contract_number,
      action: 'created',
      at: row.created_at,
      data: {
        quoteId: quote.id,
        premiumTotal: quote.premium.total,
        configurationVersion: configuration.version,
        modelVersion: quote.modelVersion,
        flights: legRows.map((l) => l.flight_number),
        consent: input.consent,
      },
    }),
    options.storeResponse?.(contract),
  ];
  // The exposure reservation comes last: it locks each leg's flight row until the transaction commits,
  // and every subscription of a popular flight waits for that lock, so it is held for that statement
  // (the writes sent along run in it) and the commit only (a refusal rolls them all back). Measured by
  // `npm run bench`.
  await reserveExposure(trx, {
    environment: caller.environment,
    currency: quote.currency,
    coverage,
    passengers: quote.passengers,
    // a codeshare's exposure counts on its operating carrier: one aircraft, one risk (docs/limits.md)
    legs: legs.map((leg) => ({ ...leg, airline: flyingAirline(leg) })),
    now,
    defaultCapMajor: deps.limits?.defaultCapMajor,
    snapshot: deps.limits, // this process's quotes see the new exposure as soon as it commits
    along,
  });
  return contract;
}

async function refuseUsedQuote(trx: Trx, quoteId: string): Promise<void> {
  if (await contracts.quoteAlreadyUsed(trx, quoteId)) {
    throw new DomainError(
      'quote_already_used',
      'This quote has already been subscribed; ask /getPrice for a new quote.',
    );
  }
}

export function contractView(keys: EncryptionKeys, row: contracts.ContractRow, legs: contracts.LegRow[]): ContractView {
  return {
    contractNumber: row.contract_number,
    status: row.status,
    formula: row.formula as Formula, // written from a validated configuration
    passengers: row.passengers,
    premium: premiumView(
      { net: row.premium_net, tax: row.premium_tax, commission: row.premium_commission, total: row.premium_total },
      row.currency,
    ),
    compensation: compensationView(row.coverage as Parameters<typeof compensationView>[0], row.currency),
    configurationVersion: row.configuration_version,
    agreementVersion: row.agreement_version,
    modelVersion: row.risk_model_version,
    booking: { reference: openBookingReference(keys, row) },
    version: row.version,
    flights: flightsView(legs),
    consent:
      row.consent_accepted_at && row.consent_documents_version !== null && row.consent_channel
        ? {
            acceptedAt: row.consent_accepted_at.toISOString(),
            documentsVersion: row.consent_documents_version,
            channel: row.consent_channel,
          }
        : null,
    createdAt: row.created_at.toISOString(),
  };
}

/** A contract's flights as the API shows them, in leg order. */
export function flightsView(legs: contracts.LegRow[]): ContractView['flights'] {
  return legs.map((l) => ({
    leg: l.leg_index,
    flightNumber: l.flight_number,
    operatingFlightNumber: l.operating_flight_number,
    ...legView({
      departureAirport: l.departure_airport,
      arrivalAirport: l.arrival_airport,
      airline: l.airline,
      departureLocal: l.departure_local,
      departureAt: l.departure_at,
    }),
  }));
}

/**
 * The customer must have accepted exactly the documents given with the quote (a newer version
 * published since applies to new quotes only), before subscribing and at most a day before the
 * quote (the same documents may have been accepted earlier in the customer's session).
 */
function checkConsent(
  quote: QuoteTerms,
  quotedDocuments: number,
  consent: Consent,
  now: Date,
): { acceptedAt: Date; documentsVersion: number; channel: ConsentChannel } {
  if (consent.documentsVersion !== quotedDocuments) {
    const message =
      quotedDocuments === 0
        ? 'your agreement has no documents; ask the insurer'
        : `the quote was given with documents version ${quotedDocuments}`;
    throw new DomainError(
      'documents_version_mismatch',
      `The customer consented to documents version ${consent.documentsVersion}, not those of the quote: ${message}.`,
      { errors: [{ code: 'invalid', field: '/consent/documentsVersion', message }] },
    );
  }
  const acceptedAt = new Date(consent.acceptedAt);
  const skew = CONSENT_CLOCK_SKEW_MS;
  if (
    Number.isNaN(acceptedAt.getTime()) ||
    acceptedAt.getTime() > now.getTime() + skew ||
    acceptedAt.getTime() < quote.issuedAt.getTime() - CONSENT_MAX_AGE_MS
  ) {
    throw new DomainError('validation_failed', 'The consent is not valid.', {
      errors: [
        {
          code: 'invalid',
          field: '/consent/acceptedAt',
          message: `must be in the 24 hours before the quote (${quote.issuedAt.toISOString()}) or since, not in the future`,
        },
      ],
    });
  }
  return { acceptedAt, documentsVersion: consent.documentsVersion, channel: consent.channel };
}

function checkCustomer(c: SubscribeRequest['customer']): SubscribeRequest['customer'] {
  const errors: FieldError[] = [];
  const phone = customerPhoneError(c.phone, '/customer/phone');
  if (phone?.code === 'invalid_format') errors.push(phone);
  const firstName = c.firstName.trim();
  const lastName = c.lastName.trim();
  // the person-name rule of every typed name (platform/person-name.ts): as a policyholder's, so the
  // contract, the claim SMS and the payout's documents never print a blank, a hidden character or no letter
  for (const [field, name] of [
    ['/customer/firstName', firstName],
    ['/customer/lastName', lastName],
  ] as const) {
    const error = personNameError(name, field);
    if (error) errors.push(error);
  }
  // a valid number the SMS cannot reach (a landline): its own code when nothing else is wrong
  const landline = phone?.code === 'not_allowed' ? phone : undefined;
  if (errors.length)
    throw new DomainError('validation_failed', 'The customer is not valid.', {
      errors: landline ? [landline, ...errors] : errors,
    });
  if (landline) throw customerPhoneRefusal(landline);
  return { ...c, firstName, lastName, email: c.email.trim().toLowerCase() };
}

interface MatchedLeg {
  flightNumber: string;
  operatingFlightNumber: string | undefined;
  airline: string;
  departureAirport: string;
  arrivalAirport: string;
  departureLocal: string;
  departureDate: string;
  departureAt: Date;
}

/**
 * The flights must be the quoted legs, in order, each flown by the quoted airline (the quoted flight
 * when the quote names one). A codeshare's operating flight must be the quoted one when the quote
 * names one; a quote naming none lets /subscribe name one (the premium stays the quoted one, the
 * monitoring and the exposure follow the operating flight: docs/monitoring.md#codeshares).
 */
function matchFlights(quote: QuoteTerms, flights: SubscribeRequest['flights']): MatchedLeg[] {
  const errors: FieldError[] = [];
  if (flights.length !== quote.legs.length) {
    const message = `the quote covers ${quote.legs.length} flight(s) (${quote.legs.length === 2 ? 'outbound and return' : 'outbound only'}), ${flights.length} given`;
    throw new DomainError('flights_mismatch', `The flights do not match the quote: ${message}.`, {
      errors: [{ code: 'invalid', field: '/flights', message }],
    });
  }
  // an operating flight of an unknown airline is refused as such before any comparison with the quote
  const airlineErrors: FieldError[] = [];
  flights.forEach((f, i) => {
    if (f.operatingFlightNumber !== undefined)
      operatingFlight(
        f.operatingFlightNumber,
        normaliseFlightNumber(f.flightNumber),
        `/flights/${i}/operatingFlightNumber`,
        airlineErrors,
      );
  });
  throwFlightErrors([], airlineErrors, 'The operating flights are not valid.');
  const matched: MatchedLeg[] = [];
  flights.forEach((flight, i) => {
    const [from, to, airline, departureLocal, quotedFlight, quotedOperating] = quote.legs[i]!;
    const at = `/flights/${i}`;
    const flightNumber = normaliseFlightNumber(flight.flightNumber);
    const operatingFlightNumber =
      flight.operatingFlightNumber === undefined
        ? undefined
        : operatingFlight(flight.operatingFlightNumber, flightNumber, `${at}/operatingFlightNumber`, errors);
    if (quotedOperating !== undefined && operatingFlightNumber !== quotedOperating)
      errors.push({
        code: 'invalid',
        field: `${at}/operatingFlightNumber`,
        message: `the quote was priced for flight ${quotedFlight ?? flightNumber} operated as ${quotedOperating}`,
      });
    if (flight.departureAirport.toUpperCase() !== from)
      errors.push({ code: 'invalid', field: `${at}/departureAirport`, message: `the quote says ${from}` });
    if (flight.arrivalAirport.toUpperCase() !== to)
      errors.push({ code: 'invalid', field: `${at}/arrivalAirport`, message: `the quote says ${to}` });
    if (quotedFlight !== undefined && flightNumber !== quotedFlight)
      errors.push({
        code: 'invalid',
        field: `${at}/flightNumber`,
        message: `the quote was priced for flight ${quotedFlight}`,
      });
    else if (!flightNumber.startsWith(airline))
      errors.push({
        code: 'invalid',
        field: `${at}/flightNumber`,
        message: `must start with the quoted airline ${airline}`,
      });
    let departure: ReturnType<typeof parseDeparture> | undefined;
    try {
      departure = parseDeparture(flight.departureDateTime, from, `${at}/departureDateTime`);
    } catch {
      departure = undefined;
    }
    if (!departure || departure.local !== departureLocal)
      errors.push({
        code: 'invalid',
        field: `${at}/departureDateTime`,
        message: `the quote says ${departureLocal} local time`,
      });
    if (departure) {
      matched.push({
        flightNumber,
        operatingFlightNumber,
        airline,
        departureAirport: from,
        arrivalAirport: to,
        departureLocal,
        departureDate: departure.date,
        departureAt: departure.at,
      });
    }
  });
  if (errors.length) throw new DomainError('flights_mismatch', 'The flights do not match the quote.', { errors });
  return matched;
}
