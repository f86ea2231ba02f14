import { sql } from 'kysely';
import { migrationFiles } from '../platform/db.ts';
import { rowsRewritten, scrubOldRows, type ScrubReport } from '../platform/scrub-old-rows.ts';
import { table, when, type CommandKit } from './kit.ts';

/** Database maintenance. */
export function dbCommands(kit: CommandKit): void {
  const { group, leaf, run, db, io, actor, services } = kit;

  // ---------------------------------------------------------------------------------------------
  // db

  const database = group('db', 'Database maintenance', 'parasol db migrate');

  leaf(
    database,
    'migrate',
    "Apply pending migrations (done at every start) and pg-boss's schema upgrade, and list the applied ones; starts no job queue",
    'parasol db migrate',
  ).action(
    run(async () => {
      const appliedNow = [...(io.applied ?? [])];
      const rows = (
        await sql<{
          name: string;
          applied_at: Date;
        }>`SELECT name, applied_at FROM schema_migrations ORDER BY name`.execute(db)
      ).rows;
      const done = new Set(rows.map((r) => r.name));
      const pending = migrationFiles().filter((f) => !done.has(f));
      return {
        data: { appliedNow, migrations: rows.map((r) => ({ name: r.name, appliedAt: r.applied_at })), pending },
        lines: [
          appliedNow.length
            ? `Applied ${appliedNow.length} migration(s) now: ${appliedNow.join(', ')}`
            : 'The database is up to date.',
          ...(pending.length ? [`Pending: ${pending.join(', ')}`] : []),
          '',
          ...table(
            ['MIGRATION', 'APPLIED'],
            rows.map((r) => [r.name, when(r.applied_at)]),
          ),
        ],
      };
    }),
  );

  leaf(
    database,
    'scrub',
    "Rewrite what rows of earlier versions keep in clear: sign-in counters keyed by an email or IP address, client IP addresses in the audit trail, IBANs, emails and phone numbers in reasons, the account holder's name in the bank's reasons (opened with the server's keys), API key labels and webhook descriptions (resumable: run it again after an interruption)",
    'parasol db scrub',
  ).action(
    run(async () => {
      const report = await scrubOldRows(db, services().keys, actor);
      const labels: Record<Exclude<keyof ScrubReport, 'holdersNotOpened'>, string> = {
        throttleCounters: 'sign-in counters re-keyed by their HMAC',
        auditAddresses: 'audit rows: client address replaced by its HMAC and network',
        auditReasons: 'audit rows: reason masked',
        auditApiKeyLabels: 'audit rows: API key label masked',
        payoutReasons: "payouts: bank's reason masked",
        claimReasons: 'claims: reason masked',
        webhookEvents: "webhook events: bank's reason masked",
        stopSaleReasons: 'stop-sales: reason masked',
        apiKeyLabels: 'API keys: label masked',
        webhookDescriptions: 'webhook endpoints: description masked',
      };
      const total = rowsRewritten(report);
      const left = report.holdersNotOpened;
      return {
        data: report,
        lines: [
          total === 0
            ? left === 0
              ? 'Nothing left in clear: no row rewritten.'
              : 'No row rewritten.'
            : `${total} row(s) rewritten.`,
          ...(total === 0
            ? []
            : table(
                ['ROWS', 'WHAT'],
                (Object.keys(labels) as (keyof typeof labels)[]).map((k) => [String(report[k]), labels[k]]),
              )),
          ...(left === 0
            ? []
            : [
                `bank reasons of ${left} claim(s) could not be checked for the account holder's name: it opens with none of the keys held (PARASOL_MASTER_KEY or the key file, PARASOL_MASTER_KEYS_PREVIOUS); their IBANs, emails and phones are masked. Run again with the key that sealed them among the previous keys.`,
              ]),
        ],
      };
    }),
  );
}
