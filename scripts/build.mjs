#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ (tsconfig.build.json rewrites the `./x.ts` imports to
// `./x.js`) and copies beside it every file of src/ that is not TypeScript and that the code reads at
// run time next to itself (src/web/assets, the risk models under src/**/models/…), so that dist/
// runs alone. migrations/ and node_modules/ are found from the package root, as from src/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

fs.rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')],
  { stdio: 'inherit' },
);

let copied = 0;
for (const entry of fs.readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
  const from = path.join(entry.parentPath ?? entry.path, entry.name); // Node < 20.12: path
  const to = path.join(dist, path.relative(src, from));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  copied += 1;
}
console.log(`dist/ built: ${copied} non-TypeScript file(s) copied from src/`);
