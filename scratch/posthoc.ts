// EXPERIMENT (not shipped): a post-hoc credibility level on top of a fitted v2 model, for features the
// artifact does not keep (schedule padding, destination arrival-hour congestion). Fits the level's
// factors on the fitting files' residuals (actual vs the model's prediction, periods = month parity),
// scores the held-out files with and without it.
import { createReadStream, readFileSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { parseArtifact } from '../src/risk/artifact.ts';
import { fitV2, buhlmannK, globalAverage, survivalAt } from '../src/risk/risk-model-v2.ts';
import { predictObservation, auc, SCORED_EVENTS } from '../src/risk/evaluate.ts';
import type { FlightObservation } from '../src/risk/history.ts';

type Leg = FlightObservation & { crsArr: number; crsDep: number; month: number };
async function read(files: string[]): Promise<Leg[]> {
  const out: Leg[] = [];
  for (const f of files) {
    const rl = createInterface({ input: createReadStream(f).pipe(createGunzip()) });
    let h: string[] | null = null;
    const ix: Record<string, number> = {};
    for await (const line of rl) {
      const c = line.split(',').map((x) => x.replace(/"/g, ''));
      if (!h) { h = c; h.forEach((n, i) => (ix[n] = i)); continue; }
      const dep = c[ix.CRSDepTime!]!.padStart(4, '0');
      const arr = c[ix.CRSArrTime!]!.padStart(4, '0');
      const cancelled = Number(c[ix.Cancelled!]) === 1;
      const diverted = Number(c[ix.Diverted!]) === 1;
      const d = c[ix.ArrDelay!]!;
      const hh = Number(dep.slice(0, 2)) % 24;
      out.push({
        flightDate: c[ix.FlightDate!]!, airline: c[ix.Reporting_Airline!]!, flightNumber: String(Number(c[ix.Flight_Number_Reporting_Airline!])),
        origin: c[ix.Origin!]!, dest: c[ix.Dest!]!, crsDepTime: `${String(hh).padStart(2, '0')}${dep.slice(2)}`,
        cancelled, diverted, arrDelay: cancelled || diverted || d === '' ? null : Number(d),
        crsDep: hh * 60 + Number(dep.slice(2)), crsArr: (Number(arr.slice(0, 2)) % 24) * 60 + Number(arr.slice(2)),
        month: Number(c[ix.FlightDate!]!.slice(5, 7)),
      });
    }
  }
  return out;
}
const [model, variants, ...rest] = process.argv.slice(2);
let variant = '';
const sep = rest.indexOf('--');
const fitFiles = rest.slice(0, sep);
const evalFiles = rest.slice(sep + 1);
const fit = fitV2(parseArtifact(readFileSync(model!)));
const train = await read(fitFiles);
const test = await read(evalFiles);
const block = (l: Leg) => (l.crsArr - l.crsDep + 1440) % 1440;
// Route tables from the fitting legs.
const blocks = new Map<string, number[]>();
for (const l of train) { const k = `${l.origin}|${l.dest}`; let a = blocks.get(k); if (!a) blocks.set(k, (a = [])); a.push(block(l)); }
const median = new Map<string, number>();
for (const [k, a] of blocks) { a.sort((x, y) => x - y); median.set(k, a[a.length >> 1]!); }
const days = new Set(train.map((l) => l.flightDate)).size;
const arrVol = new Map<string, number>();
for (const l of train) { const k = `${l.dest}|${Math.floor(l.crsArr / 60)}`; arrVol.set(k, (arrVol.get(k) ?? 0) + 1 / days); }
const destMean = new Map<string, number>();
{ const s = new Map<string, [number, number]>(); for (const [k, v] of arrVol) { if (v < 0.5) continue; const a = k.split('|')[0]!; const r = s.get(a) ?? [0, 0]; r[0] += v; r[1]++; s.set(a, r); } for (const [a, [x, n]] of s) destMean.set(a, x / n); }
const predCache = new Map<Leg, ReturnType<typeof predictObservation>>();
const predict = (l: Leg) => { if (!predCache.has(l)) predCache.set(l, predictObservation(fit, l)); return predCache.get(l)!; };
function bandOf(l: Leg): number {
  const med = median.get(`${l.origin}|${l.dest}`);
  if (variant === 'pad') {
    if (med === undefined) return -1;
    const d = block(l) - med; const cuts = [-10, -3, 3, 10, 20]; let b = 0; while (b < cuts.length && d >= cuts[b]!) b++; return b;
  }
  if (variant === 'padrel') {
    if (med === undefined || med <= 0) return -1;
    const d = block(l) / med; const cuts = [0.95, 0.98, 1.02, 1.05, 1.1]; let b = 0; while (b < cuts.length && d >= cuts[b]!) b++; return b;
  }
  // Destination congestion in the estimated arrival hour (departure + route median block: quote-knowable).
  if (med === undefined) return -1;
  const h = Math.floor(((l.crsDep + med) % 1440) / 60);
  const v = arrVol.get(`${l.dest}|${h}`) ?? 0;
  const x = variant === 'arrabs' ? v : v / (destMean.get(l.dest) ?? 1);
  const cuts = variant === 'arrabs' ? [2, 5, 10, 20, 40] : [0.6, 0.9, 1.2, 1.6];
  let b = 0; while (b < cuts.length && x >= cuts[b]!) b++; return b;
}
const outcome = (l: Leg, e: string) => e === 'cancelled' ? +l.cancelled : e === 'diverted' ? +l.diverted : l.cancelled || l.diverted ? 0 : l.arrDelay === null ? -1 : +(l.arrDelay >= Number(e.slice(6)));
for (variant of variants!.split(',')) {
const B = 8; const E = SCORED_EVENTS.length;
const A = new Float64Array(E * B * 2); const X = new Float64Array(E * B * 2); const noise = new Float64Array(E); const mass = new Float64Array(E);
for (const l of train) {
  const b = bandOf(l); if (b < 0) continue; const p = predict(l); if (!p) continue;
  SCORED_EVENTS.forEach((e, ei) => { const y = outcome(l, e); if (y < 0) return; const q = p[e]; const at = (ei * B + b) * 2 + (l.month % 2); A[at]! += y; X[at]! += q; noise[ei]! += q * (1 - q); mass[ei]! += q; });
}
const factor = new Float64Array(E * B).fill(1);
const lines: string[] = [];
SCORED_EVENTS.forEach((e, ei) => {
  const a = A.subarray(ei * B * 2, (ei + 1) * B * 2); const x = X.subarray(ei * B * 2, (ei + 1) * B * 2);
  const K = buhlmannK(a, x, B, noise[ei]! / mass[ei]!);
  const parts: string[] = [];
  for (let b = 0; b < B; b++) { const aa = a[2 * b]! + a[2 * b + 1]!; const xx = x[2 * b]! + x[2 * b + 1]!; if (xx <= 0) continue; const z = Number.isFinite(K) ? xx / (xx + K) : 0; factor[ei * B + b] = z * aa / xx + 1 - z; parts.push(`${b}:${(aa / xx).toFixed(3)}→${factor[ei * B + b]!.toFixed(3)}`); }
  lines.push(`${e} K=${K.toFixed(0)} ${parts.join(' ')}`);
});
console.log(`variant ${variant}, fit legs ${train.length}, eval legs ${test.length}`); console.log(lines.join('\n'));
const g = globalAverage(fit); const base: Record<string, number> = { cancelled: g.cancellation, diverted: g.diversion, delay_60: survivalAt(g.survival, 60), delay_120: survivalAt(g.survival, 120), delay_180: survivalAt(g.survival, 180) };
const ll = (p: number, y: number) => { const q = Math.min(1 - 1e-12, Math.max(1e-12, p)); return -(y ? Math.log(q) : Math.log(1 - q)); };
console.log('| event | AUC before | AUC after | gain before | gain after | A/E before | A/E after | airline std before | after |');
SCORED_EVENTS.forEach((e, ei) => {
  const p0: number[] = []; const p1: number[] = []; const ys: number[] = []; const al: string[] = [];
  for (const l of test) { const p = predict(l); if (!p) continue; const y = outcome(l, e); if (y < 0) continue; const b = bandOf(l); p0.push(p[e]); p1.push(Math.min(0.999, p[e] * (b < 0 ? 1 : factor[ei * B + b]!))); ys.push(y); al.push(l.airline); }
  const y8 = Uint8Array.from(ys);
  const stats = (p: number[]) => { let L = 0, Lb = 0, a = 0, x = 0; const byA = new Map<string, [number, number]>(); p.forEach((q, i) => { L += ll(q, ys[i]!); Lb += ll(base[e]!, ys[i]!); a += ys[i]!; x += q; const r = byA.get(al[i]!) ?? [0, 0]; r[0] += ys[i]!; r[1] += q; byA.set(al[i]!, r); });
    const aes = [...byA.values()].filter(([, ex]) => ex >= 1).map(([aa, ex]) => aa / ex); const m = aes.reduce((s, v) => s + v, 0) / aes.length; const sd = Math.sqrt(aes.reduce((s, v) => s + (v - m) ** 2, 0) / aes.length);
    return { auc: auc(Float64Array.from(p), y8)!, gain: 1 - L / Lb, ae: a / x, sd }; };
  const s0 = stats(p0); const s1 = stats(p1);
  console.log(`| ${e} | ${s0.auc.toFixed(4)} | ${s1.auc.toFixed(4)} | ${(100 * s0.gain).toFixed(2)} % | ${(100 * s1.gain).toFixed(2)} % | ${s0.ae.toFixed(3)} | ${s1.ae.toFixed(3)} | ${s0.sd.toFixed(3)} | ${s1.sd.toFixed(3)} |`);
});
}
