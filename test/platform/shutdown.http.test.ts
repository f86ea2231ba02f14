import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { childEnv } from '../helper.ts';

/** `npm start` as a process: what it prints, how it stops. */

interface Server {
  child: ChildProcessWithoutNullStreams;
  base: string;
  output: () => string;
  exit: Promise<number | null>;
}

async function start(dataDir: string, env: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    // info: where everything is, and the notes of the start, are log lines (JSON, like every line)
    env: { ...childEnv(), PARASOL_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const found = /Parasol listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    void exit.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${output}`)));
    // a bound on a stuck start, not a speed requirement
    setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not say it was listening within 5 minutes:\n${output}`));
    }, 300_000).unref();
  });
  return { child, base, output: () => output, exit };
}

function get(
  url: string,
  agent: http.Agent,
): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
      })
      .on('error', reject);
  });
}

describe('npm start', () => {
  it('prints where everything is, and stops with exit code 0 while a keep-alive client stays connected', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-shutdown-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const server = await start(dir);
    t.after(() => server.child.kill('SIGKILL'));
    for (const where of [
      '/portal',
      '/console',
      '/admin',
      '/portal/apis/flight-delay/reference',
      '/flight-delay/v1/openapi.json',
    ]) {
      assert.ok(server.output().includes(`${server.base}${where}`), `prints ${where}:\n${server.output()}`);
    }

    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    t.after(() => agent.destroy());
    const health = await get(`${server.base}/healthz`, agent);
    assert.equal(health.status, 200);
    assert.equal(health.connection, 'keep-alive');
    assert.equal(Object.values(agent.freeSockets).flat().length, 1, 'the client keeps its connection open');

    server.child.kill('SIGTERM');
    assert.equal(await server.exit, 0, `exit code 0, not the watchdog's 1:\n${server.output()}`);
  });

  it('says at start that demo credentials set after the first start are ignored', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-demo-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const first = await start(dir);
    first.child.kill('SIGTERM');
    assert.equal(await first.exit, 0);
    assert.match(first.output(), /seeded the demo partner/i);
    assert.doesNotMatch(first.output(), /ignored/);

    const second = await start(dir, {
      PARASOL_DEMO_EMAIL: 'late@parasol.test',
      PARASOL_DEMO_PASSWORD: 'late password 1',
    });
    t.after(() => second.child.kill('SIGKILL'));
    second.child.kill('SIGTERM');
    assert.equal(await second.exit, 0);
    assert.match(
      second.output(),
      /PARASOL_DEMO_EMAIL, PARASOL_DEMO_PASSWORD are ignored: the demo partner is seeded only on the first start/,
    );
    assert.doesNotMatch(second.output(), /late password 1/, 'the password is never printed');
  });
});
