import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { describe, it } from 'node:test';
import { childEnv, eventually } from '../helper.ts';

/**
 * The embedded database while the server runs: the CLI's commands go to the server through the data
 * directory's operator socket (src/cli/remote.ts, src/platform/operator-socket.ts), with the same
 * output and exit code as when run alone.
 */

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('CLI commands while the embedded server runs', () => {
  it('run in the server with the output of a local run; a wrong secret and db migrate are refused', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-remote-'));
    const { DATABASE_URL: _url, ...base } = childEnv();
    const env = { ...base, PARASOL_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    const cli = (args: string[], stdin?: string): Promise<Run> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.stdin.end(stdin ?? '');
        child.on('exit', (code) => resolve({ code, stdout, stderr }));
      });

    const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let serverOut = '';
    server.stdout.on('data', (chunk) => (serverOut += chunk));
    server.stderr.on('data', (chunk) => (serverOut += chunk));
    const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
    t.after(() => {
      server.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    });
    await eventually(async () => (serverOut.includes('Parasol listening') ? true : undefined), 300_000);
    const socket = path.join(dir, 'operator.sock');
    assert.equal(fs.statSync(socket).mode & 0o777, 0o600, 'the socket is for its owner only');
    assert.equal(fs.statSync(path.join(dir, 'operator.secret')).mode & 0o777, 0o600);

    const created = await cli(['partners', 'create', '--slug', 'acme-air', '--name', 'Acme Air']);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^Created partner acme-air \(/);
    // standard input goes to the server when the command reads it
    const user = await cli(
      ['users', 'create', 'acme-air', '--email', 'ops@acme.example', '--password-stdin'],
      'a long enough password\n',
    );
    assert.equal(user.code, 0, user.stderr);
    assert.match(user.stdout, /Created user ops@acme\.example/);
    // a refusal keeps its exit code and message
    const duplicate = await cli(['partners', 'create', '--slug', 'acme-air', '--name', 'Again']);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /^error: /);
    // a usage error too
    const usage = await cli(['partners', 'frobnicate']);
    assert.equal(usage.code, 2);
    // files named on the command line are the client's: written by the CLI process
    const exported = path.join(dir, 'exported-model.json.gz');
    const risk = await cli(['risk', 'export', 'v2-2008q1', exported]);
    assert.equal(risk.code, 0, risk.stderr);
    assert.ok(fs.statSync(exported).size > 0);

    const remoteShow = await cli(['--json', 'partners', 'show', 'acme-air']);
    const remoteList = await cli(['partners', 'list']);
    assert.equal(remoteShow.code, 0, remoteShow.stderr);
    assert.equal(JSON.parse(remoteShow.stdout).partner.slug, 'acme-air');

    const migrate = await cli(['db', 'migrate']);
    assert.equal(migrate.code, 75);
    assert.match(migrate.stderr, /cannot run while the server holds the embedded database/);

    const secretFile = path.join(dir, 'operator.secret');
    const secret = fs.readFileSync(secretFile, 'utf8');
    fs.writeFileSync(secretFile, 'not-the-secret\n');
    const refused = await cli(['partners', 'list']);
    assert.equal(refused.code, 77);
    assert.match(refused.stderr, /wrong operator secret/);
    assert.equal(refused.stdout, '');
    fs.writeFileSync(secretFile, secret);
    // the server refuses a client that does not prove it knows the secret, and one that sends it in clear
    const framesOf = async (first: object, then: object[] = []) => {
      const conn = net.connect({ path: socket });
      const lines = readline.createInterface({ input: conn, crlfDelay: Infinity })[Symbol.asyncIterator]();
      const answers: Record<string, unknown>[] = [];
      conn.write(JSON.stringify(first) + '\n');
      if (then.length) {
        const challenge = JSON.parse((await lines.next()).value as string) as Record<string, unknown>;
        assert.equal(typeof challenge.proof, 'string', 'the server proves itself first');
        for (const frame of then) conn.write(JSON.stringify(frame) + '\n');
      }
      for (let next = await lines.next(); !next.done; next = await lines.next())
        answers.push(JSON.parse(next.value as string) as Record<string, unknown>);
      conn.destroy();
      return answers;
    };
    const hello = { hello: crypto.randomBytes(32).toString('base64url') };
    const wrongProof = await framesOf(hello, [{ proof: 'x'.repeat(43), argv: ['partners', 'list'] }]);
    assert.deepEqual(wrongProof.at(-1), { exit: 77 });
    assert.equal(wrongProof.filter((f) => 'out' in f).length, 0);
    const inClear = await framesOf({ secret: secret.trim(), argv: ['partners', 'list'] });
    assert.deepEqual(inClear.at(-1), { exit: 77 });
    assert.equal(inClear.filter((f) => 'out' in f).length, 0);
    assert.match(serverOut, /"msg":"operator command"/);

    server.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.equal(fs.existsSync(socket), false, 'the socket goes with the server');
    // the same commands run alone print the same
    const localShow = await cli(['--json', 'partners', 'show', 'acme-air']);
    assert.equal(localShow.code, 0, localShow.stderr);
    assert.equal(localShow.stdout, remoteShow.stdout);
    assert.equal((await cli(['partners', 'list'])).stdout, remoteList.stdout);
  });
});
