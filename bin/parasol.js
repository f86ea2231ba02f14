#!/usr/bin/env node
// The operator CLI (`parasol …`): the compiled dist/cli/main.js when `npm run build` has produced it
// and it is up to date (production images: no src/ changes after the build, and no tsx installed),
// else src/cli/main.ts through tsx, with no build step (a development checkout). A dist/ older than a
// file of src/ is stale — a build left behind in a checkout that changed since — and is not used.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const compiled = path.join(root, 'dist/cli/main.js');
const source = path.join(root, 'src');

/** The newest modification time of the files under `dir` (0 when it does not exist). */
function newest(dir) {
  let latest = 0;
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
  }
  return latest;
}

async function tsxAvailable() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return undefined;
  }
}

const built = fs.existsSync(compiled) ? fs.statSync(compiled).mtimeMs : 0;
const tsx = built && built >= newest(source) ? undefined : await tsxAvailable();
if (tsx && fs.existsSync(path.join(source, 'cli/main.ts'))) {
  tsx.register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
} else if (built) {
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
} else {
  console.error('parasol: neither dist/ (npm run build) nor tsx (npm install) is available');
  process.exit(70);
}
