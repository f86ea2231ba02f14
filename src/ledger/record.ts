import { audit } from '../platform/audit.ts';
import type { Executor, PendingWrite } from '../platform/db.ts';
import * as repo from './ledger-repo.ts';
import type { Movement } from './model.ts';

/**
 * Records money movements in the caller's transaction — the one of the change that causes them, so
 * the movement and the change commit together or not at all. Idempotent per (eventKey, kind): a
 * retried job or request writes nothing twice. Append-only: to correct an entry, record a new one
 * (`corrects` its id) with the difference. Returns how many entries were written.
 *
 * For colleagues adding changes to contracts (issue 13: flight change, partial cancellation): call it
 * with eventKey `contract:<contractId>:<change>:<n>` (the third part names the change; the premium
 * bordereau shows one row per contract and event) and signed amounts — e.g. a partial refund is a
 * `refund` of what the customer gets back and negative `commission` of the commission given back.
 */
export async function recordMovements(trx: Executor, movements: readonly Movement[]): Promise<number> {
  checkAmounts(movements);
  return repo.insertEntries(trx, movements);
}

/**
 * recordMovements built and not sent, for `writeTogether` or `alongWrites` (platform/db.ts) to send with the change's
 * other writes in one round trip; undefined when there is nothing to record.
 */
export function movementsWrite(trx: Executor, movements: readonly Movement[]): PendingWrite | undefined {
  checkAmounts(movements);
  return movements.length ? repo.entriesInsert(trx, movements) : undefined;
}

function checkAmounts(movements: readonly Movement[]): void {
  for (const m of movements) {
    if (!Number.isSafeInteger(m.amount))
      throw new RangeError(`ledger amount must be integer minor units, got ${m.amount}`);
  }
}

interface ContractMoney {
  id: string;
  partnerId: string;
  environment: Movement['environment'];
  currency: string;
  premiumNet: number;
  premiumTax: number;
  premiumCommission: number;
}

/** A sale: the net premium, its tax and the partner's commission. */
export function saleMovements(contract: ContractMoney, at: Date, recordedBy: string): Movement[] {
  const base = {
    partnerId: contract.partnerId,
    environment: contract.environment,
    currency: contract.currency,
    contractId: contract.id,
    eventKey: `contract:${contract.id}:written`,
    occurredAt: at,
    recordedBy,
  };
  return [
    { ...base, kind: 'premium_written', amount: contract.premiumNet },
    { ...base, kind: 'tax', amount: contract.premiumTax },
    { ...base, kind: 'commission', amount: contract.premiumCommission },
  ];
}

/**
 * A cancellation: the refund to the customer (the whole premium of the contract as it stands), its tax
 * part (`tax_refunded`, memorandum: the contract's tax; none when it is zero) and the partner's
 * commission given back.
 */
export function cancellationMovements(
  contract: ContractMoney,
  refund: number,
  at: Date,
  recordedBy: string,
): Movement[] {
  const base = {
    partnerId: contract.partnerId,
    environment: contract.environment,
    currency: contract.currency,
    contractId: contract.id,
    eventKey: `contract:${contract.id}:cancelled`,
    occurredAt: at,
    recordedBy,
  };
  const movements: Movement[] = [{ ...base, kind: 'refund', amount: refund }];
  if (contract.premiumTax !== 0) movements.push({ ...base, kind: 'tax_refunded', amount: contract.premiumTax });
  movements.push({ ...base, kind: 'commission', amount: -contract.premiumCommission });
  return movements;
}

/**
 * A change to a live contract (a flight change, a passenger or a leg cancelled), by the difference of
 * its premium (after − before, per component). Lower: the customer is refunded what the premium fell
 * (net and tax; the tax part also as `tax_refunded`, a memorandum entry of the same event, the tax
 * difference as computed) and the partner gives back the commission of it (a negative commission).
 * Higher (a dearer flight): more premium written, its tax and its commission. One event per contract
 * version.
 */
export function changeMovements(
  contract: Omit<ContractMoney, 'premiumNet' | 'premiumTax' | 'premiumCommission'>,
  difference: { net: number; tax: number; commission: number; total: number },
  change: string,
  version: number,
  at: Date,
  recordedBy: string,
): Movement[] {
  const base = {
    partnerId: contract.partnerId,
    environment: contract.environment,
    currency: contract.currency,
    contractId: contract.id,
    eventKey: `contract:${contract.id}:${change}:${version}`,
    occurredAt: at,
    recordedBy,
  };
  const movements: Movement[] =
    difference.total < 0
      ? [
          { ...base, kind: 'refund', amount: -difference.total },
          { ...base, kind: 'tax_refunded', amount: -difference.tax },
        ]
      : [
          { ...base, kind: 'premium_written', amount: difference.net },
          { ...base, kind: 'tax', amount: difference.tax },
        ];
  movements.push({ ...base, kind: 'commission', amount: difference.commission });
  return movements.filter((m) => m.amount !== 0);
}

/** A payout's outcome as the bank reported it: compensation paid, or a failed attempt (memorandum). */
export function payoutMovement(
  payout: {
    id: string;
    attempt: number;
    partnerId: string;
    environment: Movement['environment'];
    amount: number;
    currency: string;
    claimId: string;
    contractId: string;
  },
  outcome: 'paid' | 'failed',
  at: Date,
  recordedBy: string,
): Movement {
  return {
    partnerId: payout.partnerId,
    environment: payout.environment,
    kind: outcome === 'paid' ? 'compensation_paid' : 'payout_failed',
    amount: payout.amount,
    currency: payout.currency,
    contractId: payout.contractId,
    claimId: payout.claimId,
    payoutId: payout.id,
    eventKey: `payout:${payout.id}:${payout.attempt}:${outcome}`,
    occurredAt: at,
    recordedBy,
  };
}

/**
 * A paid transfer returned by the customer's bank (an R-transaction): the money came back, so the
 * attempt's `compensation_paid` is reversed by a new `compensation_paid` entry of the opposite amount
 * that `corrects` it (null when the payment predates the ledger and was never backfilled). Event key
 * `payout:<id>:<attempt>:returned`: recorded once whatever the retries. Net of the two, the claim's
 * compensation paid is zero until a new attempt is paid.
 */
export async function recordPayoutReturn(
  trx: Executor,
  payout: Parameters<typeof payoutMovement>[0],
  at: Date,
  recordedBy: string,
): Promise<number> {
  const paid = payoutMovement(payout, 'paid', at, recordedBy);
  const corrects = await repo.findEntryId(trx, paid.eventKey, paid.kind);
  return recordMovements(trx, [
    {
      ...paid,
      amount: -payout.amount,
      eventKey: `payout:${payout.id}:${payout.attempt}:returned`,
      corrects: corrects ?? null,
    },
  ]);
}

/**
 * Writes the ledger of what existed before it (contracts, cancellations, settled payouts); idempotent.
 * Audited (entity `ledger`, id `backfill`, with the number of entries written) in the caller's
 * transaction: the insurer's accounts changed by an operator's command.
 */
export async function backfillLedger(db: Executor, actor: string): Promise<number> {
  const written = await repo.backfill(db);
  await audit(db, { actor, entity: 'ledger', entityId: 'backfill', action: 'backfilled', data: { written } });
  return written;
}
