import { emitWebhookEvent } from '../webhooks/index.ts';
import { audit } from '../platform/audit.ts';
import type { Trx } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { cancellationMovements, recordMovements } from '../ledger/index.ts';
import { releaseExposure } from '../limits/index.ts';
import type { Coverage } from '../partners/index.ts';
import * as contracts from './contracts-repo.ts';
import { money, type Caller, type FlightDeps, type Money } from './deps.ts';
import { exposureLeg } from './flight-numbers.ts';

export const CANCEL_REASONS = [
  'ticket_cancelled',
  'customer_request',
  'booking_error',
  'duplicate',
  'flight_changed',
  'other',
] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

export interface Cancellation {
  contractNumber: string;
  status: 'cancelled';
  reason: CancelReason;
  cancelledAt: string;
  refund: Money;
}

/**
 * POST /cancel: before the first insured departure, and while no claim exists (a claim the insurer
 * voided because the flight data was wrong aside: contracts-repo's hasClaims), the contract is
 * cancelled and the full premium refunded. Cancelling a cancelled contract answers the same result.
 */
export async function cancelContract(
  deps: FlightDeps,
  trx: Trx,
  caller: Caller,
  input: { contractNumber: string; reason: CancelReason },
): Promise<Cancellation> {
  const contract = await contracts.findContract(trx, caller, input.contractNumber.trim().toUpperCase(), {
    forUpdate: true,
  });
  if (!contract) throw new DomainError('contract_not_found', `No contract ${input.contractNumber}.`);
  if (contract.status === 'cancelled') return view(contract);
  if (contract.status !== 'active') {
    throw new DomainError(
      'contract_not_cancellable',
      `Contract ${contract.contract_number} is ${contract.status}; it can no longer be cancelled.`,
    );
  }
  const now = deps.now();
  if (now.getTime() >= contract.first_departure_at.getTime()) {
    throw new DomainError(
      'contract_not_cancellable',
      `The first insured flight departed at ${contract.first_departure_at.toISOString()}; the contract can no longer be cancelled.`,
    );
  }
  if (await contracts.hasClaims(trx, contract.id)) {
    throw new DomainError(
      'contract_not_cancellable',
      `Contract ${contract.contract_number} has a claim; it can no longer be cancelled.`,
    );
  }
  const cancelled = await contracts.markCancelled(trx, contract.id, input.reason, now, contract.premium_total);
  // the refund and the commission given back enter the ledger in the cancellation's transaction
  await recordMovements(
    trx,
    cancellationMovements(
      {
        id: contract.id,
        partnerId: contract.partner_id,
        environment: contract.environment,
        currency: contract.currency,
        premiumNet: contract.premium_net,
        premiumTax: contract.premium_tax,
        premiumCommission: contract.premium_commission,
      },
      cancelled.refund_amount ?? contract.premium_total,
      now,
      caller.actor,
    ),
  );
  const legs = await contracts.findLegs(trx, contract.id);
  await releaseExposure(trx, {
    environment: caller.environment,
    currency: contract.currency,
    coverage: contract.coverage as Coverage,
    passengers: contract.passengers,
    legs: legs.map(exposureLeg),
    snapshot: deps.limits, // this process's quotes see the released exposure as soon as it commits
  });
  await audit(trx, {
    actor: caller.actor,
    partnerId: caller.partnerId,
    environment: caller.environment,
    entity: 'contract',
    entityId: contract.contract_number,
    action: 'cancelled',
    at: now,
    data: { reason: input.reason, refund: contract.premium_total },
  });
  const cancellation = view(cancelled);
  await emitWebhookEvent(
    trx,
    deps.jobs,
    deps.keys.encryption,
    {
      partnerId: caller.partnerId,
      environment: caller.environment,
      type: 'contract.cancelled',
      occurredAt: now,
      data: cancellation,
    },
    deps.webhookEndpoints,
  );
  return cancellation;
}

function view(c: contracts.ContractRow): Cancellation {
  return {
    contractNumber: c.contract_number,
    status: 'cancelled',
    reason: c.cancel_reason as CancelReason,
    cancelledAt: c.cancelled_at!.toISOString(),
    refund: money(c.refund_amount ?? 0, c.currency),
  };
}
