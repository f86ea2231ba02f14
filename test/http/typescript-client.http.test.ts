import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runLifecycle } from '../../clients/typescript/example.ts';
import { CLIENT_APIS, generateClient } from '../../scripts/client-generate.ts';
import { buildTestApp, createTestPartner, type TestApp } from '../helper.ts';

/**
 * The TypeScript client in clients/typescript: what `npm run client:generate` writes today is what
 * is committed (no drift), and the example runs the whole lifecycle against a listening server.
 */

describe('generated TypeScript client', () => {
  let t: TestApp;
  let origin: string;
  before(async () => {
    t = await buildTestApp();
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  it('is up to date with the OpenAPI documents (run npm run client:generate)', async (c) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'parasol-client-'));
    c.after(() => rm(dir, { recursive: true, force: true }));
    await generateClient(dir);
    for (const api of CLIENT_APIS) {
      const fresh = await readFile(path.join(dir, `${api.name}.ts`), 'utf8');
      const committed = await readFile(new URL(`../../clients/typescript/src/${api.name}.ts`, import.meta.url), 'utf8');
      assert.ok(fresh === committed, `clients/typescript/src/${api.name}.ts differs: run npm run client:generate`);
    }
  });

  it('the example runs quote → subscribe → flight event → getclaims → cancel another over HTTP', async () => {
    const partner = await createTestPartner(t.db);
    const result = await runLifecycle({ origin, apiKey: partner.key });
    assert.match(result.contract.contractNumber, /^FD-/);
    assert.equal(result.contract.status, 'active');
    assert.equal(result.claims.length, 1, JSON.stringify(result.claims));
    assert.equal(result.claims[0]!.contractNumber, result.contract.contractNumber);
    assert.equal(result.cancelled.status, 'cancelled');
    assert.notEqual(result.cancelled.contractNumber, result.contract.contractNumber);
  });
});
