import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, childEnv, type TestApp } from '../helper.ts';

/**
 * The README's curl examples, run as a reader runs them: its walkthrough (quote → subscribe → change →
 * cancel → claims, every request of the Flight Delay API a partner starts with) and its Demo API and
 * API to manage policies block, pasted into bash against a listening app seeded with the demo key
 * the README sets. Each curl fails the script on an HTTP error (`--fail-with-body`, `set -e`), so an
 * example the API refuses — a subscribe without the consent it requires, a field renamed — fails here.
 * The webhook block is left out: its URL is a placeholder the README says is refused.
 */

const README = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const DEMO_KEY = 'demo_sandbox_key_for_the_readme_0001';

/** The README's ```sh blocks, in order. */
const shellBlocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const block = (starts: string) => {
  const found = shellBlocks.filter((b) => b.includes(starts));
  assert.equal(found.length, 1, `one README block holds ${starts}`);
  return found[0]!;
};

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The bash children still running, killed in after() if a test gives up on them. */
const children = new Set<ChildProcess>();
/** The scripts' TMPDIR, removed in after(). */
const tmpdir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-readme-'));

/**
 * Runs `script` in bash, every curl failing on an HTTP error and giving up after 30 s; resolves with
 * its output and status.
 */
function bash(script: string, port: number): Promise<{ status: number | null; output: string }> {
  const prelude = 'set -euo pipefail\ncurl() { command curl --fail-with-body --max-time 30 "$@"; }\n';
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', prelude + script], {
      env: { ...childEnv(), PORT: String(port), TMPDIR: tmpdir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('exit', (status) => {
      children.delete(child);
      resolve({ status, output });
    });
  });
}

describe('the README examples against the API', { timeout: 180_000 }, () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    port = await freePort();
    t = await buildTestApp({
      env: {
        PARASOL_DEMO_API_KEY: DEMO_KEY,
        PARASOL_PUBLIC_URL: `http://127.0.0.1:${port}`,
        PARASOL_JOB_POLL_SECONDS: '1',
      },
    });
    await t.app.listen({ port, host: '127.0.0.1' });
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    fs.rmSync(tmpdir, { recursive: true, force: true });
    await t.close();
  });

  it('runs the walkthrough from the quote to the claims as written', async () => {
    const walkthrough = block('# 1. Quote a return trip');
    assert.match(walkthrough, /\\"consent\\":/, 'the subscribe examples carry the consent the API requires');
    const run = await bash(walkthrough, port);
    assert.equal(run.status, 0, run.output.slice(-3000));
    assert.match(run.output, /"contractNumber":"FD-/);
    assert.match(run.output, /account ending \d+/);
  });

  it('runs the Demo API and API to manage policies block as written', async () => {
    const run = await bash(block('# 1. The cities of a zip code'), port);
    assert.equal(run.status, 0, run.output.slice(-3000));
    assert.match(run.output, /"policyNumber":"PA-/);
  });
});
