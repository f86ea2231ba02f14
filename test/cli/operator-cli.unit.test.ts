import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { describe, it, mock } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { startOperatorCommands } from '../../src/cli/operator-commands.ts';
import { operatorActor } from '../../src/cli/kit.ts';
import { listenFailure } from '../../src/platform/listen-errors.ts';
import {
  handshakeNonce,
  handshakeProof,
  OPERATOR_ACTOR,
  operatorSocketAddress,
} from '../../src/platform/operator-socket.ts';
import { testConfig } from '../helper.ts';

/** The operator command line's pieces that need no database: its actor, its listeners' errors, the socket's handshake time. */

describe('operator actor', () => {
  const account = () => 'svc-parasol';
  it('is $USER, else the account the process runs as, else cli', () => {
    assert.equal(operatorActor({ USER: 'alice' }, account), 'operator:alice');
    assert.equal(operatorActor({}, account), 'operator:svc-parasol');
    assert.equal(operatorActor({ USER: '' }, account), 'operator:svc-parasol', 'an empty $USER is no name');
    const noEntry = () => {
      throw Object.assign(new Error('uid not found'), { code: 'ENOENT' });
    };
    assert.equal(operatorActor({}, noEntry), 'operator:cli', 'no password entry for the uid (a container)');
    assert.equal(
      operatorActor({}, () => ''),
      'operator:cli',
    );
  });

  it("applies the operator socket's pattern, falling back the same way: local and socket runs record the same actor", () => {
    // a $USER the socket would refuse (space, slash, too long, non-ASCII) is no name: the account's
    for (const USER of ['jean dupont', 'a/b', 'x'.repeat(65), 'josé'])
      assert.equal(operatorActor({ USER }, account), 'operator:svc-parasol', USER);
    assert.equal(operatorActor({ USER: 'x'.repeat(64) }, account), `operator:${'x'.repeat(64)}`);
    assert.equal(operatorActor({ USER: 'ops.bot@host-1' }, account), 'operator:ops.bot@host-1');
    // neither usable: operator:cli, what the socket records for an actor it refuses
    assert.equal(
      operatorActor({ USER: 'jean dupont' }, () => 'DOMAIN\\jean'),
      'operator:cli',
    );
    for (const USER of ['alice', 'jean dupont', '', 'x'.repeat(65)])
      assert.match(
        operatorActor({ USER }, () => 'svc parasol'),
        OPERATOR_ACTOR,
        USER,
      );
  });
});

describe('listen failures', () => {
  const api = { name: 'the API', address: '127.0.0.1:3000', variable: 'PORT' };
  it('say the address and the variable to change in one sentence', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    assert.deepEqual(listenFailure(inUse, api), {
      message:
        'the API cannot listen on 127.0.0.1:3000: another process is using it. Stop that process, or set PORT to another port.',
      exitCode: 75, // EX_TEMPFAIL: the other process may let go
    });
    // refused or not this machine's address: the configuration must change, 78 (EX_CONFIG)
    const denied = Object.assign(new Error('listen EACCES'), { code: 'EACCES' });
    const deniedFailure = listenFailure(denied, { ...api, address: '127.0.0.1:80' })!;
    assert.match(deniedFailure.message, /permission denied .*Set PORT/);
    assert.equal(deniedFailure.exitCode, 78);
    const notHere = Object.assign(new Error('listen EADDRNOTAVAIL'), { code: 'EADDRNOTAVAIL' });
    assert.equal(listenFailure(notHere, { ...api, address: '10.9.9.9:3000' })?.exitCode, 78);
    assert.equal(listenFailure(new Error('something else'), api), undefined, 'not about the address: thrown as it is');
  });
});

describe('operator socket handshake time', () => {
  it("closes a client that has not proved itself within the configuration's PARASOL_OPERATOR_HANDSHAKE_SECONDS", async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-handshake-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const config = testConfig({ PARASOL_DATA_DIR: dir, PARASOL_OPERATOR_HANDSHAKE_SECONDS: '45' });
    // the server's side only: a client that never proves itself reaches no command, no database
    const app = { parasol: { config }, log: { info: () => undefined, warn: () => undefined } };
    const close = await startOperatorCommands(app as unknown as FastifyInstance);
    t.after(close);
    mock.timers.enable({ apis: ['setTimeout'] });
    t.after(() => mock.timers.reset());
    const secret = fs.readFileSync(path.join(dir, 'operator.secret'), 'utf8').trim();
    /** A connection whose handshake the server has begun: its challenge says the deadline runs. */
    const connect = async () => {
      const client = net.connect({ path: operatorSocketAddress(dir) });
      client.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      const lines = readline.createInterface({ input: client, crlfDelay: Infinity })[Symbol.asyncIterator]();
      const hello = handshakeNonce();
      client.write(JSON.stringify({ hello }) + '\n');
      const challenge = JSON.parse((await lines.next()).value as string) as { challenge: string };
      return { client, closed, lines, hello, challenge: challenge.challenge };
    };

    // just before the configured time (past the 10 s it used to be): the client still proves itself
    // and its command runs (help: no database)
    const patient = await connect();
    mock.timers.tick(44_999);
    const proof = handshakeProof(secret, 'client', patient.hello, patient.challenge);
    patient.client.write(JSON.stringify({ proof, argv: ['--help'], actor: 'operator:test' }) + '\n');
    const frames: Record<string, unknown>[] = [];
    for (let next = await patient.lines.next(); !next.done; next = await patient.lines.next())
      frames.push(JSON.parse(next.value as string) as Record<string, unknown>);
    assert.deepEqual(frames.at(-1), { exit: 0 }, 'the command ran');
    await patient.closed;

    // at the configured time, a client that has not proved itself is let go
    const silent = await connect();
    mock.timers.tick(45_000);
    await silent.closed;
    assert.equal(silent.client.destroyed, true);
  });
});
