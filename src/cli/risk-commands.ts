import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { once } from 'node:events';
import { DomainError } from '../platform/errors.ts';
import {
  ArtifactFormatError,
  defaultRiskArtifact,
  evaluateModel,
  evaluationLines,
  fitArtifact,
  fitV2,
  globalAverage,
  HistoryFormatError,
  parseArtifact,
  predictObservation,
  readHistory,
  SCORED_EVENTS,
  serializeArtifact,
  survivalAt,
  type FittedV2,
} from '../risk/index.ts';
import type { Command } from 'commander';
import type { CommandKit } from './kit.ts';

/**
 * `parasol risk …`: fit a risk model from flight history, score it on held-out history, write
 * per-leg predictions. No database: these commands read and write files only (see docs/pricing.md).
 */

/** Turns file and format problems into domain errors (exit 1, one clear line). */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof HistoryFormatError || error instanceof ArtifactFormatError)
      throw new DomainError('validation_failed', error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
      throw new DomainError(
        'not_found',
        `Cannot read or write ${(error as NodeJS.ErrnoException).path ?? 'a file'}: ${code}.`,
      );
    }
    throw error;
  }
}

async function loadModel(file: string | undefined): Promise<FittedV2> {
  return fitV2(file === undefined ? defaultRiskArtifact() : parseArtifact(await fs.readFile(file)));
}

export function riskCommands(kit: Pick<CommandKit, 'group' | 'leaf' | 'run'>): Command {
  const { group, leaf, run } = kit;
  const risk = group(
    'risk',
    'Fit, evaluate and apply the flight risk model (fit/evaluate/predict need no database); its versions',
    'parasol risk evaluate --model model.json.gz March.csv.gz',
  );

  leaf(
    risk,
    'fit <files...>',
    'Fit a model from BTS on-time history (.csv, .csv.gz, .zip) and write its artifact',
    'parasol risk fit Jan.csv.gz Feb.csv.gz --out model.json.gz --version v2-jan-feb',
  )
    .requiredOption('--out <file>', 'where to write the model artifact (gzip JSON)')
    .option('--version <name>', 'model version name (default: v2-<data cut-off>)')
    .option('--base <file>', 'add the observations to this artifact’s counts instead of starting afresh')
    .action(
      run(async (files: string[], options: { out: string; version?: string; base?: string }) =>
        guarded(async () => {
          const base = options.base === undefined ? undefined : parseArtifact(await fs.readFile(options.base));
          const started = Date.now();
          // The version needs the cut-off: fit under a placeholder name, then rename.
          const artifact = await fitArtifact(readHistory(files), { version: options.version ?? 'pending', base });
          if (options.version === undefined) artifact.version = `v2-${artifact.dataCutoff}`;
          const bytes = serializeArtifact(artifact);
          await fs.writeFile(options.out, bytes);
          const summary = {
            version: artifact.version,
            legs: artifact.legs,
            dataFrom: artifact.dataFrom,
            dataCutoff: artifact.dataCutoff,
            cells: artifact.cells.airline.length,
            bytes: bytes.length,
            out: options.out,
          };
          return {
            data: { model: summary },
            lines: [
              `Model ${summary.version}: ${summary.legs} legs from ${summary.dataFrom} to ${summary.dataCutoff}, ${summary.cells} cells, ${summary.bytes} bytes, in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
              `Written to ${options.out}.`,
            ],
          };
        }),
      ),
    );

  leaf(
    risk,
    'evaluate <files...>',
    'Score a model on history it was not fitted on: A/E, deciles, airlines, AUC, log loss, loss ratio',
    'parasol risk evaluate --model model.json.gz Mar.csv.gz',
  )
    .option('--model <file>', 'model artifact (default: the shipped model)')
    .action(
      run(async (files: string[], options: { model?: string }) =>
        guarded(async () => {
          const fit = await loadModel(options.model);
          const g = globalAverage(fit);
          const baseline = {
            cancelled: g.cancellation,
            diverted: g.diversion,
            delay_60: survivalAt(g.survival, 60),
            delay_120: survivalAt(g.survival, 120),
            delay_180: survivalAt(g.survival, 180),
          };
          const evaluation = await evaluateModel(fit, readHistory(files), baseline);
          return { data: { evaluation }, lines: evaluationLines(evaluation) };
        }),
      ),
    );

  leaf(
    risk,
    'predict <file>',
    'Write p_cancelled,p_diverted,p_delay_60,p_delay_120,p_delay_180 for each row, in input order',
    'parasol risk predict held-out.csv --out predictions.csv',
  )
    .requiredOption(
      '--out <file>',
      'CSV file to write (one row per input row; empty cells when the model cannot price the row)',
    )
    .option('--model <file>', 'model artifact (default: the shipped model)')
    .action(
      run(async (file: string, options: { out: string; model?: string }) =>
        guarded(async () => {
          const fit = await loadModel(options.model);
          const out = createWriteStream(options.out);
          const opened = once(out, 'open');
          await Promise.race([opened, once(out, 'error').then(([e]) => Promise.reject(e as Error))]);
          let rows = 0;
          let unpriced = 0;
          const write = async (line: string): Promise<void> => {
            if (!out.write(`${line}\n`)) await once(out, 'drain');
          };
          try {
            await write(SCORED_EVENTS.map((e) => `p_${e}`).join(','));
            for await (const o of readHistory([file])) {
              rows++;
              const p = predictObservation(fit, o);
              if (p === null) unpriced++;
              await write(p === null ? ',,,,' : SCORED_EVENTS.map((e) => p[e].toPrecision(6)).join(','));
            }
          } finally {
            out.end();
            await once(out, 'finish');
          }
          return {
            data: { rows, unpriced, out: options.out, model: fit.version },
            lines: [
              `Wrote ${rows} predictions (${unpriced} not priceable) with model ${fit.version} to ${options.out}.`,
            ],
          };
        }),
      ),
    );
  return risk;
}

/** The `risk` commands that work on files only. */
const FILE_COMMANDS = ['fit', 'evaluate', 'predict'];

/** True when the command line runs a file-only `risk` command: the entry point then opens no database. */
export function isRiskCommand(argv: readonly string[]): boolean {
  const words = argv.filter((a) => !a.startsWith('-'));
  return words[0] === 'risk' && FILE_COMMANDS.includes(words[1] ?? '');
}
