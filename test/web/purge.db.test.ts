import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { purgeWebSessions } from '../../src/web/sessions.ts';
import { openTestDatabase, uniqueSlug } from '../helper.ts';

describe('web sessions purge', () => {
  let handle: DatabaseHandle;
  before(async () => (handle = await openTestDatabase()));
  after(() => handle.close());

  it('forgets failure counters whose window has passed, keeps current ones and live locks', async () => {
    const now = new Date();
    const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
    const key = (name: string) => `partner:account:${uniqueSlug(name)}@example.com`;
    const [stale, recent, locked] = [key('stale'), key('recent'), key('locked')];
    await handle.db
      .insertInto('login_throttle')
      .values([
        { key: stale, attempts: 3, window_start: minutesAgo(60), locked_until: minutesAgo(30) },
        { key: recent, attempts: 2, window_start: minutesAgo(5), locked_until: null },
        { key: locked, attempts: 5, window_start: minutesAgo(60), locked_until: new Date(now.getTime() + 5 * 60_000) },
      ])
      .execute();
    assert.ok((await purgeWebSessions({ db: handle.db, now: () => now })) >= 1);
    const left = await handle.db
      .selectFrom('login_throttle')
      .select('key')
      .where('key', 'in', [stale, recent, locked])
      .execute();
    assert.deepEqual(left.map((r) => r.key).sort(), [recent, locked].sort());
  });
});
