import { Option } from 'commander';
import {
  highestExposures,
  listCaps,
  countStopSales,
  listStopSales,
  readCap,
  readExposureFilter,
  resumeSales,
  setCap,
  STOP_SALES_LISTED,
  stopSaleScopeText,
  stopSaleState,
  suspendSales,
  type StopSale,
  type StopSaleListing,
} from '../limits/index.ts';
import { ENVIRONMENTS } from '../partners/index.ts';
import type { Keyring } from '../platform/crypto.ts';
import type { Environment } from '../platform/db-schema.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { formatMoney } from '../platform/money.ts';
import { table, when, type CommandKit } from './kit.ts';

/**
 * Operator commands for the limits on accumulation (docs/limits.md): caps per flight, the flights
 * with the highest exposure, stop-sales. A running server sees a change made here within 2 s (its
 * quote snapshot's refresh); subscriptions see it at once.
 */

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

/** "departures 2026-12-03 00:00Z to 2026-12-05 00:00Z", or "departures from … until sales are resumed". */
const period = (s: Pick<StopSale, 'startsAt' | 'endsAt'>) =>
  s.endsAt
    ? `departures ${when(s.startsAt)} to ${when(s.endsAt)}`
    : `departures from ${when(s.startsAt)} until sales are resumed`;

const stopSaleJson = (s: StopSale) => ({
  id: s.id,
  environment: s.environment ?? 'all',
  airline: s.airline,
  airport: s.airport,
  departureAirport: s.departureAirport,
  arrivalAirport: s.arrivalAirport,
  startsAt: s.startsAt.toISOString(),
  endsAt: s.endsAt?.toISOString() ?? null,
  reason: s.reason,
  createdBy: s.createdBy,
  createdAt: s.createdAt.toISOString(),
  resumedAt: s.resumedAt?.toISOString() ?? null,
  resumedBy: s.resumedBy,
});

export function limitsCommands(
  kit: CommandKit,
  extras: {
    now?: (() => Date) | undefined;
    defaultCapMajor?: number | undefined;
    /** The keyring: its `lookup` key binds `limits flights`' `--after` to its list (none: `services()` says it is missing). */
    keys?: Keyring | undefined;
  } = {},
): void {
  const { group, leaf, run, db, actor, services } = kit;
  const now = extras.now ?? (() => new Date());
  const defaultCapMajor = extras.defaultCapMajor;

  const limits = group(
    'limits',
    'Exposure per flight: caps per environment and currency, the most exposed flights',
    'parasol limits flights --env production',
  );

  leaf(
    limits,
    'caps',
    'List the cap per flight of each environment and currency (set, or the default)',
    'parasol limits caps',
  ).action(
    run(async () => {
      const caps = await listCaps(db, defaultCapMajor);
      return {
        data: {
          caps: caps.map((c) => ({
            environment: c.environment,
            currency: c.currency,
            amount: c.amount,
            default: !c.set,
            updatedBy: c.updatedBy,
            updatedAt: c.updatedAt?.toISOString() ?? null,
          })),
        },
        lines: caps.length
          ? table(
              ['ENV', 'CURRENCY', 'CAP PER FLIGHT', 'SET BY', 'SET AT'],
              caps.map((c) => [
                c.environment,
                c.currency,
                formatMoney(c.amount, c.currency),
                c.set ? (c.updatedBy ?? '-') : '(default)',
                when(c.updatedAt),
              ]),
            )
          : [
              `No agreement yet: every environment and currency has the default cap (${defaultCapMajor ?? 100_000} in major units).`,
            ],
      };
    }),
  );

  leaf(
    limits,
    'set-cap <env> <currency> <amount>',
    'Set the cap per flight (sum of the highest payouts of its active legs), in major units',
    'parasol limits set-cap production EUR 150000.00',
  ).action(
    run(
      async (env: string, currencyText: string, amountText: string) => {
        const read = readCap({ environment: env, currency: currencyText, amount: amountText });
        const cap = await setCap(db, actor, read, defaultCapMajor);
        return {
          data: { cap: { environment: cap.environment, currency: cap.currency, amount: cap.amount } },
          lines: [`Cap per flight in ${cap.environment}, ${cap.currency}: ${formatMoney(cap.amount, cap.currency)}.`],
        };
      },
      (pointer) => ({ '/environment': '<env>', '/currency': '<currency>', '/amount': '<amount>' })[pointer],
    ),
  );

  leaf(
    limits,
    'flights',
    'The upcoming flights using the highest share of their cap, one line per flight with each currency’s total',
    'parasol limits flights --env production --currency EUR --airline AF --from 2026-12-01 --to 2026-12-31',
  )
    .addOption(new Option('--env <environment>', 'only this environment').choices(ENVIRONMENTS))
    .option('--currency <code>', 'only the exposure in this currency')
    .option('--airline <code>', 'only this airline (the operating carrier)')
    .option('--from <YYYY-MM-DD>', 'local departures from this date')
    .option('--to <YYYY-MM-DD>', 'local departures up to this date, included')
    .option('--limit <n>', 'at most this many (default 20, at most 500)')
    .option('--after <cursor>', 'the next page: the cursor the previous page printed')
    .action(
      run(
        async (options: {
          env?: Environment;
          currency?: string;
          airline?: string;
          from?: string;
          to?: string;
          limit?: string;
          after?: string;
        }) => {
          const limit =
            options.limit === undefined
              ? 20
              : /^\d{1,3}$/.test(options.limit) && Number(options.limit) >= 1 && Number(options.limit) <= 500
                ? Number(options.limit)
                : Number.NaN;
          if (Number.isNaN(limit))
            throw new DomainError('validation_failed', 'The limit is not valid.', {
              errors: [{ field: '/limit', code: 'out_of_range', message: 'must be a whole number from 1 to 500' }],
            });
          const key = (extras.keys ?? services().keys).lookup;
          const filter = readExposureFilter(options, key);
          const { flights, next } = await highestExposures(db, {
            now: now(),
            environment: options.env,
            limit,
            defaultCapMajor,
            filter,
            key,
          });
          // one line per flight: a flight sold in two currencies shows both totals, each against its own cap
          const each = (f: (typeof flights)[number], read: (c: (typeof f.currencies)[number]) => string) =>
            f.currencies.map(read).join(' + ');
          return {
            data: {
              flights: flights.map((f) => ({ ...f, departureAt: f.departureAt.toISOString() })),
              next: next ?? null,
            },
            lines: flights.length
              ? table(
                  ['ENV', 'FLIGHT', 'DEPARTURE (LOCAL)', 'LEGS', 'EXPOSURE', 'CAP', 'SHARE'],
                  flights.map((f) => [
                    f.environment,
                    `${f.airline} ${f.departureAirport}-${f.arrivalAirport}`,
                    f.departureLocal,
                    each(f, (c) => String(c.legs)),
                    each(f, (c) => formatMoney(c.amount, c.currency)),
                    each(f, (c) => formatMoney(c.cap, c.currency)),
                    each(f, (c) => percent(c.share)),
                  ]),
                ).concat(next ? [`Next page: --after ${next}`] : [])
              : ['No upcoming flight carries exposure' + (options.after ? ' after this page.' : '.')],
          };
        },
        (pointer) =>
          ({
            '/limit': '--limit',
            '/currency': '--currency',
            '/airline': '--airline',
            '/from': '--from',
            '/to': '--to',
            '/after': '--after',
          })[pointer],
      ),
    );

  const sales = group(
    'sales',
    'Stop-sales: suspend and resume sales for an airline, an airport, a route or a flight',
    'parasol sales list',
  );
  const names = (pointer: string) =>
    ({
      '/environment': '--env',
      '/airline': '--airline',
      '/airport': '--airport',
      '/departureAirport': '--route',
      '/arrivalAirport': '--route',
      '/departureLocal': '--departure',
      '/startsAt': '--from',
      '/endsAt': '--until',
      '/untilResumed': '--until-resumed',
      '/reason': '--reason',
    })[pointer];

  leaf(
    sales,
    'suspend',
    'Suspend quotes and subscriptions of the legs departing in a period (or of one flight)',
    'parasol sales suspend --env production --airport ORY --from 2026-12-03T00:00Z --until 2026-12-05T00:00Z --reason "ATC strike"',
  )
    .addOption(new Option('--env <environment>', 'one environment, or all (default)').choices([...ENVIRONMENTS, 'all']))
    .option('--airline <code>', 'IATA airline code')
    .option('--airport <code>', 'IATA airport code, at either end of the leg')
    .option('--route <FROM-TO>', 'departure and arrival airports, e.g. CDG-JFK')
    .option(
      '--departure <YYYY-MM-DDTHH:mm>',
      'one flight: its local departure (with --airline and --route); replaces --from/--until',
    )
    .option('--from <instant>', 'first departure covered, ISO 8601 with offset (e.g. 2026-12-03T00:00Z)')
    .option('--until <instant>', 'departures before this instant are covered (or --until-resumed)')
    .option('--until-resumed', 'no end: every departure from --from on, until you resume sales (instead of --until)')
    .requiredOption('--reason <text>', 'why (shown to partners in the 409 detail; 1–500 characters)')
    .action(
      run(
        async (options: {
          env?: string;
          airline?: string;
          airport?: string;
          route?: string;
          departure?: string;
          from?: string;
          until?: string;
          untilResumed?: boolean;
          reason: string;
        }) => {
          const errors: FieldError[] = [];
          let route: [string, string] | undefined;
          if (options.route !== undefined) {
            const match = /^([A-Za-z]{3})-([A-Za-z]{3})$/.exec(options.route.trim());
            if (match) route = [match[1]!, match[2]!];
            else
              errors.push({
                field: '/departureAirport',
                code: 'invalid_format',
                message: 'must be FROM-TO, e.g. CDG-JFK',
              });
          }
          if (errors.length) throw new DomainError('validation_failed', 'The stop-sale is not valid.', { errors });
          const stop = await suspendSales(
            db,
            actor,
            {
              environment: options.env,
              airline: options.airline,
              airport: options.airport,
              departureAirport: route?.[0],
              arrivalAirport: route?.[1],
              departureLocal: options.departure,
              startsAt: options.from,
              endsAt: options.until,
              untilResumed: options.untilResumed === true,
              reason: options.reason,
            },
            now(),
          );
          return {
            data: { stopSale: stopSaleJson(stop), alreadySuspended: stop.alreadySuspended },
            lines: stop.alreadySuspended
              ? [
                  `Already suspended: stop-sale ${stop.id} (${stopSaleScopeText(stop)}, ${stop.environment ?? 'all environments'}, ${period(stop)}) is in force with this reason. Nothing changed.`,
                ]
              : [
                  `Suspended sales ${stop.id}: ${stopSaleScopeText(stop)}, ${stop.environment ?? 'all environments'}, ${period(stop)}.`,
                  'A running server applies it to quotes within 2 s, to subscriptions at once.',
                ],
          };
        },
        names,
      ),
    );

  leaf(
    sales,
    'list',
    'List the stop-sales in force (--state: current, future, past or all); at most 1,000, saying how many more',
    'parasol sales list --state current',
  )
    .addOption(
      new Option(
        '--state <state>',
        'in-force (default: current and future), current (covering departures now), future (covering later departures only — already refusing their sales), past (ended or resumed), all',
      ).choices(['in-force', 'current', 'future', 'past', 'all']),
    )
    .option('--all', 'also resumed and past stop-sales (as --state all; not with --state)')
    .action(
      run(
        async (options: { all?: boolean; state?: string }) => {
          if (options.all === true && options.state !== undefined)
            throw new DomainError('validation_failed', 'The listing is not valid.', {
              errors: [{ field: '/state', code: 'not_allowed', message: '--all or --state, not both' }],
            });
          const state: StopSaleListing =
            options.all === true
              ? 'all'
              : options.state === undefined || options.state === 'in-force'
                ? 'inForce'
                : (options.state as StopSaleListing);
          const at = now();
          const scope = { now: at, state };
          const stops = await listStopSales(db, scope);
          // capped: say how many were left out (past or all, the oldest; else those starting last)
          const more = stops.length < STOP_SALES_LISTED ? 0 : (await countStopSales(db, scope)) - stops.length;
          return {
            data: {
              stopSales: stops.map((s) => ({ ...stopSaleJson(s), state: stopSaleState(s, at) })),
              more,
            },
            lines: stops.length
              ? table(
                  ['ID', 'ENV', 'SCOPE', 'DEPARTURES FROM', 'UNTIL', 'STATE', 'REASON'],
                  stops.map((s) => [
                    s.id,
                    s.environment ?? 'all',
                    stopSaleScopeText(s),
                    when(s.startsAt),
                    s.endsAt ? when(s.endsAt) : 'until resumed',
                    s.resumedAt
                      ? `resumed ${when(s.resumedAt)}`
                      : {
                          current: 'covering departures now',
                          future: 'covering later departures',
                          past: 'past',
                        }[stopSaleState(s, at)],
                    s.reason,
                  ]),
                ).concat(
                  more > 0
                    ? [
                        `… and ${more} more (${state === 'all' || state === 'past' ? 'older' : 'starting later'}), not listed.`,
                      ]
                    : [],
                )
              : [
                  {
                    inForce: 'No stop-sale in force.',
                    current: 'No stop-sale covers departures now.',
                    future: 'No stop-sale covers later departures only.',
                    past: 'No stop-sale ended or resumed.',
                    all: 'No stop-sale.',
                  }[state],
                ],
          };
        },
        (pointer) => ({ '/state': '--state' })[pointer],
      ),
    );

  leaf(sales, 'resume <id>', 'Resume sales: end a stop-sale now', 'parasol sales resume 3f2b…').action(
    run(async (id: string) => {
      const stop = await resumeSales(db, actor, id, now());
      return {
        data: { stopSale: stopSaleJson(stop) },
        lines: [`Sales resumed for ${stopSaleScopeText(stop)} (${stop.id}).`],
      };
    }),
  );
}
