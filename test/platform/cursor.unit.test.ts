import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeCursor, encodeCursor, oldestFirstPage, type Keyset } from '../../src/platform/cursor.ts';

const row = (ms: number, n: number): Keyset => ({
  at: new Date(ms),
  id: `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`,
});
const keyOf = (r: Keyset) => r;

describe('oldestFirstPage — a page never passes the commit horizon', () => {
  it('is the rows up to the limit, and a cursor when more were read', () => {
    const rows = [row(1, 1), row(2, 2), row(3, 3)];
    const { page, nextCursor } = oldestFirstPage(rows, keyOf, new Date(10), 2, undefined);
    assert.deepEqual(page, rows.slice(0, 2));
    assert.deepEqual(decodeCursor(nextCursor!, '/cursor'), rows[1]);
  });

  it('ends (null) when every row read is returned', () => {
    const rows = [row(1, 1), row(2, 2)];
    assert.deepEqual(oldestFirstPage(rows, keyOf, new Date(10), 2, undefined), { page: rows, nextCursor: null });
  });

  it('stops before a row keyed at or after the horizon, and says more may come', () => {
    const rows = [row(1, 1), row(5, 2), row(6, 3)];
    const { page, nextCursor } = oldestFirstPage(rows, keyOf, new Date(5), 10, undefined);
    assert.deepEqual(page, [rows[0]]);
    assert.deepEqual(decodeCursor(nextCursor!, '/cursor'), rows[0]);
  });

  it('with nothing before the horizon, gives back the cursor it was given', () => {
    const given = encodeCursor(new Date(0), row(0, 9).id);
    const { page, nextCursor } = oldestFirstPage([row(7, 1)], keyOf, new Date(5), 10, given);
    assert.deepEqual(page, []);
    assert.equal(nextCursor, given);
  });

  it('on a first page with nothing before the horizon, a cursor from the start', () => {
    const { page, nextCursor } = oldestFirstPage([row(7, 1)], keyOf, new Date(5), 10, undefined);
    assert.deepEqual(page, []);
    assert.deepEqual(decodeCursor(nextCursor!, '/cursor'), row(0, 0));
  });
});

describe('decodeCursor', () => {
  it('reads back what encodeCursor wrote, and nothing else', () => {
    const key = row(Date.UTC(2026, 10, 26, 7, 30, 0, 123), 7);
    assert.deepEqual(decodeCursor(encodeCursor(key.at, key.id), '/cursor'), key);
    const forge = (at: unknown) => Buffer.from(JSON.stringify([at, key.id])).toString('base64url');
    for (const at of [
      '+275760-09-13T00:00:00.000Z',
      '-000001-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '2026-02-30T00:00:00.000Z',
      '2026-01-01',
      8.64e15,
      null,
    ])
      assert.throws(() => decodeCursor(forge(at), '/cursor'), { code: 'invalid_cursor' }, String(at));
  });
});
