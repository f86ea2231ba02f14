import fs from 'node:fs/promises';
import { Option, type Command } from 'commander';
import {
  backfillLedger,
  BORDEREAU_KINDS,
  bordereauFile,
  monthPeriod,
  partnerStatement,
  REPORT_FORMATS,
  STATEMENT_FORMATS,
  statementCsv,
  statementPdf,
  type ReportFormat,
  type StatementFormat,
} from '../ledger/index.ts';
import { ENVIRONMENTS, requirePartner } from '../partners/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import { formatMoney } from '../platform/money.ts';
import type { CommandKit } from './kit.ts';

/**
 * Money reporting (docs/bordereaux.md): the insurer's monthly bordereaux, the partner statement and
 * the ledger's backfill. Every report is a query over the ledger.
 */
export function ledgerCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor } = kit;
  const write = (file: string, data: Buffer) => (kit.writeBytes ?? fs.writeFile)(file, data);
  const names = (pointer: string) => ({ '/month': '--month', '/out': '--out' })[pointer];

  const bordereau = group(
    'bordereau',
    'Monthly bordereaux for the insurer, per partner and environment (CSV or XLSX)',
    'parasol bordereau premium --partner acme-air --month 2026-11 --format xlsx --out premium.xlsx',
  );
  for (const kind of BORDEREAU_KINDS) {
    leaf(
      bordereau,
      kind,
      kind === 'premium'
        ? 'Premium bordereau: one row per contract and movement (sale, cancellation, change) of the month'
        : 'Claims bordereau: one row per claim opened or paid in the month',
      `parasol bordereau ${kind} --partner acme-air --month 2026-11 --format csv --out ${kind}.csv`,
    )
      .requiredOption('--partner <partner>', 'partner slug or id')
      .requiredOption('--month <YYYY-MM>', 'the month (UTC)')
      .addOption(new Option('--env <environment>', 'environment').choices(ENVIRONMENTS).default('production'))
      .addOption(new Option('--format <format>', 'file format').choices(REPORT_FORMATS).default('csv'))
      .requiredOption('--out <file>', 'file to write')
      .action(
        run(async (o: { partner: string; month: string; env: Environment; format: ReportFormat; out: string }) => {
          const period = monthPeriod(o.month);
          const partner = await requirePartner(db, o.partner);
          const scope = { partnerId: partner.id, environment: o.env };
          const report = await bordereauFile(db, kind, scope, period, o.format);
          await write(o.out, report.bytes);
          return {
            data: { partner: partner.slug, environment: o.env, month: o.month, rows: report.rows, file: o.out },
            lines: [`${report.title} of ${partner.slug} (${o.env}) for ${o.month}: ${report.rows} row(s) → ${o.out}`],
          };
        }, names),
      );
  }

  leaf(
    group(
      'statement',
      "A partner's monthly statement (CSV or PDF)",
      'parasol statement show --partner acme-air --month 2026-11',
    ),
    'show',
    'Premium collected, commission, refunds, the amount due to the insurer and the tax net of refunds, per currency',
    'parasol statement show --partner acme-air --month 2026-11 --format pdf --out statement.pdf',
  )
    .requiredOption('--partner <partner>', 'partner slug or id')
    .requiredOption('--month <YYYY-MM>', 'the month (UTC)')
    .addOption(new Option('--env <environment>', 'environment').choices(ENVIRONMENTS).default('production'))
    .addOption(
      new Option('--format <format>', 'format of the file --out writes (default csv); refused without --out').choices(
        STATEMENT_FORMATS,
      ),
    )
    .option('--out <file>', 'file to write (without it, the totals are printed)')
    .action(
      async (
        o: { partner: string; month: string; env: Environment; format?: StatementFormat; out?: string },
        command: Command,
      ) => {
        // the command line prints text only: a file format (a PDF's bytes) goes to a file, as
        // bordereau's; without --out it is a usage error (exit 2), as bordereau's missing --out
        if (o.format !== undefined && o.out === undefined)
          command.error(
            `error: --format ${o.format} writes a file: give --out <file> (without --out, the totals are printed as text).`,
          );
        await run(async () => {
          const period = monthPeriod(o.month);
          const partner = await requirePartner(db, o.partner);
          const statement = await partnerStatement(db, { partnerId: partner.id, environment: o.env }, period);
          if (o.out) {
            await write(o.out, o.format === 'pdf' ? await statementPdf(statement, partner) : statementCsv(statement));
          }
          const lines = statement.lines.length
            ? statement.lines.map(
                (l) =>
                  `${l.currency}: collected ${formatMoney(l.premiumCollected, l.currency)}, commission ${formatMoney(l.commission, l.currency)}, ` +
                  `refunds ${formatMoney(l.refunds, l.currency)}, due ${formatMoney(l.amountDue, l.currency)}, ` +
                  `tax net of refunds ${formatMoney(l.taxNetOfRefunds, l.currency)}`,
              )
            : ['No money movement in this month.'];
          return { data: { partner: partner.slug, environment: o.env, month: o.month, lines: statement.lines }, lines };
        }, names)();
      },
    );

  leaf(
    group('ledger', 'The money ledger every report is made of', 'parasol ledger backfill'),
    'backfill',
    'Write the entries of contracts, cancellations and settled payouts that existed before the ledger (idempotent)',
    'parasol ledger backfill',
  ).action(
    run(async () => {
      const written = await db.transaction().execute((trx) => backfillLedger(trx, actor));
      return { data: { written }, lines: [`${written} ledger entr${written === 1 ? 'y' : 'ies'} written.`] };
    }),
  );
}
