import { audit } from '../platform/audit.ts';
import type { Executor, Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { releaseExposure } from '../limits/index.ts';
import type { Coverage } from '../partners/index.ts';
import type { CancelReason } from './cancel-contract.ts';
import { applyChange, emitContractChanged } from './contract-versions.ts';
import * as contracts from './contracts-repo.ts';
import { exposureLeg } from './flight-numbers.ts';
import { money, type Caller, type FlightDeps, type Money } from './deps.ts';
import { premiumView, type PremiumView } from './price-quote.ts';
import { flightsView, type ContractView } from './subscribe.ts';

/**
 * Partial cancellation (issue 13 §1): some passengers, or one leg not yet departed (the return of a
 * trip whose outbound has flown), leave the contract; the rest stays covered. The refund is the
 * share of what leaves, by the same money rules as the sale: each leg carries its premium share per
 * passenger (shares.ts), so cancelling passengers gives back every leg's share for each of them and
 * cancelling a leg gives back that leg's share for every passenger. A full cancellation stays POST /cancel.
 *
 * Rules (docs/contracts.md): passengers, while no insured flight has departed and no claim exists (a
 * flown leg's compensation is per passenger: the insured passengers of a flown leg never change; a
 * claim the insurer voided because the flight data was wrong does not count: contracts-repo's
 * hasClaims); a leg, before its departure and while it has no claim at all (voided or not: the claim
 * keeps its leg), and only when another leg stays. The preview
 * computes exactly what the confirmation does, in a transaction rolled back.
 */
export interface PartialCancellationRequest {
  /** How many passengers leave the contract (fewer than it insures). */
  passengers?: number | undefined;
  /** The leg that leaves the contract (0 outbound, 1 return). */
  leg?: number | undefined;
  reason: CancelReason;
  /** The version the caller means to change: refused (contract_changed) once the contract has moved on. */
  contractVersion?: number | undefined;
}

export interface PartialCancellationView {
  contractNumber: string;
  change: 'passenger_cancelled' | 'leg_cancelled';
  reason: CancelReason;
  /** The contract's version after the cancellation. */
  version: number;
  /** Passengers and flights that stay covered. */
  passengers: number;
  flights: ContractView['flights'];
  /** The premium of what stays. */
  premium: PremiumView;
  /** What the customer gets back: the net premium and tax of what leaves. */
  refund: Money;
  /** The partner's commission on what leaves, given back to the insurer. */
  commissionReturned: Money;
  cancelledAt: string;
}

/** POST /contracts/{n}/partial-cancellation/preview: what the cancellation would do; nothing is written. */
export async function previewPartialCancellation(
  deps: FlightDeps,
  caller: Caller,
  contractNumber: string,
  input: PartialCancellationRequest,
): Promise<PartialCancellationView> {
  const rollback = new PreviewRollback();
  try {
    await deps.db.transaction().execute(async (trx) => {
      rollback.view = await cancelPart(deps, trx, caller, contractNumber, input, { preview: true });
      throw rollback;
    });
  } catch (error) {
    if (error !== rollback) throw error;
  }
  return rollback.view!;
}

class PreviewRollback extends Error {
  view: PartialCancellationView | undefined;
}

/** POST /contracts/{n}/partial-cancellation: in the caller's (idempotent) transaction. */
export async function cancelPart(
  deps: FlightDeps,
  trx: Trx,
  caller: Caller,
  contractNumber: string,
  input: PartialCancellationRequest,
  options: { preview?: boolean } = {},
): Promise<PartialCancellationView> {
  const what = checkRequest(input);
  const number = contractNumber.trim().toUpperCase();
  const before = await contracts.findContract(trx, caller, number, { forUpdate: true });
  if (!before) throw new DomainError('contract_not_found', `No contract ${contractNumber}.`);
  if (before.status !== 'active') {
    throw new DomainError(
      'contract_not_cancellable',
      `Contract ${before.contract_number} is ${before.status}: nothing of it can be cancelled any more.`,
    );
  }
  if (input.contractVersion !== undefined && input.contractVersion !== before.version)
    throw new DomainError(
      'contract_changed',
      `Contract ${before.contract_number} is at version ${before.version}, not ${input.contractVersion}: it changed since you read it (a repeated request?). Read it again before cancelling.`,
    );
  const now = deps.now();
  const legsBefore = await contracts.findLegs(trx, before.id);
  const leaving =
    what.kind === 'passengers'
      ? await passengersLeaving(trx, before, legsBefore, what.passengers, now)
      : await legLeaving(trx, before, legsBefore, what.leg, now);

  if (leaving.legIds.length) await contracts.deleteLegs(trx, before.id, leaving.legIds);
  const legsAfter = legsBefore.filter((l) => !leaving.legIds.includes(l.id));
  const change = what.kind === 'passengers' ? 'passenger_cancelled' : 'leg_cancelled';
  const result = await applyChange(trx, {
    before,
    legsBefore,
    legsAfter,
    passengersAfter: leaving.passengersAfter,
    change,
    modelVersion: before.risk_model_version,
    reason: input.reason,
    actor: caller.actor,
    now,
  });
  const view: PartialCancellationView = {
    contractNumber: result.contract.contract_number,
    change,
    reason: input.reason,
    version: result.contract.version,
    passengers: result.contract.passengers,
    flights: flightsView(legsAfter),
    premium: premiumView(
      {
        net: Number(result.contract.premium_net),
        tax: Number(result.contract.premium_tax),
        commission: Number(result.contract.premium_commission),
        total: Number(result.contract.premium_total),
      },
      result.contract.currency,
    ),
    refund: money(-result.difference.total, result.contract.currency),
    commissionReturned: money(-result.difference.commission, result.contract.currency),
    cancelledAt: now.toISOString(),
  };
  if (options.preview) return view;

  await releaseExposure(trx, {
    environment: caller.environment,
    currency: before.currency,
    coverage: before.coverage as Coverage,
    passengers: leaving.exposurePassengers,
    legs: leaving.exposureLegs.map(exposureLeg),
    legsStay: leaving.legIds.length === 0, // passengers leave; their legs stay insured
  });
  await audit(trx, {
    actor: caller.actor,
    partnerId: caller.partnerId,
    environment: caller.environment,
    entity: 'contract',
    entityId: before.contract_number,
    action: change,
    at: now,
    data: {
      reason: input.reason,
      version: result.contract.version,
      ...(what.kind === 'passengers' ? { passengers: what.passengers } : { leg: what.leg }),
      refund: view.refund.amount,
    },
  });
  await emitContractChanged(deps, trx, caller, result, legsAfter, change, now);
  return view;
}

type What = { kind: 'passengers'; passengers: number } | { kind: 'leg'; leg: number };

function checkRequest(input: PartialCancellationRequest): What {
  if ((input.passengers === undefined) === (input.leg === undefined)) {
    throw new DomainError('validation_failed', 'Name either passengers or a leg to cancel, not both.', {
      errors: [{ field: '/passengers', code: 'required', message: 'give exactly one of passengers, leg' }],
    });
  }
  return input.passengers !== undefined
    ? { kind: 'passengers', passengers: input.passengers }
    : { kind: 'leg', leg: input.leg! };
}

interface Leaving {
  legIds: string[];
  passengersAfter: number;
  /** Whose exposure goes: these passengers on these legs. */
  exposurePassengers: number;
  exposureLegs: contracts.LegRow[];
}

async function passengersLeaving(
  db: Executor,
  contract: contracts.ContractRow,
  legs: contracts.LegRow[],
  passengers: number,
  now: Date,
): Promise<Leaving> {
  if (passengers >= contract.passengers) {
    const n = contract.passengers;
    const [detail, message] =
      n === 1
        ? [
            'The contract insures one passenger: cancelling them would leave nobody covered. Cancel the contract instead (POST /cancel).',
            'the contract insures one passenger: cancel the contract instead (POST /cancel)',
          ]
        : [
            `The contract insures ${n} passengers and a partial cancellation leaves at least one: cancel at most ${n - 1}, or cancel the contract instead (POST /cancel).`,
            `must be at most ${n - 1}: to cancel all ${n} passengers, cancel the contract instead (POST /cancel)`,
          ];
    throw new DomainError('validation_failed', detail, {
      errors: [{ field: '/passengers', code: 'out_of_range', message }],
    });
  }
  if (now.getTime() >= contract.first_departure_at.getTime()) {
    throw new DomainError(
      'contract_not_cancellable',
      `The first insured flight departed at ${contract.first_departure_at.toISOString()}: the passengers insured on a flown flight stay insured. Cancel a leg not yet departed instead.`,
    );
  }
  if (await contracts.hasClaims(db, contract.id)) {
    throw new DomainError('contract_not_cancellable', 'The contract has a claim: its passengers stay insured.');
  }
  return {
    legIds: [],
    passengersAfter: contract.passengers - passengers,
    exposurePassengers: passengers,
    exposureLegs: legs,
  };
}

async function legLeaving(
  db: Executor,
  contract: contracts.ContractRow,
  legs: contracts.LegRow[],
  legIndex: number,
  now: Date,
): Promise<Leaving> {
  const leg = legs.find((l) => l.leg_index === legIndex);
  if (!leg) {
    const message = `the contract insures leg(s) ${legs.map((l) => l.leg_index).join(', ')}`;
    throw new DomainError(
      'validation_failed',
      `No leg ${legIndex} on contract ${contract.contract_number}: ${message}.`,
      {
        errors: [{ field: '/leg', code: 'not_allowed', message }],
      },
    );
  }
  if (legs.length === 1) {
    const message = 'the only leg of the contract: cancel the contract (POST /cancel)';
    throw new DomainError('validation_failed', `Leg ${legIndex} is ${message}.`, {
      errors: [{ field: '/leg', code: 'not_allowed', message }],
    });
  }
  if (now.getTime() >= leg.departure_at.getTime()) {
    throw new DomainError(
      'contract_not_cancellable',
      `Flight ${leg.flight_number} of leg ${legIndex} departed at ${leg.departure_at.toISOString()}: it can no longer be cancelled.`,
    );
  }
  // any claim, voided or not (for wrong flight data too): the claim keeps its leg (as a flight change,
  // change-flight's checkLegs), and the insurer's record of the void stays on the contract
  if ((await contracts.claimedLegIds(db, [leg.id])).length) {
    throw new DomainError(
      'contract_not_cancellable',
      `Leg ${legIndex} has a claim (voided or not): it stays on the contract and can no longer be cancelled.`,
    );
  }
  return {
    legIds: [leg.id],
    passengersAfter: contract.passengers,
    exposurePassengers: contract.passengers,
    exposureLegs: [leg],
  };
}
