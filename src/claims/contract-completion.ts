import { sql } from 'kysely';
import type { Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';

/**
 * A contract ends `completed` when every insured leg is over: settled (its claim `paid` or
 * `expired`) or flown without a claim (its flight watch decided, and nothing to pay). Set-wise: one
 * statement for any number of contracts. Returns the ids completed by this call.
 */
export async function completeSettledContracts(db: Executor, contractIds: readonly string[]): Promise<string[]> {
  if (contractIds.length === 0) return [];
  const result = await sql<{ id: string }>`
    WITH completed AS (
      UPDATE contracts c SET status = 'completed'
      WHERE c.id = ANY(${[...contractIds]}::uuid[]) AND c.status = 'active' AND ${over(sql`c.id`)}
      RETURNING c.id, c.contract_number, c.partner_id, c.environment
    ), audited AS (
      INSERT INTO audit_log (actor, partner_id, environment, entity, entity_id, action)
      SELECT 'system', partner_id, environment, 'contract', contract_number, 'completed' FROM completed
    )
    SELECT id FROM completed`.execute(db);
  return result.rows.map((r) => r.id);
}

/** Every insured leg of the contract is over: settled (claim paid or expired) or flown without a claim. */
const over = (contractId: ReturnType<typeof sql>) => sql`NOT EXISTS (
  SELECT 1 FROM contract_legs l
  LEFT JOIN claims cl ON cl.leg_id = l.id
  WHERE l.contract_id = ${contractId}
    AND NOT (cl.status IN ('paid', 'expired') OR (cl.id IS NULL AND ${legFlown})))`;

/** A leg flown with nothing to pay: its flight's watch reached a decision (see src/monitoring). */
const legFlown = sql`EXISTS (
  SELECT 1 FROM flight_watches w
  WHERE w.environment = l.environment AND w.flight_number = l.flight_number AND w.departure_date = l.departure_date AND w.state = 'decided')`;

/** After a flight is decided: the active contracts with a leg on it that are now over. */
export async function completeContractsOnFlight(db: Executor, flight: { environment: Environment; flightNumber: string; departureDate: string }): Promise<string[]> {
  const rows = await db
    .selectFrom('contract_legs as l')
    .innerJoin('contracts as c', 'c.id', 'l.contract_id')
    .select('c.id')
    .distinct()
    .where('l.environment', '=', flight.environment)
    .where('l.flight_number', '=', flight.flightNumber)
    .where('l.departure_date', '=', flight.departureDate)
    .where('c.status', '=', 'active')
    .execute();
  return completeSettledContracts(db, rows.map((r) => r.id));
}

/**
 * The periodic sweep (with the claims expiry job): active contracts whose last departure is more
 * than a day past, completed when over — whatever a crash between a decision and its completion
 * left behind. Set-wise, a batch at a time.
 */
export async function completeFinishedContracts(db: Executor, now: Date, limit = 5_000): Promise<string[]> {
  // only contracts that are over: the batch never fills up with ones still waiting for bank details
  const rows = await sql<{ id: string }>`
    SELECT c.id FROM contracts c
    WHERE c.status = 'active'
      AND (SELECT max(l.departure_at) FROM contract_legs l WHERE l.contract_id = c.id) < ${new Date(now.getTime() - 86_400_000)}
      AND ${over(sql`c.id`)}
    ORDER BY c.first_departure_at LIMIT ${limit}`.execute(db);
  return completeSettledContracts(db, rows.rows.map((r) => r.id));
}
