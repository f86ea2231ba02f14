/**
 * Flight change on a live contract (issue 13 §1): the airline retimed a flight or the customer
 * rebooked. The partner previews the change — the new flights priced with the current risk model and
 * configuration, the premium difference — then confirms it with the signed change reference. The
 * contract keeps its number and moves to the next version (contract-versions.ts).
 *
 * The rule: a changed leg keeps its route (same departure and arrival airports) and its airline (the
 * flight number starts with the contract's airline); its flight number and departure time may change.
 * The leg to change and the new flight must both depart at least 3 h from now (TIME_RULES, 409
 * leg_departed), the new one at most 365 days ahead (422 departure_too_far); a claim on the leg
 * refuses the change (409 leg_has_claim). The coverage does not change with a flight: the new legs
 * are priced for the contract's coverage, with the commission rate of the configuration version and the
 * tax rate of the agreement version the contract was sold under, and each new leg's share per passenger is its own priced premium; unchanged
 * legs keep their shares. The preview reserves nothing: the confirmation decides (limits, claims, time).
 *
 * Codeshares (docs/monitoring.md#codeshares): the new flight is stated whole, as at /subscribe — its
 * `operatingFlightNumber` when another airline flies it, none when it flies under its own number. A
 * change that names none clears the leg's operating flight: the old one belonged to the old flight,
 * and the preview shows what the leg will fly. A codeshare leg is priced as its operating flight, and
 * the monitoring and the exposure follow it (the leg's `monitored_flight_number`).
 */
import { audit } from '../platform/audit.ts';
import type { Trx } from '../platform/db.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { openJson, sealJson } from '../platform/signed-token.ts';
import { findConfigurationById, type Coverage } from '../partners/index.ts';
import { MONITORING_SCHEDULE } from '../monitoring/index.ts';
import { moveExposure } from '../limits/index.ts';
import { applyChange, emitContractChanged } from './contract-versions.ts';
import * as contracts from './contracts-repo.ts';
import { money, type Caller, type FlightDeps, type Money } from './deps.ts';
import { exposureLeg, operatingFlight, throwFlightErrors } from './flight-numbers.ts';
import { normaliseFlightNumber } from '../reference/index.ts';
import { parseDeparture, TIME_RULES } from './legs.ts';
import { pricedLeg, termsKey } from './leg-pricing.ts';
import { configuredTerms, premiumView, pricingLeg, type PremiumView } from './price-quote.ts';
import { shareOf, sharesTimes, type Share } from './shares.ts';
import { contractView, flightsView, type ContractView } from './subscribe.ts';

/** How long a change reference can be confirmed. */
export const CHANGE_TTL_MINUTES = 30;
const PREFIX = 'fc1';

export interface FlightChangeRequest {
  flights: {
    leg: number;
    flightNumber: string;
    /** A codeshare: the flight that flies (another airline's); none, the leg flies under flightNumber. */
    operatingFlightNumber?: string | undefined;
    departureAirport: string;
    arrivalAirport: string;
    departureDateTime: string;
  }[];
}

export type ChangeOutcome = 'charge' | 'refund' | 'none';

export interface FlightChangePreview {
  contractNumber: string;
  /** The contract's current version: the change applies to it only. */
  version: number;
  changeReference: string;
  expiresAt: string;
  /** The contract's legs after the change, in leg order. */
  flights: ContractView['flights'];
  premium: { before: PremiumView; after: PremiumView };
  /** After minus before: positive charged to the customer, negative refunded. */
  difference: Money;
  outcome: ChangeOutcome;
  /** The risk model version that priced the new flights. */
  modelVersion: string;
}

export interface FlightChangeResult extends ContractView {
  difference: Money;
  outcome: ChangeOutcome;
}

/** A new flight for one leg, as priced and signed in the change reference. */
interface NewLeg {
  leg: number;
  flightNumber: string;
  /** A codeshare's operating flight; absent: the leg flies under flightNumber. */
  operatingFlightNumber?: string | undefined;
  departureLocal: string;
  share: Share;
}

interface ChangeTerms {
  partnerId: string;
  environment: Environment;
  contractNumber: string;
  version: number;
  modelVersion: string;
  expiresAt: Date;
  legs: NewLeg[];
}

/** POST /contracts/{n}/flight-change/preview: prices the change and signs it; writes nothing. */
export async function previewFlightChange(
  deps: FlightDeps,
  caller: Caller,
  contractNumber: string,
  input: FlightChangeRequest,
): Promise<FlightChangePreview> {
  const contract = await findChangeable(deps.db, caller, contractNumber);
  const legsBefore = await contracts.findLegs(deps.db, contract.id);
  const now = deps.now();
  const requested = readRequest(legsBefore, input);
  const partnerTerms = await deps.directory.partnerTerms(caller.partnerId);
  const { configuration, agreement } = configuredTerms(partnerTerms, now);
  // the contract keeps the agreement version it was sold under: its tax rate prices the new flights;
  // and the configuration version it was sold under (its coverage is the contract's): its commission
  // rate, so a commission the partner set after the sale never reprices what the customer bought
  const sold = partnerTerms.versions.find((v) => v.status === 'signed' && v.version === contract.agreement_version);
  const soldConfiguration =
    configuration.id === contract.configuration_id
      ? configuration
      : await findConfigurationById(deps.db, caller.partnerId, contract.configuration_id);
  const model = deps.riskModels.active(caller.environment);
  const terms = {
    coverage: contract.coverage as Coverage,
    commissionRate: (soldConfiguration ?? configuration).commissionRate,
    taxRate: (sold ?? agreement).taxRate,
  };
  const key = termsKey(model, terms, contract.currency);
  const newLegs: NewLeg[] = requested.map((r) => {
    const premium = pricedLeg(
      model,
      key,
      // a codeshare is priced as the flight that flies, as at /getPrice
      pricingLeg(
        {
          departureAirport: r.old.departure_airport,
          arrivalAirport: r.old.arrival_airport,
          airline: r.old.airline,
          departureLocal: r.departure.local,
          departureDate: r.departure.date,
          departureAt: r.departure.at,
        },
        r.flightNumber,
        r.operatingFlightNumber,
      ),
      terms,
      contract.currency,
    ).premium;
    return {
      leg: r.old.leg_index,
      flightNumber: r.flightNumber,
      ...(r.operatingFlightNumber ? { operatingFlightNumber: r.operatingFlightNumber } : {}),
      departureLocal: r.departure.local,
      share: { net: premium.net, tax: premium.tax, commission: premium.commission, total: premium.net + premium.tax },
    };
  });
  const legsAfter = replacedLegs(legsBefore, newLegs);
  await checkChange(deps.db, contract, legsBefore, legsAfter, newLegs, now);
  const before = {
    net: Number(contract.premium_net),
    tax: Number(contract.premium_tax),
    commission: Number(contract.premium_commission),
    total: Number(contract.premium_total),
  };
  const after = sharesTimes(legsAfter.map(shareOf), contract.passengers);
  const expiresAt = new Date(now.getTime() + CHANGE_TTL_MINUTES * 60_000);
  const changeReference = signChange(deps.keys.quoteSigning, {
    partnerId: caller.partnerId,
    environment: caller.environment,
    contractNumber: contract.contract_number,
    version: contract.version,
    modelVersion: model.version,
    expiresAt,
    legs: newLegs,
  });
  const difference = after.total - before.total;
  return {
    contractNumber: contract.contract_number,
    version: contract.version,
    changeReference,
    expiresAt: expiresAt.toISOString(),
    flights: flightsView(legsAfter),
    premium: { before: premiumView(before, contract.currency), after: premiumView(after, contract.currency) },
    difference: money(difference, contract.currency),
    outcome: outcomeOf(difference),
    modelVersion: model.version,
  };
}

/**
 * POST /contracts/{n}/flight-change: applies a previewed change in the caller's transaction (the
 * idempotency layer's): the changed legs' rows are replaced, the contract moves to the next version
 * with its new premium, the difference enters the ledger, the exposure moves to the new flights, and
 * `contract.changed` is queued. Refused when the contract changed since the preview.
 */
export async function confirmFlightChange(
  deps: FlightDeps,
  trx: Trx,
  caller: Caller,
  contractNumber: string,
  input: { changeReference: string },
): Promise<FlightChangeResult> {
  const change = verifyChange(deps.keys.quoteSigning, input.changeReference);
  const number = contractNumber.trim().toUpperCase();
  if (
    change.partnerId !== caller.partnerId ||
    change.environment !== caller.environment ||
    change.contractNumber !== number
  )
    throw invalidReference();
  const now = deps.now();
  if (change.expiresAt.getTime() <= now.getTime())
    throw new DomainError(
      'change_expired',
      `The change reference expired at ${change.expiresAt.toISOString()}; preview the change again.`,
    );
  const contract = await findChangeable(trx, caller, number, { forUpdate: true });
  if (contract.version !== change.version)
    throw new DomainError(
      'contract_changed',
      `Contract ${contract.contract_number} is at version ${contract.version}, not ${change.version} the change was priced on; preview the change again.`,
    );
  const legsBefore = await contracts.findLegs(trx, contract.id);
  const planned = replacedLegs(legsBefore, change.legs);
  await checkChange(trx, contract, legsBefore, planned, change.legs, now);
  const changed = legsBefore.filter((l) => change.legs.some((n) => n.leg === l.leg_index));
  await contracts.deleteLegs(
    trx,
    contract.id,
    changed.map((l) => l.id),
  );
  await contracts.insertLegs(
    trx,
    planned
      .filter((l) => change.legs.some((n) => n.leg === l.leg_index))
      .map((l) => ({
        contract_id: contract.id,
        leg_index: l.leg_index,
        partner_id: contract.partner_id,
        environment: contract.environment,
        flight_number: l.flight_number,
        operating_flight_number: l.operating_flight_number,
        airline: l.airline,
        departure_airport: l.departure_airport,
        arrival_airport: l.arrival_airport,
        departure_local: l.departure_local,
        departure_date: l.departure_date,
        departure_at: l.departure_at,
        share_net: l.share_net,
        share_tax: l.share_tax,
        share_commission: l.share_commission,
      })),
  );
  const legsAfter = await contracts.findLegs(trx, contract.id);
  const result = await applyChange(trx, {
    before: contract,
    legsBefore,
    legsAfter,
    passengersAfter: contract.passengers,
    change: 'flight_changed',
    modelVersion: change.modelVersion,
    reason: null,
    actor: caller.actor,
    now,
  });
  await audit(trx, {
    actor: caller.actor,
    partnerId: caller.partnerId,
    environment: caller.environment,
    entity: 'contract',
    entityId: contract.contract_number,
    action: 'flight_changed',
    at: now,
    data: {
      version: result.contract.version,
      from: changed.map((l) => ({
        leg: l.leg_index,
        flightNumber: l.flight_number,
        operatingFlightNumber: l.operating_flight_number,
        departureLocal: l.departure_local,
      })),
      to: change.legs.map((l) => ({
        leg: l.leg,
        flightNumber: l.flightNumber,
        operatingFlightNumber: l.operatingFlightNumber ?? null,
        departureLocal: l.departureLocal,
      })),
      difference: result.difference.total,
      modelVersion: change.modelVersion,
    },
  });
  await emitContractChanged(deps, trx, caller, result, legsAfter, 'flight_changed', now);
  // The planner watches flights departing within its horizon and runs every 5 minutes: a change that
  // touches a flight in that horizon asks it to run at commit, so the new flight is watched (and the
  // old one's watch closed) at once rather than at the next tick.
  const horizon = now.getTime() + MONITORING_SCHEDULE.planningHorizonHours * 3_600_000;
  if ([...changed, ...legsAfter].some((l) => l.departure_at.getTime() < horizon))
    await deps.jobs.send('flights_plan', {}, { trx });
  // last, like subscribe: it locks the flights' exposure rows until the commit. The changed legs'
  // exposure moves from their old flights to their new ones, netted per flight: a leg staying on its
  // flight (a new number at the same minute) adds nothing and is never refused for its own exposure
  await moveExposure(trx, {
    environment: contract.environment,
    currency: contract.currency,
    coverage: contract.coverage as Coverage,
    passengers: contract.passengers,
    from: changed.map(exposureLeg),
    // in the request's order: a refusal names the leg's pointer in it (/flights/N)
    to: change.legs.map((n) => exposureLeg(legsAfter.find((l) => l.leg_index === n.leg)!)),
    now,
    defaultCapMajor: deps.limits?.defaultCapMajor,
    snapshot: deps.limits,
  });
  const difference = result.difference.total;
  return {
    ...contractView(deps.keys.encryption, result.contract, legsAfter),
    difference: money(difference, contract.currency),
    outcome: outcomeOf(difference),
  };
}

const outcomeOf = (difference: number): ChangeOutcome =>
  difference > 0 ? 'charge' : difference < 0 ? 'refund' : 'none';

async function findChangeable(
  db: Parameters<typeof contracts.findContract>[0],
  caller: Caller,
  contractNumber: string,
  options: { forUpdate?: boolean } = {},
): Promise<contracts.ContractRow> {
  const contract = await contracts.findContract(db, caller, contractNumber.trim().toUpperCase(), options);
  if (!contract) throw new DomainError('contract_not_found', `No contract ${contractNumber}.`);
  if (contract.status !== 'active')
    throw new DomainError(
      'contract_not_changeable',
      `Contract ${contract.contract_number} is ${contract.status}; its flights can no longer be changed.`,
    );
  return contract;
}

interface RequestedLeg {
  old: contracts.LegRow;
  flightNumber: string;
  operatingFlightNumber: string | undefined;
  departure: { local: string; date: string; at: Date };
}

/** Each requested flight names a leg of the contract, keeps its route and airline; 422 otherwise. */
function readRequest(legs: contracts.LegRow[], input: FlightChangeRequest): RequestedLeg[] {
  const errors: FieldError[] = [];
  const airlineErrors: FieldError[] = [];
  const requested: RequestedLeg[] = [];
  const seen = new Set<number>();
  input.flights.forEach((f, i) => {
    const at = `/flights/${i}`;
    const old = legs.find((l) => l.leg_index === f.leg);
    if (!old) {
      errors.push({ field: `${at}/leg`, code: 'not_allowed', message: `the contract has no leg ${f.leg}` });
      return;
    }
    if (seen.has(f.leg)) {
      errors.push({ field: `${at}/leg`, code: 'not_allowed', message: `leg ${f.leg} is named twice` });
      return;
    }
    seen.add(f.leg);
    if (f.departureAirport.toUpperCase() !== old.departure_airport)
      errors.push({
        field: `${at}/departureAirport`,
        code: 'not_allowed',
        message: `a flight change keeps the route: ${old.departure_airport}`,
      });
    if (f.arrivalAirport.toUpperCase() !== old.arrival_airport)
      errors.push({
        field: `${at}/arrivalAirport`,
        code: 'not_allowed',
        message: `a flight change keeps the route: ${old.arrival_airport}`,
      });
    const flightNumber = normaliseFlightNumber(f.flightNumber);
    // as at /subscribe: naming the flight itself is naming none; an unknown airline is refused as such
    const operatingFlightNumber =
      f.operatingFlightNumber === undefined
        ? undefined
        : operatingFlight(f.operatingFlightNumber, flightNumber, `${at}/operatingFlightNumber`, airlineErrors);
    if (!flightNumber.startsWith(old.airline))
      errors.push({
        field: `${at}/flightNumber`,
        code: 'not_allowed',
        message: `must be a flight of the contract's airline ${old.airline}`,
      });
    let departure: RequestedLeg['departure'] | undefined;
    try {
      departure = parseDeparture(f.departureDateTime, old.departure_airport, `${at}/departureDateTime`);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      errors.push(
        ...(error.extra.errors ?? [{ code: 'invalid', field: `${at}/departureDateTime`, message: error.detail }]),
      );
    }
    if (
      departure &&
      flightNumber === old.flight_number &&
      (operatingFlightNumber ?? null) === old.operating_flight_number &&
      departure.local === old.departure_local
    )
      errors.push({ field: at, code: 'not_allowed', message: `leg ${f.leg} already is this flight` });
    if (departure) requested.push({ old, flightNumber, operatingFlightNumber, departure });
  });
  throwFlightErrors(errors, airlineErrors, 'The flight change is not valid.');
  return requested;
}

/** The contract's legs with the new flights in place of the changed ones (not written), in leg order. */
function replacedLegs(legs: contracts.LegRow[], newLegs: NewLeg[]): contracts.LegRow[] {
  return legs.map((old) => {
    const n = newLegs.find((l) => l.leg === old.leg_index);
    if (!n) return old;
    const departure = parseDeparture(n.departureLocal, old.departure_airport, `/flights/${n.leg}/departureDateTime`);
    return {
      ...old,
      flight_number: n.flightNumber,
      // stated whole by the change: none named, the leg flies under its own number
      operating_flight_number: n.operatingFlightNumber ?? null,
      departure_local: departure.local,
      departure_date: departure.date,
      departure_at: departure.at,
      share_net: n.share.net,
      share_tax: n.share.tax,
      share_commission: n.share.commission,
    };
  });
}

/** The time rules, the order of the legs and the claims, at preview and again at confirmation. */
async function checkChange(
  db: Parameters<typeof contracts.claimedLegIds>[0],
  contract: contracts.ContractRow,
  legsBefore: contracts.LegRow[],
  legsAfter: contracts.LegRow[],
  newLegs: NewLeg[],
  now: Date,
): Promise<void> {
  const minLead = now.getTime() + TIME_RULES.minLeadMinutes * 60_000;
  const changed = legsBefore.filter((l) => newLegs.some((n) => n.leg === l.leg_index));
  for (const old of changed) {
    if (old.departure_at.getTime() < minLead)
      throw new DomainError(
        'leg_departed',
        `Leg ${old.leg_index} (${old.flight_number}) departs at ${old.departure_at.toISOString()}: a flight can be changed until ${TIME_RULES.minLeadMinutes / 60} hours before its departure.`,
        {
          errors: [
            {
              code: 'invalid',
              field: `/flights/${newLegs.findIndex((n) => n.leg === old.leg_index)}/leg`,
              message: 'departed or departing within 3 hours',
            },
          ],
        },
      );
  }
  newLegs.forEach((n, i) => {
    const leg = legsAfter.find((l) => l.leg_index === n.leg)!;
    const field = `/flights/${i}/departureDateTime`;
    if (leg.departure_at.getTime() < minLead)
      throw new DomainError(
        'leg_departed',
        `The new flight ${n.flightNumber} departs at ${leg.departure_at.toISOString()}: a flight can be insured until ${TIME_RULES.minLeadMinutes / 60} hours before its departure.`,
        {
          errors: [
            { field, code: 'out_of_range', message: `is less than ${TIME_RULES.minLeadMinutes / 60} hours away` },
          ],
        },
      );
    if (leg.departure_at.getTime() > now.getTime() + TIME_RULES.maxAheadDays * 86_400_000)
      throw new DomainError(
        'departure_too_far',
        `The new flight ${n.flightNumber} departs more than ${TIME_RULES.maxAheadDays} days ahead.`,
        {
          errors: [{ field, code: 'out_of_range', message: `is more than ${TIME_RULES.maxAheadDays} days ahead` }],
        },
      );
  });
  const [outbound, back] = [legsAfter.find((l) => l.leg_index === 0), legsAfter.find((l) => l.leg_index === 1)];
  if (
    outbound &&
    back &&
    back.departure_at.getTime() < outbound.departure_at.getTime() + TIME_RULES.minReturnGapMinutes * 60_000
  ) {
    const message = `the return must depart at least ${TIME_RULES.minReturnGapMinutes} minutes after the outbound`;
    throw new DomainError('validation_failed', `The flights after the change are not in order: ${message}.`, {
      errors: [{ field: '/flights', code: 'not_allowed', message }],
    });
  }
  const claimed = await contracts.claimedLegIds(
    db,
    changed.map((l) => l.id),
  );
  if (claimed.length > 0) {
    const leg = changed.find((l) => claimed.includes(l.id))!;
    throw new DomainError(
      'leg_has_claim',
      `A claim exists on leg ${leg.leg_index} (${leg.flight_number}) of contract ${contract.contract_number}: its flight can no longer be changed.`,
    );
  }
}

function signChange(key: Buffer, terms: ChangeTerms): string {
  return sealJson(
    key,
    PREFIX,
    JSON.stringify([
      terms.partnerId,
      terms.environment,
      terms.contractNumber,
      terms.version,
      terms.modelVersion,
      Math.floor(terms.expiresAt.getTime() / 1000),
      // a codeshare's operating flight is the leg's seventh element, absent for a leg under its own number
      terms.legs.map((l) => [
        l.leg,
        l.flightNumber,
        l.departureLocal,
        l.share.net,
        l.share.tax,
        l.share.commission,
        ...(l.operatingFlightNumber ? [l.operatingFlightNumber] : []),
      ]),
    ]),
  );
}

function verifyChange(key: Buffer, reference: string): ChangeTerms {
  const payload = openJson(key, PREFIX, reference);
  if (!payload || payload.length !== 7) throw invalidReference();
  const [partnerId, environment, contractNumber, version, modelVersion, exp, legs] = payload as [
    string,
    Environment,
    string,
    number,
    string,
    number,
    [number, string, string, number, number, number, string?][],
  ];
  if (!Number.isInteger(version) || !Number.isInteger(exp) || !Array.isArray(legs)) throw invalidReference();
  return {
    partnerId,
    environment,
    contractNumber,
    version,
    modelVersion,
    expiresAt: new Date(exp * 1000),
    legs: legs.map(([leg, flightNumber, departureLocal, net, tax, commission, operatingFlightNumber]) => ({
      leg,
      flightNumber,
      ...(operatingFlightNumber ? { operatingFlightNumber } : {}),
      departureLocal,
      share: { net, tax, commission, total: net + tax },
    })),
  };
}

const invalidReference = () =>
  new DomainError(
    'change_reference_invalid',
    'The change reference is not one this platform issued for this contract.',
    {
      errors: [{ code: 'invalid', field: '/changeReference', message: 'unknown or altered change reference' }],
    },
  );
