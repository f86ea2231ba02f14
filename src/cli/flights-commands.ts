import { ENVIRONMENTS } from '../partners/index.ts';
import { Option } from 'commander';
import {
  activeRoutes,
  checkFlightWatch,
  findSimulatedFlightEvent,
  findWatchesOfFlight,
  flightProvidersFromConfig,
  isLocalDate,
  listWatches,
  operatingFlightsOf,
  parseDesignator,
  recordOperatorFlightEvent,
  saveSimulatedFlightEvent,
  FLIGHT_WATCH_STATES,
  type CheckOutcome,
  type FlightProviders,
  type FlightWatch,
  type FlightWatchState,
  type OperatorFlightStatus,
  type SimulatedEnvironment,
  type SimulatedOutcome,
} from '../monitoring/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import type { Executor } from '../platform/db.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { pairs, table, when, type CommandKit } from './kit.ts';
import { formatMoney } from '../platform/money.ts';

/**
 * Operator commands for the flight monitoring (docs/monitoring.md): list and show watches, drive the
 * sandbox/preproduction simulator, run a check now, and state a flight event by hand (the way out
 * of manual review, in any environment).
 */

const OUTCOMES = ['on_time', 'delayed', 'cancelled', 'diverted'] as const;

export interface FlightsExtras {
  /** Providers to check with (tests); default: from the configuration. */
  providers?: FlightProviders | undefined;
  /** The clock (tests); default: the system's. */
  now?: (() => Date) | undefined;
}

export function flightsCommands(kit: CommandKit, extras: FlightsExtras = {}): void {
  const { group, leaf, run, db, actor, services, io } = kit;
  const now = extras.now ?? (() => new Date());
  const names = (pointer: string) =>
    ({
      '/environment': '<env>',
      '/flightNumber': '<flight>',
      '/departureDate': '<date>',
      '/arrivalDelayMinutes': '--delay',
      '/divertedTo': '--diverted-to',
      '/limit': '--limit',
    })[pointer];

  const flights = group(
    'flights',
    'Flight monitoring: watches, checks, the simulator, manual flight events',
    'parasol flights list --state manual_review',
  );

  leaf(
    flights,
    'list',
    'List flight watches, next due first, with their active contracts',
    'parasol flights list --env production --state manual_review',
  )
    .addOption(new Option('--env <environment>', 'only this environment').choices(ENVIRONMENTS))
    .addOption(new Option('--state <state>', 'only watches in this state').choices(FLIGHT_WATCH_STATES))
    .option('--date <YYYY-MM-DD>', 'only flights departing on this local date')
    .option('--limit <n>', 'at most this many (default 100)')
    .action(
      run(async (options: { env?: Environment; state?: FlightWatchState; date?: string; limit?: string }) => {
        const errors: FieldError[] = [];
        if (options.date !== undefined) checkDate(options.date, errors);
        const limit = limitOf(options.limit, errors);
        if (errors.length) throw new DomainError('validation_failed', 'The filters are not valid.', { errors });
        const watches = await listWatches(db, {
          environment: options.env,
          state: options.state,
          departureDate: options.date,
          limit,
        });
        const lines = watches.length
          ? table(
              ['ENV', 'FLIGHT', 'DATE', 'ROUTE', 'STATE', 'NEXT CHECK', 'CHECKS', 'LAST OUTCOME', 'CONTRACTS'],
              watches.map((w) => [
                w.environment,
                w.flightNumber,
                w.departureDate,
                `${w.origin}-${w.destination}`,
                stateText(w),
                when(w.nextCheckAt),
                String(w.checks),
                w.lastOutcome ?? '-',
                String(w.contracts),
              ]),
            )
          : ['No flight watches match. Watches are created for active contracts 48 h before departure.'];
        return { data: { watches: watches.map((w) => ({ ...watchJson(w), contracts: w.contracts })) }, lines };
      }, names),
    );

  leaf(
    flights,
    'show <env> <flight> <date>',
    "Show a flight's watch: state, schedule, last status, decision",
    'parasol flights show production AF006 2026-12-24',
  ).action(
    run(async (env: string, flight: string, date: string) => {
      const environment = flightArgs(env, flight, date);
      const watches = await requireWatches(environment, flight, date);
      const shown = await Promise.all(watches.map(async (w) => ({ watch: w, routes: await activeRoutes(db, w) })));
      const simulated =
        environment === 'production' ? undefined : await findSimulatedFlightEvent(db, environment, flight, date);
      const lines = shown.flatMap(({ watch: w, routes }, i) => [
        ...(i > 0 ? [''] : []),
        ...pairs([
          ['Flight', `${w.flightNumber} ${w.departureDate} ${w.origin}-${w.destination} (${w.environment})`],
          ['Watch', w.id],
          ['State', stateText(w)],
          ['Departure', when(w.scheduledDeparture)],
          ['Arrival', w.scheduledArrival ? `${when(w.scheduledArrival)} (scheduled, gate)` : 'not known yet'],
          ['Next check', when(w.nextCheckAt)],
          ['Checks', `${w.checks} (${w.consecutiveErrors} failed in a row)`],
          ['Last check', `${when(w.lastCheckedAt)} ${w.lastOutcome ?? ''}`.trim()],
          ['Last error', w.lastError ?? '-'],
          ['Decision', w.decision ? JSON.stringify(w.decision) : '-'],
          [
            'Contracts',
            routes.length
              ? routes.map((r) => `${r.contracts} active on ${r.origin}-${r.destination}`).join('; ')
              : 'none active',
          ],
        ]),
      ]);
      if (simulated)
        lines.push(
          '',
          `Simulated: ${simulated.status}${simulated.arrival_delay_minutes !== null ? ` ${simulated.arrival_delay_minutes} min` : ''}${simulated.diverted_to ? ` to ${simulated.diverted_to}` : ''} (set ${when(simulated.set_at)} by ${simulated.set_by})`,
        );
      return {
        data: {
          watches: shown.map(({ watch, routes }) => ({ ...watchJson(watch), routes })),
          simulated: simulated
            ? {
                status: simulated.status,
                arrivalDelayMinutes: simulated.arrival_delay_minutes,
                divertedTo: simulated.diverted_to,
                setAt: simulated.set_at,
                setBy: simulated.set_by,
              }
            : null,
        },
        lines,
      };
    }, names),
  );

  leaf(
    flights,
    'simulate <flight> <date>',
    'Make a sandbox or preproduction flight delayed, cancelled, diverted or on time; its claims open within a minute, whenever it departs',
    'parasol flights simulate --env sandbox AF006 2026-12-24 --status delayed --delay 190',
  )
    .addOption(
      new Option('--env <environment>', 'sandbox or preproduction (production follows the real provider)')
        .choices(['sandbox', 'preproduction'])
        .makeOptionMandatory(),
    )
    .addOption(new Option('--status <status>', 'what the flight does').choices(OUTCOMES).makeOptionMandatory())
    .option('--delay <minutes>', 'arrival delay at the gate, in whole minutes (delayed only)')
    .option('--diverted-to <IATA>', 'where a diverted flight landed (optional)')
    .action(
      run(
        async (
          flight: string,
          date: string,
          options: { env: SimulatedEnvironment; status: SimulatedOutcome; delay?: string; divertedTo?: string },
        ) => {
          const errors: FieldError[] = [];
          const delay = minutesOf(options.delay, errors);
          if (errors.length)
            throw new DomainError('validation_failed', 'The simulated event is not valid.', { errors });
          const saved = await saveSimulatedFlightEvent(db, {
            environment: options.env,
            event: {
              flightNumber: flight,
              departureDate: date,
              status: options.status,
              ...(delay !== undefined ? { arrivalDelayMinutes: delay } : {}),
              ...(options.divertedTo ? { divertedTo: options.divertedTo } : {}),
            },
            actor,
            now: now(),
          });
          const what = `${saved.status}${saved.arrivalDelayMinutes !== null ? ` (${saved.arrivalDelayMinutes} min at the gate)` : ''}${saved.divertedTo ? ` to ${saved.divertedTo}` : ''}`;
          return {
            data: { simulated: saved },
            lines: [
              `Simulated ${saved.flightNumbers.join(', ')} ${saved.departureDate} in ${saved.environment}: ${what}.`,
              saved.watchesDue > 0
                ? `Its watch is due now${saved.watchesCreated > 0 ? ' (created for this event)' : ''}: the next dispatch (within a minute) checks it and opens the claims.`
                : await simulatedNotDue(db, saved),
            ],
          };
        },
        names,
      ),
    );

  leaf(
    flights,
    'check <env> <flight> <date>',
    'Check a flight now (also one in manual review) and act on the answer',
    'parasol flights check production AF006 2026-12-24',
  ).action(
    run(async (env: string, flight: string, date: string) => {
      const environment = flightArgs(env, flight, date);
      const watches = await requireWatches(environment, flight, date);
      const { jobs, config } = services();
      // a provider's warnings (AeroAPI's page limit…) on standard error, as the command line says its errors
      const stderr = { warn: (o: object, m: string) => io.err(`warning: ${m} ${JSON.stringify(o)}`) };
      const providers = extras.providers ?? flightProvidersFromConfig(config.flightProvider, db, now, stderr);
      const log = { info: () => {}, warn: () => {}, error: () => {} };
      const results: { watch: FlightWatch; result: CheckOutcome }[] = [];
      for (const watch of watches) {
        results.push({
          watch,
          result: await checkFlightWatch({ db, jobs, providers, now, log }, watch.id, { manual: true, actor }),
        });
      }
      return {
        data: {
          checks: results.map(({ watch, result }) => ({
            watchId: watch.id,
            flightNumber: watch.flightNumber,
            departureDate: watch.departureDate,
            ...result,
          })),
        },
        lines: results.map(
          ({ watch, result }) => `${watch.flightNumber} ${watch.departureDate}: ${outcomeText(result, watch)}`,
        ),
      };
    }, names),
  );

  leaf(
    flights,
    'event <flight> <date>',
    'State what happened to a flight (any environment): opens the claims and decides its watch',
    'parasol flights event --env production AF006 2026-12-24 --status delayed --delay 190',
  )
    .addOption(
      new Option('--env <environment>', 'environment of the contracts').choices(ENVIRONMENTS).makeOptionMandatory(),
    )
    .addOption(
      new Option('--status <status>', 'what happened (on_time opens nothing and only decides the watch)')
        .choices(OUTCOMES)
        .makeOptionMandatory(),
    )
    .option('--delay <minutes>', 'arrival delay at the gate, in whole minutes (delayed only)')
    .action(
      run(
        async (
          flight: string,
          date: string,
          options: { env: Environment; status: OperatorFlightStatus; delay?: string },
        ) => {
          const errors: FieldError[] = [];
          const delay = minutesOf(options.delay, errors);
          if (errors.length) throw new DomainError('validation_failed', 'The flight event is not valid.', { errors });
          const { jobs } = services();
          const result = await recordOperatorFlightEvent(
            { db, jobs, now },
            {
              environment: options.env,
              flightNumber: flight,
              departureDate: date,
              status: options.status,
              arrivalDelayMinutes: delay,
            },
            actor,
          );
          return {
            data: {
              flightNumbers: result.flightNumbers,
              departureDate: date,
              environment: options.env,
              status: options.status,
              claimsOpened: result.claimsOpened.map((c) => ({
                claimNumber: c.claimNumber,
                contractId: c.contractId,
                compensation: { amount: c.compensationAmount, currency: c.currency },
                replaces: c.replaces,
              })),
              watchesDecided: result.watchesDecided,
              contractsReopened: result.contractsReopened,
              claimsNotChanged: result.claimsNotChanged,
            },
            lines: [
              `${result.flightNumbers.join(', ')} ${date} (${options.env}) ${options.status}: ${result.claimsOpened.length} claim(s) opened, ${result.watchesDecided} watch(es) decided.`,
              ...result.claimsOpened.map(
                (c) => `  ${c.claimNumber}${c.replaces ? ` (replaces ${c.replaces}, voided)` : ''}`,
              ),
              ...(result.contractsReopened.length
                ? [
                    `Reopened (completed as flown with nothing to pay, now with a claim): ${result.contractsReopened.join(', ')}`,
                  ]
                : []),
              ...(result.claimsNotChanged.length
                ? [
                    `Already open and not changed (one claim per leg; use the claim desk — docs/OPERATOR.md):`,
                    ...result.claimsNotChanged.map(
                      (c) =>
                        `  ${c.claimNumber} ${c.status}: pays ${formatMoney(c.compensation.amount, c.compensation.currency)}, this event ${formatMoney(c.eventWouldPay.amount, c.eventWouldPay.currency)}`,
                    ),
                  ]
                : []),
            ],
          };
        },
        names,
      ),
    );

  /** Validates `<env> <flight> <date>`; returns the environment. */
  function flightArgs(env: string, flight: string, date: string): Environment {
    const errors: FieldError[] = [];
    if (!(ENVIRONMENTS as readonly string[]).includes(env))
      errors.push({ field: '/environment', code: 'not_allowed', message: `must be one of ${ENVIRONMENTS.join(', ')}` });
    if (!parseDesignator(flight))
      errors.push({
        field: '/flightNumber',
        code: 'invalid_format',
        message: 'must be an IATA flight designator such as AF006',
      });
    checkDate(date, errors);
    if (errors.length) throw new DomainError('validation_failed', 'The flight is not valid.', { errors });
    return env as Environment;
  }

  async function requireWatches(environment: Environment, flight: string, date: string): Promise<FlightWatch[]> {
    const watches = await findWatchesOfFlight(db, environment, flight, date);
    if (watches.length === 0) {
      throw new DomainError(
        'flight_watch_not_found',
        `No watch for ${flight} ${date} in ${environment}: watches are created for active contracts 48 h before departure.`,
      );
    }
    return watches;
  }
}

function checkDate(text: string, errors: FieldError[]): void {
  if (!isLocalDate(text)) {
    errors.push({ field: '/departureDate', code: 'invalid_format', message: 'must be a date YYYY-MM-DD' });
  }
}

function minutesOf(text: string | undefined, errors: FieldError[]): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,5}$/.test(text.trim())) {
    errors.push({
      field: '/arrivalDelayMinutes',
      code: 'invalid_format',
      message: 'must be a whole number of minutes',
    });
    return undefined;
  }
  return Number(text.trim());
}

function limitOf(text: string | undefined, errors: FieldError[]): number {
  if (text === undefined) return 100;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 10_000) {
    errors.push({ field: '/limit', code: 'out_of_range', message: 'from 1 to 10000' });
    return 100;
  }
  return Number(text);
}

/**
 * What `flights simulate` says when no watch of the flight was made due: a watch decided (the event
 * changes nothing) or in manual review (`flights check` decides it with the event), a codeshare's
 * marketing flight (its legs are watched under the operating flight: simulate that one), or no
 * active contract.
 */
async function simulatedNotDue(
  db: Executor,
  saved: { environment: SimulatedEnvironment; flightNumber: string; departureDate: string },
): Promise<string> {
  const { environment, flightNumber, departureDate } = saved;
  const watches = await findWatchesOfFlight(db, environment, flightNumber, departureDate);
  const reviewed = watches.filter((w) => w.state === 'manual_review');
  if (reviewed.length > 0)
    return `Its watch is ${reviewed.map(stateText).join(', ')}: the dispatch does not check it; parasol flights check ${environment} ${flightNumber} ${departureDate} decides it with this simulated event and opens the claims (a flight insured on several routes stays in review: decide it with parasol flights event).`;
  if (watches.length > 0)
    return `Its watch is ${watches.map(stateText).join(', ')}, not watching: this event changes nothing (parasol flights show ${environment} ${flightNumber} ${departureDate}).`;
  const operating = await operatingFlightsOf(db, environment, flightNumber, departureDate);
  if (operating.length > 0)
    return `${flightNumber} is sold as a codeshare: its legs are monitored under the operating flight ${operating.join(', ')}, not under ${flightNumber}. Simulate that flight: parasol flights simulate --env ${environment} ${operating[0]} ${departureDate} --status …`;
  return `No active contract on this flight in ${environment}: nothing to check. A contract subscribed later is checked at its departure, and that check sees this event; simulate again after subscribing to open its claims within a minute.`;
}

function stateText(w: FlightWatch): string {
  if (w.state === 'manual_review') return `manual_review (${w.reviewReason ?? '?'})`;
  if (w.state === 'decided' && w.decision && typeof w.decision === 'object' && 'kind' in w.decision)
    return `decided (${String((w.decision as { kind: unknown }).kind)})`;
  return w.state;
}

function outcomeText(r: CheckOutcome, watch: FlightWatch): string {
  switch (r.outcome) {
    case 'missing':
      return 'the watch no longer exists';
    case 'skipped':
      return `nothing to do: the watch is ${r.state}`;
    case 'closed':
      return 'no active contract left: watch closed';
    case 'decided':
      return `decided ${r.decision.kind}${r.decision.kind === 'delayed' ? ` (${r.decision.arrivalDelayMinutes} min)` : ''}, ${r.claimsOpened} claim(s) opened`;
    case 'pending':
      return `not final (${r.reason}); next check ${when(r.nextCheckAt)}`;
    case 'manual_review':
      return `given to manual review (${r.reason}): decide it with parasol flights event --env ${watch.environment} ${watch.flightNumber} ${watch.departureDate} --status …`;
    case 'provider_error':
      return `provider error (${r.error}); ${r.consecutiveErrors} in a row, next check ${when(r.nextCheckAt)}`;
    case 'circuit_open':
      return `provider circuit open: no call made, next check ${when(r.nextCheckAt)}`;
    case 'beyond_provider_history':
      return `not checked: ${r.provider} keeps no flight data older than ${r.historyDays} days (not a provider failure). State what happened from another source: parasol flights event --env ${watch.environment} ${watch.flightNumber} ${watch.departureDate} --status …`;
    case 'no_provider':
      return `no flight-status provider configured for this environment (PARASOL_FLIGHT_PROVIDER); next check ${when(r.nextCheckAt)}`;
  }
}

function watchJson(w: FlightWatch) {
  return {
    id: w.id,
    environment: w.environment,
    flightNumber: w.flightNumber,
    departureDate: w.departureDate,
    origin: w.origin,
    destination: w.destination,
    state: w.state,
    reviewReason: w.reviewReason,
    scheduledDeparture: w.scheduledDeparture,
    scheduledArrival: w.scheduledArrival,
    nextCheckAt: w.nextCheckAt,
    checks: w.checks,
    consecutiveErrors: w.consecutiveErrors,
    lastCheckedAt: w.lastCheckedAt,
    lastOutcome: w.lastOutcome,
    lastError: w.lastError,
    lastStatus: w.lastStatus,
    decision: w.decision,
    decidedAt: w.decidedAt,
  };
}
