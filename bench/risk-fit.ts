import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The risk model fit, measured: `parasol risk fit` on the history files of BENCH_HISTORY_DIR (the shared 1.79 million legs), in a
 * child process so that its peak resident memory is its own. Part of `npm run bench`; runnable alone:
 *
 *   node --import tsx bench/risk-fit.ts            # measures, updates its section of docs/BENCHMARKS.md
 *   BENCH_NO_WRITE=1 node --import tsx bench/risk-fit.ts
 *
 * Targets (issue 10): under 2 minutes and under 2 GB on the 2-core bench machine.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOC = path.join(ROOT, 'docs', 'BENCHMARKS.md');
/** Where the BTS history files are: named by the caller (the repository ships none, and reads nothing outside itself). */
const HISTORY_DIR = process.env.BENCH_HISTORY_DIR?.trim() || undefined;
export const FIT_TARGET = { seconds: 120, megabytes: 2048 };

export interface RiskFitMeasure {
  files: string[];
  legs: number;
  cells: number;
  bytes: number;
  /** Reading, counting and serialising the artifact. */
  fitSeconds: number;
  /** Turning the artifact into a pricing model (credibility fit of every level), as at server start. */
  buildSeconds: number;
  peakRssMegabytes: number;
}

export type RiskFitOutcome = { measure: RiskFitMeasure } | { unmeasured: string };

/** The history files of the bench: every .csv.gz / .zip in BENCH_HISTORY_DIR. */
function historyFiles(): string[] {
  if (!HISTORY_DIR || !fs.existsSync(HISTORY_DIR)) return [];
  return fs
    .readdirSync(HISTORY_DIR)
    .filter((f) => /\.(csv\.gz|zip)$/i.test(f))
    .sort()
    .map((f) => path.join(HISTORY_DIR, f));
}

/** Runs the fit in a child process and reads its one-line JSON report. */
export async function benchRiskFit(): Promise<RiskFitOutcome> {
  const files = historyFiles();
  if (!HISTORY_DIR)
    return {
      unmeasured:
        'not measured: set BENCH_HISTORY_DIR to a folder of BTS history files (e.g. BENCH_HISTORY_DIR=/path/to/flight-history npm run bench)',
    };
  if (files.length === 0) return { unmeasured: `not measured: no history files in ${HISTORY_DIR}` };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', ...files], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('close', (code) => {
      if (code !== 0) return resolve({ unmeasured: `not measured: the fit exited with code ${code}` });
      resolve({
        measure: {
          files: files.map((f) => path.basename(f)),
          ...(JSON.parse(out.trim().split('\n').pop()!) as Omit<RiskFitMeasure, 'files'>),
        },
      });
    });
  });
}

/** The child: fit, serialise, build the model; prints its measures as JSON. */
async function child(files: string[]): Promise<void> {
  const { fitArtifact, readHistory, serializeArtifact, riskModelFromArtifact } = await import('../src/risk/index.ts');
  const started = process.hrtime.bigint();
  const artifact = await fitArtifact(readHistory(files), { version: 'v2-bench' });
  const bytes = serializeArtifact(artifact);
  const fitted = process.hrtime.bigint();
  riskModelFromArtifact(artifact);
  const built = process.hrtime.bigint();
  const measure: Omit<RiskFitMeasure, 'files'> = {
    legs: artifact.legs,
    cells: artifact.cells.airline.length,
    bytes: bytes.length,
    fitSeconds: Number(fitted - started) / 1e9,
    buildSeconds: Number(built - fitted) / 1e9,
    peakRssMegabytes: process.resourceUsage().maxRSS / 1024,
  };
  console.log(JSON.stringify(measure));
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** The "Risk model fit" section of docs/BENCHMARKS.md. */
export function riskFitMarkdown(outcome: RiskFitOutcome): string {
  if ('unmeasured' in outcome) return `### Risk model fit\n\n${outcome.unmeasured}\n`;
  const m = outcome.measure;
  const pass = m.fitSeconds < FIT_TARGET.seconds && m.peakRssMegabytes < FIT_TARGET.megabytes;
  return `### Risk model fit

\`parasol risk fit\` on ${m.files.join(', ')}, in a child process (bench/risk-fit.ts, the files of \`BENCH_HISTORY_DIR\`, e.g. \`BENCH_HISTORY_DIR=/path/to/flight-history npm run bench\`): read (gzip CSV,
streamed), count into the artifact's cells, serialise; then build the pricing model from the
artifact (the credibility fit of every level, done once when a model is loaded).

| legs | cells | artifact | fit | model build | peak RSS |
|---:|---:|---:|---:|---:|---:|
| ${fmt(m.legs)} | ${fmt(m.cells)} | ${fmt(Math.round(m.bytes / 1024))} KiB | ${m.fitSeconds.toFixed(1)} s | ${m.buildSeconds.toFixed(1)} s | ${fmt(Math.round(m.peakRssMegabytes))} MB |

**Target: under ${FIT_TARGET.seconds} s and under ${fmt(FIT_TARGET.megabytes)} MB: ${pass ? 'PASS' : 'MISSED'}.**
`;
}

const START = '<!-- risk-fit -->';
const END = '<!-- /risk-fit -->';

/** Wraps the section in markers so that running this scenario alone replaces only its own section. */
export function riskFitSection(outcome: RiskFitOutcome): string {
  return `${START}\n${riskFitMarkdown(outcome)}${END}\n`;
}

async function standalone(): Promise<number> {
  const outcome = await benchRiskFit();
  const section = riskFitSection(outcome);
  console.log(section);
  if (process.env.BENCH_NO_WRITE === '1') return 0;
  const doc = fs.readFileSync(DOC, 'utf8');
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  const next =
    from !== -1 && to > from
      ? doc.slice(0, from) + section + doc.slice(to + END.length + 1)
      : doc.replace('## Where the time goes', `${section}\n## Where the time goes`);
  fs.writeFileSync(DOC, next);
  console.log(`Written to ${path.relative(process.cwd(), DOC) || DOC}`);
  return 'measure' in outcome ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--child') await child(process.argv.slice(3));
  else process.exitCode = await standalone();
}
