import fs from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { ENVIRONMENTS } from '../partners/index.ts';
import type { Environment } from '../platform/db-schema.ts';
import {
  activateModelVersion,
  importVersion,
  listModelVersions,
  readModelArtifact,
  refitFromOutcomes,
} from '../risk/index.ts';
import { table, when, type CommandKit } from './kit.ts';

/**
 * Risk model versions in the database: list them, import a fitted file, refit from the platform's
 * own outcomes, choose the version that prices each environment, export one to evaluate it offline.
 * (`risk fit|evaluate|predict` work on files and need no database: risk-commands.ts.)
 */
export function riskVersionCommands(kit: CommandKit, risk: Command): void {
  const { leaf, run, db, actor } = kit;
  const names = (pointer: string) =>
    ({ '/environment': '--env', '/version': '--version', '/artifact': 'FILE' })[pointer];

  leaf(
    risk,
    'versions',
    'List the model versions, newest first, and where each prices',
    'parasol risk versions',
  ).action(
    run(async () => {
      const rows = await listModelVersions(db);
      const lines = rows.length
        ? table(
            ['VERSION', 'SOURCE', 'BASE', 'OBSERVATIONS', 'DATA UNTIL', 'ACTIVE IN', 'CREATED'],
            rows.map((r) => [
              r.version,
              r.source,
              r.baseVersion ?? '',
              String(r.observations),
              r.dataCutoff,
              r.activeIn.join(',') || '-',
              when(r.createdAt),
            ]),
          )
        : ['No model version yet (the server stores the shipped one at its first start).'];
      return { data: { versions: rows }, lines };
    }),
  );

  leaf(
    risk,
    'import <file>',
    'Store a model fitted with `risk fit` as a new version (not activated)',
    'parasol risk import model.json.gz --version v2-2026q3',
  )
    .option('--version <name>', 'version name (default: the one in the file)')
    .action(
      run(async (file: string, options: { version?: string }) => {
        const row = await importVersion(db, actor, await (kit.readBytes ?? fs.readFile)(file), options.version);
        return {
          data: row,
          lines: [
            `Stored risk model ${row.version} (data until ${row.dataCutoff}). Activate it with: parasol risk activate ${row.version} --env sandbox`,
          ],
        };
      }, names),
    );

  leaf(
    risk,
    'activate <version>',
    'Price new quotes of an environment (or all) with this version; quotes given keep theirs',
    'parasol risk activate v2-2008q1 --env production',
  )
    .addOption(
      new Option('--env <environment>', 'environment, or all').choices([...ENVIRONMENTS, 'all']).makeOptionMandatory(),
    )
    .action(
      run(async (version: string, options: { env: Environment | 'all' }) => {
        const environments = options.env === 'all' ? [...ENVIRONMENTS] : [options.env];
        await activateModelVersion(db, actor, version, environments);
        return {
          data: { version, environments },
          lines: [
            `${version} now prices new quotes in ${environments.join(', ')} (running servers pick it up within a minute).`,
          ],
        };
      }, names),
    );

  leaf(
    risk,
    'refit',
    'Fit a new version: the newest history version plus every production flight the platform decided',
    'parasol risk refit',
  ).action(
    run(async () => {
      const outcome = await refitFromOutcomes(db, actor, new Date());
      const lines =
        outcome.kind === 'created'
          ? [
              `Created ${outcome.version}: ${outcome.baseVersion} plus ${outcome.observations} observed flight(s), data until ${outcome.dataCutoff}. Not active yet.`,
            ]
          : [
              outcome.reason === 'no_history_version'
                ? 'No history version to refit.'
                : `No new observed flight since the last refit (${outcome.observations} in all).`,
            ];
      return { data: outcome, lines };
    }),
  );

  leaf(
    risk,
    'export <version> <file>',
    'Write a stored version to a file (for `risk evaluate --model`)',
    'parasol risk export v2-2008q1 model.json.gz',
  ).action(
    run(async (version: string, file: string) => {
      const bytes = await readModelArtifact(db, version);
      await (kit.writeBytes ?? fs.writeFile)(file, bytes);
      return {
        data: { version, file, bytes: bytes.length },
        lines: [`Wrote ${version} to ${file} (${bytes.length} bytes).`],
      };
    }),
  );
}
