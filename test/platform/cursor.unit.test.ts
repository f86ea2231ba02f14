import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DomainError } from '../../src/platform/errors.ts';
import { decodeCursor, encodeCursor, listBinding, oldestFirstPage, type Keyset } from '../../src/platform/cursor.ts';

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

  it('with nothing before the horizon, gives back the keyset it was given, bound to the list', () => {
    const given = row(0, 9);
    const list = listBinding(['a list']);
    const { page, nextCursor } = oldestFirstPage([row(7, 1)], keyOf, new Date(5), 10, given, list);
    assert.deepEqual(page, []);
    assert.equal(nextCursor, encodeCursor(given.at, given.id, list));
    assert.deepEqual(decodeCursor(nextCursor!, '/cursor', list), given);
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

describe('a cursor bound to its list (listBinding)', () => {
  const key = row(Date.UTC(2026, 10, 27, 9, 0, 0, 1), 3);
  const opened = listBinding(['flight.claims', 'p', 'sandbox', ['opened']]);
  const paid = listBinding(['flight.claims', 'p', 'sandbox', ['paid']]);

  it('is read back on its own list, and refused on another, saying the filters changed', () => {
    assert.notEqual(opened, paid);
    assert.equal(opened, listBinding(['flight.claims', 'p', 'sandbox', ['opened']]));
    const cursor = encodeCursor(key.at, key.id, opened);
    assert.deepEqual(decodeCursor(cursor, 'querystring:/cursor', opened), key);
    assert.throws(
      () => decodeCursor(cursor, 'querystring:/cursor', paid),
      (error: DomainError) => {
        assert.equal(error.code, 'invalid_cursor');
        assert.match(error.detail, /filters changed/);
        assert.deepEqual(error.extra.errors, [
          { field: 'querystring:/cursor', code: 'invalid', message: 'is the next page of a list with other filters' },
        ]);
        return true;
      },
    );
  });

  it('one handed out before cursors were bound still continues the list asked for', () => {
    assert.deepEqual(decodeCursor(encodeCursor(key.at, key.id), '/cursor', paid), key);
  });

  it('a malformed binding is no cursor of ours', () => {
    const forged = Buffer.from(JSON.stringify([key.at.toISOString(), key.id, 7])).toString('base64url');
    assert.throws(() => decodeCursor(forged, '/cursor', paid), { code: 'invalid_cursor' });
    const long = Buffer.from(JSON.stringify([key.at.toISOString(), key.id, 'x'.repeat(400)])).toString('base64url');
    assert.throws(() => decodeCursor(long, '/cursor'), { code: 'invalid_cursor' });
  });
});
