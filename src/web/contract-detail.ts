import { claimView, versionView, type ClaimView, type ContractVersionView } from '../flight/index.ts';
import * as contracts from '../flight/index.ts';
import { listClaims } from '../claims/index.ts';
import type { Environment } from '../partners/index.ts';
import { openField, type EncryptionKeys } from '../platform/crypto.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';

/** A partner's contract as the console shows it: terms, legs and claims. Another partner's is 404. */
export interface ContractDetail {
  contractNumber: string;
  environment: Environment;
  status: string;
  formula: string;
  passengers: number;
  currency: string;
  premium: { net: number; tax: number; commission: number; total: number };
  coverage: { delayTiers: { minDelayMinutes: number; amount: number }[]; cancellationAmount: number };
  customerName: string;
  bookingReference: string;
  /** The contract's current version, the API's `version`: 1 as sold, +1 per change. */
  version: number;
  /** The partner's configuration version the contract was sold under. */
  configurationVersion: number;
  /** The agreement version the contract was sold under; null under an unsigned draft (sandbox). */
  agreementVersion: number | null;
  createdAt: Date;
  cancelledAt: Date | null;
  cancelReason: string | null;
  refundAmount: number | null;
  legs: {
    flightNumber: string;
    /** A codeshare's operating flight (monitored), else null. */
    operatingFlightNumber: string | null;
    departureAirport: string;
    arrivalAirport: string;
    departureLocal: string;
  }[];
  claims: ClaimView[];
  /** Oldest first; empty while the contract was never changed. */
  versions: ContractVersionView[];
}

/** Every claim of the contract, whenever opened (a bound the database's timestamps accept). */
const LATEST_DATE = new Date('9999-12-31T00:00:00Z');

export async function contractDetail(
  db: Db,
  encryptionKey: EncryptionKeys,
  scope: { partnerId: string; environment: Environment },
  contractNumber: string,
): Promise<ContractDetail> {
  const contract = /^[A-Z0-9-]{4,40}$/i.test(contractNumber)
    ? await contracts.findContract(db, scope, contractNumber.toUpperCase())
    : undefined;
  if (!contract) throw new DomainError('contract_not_found', `No contract ${contractNumber}.`);
  const [legs, claims, versions] = await Promise.all([
    contracts.findLegs(db, contract.id),
    listClaims(db, { ...scope, from: new Date(0), toExclusive: LATEST_DATE, contractId: contract.id, limit: 100 }),
    contracts.findVersions(db, contract.id),
  ]);
  return {
    contractNumber: contract.contract_number,
    environment: contract.environment,
    status: contract.status,
    formula: contract.formula,
    passengers: contract.passengers,
    currency: contract.currency,
    premium: {
      net: Number(contract.premium_net),
      tax: Number(contract.premium_tax),
      commission: Number(contract.premium_commission),
      total: Number(contract.premium_total),
    },
    coverage: { delayTiers: contract.coverage.delayTiers, cancellationAmount: contract.coverage.cancellationAmount },
    customerName: `${openField(encryptionKey, contract.customer_first_name_enc, contract.customer_first_name)} ${openField(encryptionKey, contract.customer_last_name_enc, contract.customer_last_name)}`,
    bookingReference: contracts.openBookingReference(encryptionKey, contract),
    version: contract.version,
    configurationVersion: contract.configuration_version,
    agreementVersion: contract.agreement_version,
    createdAt: contract.created_at,
    cancelledAt: contract.cancelled_at,
    cancelReason: contract.cancel_reason,
    refundAmount: contract.refund_amount === null ? null : Number(contract.refund_amount),
    legs: legs.map((l) => ({
      flightNumber: l.flight_number,
      operatingFlightNumber: l.operating_flight_number,
      departureAirport: l.departure_airport,
      arrivalAirport: l.arrival_airport,
      departureLocal: l.departure_local,
    })),
    claims: claims.map(claimView),
    versions: versions.map((v) => versionView(v, contract.currency)),
  };
}
