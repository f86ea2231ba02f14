import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

/**
 * Summarises V8 .cpuprofile files (from `BENCH_CPU_PROF=<dir> npm run bench`, or any `node --cpu-prof`):
 * the functions with the most self time, self time per file/package, and inclusive time of chosen
 * project frames. Usage: node --import tsx bench/profile-summary.ts <file.cpuprofile>... [--top N] [--after FUNCTION]
 * --after FUNCTION ignores every sample before the first one with FUNCTION on its stack (e.g. --after issueQuote
 * to leave the server's start-up out).
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values: flags, positionals: files } = parseArgs({
  args: process.argv.slice(2),
  options: { top: { type: 'string' }, after: { type: 'string' } },
  allowPositionals: true,
});
const top = flags.top ? Number(flags.top) : 30;
const after = flags.after;
if (files.length === 0) {
  console.error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile>... [--top N]');
  process.exit(64);
}

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function where(frame: CallFrame): string {
  let url = frame.url.replace(/^file:\/\//, '');
  if (url.startsWith(ROOT)) url = url.slice(ROOT.length + 1);
  return url ? `${url}:${frame.lineNumber + 1}` : '(native)';
}

/** A coarse bucket: the npm package, the project directory, or node internals. */
function bucket(frame: CallFrame): string {
  const url = frame.url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm:${pkg[1]}`;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  if (url.startsWith(ROOT)) return path.relative(ROOT, url).split('/').slice(0, 2).join('/');
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native/builtin)';
  return url;
}

for (const file of files) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const onStack = (id: number, name: string): boolean => {
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n))
      if (byId.get(n)!.callFrame.functionName === name) return true;
    return false;
  };
  let from = 0;
  if (after) {
    from = profile.samples.findIndex((id) => onStack(id, after));
    if (from < 0) {
      console.log(`# ${file}: no sample has ${after} on its stack (another thread?), skipped`);
      continue;
    }
  }
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if (i >= from) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self.entries()].filter(([id]) =>
    ['(idle)', '(program)', '(garbage collector)'].includes(byId.get(id)!.callFrame.functionName),
  );
  const busy =
    total - idle.filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, t]) => a + t, 0);

  const perFunction = new Map<string, number>();
  const perBucket = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, t] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    const key = `${frame.functionName || '(anonymous)'}  ${where(frame)}`;
    perFunction.set(key, (perFunction.get(key) ?? 0) + t);
    perBucket.set(bucket(frame), (perBucket.get(bucket(frame)) ?? 0) + t);
    // inclusive time: every distinct frame on the stack gets the sample once
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const f = byId.get(n)!.callFrame;
      const k = `${f.functionName || '(anonymous)'}  ${where(f)}`;
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + t);
    }
  }
  const show = (title: string, map: Map<string, number>, n: number, filter: (k: string) => boolean = () => true) => {
    console.log(`\n${title}`);
    for (const [k, t] of [...map.entries()]
      .filter(([k]) => filter(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)) {
      console.log(`${((t / busy) * 100).toFixed(1).padStart(6)} %  ${(t / 1000).toFixed(0).padStart(7)} ms  ${k}`);
    }
  };
  console.log(
    `# ${file}${after ? ` (from the first sample in ${after})` : ''}\nsampled ${(total / 1e6).toFixed(1)} s, busy (not idle) ${(busy / 1e6).toFixed(1)} s; percentages are of busy time`,
  );
  show('Self time by package / directory', perBucket, 25);
  show(`Self time, top ${top} functions`, perFunction, top);
  show('Inclusive time, project code (src/)', inclusive, top, (k) => k.includes(' src/'));
  show('Inclusive time, dependencies', inclusive, top, (k) => k.includes('node_modules/'));
}
