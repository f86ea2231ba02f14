import crypto from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';

/**
 * The unknown-key flood scenario (issue 9, defect 5): what a flood of random API keys does to a
 * partner whose key is cached. A cached key asks /getPrice alone for `seconds`, then again while
 * other connections send /getPrice with a new random key each request, all from the same address
 * (127.0.0.1). Measured on a server with the default per-address limit on failed authentications
 * (PARASOL_AUTH_FAILURES_PER_MINUTE=30), and on one with that limit lifted (only the format check and
 * the negative cache left), to show what each protection buys.
 */

export interface Latencies {
  reqPerSec: number;
  requests: number;
  p50: number;
  p99: number;
  /** Responses other than the expected status (2xx for the cached key). */
  unexpected: number;
  errors: number;
  statusCodes: Record<string, number>;
}

export interface FloodPhase {
  label: string;
  cached: Latencies;
  flood?: Latencies;
}

export interface AuthFloodReport {
  seconds: number;
  cachedConnections: number;
  floodConnections: number;
  phases: FloodPhase[];
  /** The machine's 1-minute load average and CPU count at the end: these figures share the CPUs. */
  loadAverage: number;
  cpus: number;
}

interface FloodServer {
  baseUrl: string;
  stop: () => Promise<void>;
}

export interface AuthFloodOptions {
  /** Starts Parasol (PGlite) with these extra variables. */
  start: (name: string, env: Record<string, string>) => Promise<FloodServer>;
  path: string;
  /** The cached key's request: its headers (Bearer key) and body. */
  headers: Record<string, string>;
  body: string;
  seconds: number;
  warmupSeconds: number;
  cachedConnections?: number;
  floodConnections?: number;
}

function latencies(result: autocannon.Result, expected: (status: number) => boolean): Latencies {
  const statusCodes: Record<string, number> = {};
  let requests = 0;
  let unexpected = 0;
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) {
    statusCodes[code] = count;
    requests += count;
    if (!expected(Number(code))) unexpected += count;
  }
  return {
    reqPerSec: result.requests.average,
    requests,
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected,
    errors: result.errors,
    statusCodes,
  };
}

const is2xx = (status: number) => status >= 200 && status < 300;
const CACHED_CONNECTIONS = 4;
const FLOOD_CONNECTIONS = 16;

export async function benchAuthFlood(options: AuthFloodOptions): Promise<AuthFloodReport> {
  const cachedConnections = options.cachedConnections ?? CACHED_CONNECTIONS;
  const floodConnections = options.floodConnections ?? FLOOD_CONNECTIONS;
  const url = (server: FloodServer) => `${server.baseUrl}${options.path}`;
  const cached = (server: FloodServer, seconds: number) =>
    autocannon({
      url: url(server),
      method: 'POST',
      headers: options.headers,
      body: options.body,
      connections: cachedConnections,
      pipelining: 1,
      duration: seconds,
      timeout: 10,
    });
  const flood = (server: FloodServer, seconds: number) =>
    autocannon({
      url: url(server),
      method: 'POST',
      body: options.body,
      connections: floodConnections,
      pipelining: 1,
      duration: seconds,
      timeout: 10,
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer psl_sbx_${crypto.randomBytes(24).toString('base64url')}`,
            },
          }),
        },
      ],
    });

  const phases: FloodPhase[] = [];
  const run = async (label: string, env: Record<string, string>, withBaseline: boolean) => {
    const server = await options.start(`Parasol (PGlite, ${label})`, env);
    try {
      if (options.warmupSeconds > 0) await cached(server, options.warmupSeconds);
      if (withBaseline) {
        process.stdout.write(`  cached key alone, ${options.seconds} s…\n`);
        phases.push({
          label: 'cached key alone (no flood)',
          cached: latencies(await cached(server, options.seconds), is2xx),
        });
      }
      process.stdout.write(`  cached key during a flood of random keys (${label}), ${options.seconds} s…\n`);
      const [c, f] = await Promise.all([cached(server, options.seconds), flood(server, options.seconds)]);
      phases.push({
        label: `cached key during the flood, ${label}`,
        cached: latencies(c, is2xx),
        flood: latencies(f, (status) => status === 401 || status === 429),
      });
    } finally {
      await server.stop();
    }
  };
  await run('default protection (30 failures per minute per address)', {}, true);
  await run('per-address limit lifted (negative cache only)', { PARASOL_AUTH_FAILURES_PER_MINUTE: '10000000' }, false);
  return {
    seconds: options.seconds,
    cachedConnections,
    floodConnections,
    phases,
    loadAverage: os.loadavg()[0] ?? 0,
    cpus: os.cpus().length,
  };
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

export const AUTH_FLOOD_HEADING = '### Unknown API keys: a cached key during a flood of random keys';

/** The section of docs/BENCHMARKS.md, from its heading to its last line. */
export function authFloodSection(report: AuthFloodReport | { unmeasured: string }): string {
  const measured = 'unmeasured' in report ? undefined : report;
  const intro = `A partner's cached key asks \`/getPrice\` (${measured?.cachedConnections ?? CACHED_CONNECTIONS} connections) alone, then while
${measured?.floodConnections ?? FLOOD_CONNECTIONS} other connections send \`/getPrice\` with a new random well-formed key each request, all from
127.0.0.1, for ${measured ? `${measured.seconds} s` : '`BENCH_DURATION` (10 s)'} each; PGlite. With the default protection the flooding address gets \`429\` once it has failed 30
times in the minute (\`PARASOL_AUTH_FAILURES_PER_MINUTE\`), without any lookup; the known key of the same
address is still served. With that limit lifted every random key costs a SHA-256 and one database lookup
(the negative cache cannot help keys that never repeat) — what the limit saves. Run alone with
\`BENCH_ONLY=auth-flood npm run bench\` (rewrites only this section).`;
  if ('unmeasured' in report) return `${AUTH_FLOOD_HEADING}\n\n${intro}\n\n${report.unmeasured}\n`;
  const baseline = report.phases[0]?.cached;
  const rows = report.phases.map((p) => {
    const factor =
      baseline && p.flood ? ` (p99 ×${baseline.p99 > 0 ? (p.cached.p99 / baseline.p99).toFixed(1) : 'n/a'})` : '';
    const flood = p.flood
      ? `${fmt(p.flood.reqPerSec)} req/s: ${Object.entries(p.flood.statusCodes)
          .map(([code, n]) => `${fmt(n)} × ${code}`)
          .join(', ')}`
      : '—';
    return `| ${p.label} | ${fmt(p.cached.reqPerSec)} | ${p.cached.p50} ms | ${p.cached.p99} ms${factor} | ${fmt(p.cached.unexpected + p.cached.errors)} | ${flood} |`;
  });
  return `${AUTH_FLOOD_HEADING}

${intro}

| Phase | cached key req/s | p50 | p99 | cached key failures | flood |
|---|---:|---:|---:|---:|---|
${rows.join('\n')}

The load generator, the server and whatever else runs share the machine's ${report.cpus} CPUs (1-minute load
average ${report.loadAverage.toFixed(1)} at the end of the run): compare the phases with each other, not with other runs.
`;
}

/** Replaces (or adds, before "## Where the time goes") the section in the document's text. */
export function replaceAuthFloodSection(doc: string, section: string): string {
  const start = doc.indexOf(AUTH_FLOOD_HEADING);
  if (start === -1) {
    const at = doc.indexOf('## Where the time goes');
    return at === -1 ? `${doc}\n${section}` : `${doc.slice(0, at)}${section}\n${doc.slice(at)}`;
  }
  const rest = doc.slice(start + AUTH_FLOOD_HEADING.length);
  const next = rest.search(/\n#{2,3} /);
  const end = next === -1 ? doc.length : start + AUTH_FLOOD_HEADING.length + next + 1;
  return `${doc.slice(0, start)}${section}\n${doc.slice(end)}`;
}
