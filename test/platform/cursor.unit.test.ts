import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import type { DomainError } from '../../src/platform/errors.ts';
import {
  decodeCursor,
  encodeCursor,
  listBinding,
  oldestFirstPage,
  statusFilter,
  UNBOUND_CURSORS_BEFORE,
  type Keyset,
} from '../../src/platform/cursor.ts';

const SERVER_KEY = Buffer.alloc(32, 7);

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
    const list = listBinding(SERVER_KEY, ['a list']);
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
  const opened = listBinding(SERVER_KEY, ['flight.claims', 'p', 'sandbox', ['opened']]);
  const paid = listBinding(SERVER_KEY, ['flight.claims', 'p', 'sandbox', ['paid']]);

  it('is read back on its own list, and refused on another, saying the filters changed', () => {
    assert.notEqual(opened, paid);
    assert.equal(opened, listBinding(SERVER_KEY, ['flight.claims', 'p', 'sandbox', ['opened']]));
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

  it('one handed out before cursors were bound still continues the list asked for, until the release', () => {
    assert.deepEqual(decodeCursor(encodeCursor(key.at, key.id), '/cursor', paid), key);
    const justBefore = new Date(UNBOUND_CURSORS_BEFORE.getTime() - 1);
    assert.deepEqual(decodeCursor(encodeCursor(justBefore, key.id), '/cursor', paid), { at: justBefore, id: key.id });
    // a cursor of a row written since is bound: stripped of its binding, it is no cursor this API returned
    for (const at of [UNBOUND_CURSORS_BEFORE, new Date(UNBOUND_CURSORS_BEFORE.getTime() + 86_400_000)])
      assert.throws(
        () => decodeCursor(encodeCursor(at, key.id), '/cursor', paid),
        { code: 'invalid_cursor', detail: 'The cursor is not one this API returned.' },
        at.toISOString(),
      );
    // the operators' lists bind nothing: any well-formed cursor
    assert.deepEqual(decodeCursor(encodeCursor(UNBOUND_CURSORS_BEFORE, key.id), '/cursor'), {
      at: UNBOUND_CURSORS_BEFORE,
      id: key.id,
    });
  });

  it('is keyed: another server key, or no key, gives another binding', () => {
    const list = ['flight.contracts', 'p', 'sandbox', 'ABC123', null, null, null];
    assert.notEqual(listBinding(SERVER_KEY, list), listBinding(Buffer.alloc(32, 8), list));
    // not the plain hash a 6-character booking reference could be recovered from
    const plain = crypto.hash('sha256', JSON.stringify(list), 'buffer').subarray(0, 6).toString('base64url');
    assert.notEqual(listBinding(SERVER_KEY, list), plain);
    assert.match(listBinding(SERVER_KEY, list), /^[A-Za-z0-9_-]{8}$/);
  });

  it('reads statuses as one set: repeated or in another order, the same filter', () => {
    assert.deepEqual(statusFilter(['paid', 'opened', 'paid']), ['opened', 'paid']);
    assert.deepEqual(statusFilter('paid'), ['paid']);
    assert.equal(statusFilter(undefined), undefined);
  });

  it('a malformed binding is no cursor of ours', () => {
    const forged = Buffer.from(JSON.stringify([key.at.toISOString(), key.id, 7])).toString('base64url');
    assert.throws(() => decodeCursor(forged, '/cursor', paid), { code: 'invalid_cursor' });
    const long = Buffer.from(JSON.stringify([key.at.toISOString(), key.id, 'x'.repeat(400)])).toString('base64url');
    assert.throws(() => decodeCursor(long, '/cursor'), { code: 'invalid_cursor' });
  });
});
