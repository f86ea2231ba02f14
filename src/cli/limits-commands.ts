import { Option } from 'commander';
import {
  highestExposures,
  listCaps,
  countStopSales,
  listStopSales,
  readCap,
  resumeSales,
  setCap,
  STOP_SALES_LISTED,
  stopSaleScopeText,
  suspendSales,
  type StopSale,
} from '../limits/index.ts';
import { ENVIRONMENTS } from '../partners/index.ts';
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

const stopSaleJson = (s: StopSale) => ({
  id: s.id,
  environment: s.environment ?? 'all',
  airline: s.airline,
  airport: s.airport,
  departureAirport: s.departureAirport,
  arrivalAirport: s.arrivalAirport,
  startsAt: s.startsAt.toISOString(),
  endsAt: s.endsAt.toISOString(),
  reason: s.reason,
  createdBy: s.createdBy,
  createdAt: s.createdAt.toISOString(),
  resumedAt: s.resumedAt?.toISOString() ?? null,
  resumedBy: s.resumedBy,
});

export function limitsCommands(
  kit: CommandKit,
  extras: { now?: (() => Date) | undefined; defaultCapMajor?: number | undefined } = {},
): void {
  const { group, leaf, run, db, actor } = kit;
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
    'The upcoming flights using the highest share of their cap, with that share',
    'parasol limits flights --env production --limit 20',
  )
    .addOption(new Option('--env <environment>', 'only this environment').choices(ENVIRONMENTS))
    .option('--limit <n>', 'at most this many (default 20, at most 500)')
    .action(
      run(
        async (options: { env?: Environment; limit?: string }) => {
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
          const flights = await highestExposures(db, { now: now(), environment: options.env, limit, defaultCapMajor });
          return {
            data: { flights: flights.map((f) => ({ ...f, departureAt: f.departureAt.toISOString() })) },
            lines: flights.length
              ? table(
                  ['ENV', 'FLIGHT', 'DEPARTURE (LOCAL)', 'LEGS', 'EXPOSURE', 'CAP', 'SHARE'],
                  flights.map((f) => [
                    f.environment,
                    `${f.airline} ${f.departureAirport}-${f.arrivalAirport}`,
                    f.departureLocal,
                    String(f.legs),
                    formatMoney(f.amount, f.currency),
                    formatMoney(f.cap, f.currency),
                    percent(f.share),
                  ]),
                )
              : ['No upcoming flight carries exposure.'],
          };
        },
        (pointer) => ({ '/limit': '--limit' })[pointer],
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
    .option('--until <instant>', 'departures before this instant are covered')
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
              reason: options.reason,
            },
            now(),
          );
          return {
            data: { stopSale: stopSaleJson(stop), alreadySuspended: stop.alreadySuspended },
            lines: stop.alreadySuspended
              ? [
                  `Already suspended: stop-sale ${stop.id} (${stopSaleScopeText(stop)}, ${stop.environment ?? 'all environments'}, departures ${when(stop.startsAt)} to ${when(stop.endsAt)}) is in force with this reason. Nothing changed.`,
                ]
              : [
                  `Suspended sales ${stop.id}: ${stopSaleScopeText(stop)}, ${stop.environment ?? 'all environments'}, departures ${when(stop.startsAt)} to ${when(stop.endsAt)}.`,
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
    'List the stop-sales in force (--all: resumed and past ones too); at most 1,000, saying how many more',
    'parasol sales list',
  )
    .option('--all', 'also resumed and past stop-sales')
    .action(
      run(async (options: { all?: boolean }) => {
        const scope = { now: now(), all: options.all === true };
        const stops = await listStopSales(db, scope);
        // capped: say how many were left out (with --all, the oldest; else those starting last)
        const more = stops.length < STOP_SALES_LISTED ? 0 : (await countStopSales(db, scope)) - stops.length;
        return {
          data: { stopSales: stops.map(stopSaleJson), more },
          lines: stops.length
            ? table(
                ['ID', 'ENV', 'SCOPE', 'DEPARTURES FROM', 'UNTIL', 'STATE', 'REASON'],
                stops.map((s) => [
                  s.id,
                  s.environment ?? 'all',
                  stopSaleScopeText(s),
                  when(s.startsAt),
                  when(s.endsAt),
                  s.resumedAt ? `resumed ${when(s.resumedAt)}` : s.endsAt <= now() ? 'past' : 'in force',
                  s.reason,
                ]),
              ).concat(
                more > 0 ? [`… and ${more} more (${options.all ? 'older' : 'starting later'}), not listed.`] : [],
              )
            : ['No stop-sale in force.'],
        };
      }),
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
