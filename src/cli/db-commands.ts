import { sql } from 'kysely';
import { migrationFiles } from '../platform/db.ts';
import { table, when, type CommandKit } from './kit.ts';

/** Database maintenance. */
export function dbCommands(kit: CommandKit): void {
  const { group, leaf, run, db, io } = kit;

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
}
