import { openDatabase } from '../../src/platform/db.ts';

/** A child process for the lock tests: opens the embedded database in argv[2], says so, and waits to be killed. */
const handle = await openDatabase({ dataDir: process.argv[2] });
await handle.migrate();
process.stdout.write('held\n');
setInterval(() => undefined, 60_000);
