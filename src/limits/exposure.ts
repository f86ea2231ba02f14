import { audit } from '../platform/audit.ts';
import type { Environment } from '../platform/db-schema.ts';
import { afterCommit, writeTogether, type AlongWrites, type Db, type Executor, type Trx } from '../platform/db.ts';
import { cursorInstant, listBinding } from '../platform/cursor.ts';
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

/**
 * A flight change moves legs' exposure from their old flights to their new ones, in the caller's
 * transaction, netted per flight: a flight the contract leaves gives its exposure back, a flight it
 * joins takes it under the cap (409 capacity_exceeded naming the leg, `/flights/N` where N is the
 * leg's index in `to`) after the stop-sales check (409 sales_suspended), and a flight it stays on
 * (a new flight number at the same minute, a codeshare named or cleared with the same operating
 * carrier) is not touched — a change is never refused for the exposure the contract itself already
 * has there, even when the cap was lowered below that flight's exposure. Flights are taken in key
 * order, the releases with the reservations, so two changes in opposite directions never deadlock;
 * the caller's transaction rolls everything back on a refusal (nothing is released without the new
 * flight being reserved).
 */
export async function moveExposure(
  trx: Trx,
  request: Omit<ReserveRequest, 'legs' | 'along'> & {
    from: readonly LegToCheck[];
    to: readonly LegToCheck[];
  },
): Promise<void> {
  const perLeg = request.passengers * maxPayoutPerPassenger(request.coverage);
  const keyed = (legs: readonly LegToCheck[]) =>
    legs.map((leg, index) => ({ leg, index, key: keyOf(request.environment, request.currency, leg) }));
  const leaving = keyed(request.from);
  const joining = keyed(request.to);
  const stays = new Set(leaving.map((l) => flightKeyString(l.key)));
  const joined = joining.filter((j) => !stays.has(flightKeyString(j.key)));
  const staying = new Set(joining.map((j) => flightKeyString(j.key)));
  const left = leaving.filter((l) => !staying.has(flightKeyString(l.key)));
  // a stop-sale refuses new cover: a flight the contract stays on is not new cover
  let cap = 0;
  if (joined.length > 0) {
    const read = await repo.stopSalesAndCap(trx, {
      after: request.now,
      environment: request.environment,
      currency: request.currency,
      defaultMajor: request.defaultCapMajor,
      legs: joined.map((j) => j.leg),
    });
    cap = read.cap;
    checkStopSales(
      new StopSaleIndex(read.stops),
      request.environment,
      joined.map((j) => j.leg),
      '/flights',
      joined.map((j) => j.index),
    );
  }
  if (perLeg <= 0) return;
  const steps = [...left.map((l) => ({ ...l, joins: false })), ...joined.map((j) => ({ ...j, joins: true }))].sort(
    (a, b) => (flightKeyString(a.key) < flightKeyString(b.key) ? -1 : 1),
  );
  const amounts: { key: FlightKey; amount: number }[] = [];
  for (const step of steps) {
    const amount = step.joins
      ? await repo.addExposure(trx, step.key, step.leg.departureAt, perLeg, cap)
      : await repo.releaseExposure(trx, step.key, perLeg, 1);
    if (amount === undefined && step.joins)
      throw capacityExceeded(step.leg, step.index, request.currency, '/flights', 'change');
    if (amount !== undefined) amounts.push({ key: step.key, amount });
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

/** One currency's exposure on a flight with its cap and the share of it used. */
export interface CurrencyExposureView extends repo.CurrencyExposure {
  /** amount ÷ cap (a cap lowered below the exposure shows above 1). */
  share: number;
}

/**
 * A flight of the top list: its most used currency's exposure at the top level (`currency`, `amount`,
 * `legs`, `cap`, `share`), and every currency's in `currencies`, that one first — a flight sold in
 * EUR and USD is one line with two totals, each against its own cap (never converted).
 */
export interface ExposureView extends repo.FlightExposure {
  cap: number;
  /** amount ÷ cap, in [0, 1] (a cap lowered below the exposure shows above 1). */
  share: number;
  currencies: CurrencyExposureView[];
}

export interface ExposurePage {
  flights: ExposureView[];
  /** The `after` of the next page; absent on the last. */
  next: string | undefined;
}

/** What the top list may be narrowed to, as typed (CLI options, console query): checked by `readExposureFilter`. */
export interface ExposureFilterInput {
  /** The environment the list is of (checked by the caller: CLI choices, console schema); empty or absent: all. */
  env?: string | undefined;
  currency?: string | undefined;
  airline?: string | undefined;
  /** Local departure dates, YYYY-MM-DD, both included. */
  from?: string | undefined;
  to?: string | undefined;
  /** A page's `next`. */
  after?: string | undefined;
}

export interface ExposureFilter {
  currency?: string | undefined;
  airline?: string | undefined;
  fromDate?: string | undefined;
  toDate?: string | undefined;
  cursor?: repo.ExposureCursor | undefined;
}

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const realDate = (d: string) => DATE.test(d) && new Date(`${d}T00:00Z`).toISOString().slice(0, 10) === d;

/**
 * Reads the top list's filter and page; 422 validation_failed naming each field wrong. `key`: the
 * keyring's `lookup` key, which binds a page's `after` to its list (`listHash`).
 */
export function readExposureFilter(input: ExposureFilterInput, key: Buffer): ExposureFilter {
  const errors: FieldError[] = [];
  const given = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());
  const currency = given(input.currency)?.toUpperCase();
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency))
    errors.push({ field: '/currency', code: 'invalid_format', message: 'must be an ISO 4217 code such as EUR' });
  const airline = given(input.airline)?.toUpperCase();
  if (airline !== undefined && !/^[A-Z0-9]{2}$/.test(airline))
    errors.push({ field: '/airline', code: 'invalid_format', message: 'must be an IATA airline code such as AF' });
  const fromDate = given(input.from);
  const toDate = given(input.to);
  for (const [field, d] of [
    ['/from', fromDate],
    ['/to', toDate],
  ] as const)
    if (d !== undefined && !realDate(d))
      errors.push({ field, code: 'invalid_format', message: 'must be a local departure date YYYY-MM-DD' });
  if (fromDate && toDate && realDate(fromDate) && realDate(toDate) && toDate < fromDate)
    errors.push({ field: '/to', code: 'out_of_range', message: 'must not be before the first date' });
  const after = given(input.after);
  const read = after === undefined ? undefined : readCursor(after);
  if (after !== undefined && !read)
    errors.push({ field: '/after', code: 'invalid', message: 'is not the next page of this list' });
  // a cursor continues the list it was printed for: with other filters it would skip or repeat lines
  const environment = given(input.env);
  if (read && errors.length === 0 && read.list !== listHash(key, environment, { currency, airline, fromDate, toDate }))
    errors.push({
      field: '/after',
      code: 'invalid',
      message: 'is the next page of a list with other filters: give the same filters, or start from the first page',
    });
  if (errors.length) throw new DomainError('validation_failed', 'The filter is not valid.', { errors });
  return { currency, airline, fromDate, toDate, cursor: read?.cursor };
}

/**
 * Which list a cursor belongs to: the `listBinding` (platform/cursor.ts, keyed with `key`) of its
 * environment and filter, as read (upper-cased, trimmed) — the one mechanism every list's cursor is
 * bound with. An `after` printed before the binding was keyed (2026-11-27) is refused as another
 * list's: the operator starts again from the first page (these pages are read at once, not kept).
 */
function listHash(
  key: Buffer,
  environment: string | undefined,
  filter: Pick<ExposureFilter, 'currency' | 'airline' | 'fromDate' | 'toDate'>,
): string {
  return listBinding(key, [
    environment ?? null,
    filter.currency ?? null,
    filter.airline ?? null,
    filter.fromDate ?? null,
    filter.toDate ?? null,
  ]);
}

/** A page's `next`: the last line's sort key and the hash of its list (`listHash`), base64url JSON. */
const cursorText = (cursor: repo.ExposureCursor, list: string): string =>
  Buffer.from(JSON.stringify([...cursor, list]), 'utf8').toString('base64url');

function readCursor(text: string): { cursor: repo.ExposureCursor; list: string } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 8 &&
      value.every((v) => typeof v === 'string' && v.length <= 40) &&
      /^\d{1,60}$/.test(value[0]) &&
      // the strict instant of every cursor: a far date Date.parse reads and PostgreSQL cannot is refused (422)
      cursorInstant(value[1]) !== undefined &&
      (ENVIRONMENTS as readonly string[]).includes(value[2])
    )
      return { cursor: value.slice(0, 7) as repo.ExposureCursor, list: value[7] as string };
  } catch {
    // not base64url JSON: refused below
  }
  return undefined;
}

/**
 * The upcoming flights using the highest share of their cap, one line per flight with each
 * currency's exposure, cap and share; a page of `limit` after `filter.cursor`, and the next page's
 * cursor. Stable order: share, then departure, then the flight's key.
 */
export async function highestExposures(
  db: Executor,
  options: {
    now: Date;
    environment?: Environment | undefined;
    limit?: number | undefined;
    defaultCapMajor?: number | undefined;
    filter?: ExposureFilter | undefined;
    /** The keyring's `lookup` key, binding `next` to its list (as `readExposureFilter` reads it). */
    key: Buffer;
  },
): Promise<ExposurePage> {
  const { flights, next } = await repo.topExposures(db, {
    after: options.now,
    environment: options.environment,
    limit: options.limit ?? 20,
    defaultCapMajor: options.defaultCapMajor,
    ...options.filter,
  });
  return {
    flights: flights.map((f) => {
      const currencies = f.currencies.map((c) => ({ ...c, share: c.amount / c.cap }));
      const top = currencies[0]!;
      return {
        environment: f.environment,
        currency: top.currency,
        airline: f.airline,
        departureAirport: f.departureAirport,
        arrivalAirport: f.arrivalAirport,
        departureLocal: f.departureLocal,
        departureAt: f.departureAt,
        amount: top.amount,
        legs: top.legs,
        cap: top.cap,
        share: top.share,
        currencies,
      };
    }),
    next: next && cursorText(next, listHash(options.key, options.environment, options.filter ?? {})),
  };
}
