/**
 * `npm run lint:openapi`: lints the OpenAPI documents the product serves with Spectral, the rules of
 * `.spectral.yaml` (spectral:oas and the OWASP API Security ruleset, with the exceptions written
 * there and their reasons). It builds the app on a throwaway in-memory database (no server, no
 * network), writes every API of the portal's catalog as `{prefix}/openapi.json` serves it to a
 * temporary directory, and runs `spectral lint --fail-severity=error` over them: an error fails, a
 * warning is printed. Extra arguments go to Spectral (`npm run lint:openapi -- -f json`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOG } from '../src/web/catalog.ts';
import { buildTestApp } from '../test/helper.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Writes each served document to `dir`, as `<api>.openapi.json`; returns the files. */
export async function writeServedDocuments(dir: string): Promise<string[]> {
  const t = await buildTestApp();
  const files: string[] = [];
  try {
    for (const entry of Object.values(CATALOG)) {
      const res = await t.app.inject({ method: 'GET', url: `${entry.prefix}/openapi.json` });
      if (res.statusCode !== 200) throw new Error(`${entry.prefix}/openapi.json answered ${res.statusCode}`);
      const file = path.join(dir, `${entry.api}.openapi.json`);
      await writeFile(file, JSON.stringify(res.json(), null, 2));
      files.push(file);
    }
  } finally {
    await t.close();
  }
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'parasol-openapi-'));
  try {
    const files = await writeServedDocuments(dir);
    const spectral = path.join(root, 'node_modules', '.bin', 'spectral');
    const args = ['lint', '--ruleset', path.join(root, '.spectral.yaml'), '--fail-severity=error'];
    const run = spawnSync(spectral, [...args, ...process.argv.slice(2), ...files], { stdio: 'inherit' });
    if (run.error) throw run.error;
    process.exitCode = run.status ?? 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
