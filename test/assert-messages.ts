/**
 * Loaded before every test file (`--import ./test/assert-messages.ts` in package.json's test scripts).
 *
 * When `assert.ok(value)` fails without a message, Node 20 rebuilds the failing expression for the
 * message by reading the test's source file from the call site and parsing it with acorn, retrying on
 * larger pieces of the file. On our TypeScript test files (acorn cannot parse them) that retry loop
 * can spin for minutes on the main thread: a failing assertion near the end of a long file froze the
 * whole file instead of failing it (seen in test/payouts/sepa-schedule.http.test.ts on PGlite). A
 * message given up front skips that reconstruction, so an `assert.ok` without one gets a plain message
 * naming the value; the stack trace still points at the assertion's line.
 */
import assert from 'node:assert';
import { inspect } from 'node:util';

const ok: typeof assert.ok = assert.ok.bind(assert);
function okWithMessage(value: unknown, message?: string | Error): asserts value {
  ok(value, message ?? `expected a truthy value, got ${inspect(value, { depth: 1, breakLength: Infinity })}`);
}
assert.ok = okWithMessage;
assert.strict.ok = okWithMessage;
