#!/usr/bin/env node
// The operator CLI (`parasol …`): runs src/cli/main.ts through tsx, with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
