import { audit } from '../platform/audit.ts';
import type { Environment } from '../platform/db-schema.ts';
import { afterCommit, writeTogether, type AlongWrites, type Db, type Executor, type Trx } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { amountOrError, currencyError } from '../platform/money.ts';
import { ENVIRONMENTS, type Coverage } from '../partners/index.ts';
import * as repo from './limits-repo.ts';
import type { LimitsSnapshot } from './snapshot.ts';
import {
  capacityExceeded,
  checkStopSales,
  defaultCap,
  flightKeyString,
  maxPayoutPerPassenger,
  type FlightKey,
  type LegToCheck,
  StopSaleIndex,
} from './limits.ts';

/**
 * Exposure per flight (docs/limits.md): subscribe reserves, cancel releases, in the caller's
 * transaction; the operator sets the caps. The database is the authority — the quote path only
 * reads a snapshot of it (snapshot.ts).
 */

export interface ReserveRequest {
  environment: Environment;
  currency: string;
  coverage: Pick<Coverage, 'formula' | 'delayTiers' | 'cancellationAmount'>;
  passengers: number;
  legs: readonly LegToCheck[];
  now: Date;
  /** The cap where the operator set none, in major units (config.flightCapDefault). */
  defaultCapMajor?: number | undefined;
  /**
   * This process's snapshot for the quote path: told the flights' new exposure once the caller's
   * transaction commits (opened by `transaction()`), so the next quote here sees it without a reload.
   */
  snapshot?: LimitsSnapshot | undefined;
  /**
   * The caller's other writes of the transaction, sent with the reservation's statement (one round
   * trip for all: subscribe's ledger, audit and stored response; platform/db.ts `alongWrites`).
   */
  along?: AlongWrites | undefined;
}

const keyOf = (environment: Environment, currency: string, leg: LegToCheck): FlightKey => ({
  environment,
  currency,
  airline: leg.airline,
  departureAirport: leg.departureAirport,
  arrivalAirport: leg.arrivalAirport,
  departureLocal: leg.departureLocal,
});

/**
 * Refuses a subscription a stop-sale covers (409 sales_suspended), then adds each leg's highest
 * possible payout × passengers to its flight's exposure, each under the cap, or refuses (409
 * capacity_exceeded naming the leg) — the caller's transaction then rolls back what was added.
 * Legs are taken in key order so two subscriptions over the same two flights never deadlock; all
 * of them in one statement, with the caller's writes `along`.
 */
export async function reserveExposure(trx: Trx, request: ReserveRequest): Promise<void> {
  if (request.legs.length === 0) {
    // nothing to reserve (no caller sends none); the caller's writes still go
    await writeTogether(trx, request.along ?? []);
    return;
  }
  const perLeg = request.passengers * maxPayoutPerPassenger(request.coverage);
  const ordered = request.legs
    .map((leg, index) => ({ leg, index, key: keyOf(request.environment, request.currency, leg) }))
    .sort((a, b) => (flightKeyString(a.key) < flightKeyString(b.key) ? -1 : 1));
  const keys = ordered.map((o) => flightKeyString(o.key));
  const scope = {
    after: request.now,
    environment: request.environment,
    currency: request.currency,
    defaultMajor: request.defaultCapMajor,
    legs: request.legs,
  };
  if (perLeg > 0 && new Set(keys).size === keys.length) {
    // the common case, in one statement (one round trip): stop-sales and cap read, every leg added
    // under the cap; a stop-sale found then refuses, and the caller's transaction rolls back the additions
    const { stops, added } = await repo.reserveInOneStatement(
      trx,
      scope,
      ordered.map((o) => ({ key: o.key, departureAt: o.leg.departureAt })),
      perLeg,
      request.along,
    );
    checkStopSales(new StopSaleIndex(stops), request.environment, request.legs, '/flights');
    const refused = ordered.find((_, i) => !added.has(keys[i]!));
    if (refused) throw capacityExceeded(refused.leg, refused.index, request.currency, '/flights');
    noteAfterCommit(
      trx,
      request.snapshot,
      ordered.map((o, i) => ({ key: o.key, amount: added.get(keys[i]!)! })),
    );
    return;
  }
  await writeTogether(trx, request.along ?? []);
  const { stops, cap } = await repo.stopSalesAndCap(trx, scope);
  checkStopSales(new StopSaleIndex(stops), request.environment, request.legs, '/flights');
  if (perLeg <= 0) return;
  // two legs on the same flight (a round trip on one aircraft's rotation cannot be; a data error can)
  const amounts: { key: FlightKey; amount: number }[] = [];
  for (const { leg, index, key } of ordered) {
    const amount = await repo.addExposure(trx, key, leg.departureAt, perLeg, cap);
    if (amount === undefined) throw capacityExceeded(leg, index, request.currency, '/flights');
    amounts.push({ key, amount });
  }
  noteAfterCommit(trx, request.snapshot, amounts);
}

function noteAfterCommit(
  trx: Trx,
  snapshot: LimitsSnapshot | undefined,
  exposures: { key: FlightKey; amount: number }[],
): void {
  if (snapshot && !afterCommit(trx, () => snapshot.noteExposures(exposures))) void snapshot.refresh();
}

/**
 * A cancelled contract's legs give their exposure back — or, with `legsStay`, some of its passengers
 * leave legs that stay insured (a partial cancellation of passengers): the flights keep counting them.
 */
export async function releaseExposure(
  trx: Trx,
  request: Omit<ReserveRequest, 'now' | 'defaultCapMajor'> & { legsStay?: boolean | undefined },
): Promise<void> {
  const perLeg = request.passengers * maxPayoutPerPassenger(request.coverage);
  if (perLeg <= 0) return;
  const ordered = request.legs
    .map((leg) => keyOf(request.environment, request.currency, leg))
    .sort((a, b) => (flightKeyString(a) < flightKeyString(b) ? -1 : 1));
  const amounts: { key: FlightKey; amount: number }[] = [];
  for (const key of ordered) {
    const amount = await repo.releaseExposure(trx, key, perLeg, request.legsStay ? 0 : 1);
    if (amount !== undefined) amounts.push({ key, amount });
  }
  noteAfterCommit(trx, request.snapshot, amounts);
}

/** Caps above this are refused as typing errors (10^13 minor units: 100 billion euros). */
export const MAX_CAP = 10_000_000_000_000;

/**
 * The environment and currency of a cap, their errors pushed; the currency upper-cased. A code that is
 * no currency ("ERU" for EUR) is refused: the cap would leave the intended currency at its default.
 * One no new agreement can be in (XDR, a withdrawn BGN: `currencyError`) is refused unless `inUse`,
 * the currencies of the agreements that exist, has it: their flights are still insured, and their
 * exposure must still be capped. Without `inUse` (readCap has no database) only the former is checked;
 * setCap checks the latter.
 */
function capScope(
  input: { environment: string; currency: string },
  errors: FieldError[],
  inUse?: ReadonlySet<string>,
): string {
  if (!(ENVIRONMENTS as readonly string[]).includes(input.environment))
    errors.push({ field: '/environment', code: 'not_allowed', message: `must be one of ${ENVIRONMENTS.join(', ')}` });
  const currency = input.currency.trim().toUpperCase();
  const refused = currencyError(currency, '/currency', { inUse });
  if (refused && (inUse || refused.code !== 'not_allowed')) errors.push(refused);
  return currency;
}

function capAmount(amount: number, errors: FieldError[]): void {
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > MAX_CAP)
    errors.push({
      field: '/amount',
      code: 'out_of_range',
      message: `must be a whole number of minor units between 1 and ${MAX_CAP}`,
    });
}

/**
 * A cap as an operator types it (CLI and console): the amount in major units of the currency ("1,50"
 * read as 1.50). The currency is checked first: an amount is read in its minor unit, which a code
 * that is no currency (a typo: "EUROS", "ERU") does not have — the error names the currency.
 */
export function readCap(input: { environment: string; currency: string; amount: string }): {
  environment: string;
  currency: string;
  amount: number;
} {
  const errors: FieldError[] = [];
  const currency = capScope(input, errors);
  let amount = 0;
  if (!errors.some((e) => e.field === '/currency')) {
    const before = errors.length;
    amount = amountOrError(input.amount, currency, '/amount', errors);
    if (errors.length === before) capAmount(amount, errors);
  }
  if (errors.length) throw new DomainError('validation_failed', 'The cap is not valid.', { errors });
  return { environment: input.environment, currency, amount };
}

/** Sets the cap per flight of an environment and currency (operator: CLI and console, through readCap). Audited. */
export async function setCap(
  db: Db,
  actor: string,
  input: { environment: string; currency: string; amount: number },
  defaultCapMajor?: number,
): Promise<repo.Cap> {
  const errors: FieldError[] = [];
  const inUse = new Set((await repo.agreementCurrencies(db)).map((c) => c.currency));
  const currency = capScope(input, errors, inUse);
  capAmount(input.amount, errors);
  if (errors.length) throw new DomainError('validation_failed', 'The cap is not valid.', { errors });
  const environment = input.environment as Environment;
  await db.transaction().execute(async (trx) => {
    const previous = await repo.findCap(trx, environment, currency, defaultCapMajor);
    await repo.upsertCap(trx, environment, currency, input.amount, actor);
    await audit(trx, {
      actor,
      environment,
      entity: 'exposure_cap',
      entityId: `${environment}/${currency}`,
      action: 'set',
      data: { amount: input.amount, previous },
    });
  });
  return { environment, currency, amount: input.amount, set: true, updatedBy: actor, updatedAt: new Date() };
}

/**
 * The caps in force: every row the operator set, plus the documented default for each environment
 * and currency partners sell in that has none.
 */
export async function listCaps(db: Executor, defaultCapMajor?: number): Promise<repo.Cap[]> {
  const [rows, currencies] = await Promise.all([repo.listCapRows(db), repo.agreementCurrencies(db)]);
  const caps = [...rows];
  for (const environment of ENVIRONMENTS) {
    for (const { currency } of currencies) {
      if (!rows.some((r) => r.environment === environment && r.currency === currency))
        caps.push({
          environment,
          currency,
          amount: defaultCap(currency, defaultCapMajor),
          set: false,
          updatedBy: null,
          updatedAt: null,
        });
    }
  }
  return caps.sort((a, b) => a.environment.localeCompare(b.environment) || a.currency.localeCompare(b.currency));
}

export interface ExposureView extends repo.FlightExposure {
  cap: number;
  /** amount ÷ cap, in [0, 1] (a cap lowered below the exposure shows above 1). */
  share: number;
}

/** The upcoming flights using the highest share of their cap, each with its cap and that share. */
export async function highestExposures(
  db: Executor,
  options: {
    now: Date;
    environment?: Environment | undefined;
    limit?: number | undefined;
    defaultCapMajor?: number | undefined;
  },
): Promise<ExposureView[]> {
  const flights = await repo.topExposures(db, {
    after: options.now,
    environment: options.environment,
    limit: options.limit ?? 20,
    defaultCapMajor: options.defaultCapMajor,
  });
  return flights.map((f) => ({ ...f, share: f.amount / f.cap }));
}
