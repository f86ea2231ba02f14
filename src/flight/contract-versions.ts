/**
 * Contract versions (migration 0024): a change (flight change, a passenger or a leg cancelled) keeps
 * the contract's number and makes a new version. `applyChange` writes the contract's new terms, the
 * version rows and the ledger's difference in the change's transaction; version 1 (as sold) is written by the first change, so a
 * sale writes nothing more.
 */
import { changeMovements, recordMovements } from '../ledger/index.ts';
import { emitWebhookEvent } from '../webhooks/index.ts';
import type { Trx } from '../platform/db.ts';
import type { ContractVersionFlight } from '../platform/db-schema.ts';
import type { ContractChange } from './model.ts';
import * as contracts from './contracts-repo.ts';
import { money, type Caller, type FlightDeps, type Money } from './deps.ts';
import { legView } from './price-quote.ts';
import type { PremiumBreakdown } from './pricing.ts';
import { shareOf, sharesTimes } from './shares.ts';

export interface ContractChangeInput {
  /** The contract as read, locked (FOR UPDATE), before the change. */
  before: contracts.ContractRow;
  /** Its legs before the change. */
  legsBefore: contracts.LegRow[];
  /** Its legs after the change (already written), in leg order; at least one. */
  legsAfter: contracts.LegRow[];
  passengersAfter: number;
  change: Exclude<ContractChange, 'subscribed'>;
  /** The risk model version that priced the legs this change adds (the sale's when it adds none). */
  modelVersion: string;
  reason: string | null;
  actor: string;
  now: Date;
}

export interface ChangeResult {
  contract: contracts.ContractRow;
  /** The premium after the change minus before: > 0 the customer pays more, < 0 is refunded. */
  difference: PremiumBreakdown;
}

/**
 * The contract's premium after a change is the sum of its remaining legs' shares times its passengers
 * (shares.ts); the difference with the premium before is what the change charges or refunds.
 */
export async function applyChange(trx: Trx, input: ContractChangeInput): Promise<ChangeResult> {
  const { before } = input;
  if (input.legsAfter.length === 0) throw new Error('a contract keeps at least one leg: cancel it instead');
  const premium = sharesTimes(input.legsAfter.map(shareOf), input.passengersAfter);
  const difference = {
    net: premium.net - Number(before.premium_net),
    tax: premium.tax - Number(before.premium_tax),
    commission: premium.commission - Number(before.premium_commission),
    total: premium.total - Number(before.premium_total),
  };
  const firstDeparture = new Date(Math.min(...input.legsAfter.map((l) => l.departure_at.getTime())));
  const contract = await contracts.updateAfterChange(trx, before.id, before.version, {
    passengers: input.passengersAfter,
    premium_net: premium.net,
    premium_tax: premium.tax,
    premium_commission: premium.commission,
    premium_total: premium.total,
    first_departure_at: firstDeparture,
  });
  const rows: Parameters<typeof contracts.insertVersions>[1] = [];
  if (before.version === 1) {
    rows.push({
      contract_id: before.id,
      version: 1,
      change: 'subscribed',
      passengers: before.passengers,
      flights: JSON.stringify(versionFlights(input.legsBefore)),
      premium_net: before.premium_net,
      premium_tax: before.premium_tax,
      premium_commission: before.premium_commission,
      premium_total: before.premium_total,
      difference: 0,
      risk_model_version: before.risk_model_version,
      reason: null,
      actor: 'subscribe',
      created_at: before.created_at,
    });
  }
  rows.push({
    contract_id: before.id,
    version: contract.version,
    change: input.change,
    passengers: input.passengersAfter,
    flights: JSON.stringify(versionFlights(input.legsAfter)),
    premium_net: premium.net,
    premium_tax: premium.tax,
    premium_commission: premium.commission,
    premium_total: premium.total,
    difference: difference.total,
    risk_model_version: input.modelVersion,
    reason: input.reason,
    actor: input.actor,
    created_at: input.now,
  });
  await contracts.insertVersions(trx, rows);
  // the difference enters the ledger in the change's transaction (docs/bordereaux.md)
  await recordMovements(
    trx,
    changeMovements(
      { id: before.id, partnerId: before.partner_id, environment: before.environment, currency: before.currency },
      difference,
      input.change,
      contract.version,
      input.now,
      input.actor,
    ),
  );
  return { contract, difference };
}

function versionFlights(legs: contracts.LegRow[]): ContractVersionFlight[] {
  return legs.map((l) => {
    const share = shareOf(l);
    return {
      leg: l.leg_index,
      flightNumber: l.flight_number,
      ...(l.operating_flight_number ? { operatingFlightNumber: l.operating_flight_number } : {}),
      airline: l.airline,
      departureAirport: l.departure_airport,
      arrivalAirport: l.arrival_airport,
      departureLocal: l.departure_local,
      departureAt: l.departure_at.toISOString(),
      share: { net: share.net, tax: share.tax, commission: share.commission },
    };
  });
}

export interface ContractVersionView {
  version: number;
  change: ContractChange;
  at: string;
  passengers: number;
  flights: {
    leg: number;
    flightNumber: string;
    /** A codeshare's operating flight; null when the leg flies under its own number. */
    operatingFlightNumber: string | null;
    departureAirport: string;
    arrivalAirport: string;
    departureDateTime: string;
  }[];
  premium: Money;
  /** What this change cost the customer: positive charged, negative refunded, 0 for version 1. */
  difference: Money;
  modelVersion: string;
  reason: string | null;
}

export function versionView(row: contracts.ContractVersionRow, currency: string): ContractVersionView {
  return {
    version: row.version,
    change: row.change,
    at: row.created_at.toISOString(),
    passengers: row.passengers,
    flights: row.flights.map((f) => ({
      leg: f.leg,
      flightNumber: f.flightNumber,
      operatingFlightNumber: f.operatingFlightNumber ?? null,
      departureAirport: f.departureAirport,
      arrivalAirport: f.arrivalAirport,
      departureDateTime: f.departureLocal,
    })),
    premium: money(Number(row.premium_total), currency),
    difference: money(Number(row.difference), currency),
    modelVersion: row.risk_model_version,
    reason: row.reason,
  };
}

/** Emits `contract.changed` in the change's transaction (delivered after commit, like every event). */
export async function emitContractChanged(
  deps: FlightDeps,
  trx: Trx,
  caller: Caller,
  result: ChangeResult,
  legs: contracts.LegRow[],
  change: Exclude<ContractChange, 'subscribed'>,
  at: Date,
): Promise<void> {
  const { contract } = result;
  await emitWebhookEvent(
    trx,
    deps.jobs,
    deps.keys.encryption,
    {
      partnerId: caller.partnerId,
      environment: caller.environment,
      type: 'contract.changed',
      occurredAt: at,
      data: {
        contractNumber: contract.contract_number,
        status: 'active',
        version: contract.version,
        change,
        passengers: contract.passengers,
        flights: legs.map((l) => {
          const view = legView({
            departureAirport: l.departure_airport,
            arrivalAirport: l.arrival_airport,
            airline: l.airline,
            departureLocal: l.departure_local,
            departureAt: l.departure_at,
          });
          return {
            leg: l.leg_index,
            flightNumber: l.flight_number,
            ...(l.operating_flight_number ? { operatingFlightNumber: l.operating_flight_number } : {}),
            departureAirport: view.departureAirport,
            arrivalAirport: view.arrivalAirport,
            airline: view.airline,
            departureDateTime: view.departureDateTime,
            departureAt: view.departureAt,
          };
        }),
        premium: money(Number(contract.premium_total), contract.currency),
        difference: { amount: result.difference.total, currency: contract.currency },
        changedAt: at.toISOString(),
      },
    },
    deps.webhookEndpoints,
  );
}
