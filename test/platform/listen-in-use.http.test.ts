import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { childEnv } from '../helper.ts';

/** `npm start` where its port is taken: one line naming the port and the variable, no stack trace, exit 75. */

describe('starting on a port in use', () => {
  it('says which port and which variable to change, and exits 75 its database closed', async (t) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parasol-in-use-'));
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      holder.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const port = (holder.address() as net.AddressInfo).port;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...childEnv(), PARASOL_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(
      stderr,
      `error: the API cannot listen on 127.0.0.1:${port}: another process is using it. Stop that process, or set PORT to another port.\n`,
    );
    assert.equal(code, 75);
  });
});
