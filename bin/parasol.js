#!/usr/bin/env node
// The operator CLI (`parasol …`): the compiled dist/cli/main.js when `npm run build` has produced it
// (production images), else src/cli/main.ts through tsx, with no build step (a development checkout).
import fs from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (fs.existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
