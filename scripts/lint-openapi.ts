/**
 * `npm run lint:openapi`: lints the OpenAPI documents the product serves with Spectral, the rules of
 * `.spectral.yaml` (spectral:oas and the OWASP API Security ruleset, with the exceptions written
 * there and their reasons). It builds the app on a throwaway in-memory database (no server, no
 * network), writes the document of every API of the portal's catalog to a temporary directory, as
 * `{prefix}/openapi.json` serves it and as the portal's download gives it, and runs
 * `spectral lint --fail-severity=error` over them: an error fails, a warning is printed. Extra
 * arguments go to Spectral (`npm run lint:openapi -- -f json`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiDefinition, CATALOG } from '../src/web/catalog.ts';
import { buildTestApp } from '../test/helper.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What the portal's download puts as server: a deployment's public URL (production's is HTTPS). */
const PUBLIC_URL = 'https://parasol.example';

/**
 * Writes each served document to `dir`: `<api>.openapi.json` as `{prefix}/openapi.json` serves it
 * (`served`), and `<api>.portal.openapi.json` as the portal's "API definition" download gives it,
 * the same with an absolute server (`downloads`).
 */
export async function writeServedDocuments(dir: string): Promise<{ served: string[]; downloads: string[] }> {
  const t = await buildTestApp();
  const files = { served: [] as string[], downloads: [] as string[] };
  try {
    for (const entry of Object.values(CATALOG)) {
      const res = await t.app.inject({ method: 'GET', url: `${entry.prefix}/openapi.json` });
      if (res.statusCode !== 200) throw new Error(`${entry.prefix}/openapi.json answered ${res.statusCode}`);
      const served = path.join(dir, `${entry.api}.openapi.json`);
      const download = path.join(dir, `${entry.api}.portal.openapi.json`);
      await writeFile(served, JSON.stringify(res.json(), null, 2));
      await writeFile(download, JSON.stringify(apiDefinition(res.json(), entry, PUBLIC_URL), null, 2));
      files.served.push(served);
      files.downloads.push(download);
    }
  } finally {
    await t.close();
  }
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'parasol-openapi-'));
  try {
    const { served, downloads } = await writeServedDocuments(dir);
    const spectral = path.join(root, 'node_modules', '.bin', 'spectral');
    const lint = (files: string[], extra: string[] = []): number => {
      const args = ['lint', '--ruleset', path.join(root, '.spectral.yaml'), '--fail-severity=error', ...extra];
      const run = spawnSync(spectral, [...args, ...process.argv.slice(2), ...files], { stdio: 'inherit' });
      if (run.error) throw run.error;
      return run.status ?? 1;
    };
    // the downloads differ from the served documents by their server only: their warnings are the
    // same, so only their errors are shown
    const statuses = [lint(served), lint(downloads, ['--display-only-failures'])];
    process.exitCode = statuses.some((status) => status !== 0) ? 1 : 0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
