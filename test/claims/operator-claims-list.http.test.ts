import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeCursor, UNBOUND_CURSORS_BEFORE } from '../../src/platform/cursor.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  type InsuredFlight,
  type TestApp,
  type TestPartner,
  runCliOn,
} from '../helper.ts';
import { Browser } from '../web/inject-browser.ts';

/**
 * The operators' claims list (`parasol claims list`, console /admin/claims) pages newest first by a
 * keyset cursor: a claim opened while an operator pages comes before the first page, and the next
 * page neither repeats a claim (an offset would: every row moves down one) nor skips one.
 */

const ADMIN = { email: 'ops-claims-list@parasol.test', password: 'operator password 42' };

describe('operators’ claims list, newest first by a cursor', () => {
  let t: TestApp;
  let a: TestPartner;
  const flights: InsuredFlight[] = [];
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password } });
    a = await createTestPartner(t.db);
    for (const n of ['AF7101', 'AF7102', 'AF7103', 'AF7104'])
      flights.push(await insureFlight(t.app, a, { flightNumber: n }));
  });
  after(() => t.close());

  const cli = async (...argv: string[]) => {
    const { code, out, err } = await runCliOn(t, argv);
    assert.equal(code, 0, err);
    return JSON.parse(out) as {
      claims: { contractNumber: string; claimNumber: string }[];
      nextCursor: string | null;
    };
  };
  const openClaim = async (f: InsuredFlight) => {
    const res = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: f.flightNumber, departureDate: f.departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(res.body.claimsOpened?.length, 1, JSON.stringify(res.body));
  };

  it('a claim opened between two pages is neither repeated nor skipped', async () => {
    const [first, second, third, fourth] = flights as [InsuredFlight, InsuredFlight, InsuredFlight, InsuredFlight];
    for (const f of [first, second, third]) await openClaim(f);

    const page1 = await cli('--json', 'claims', 'list', '--partner', a.slug, '--limit', '2');
    assert.deepEqual(
      page1.claims.map((c) => c.contractNumber),
      [third.contractNumber, second.contractNumber],
    );
    assert.ok(page1.nextCursor);
    await openClaim(fourth); // newer than every row seen: an offset of 2 would show `second` again
    const page2 = await cli(
      '--json',
      'claims',
      'list',
      '--partner',
      a.slug,
      '--limit',
      '2',
      '--cursor',
      page1.nextCursor,
    );
    assert.deepEqual(
      page2.claims.map((c) => c.contractNumber),
      [first.contractNumber],
    );
    assert.equal(page2.nextCursor, null);

    // the console pages the same way: the cursor's page lists the claims older than it only
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const all = await operator.get('/admin/claims');
    assert.equal(all.statusCode, 200);
    const numbers = (await cli('--json', 'claims', 'list', '--partner', a.slug)).claims.map((c) => c.claimNumber);
    assert.equal(numbers.length, 4);
    for (const n of numbers) assert.match(all.body, new RegExp(`/admin/claims/${n}"`));
    assert.doesNotMatch(all.body, /First page/, 'the first page offers no first page');
    // the console's list is the CLI's without filters: the same binding, so the same cursor goes on
    const everyPartner = await cli('--json', 'claims', 'list', '--limit', '3');
    assert.ok(everyPartner.nextCursor);
    const older = await operator.get(`/admin/claims?cursor=${encodeURIComponent(everyPartner.nextCursor)}`);
    assert.equal(older.statusCode, 200);
    const shown = numbers.filter((n) => new RegExp(`/admin/claims/${n}"`).test(older.body));
    assert.deepEqual(shown, [numbers[3]], 'only the oldest claim, opened before the cursor');
    assert.match(older.body, /First page/);
  });

  it('a cursor not ours is refused', async () => {
    const res = await runCliOn(t, ['--json', 'claims', 'list', '--cursor', 'bm90IG91cnM']);
    assert.notEqual(res.code, 0);
    assert.match(res.err, /cursor/);
  });

  it('a cursor is bound to its filters: another filter’s is refused (invalid_cursor), the console’s too', async () => {
    const page1 = await cli('--json', 'claims', 'list', '--partner', a.slug, '--limit', '1');
    assert.ok(page1.nextCursor, 'more than one claim: a next page');
    // the same filters go on
    assert.equal(
      (await runCliOn(t, ['--json', 'claims', 'list', '--partner', a.slug, '--cursor', page1.nextCursor])).code,
      0,
    );
    for (const argv of [
      [], // every partner's list
      ['--partner', a.slug, '--status', 'paid'],
      ['--partner', a.slug, '--env', 'production'],
    ]) {
      const res = await runCliOn(t, ['claims', 'list', ...argv, '--cursor', page1.nextCursor]);
      assert.equal(res.code, 1, argv.join(' '));
      assert.match(
        res.err,
        /^error: The cursor is the next page of a list with other filters.*\n {2}--cursor: is the next page of a list with other filters$/,
      );
    }
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const console_ = await operator.get(`/admin/claims?status=paid&cursor=${encodeURIComponent(page1.nextCursor)}`);
    assert.equal(console_.statusCode, 422, 'the CLI’s cursor of a partner’s list is not the console’s paid list');
  });

  it('a cursor handed out before the binding (none) goes on until UNBOUND_CURSORS_BEFORE, not after', async () => {
    const id = '00000000-0000-0000-0000-000000000000';
    const justBefore = new Date(UNBOUND_CURSORS_BEFORE.getTime() - 1);
    // one claim opened a day before the cutoff, not by the clock: the page after the cursor has it
    // whenever the test runs (the others, opened now, are after the cutoff once it is past)
    const backdated = await t.db
      .updateTable('claims')
      .set({ opened_at: new Date(UNBOUND_CURSORS_BEFORE.getTime() - 86_400_000) })
      .where('id', '=', (eb) =>
        eb.selectFrom('claims').select('id').where('partner_id', '=', a.id).orderBy('opened_at').limit(1),
      )
      .returning('claim_number')
      .executeTakeFirstOrThrow();
    const old = await runCliOn(t, [
      '--json',
      'claims',
      'list',
      '--partner',
      a.slug,
      '--cursor',
      encodeCursor(justBefore, id),
    ]);
    assert.equal(old.code, 0, old.err);
    const listed = (JSON.parse(old.out) as { claims: { claimNumber: string; openedAt: string }[] }).claims;
    assert.ok(
      listed.some((c) => c.claimNumber === backdated.claim_number),
      `the claim opened before its instant is listed: ${JSON.stringify(listed)}`,
    );
    assert.ok(
      listed.every((c) => new Date(c.openedAt) < justBefore),
      'the claims opened before its instant only',
    );
    const stripped = await runCliOn(t, [
      'claims',
      'list',
      '--partner',
      a.slug,
      '--cursor',
      encodeCursor(UNBOUND_CURSORS_BEFORE, id),
    ]);
    assert.equal(stripped.code, 1);
    assert.match(stripped.err, /^error: The cursor is not one this API returned\./);
  });
});
