import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { childEnv } from '../helper.ts';

const DEMO_EMAIL = 'logs-demo-user@parasol.test';

/** Starts `src/main.ts` on a fresh embedded database and collects its standard output, line by line. */
function startServer(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...childEnv(),
      PARASOL_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
      PARASOL_DEMO_API_KEY: '',
      PARASOL_DEMO_EMAIL: DEMO_EMAIL,
      PARASOL_DEMO_PASSWORD: 'demo password for the logs test',
      PARASOL_METRICS_PORT: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  /** The first line matching, waiting for more output until the process ends. */
  const line = async (match: (text: string) => boolean): Promise<string> => {
    let done = false;
    void exited.then(() => {
      done = true;
      for (const wake of waiters.splice(0)) wake();
    });
    for (;;) {
      const found = lines.find(match);
      if (found) return found;
      if (done) throw new Error(`the server ended without that line; stderr: ${stderr}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { child, lines, line, exited, stderr: () => stderr };
}

describe('logs', () => {
  it('writes every line as JSON, one line per request, without the raw URL', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-logs-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const server = startServer(dir);
    t.after(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });
    const listening = JSON.parse(await server.line((text) => text.includes('Server listening at'))) as { msg: string };
    const base = /http:\/\/127\.0\.0\.1:\d+/.exec(listening.msg)?.[0];
    assert.ok(base, listening.msg);

    const token = 'bGlua3Rva2VudGhhdG11c3RuZXZlcmJlbG9nZ2VkMTI';
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.equal((await fetch(`${base}/c/${token}`)).status, 404);
    assert.equal((await fetch(`${base}/nowhere?apiKey=${token}`)).status, 404);
    await server.line((text) => text.includes('"route":"unmatched"'));
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.stderr());

    const entries = server.lines
      .filter((text) => text.trim() !== '')
      .map((text) => {
        try {
          return JSON.parse(text) as Record<string, unknown>;
        } catch {
          assert.fail(`not JSON: ${text}`);
        }
      });
    assert.ok(
      entries.some((e) => e.msg === 'seeded the demo partner "Demo Air"'),
      'the first-start messages are JSON too',
    );
    const requests = entries.filter((e) => e.reqId !== undefined);
    assert.deepEqual(
      requests.map((e) => [e.msg, e.method, e.route, e.statusCode]),
      [
        ['request', 'GET', '/healthz', 200],
        ['request', 'GET', '/c/:token', 404],
        ['request', 'GET', 'unmatched', 404],
      ],
      'one line per request',
    );
    for (const e of requests) assert.equal(typeof e.responseTimeMs, 'number');
    assert.ok(!server.lines.some((text) => text.includes(token)), 'no token or raw URL in the logs');
    // the first start seeds a portal user: its email is personal data, kept out of the logs like any other
    assert.ok(!server.lines.some((text) => text.includes(DEMO_EMAIL)), 'no email address in the logs');
  });
});
