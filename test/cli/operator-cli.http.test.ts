import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { upsertPendingPayout } from '../../src/payouts/payouts-repo.ts';
import { decodeCursor, encodeCursor, UNBOUND_CURSORS_BEFORE } from '../../src/platform/cursor.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  operatorToken,
  post,
  runCliOn,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * The operator command line's listings and outputs: `payouts list` pages by cursor and filters by
 * partner as `claims list` does, `flights event` and POST /claims list the claims opened by claim number,
 * `statement show` never drops a file format on the floor, `rate-limits` names all its columns.
 */

interface Listed {
  payouts: { claimNumber: string; partner: string; endToEndId: string; createdAt: string }[];
  nextCursor: string | null;
}

describe('operator command line', () => {
  let t: TestApp;
  let partner: TestPartner;
  let other: TestPartner;
  let seq = 7300 + (process.pid % 400);
  const cli = (...argv: string[]) => runCliOn(t, argv);
  const json = async <T>(...argv: string[]): Promise<T> => {
    const run = await cli('--json', ...argv);
    assert.equal(run.code, 0, `${argv.join(' ')}: ${run.err}`);
    return JSON.parse(run.out) as T;
  };

  /** Claims opened on `count` contracts of one sandbox flight, cancelled: their numbers as `flights event` lists them. */
  const cancelledFlight = async (who: TestPartner, count: number) => {
    const flightNumber = `AF${(seq += 1)}`;
    let departureDate = '';
    for (let i = 0; i < count; i += 1) departureDate = (await insureFlight(t.app, who, { flightNumber })).departureDate;
    const event = await json<{ claimsOpened: { claimNumber: string }[] }>(
      'flights',
      'event',
      '--env',
      'sandbox',
      flightNumber,
      departureDate,
      '--status',
      'cancelled',
    );
    return event.claimsOpened.map((c) => c.claimNumber);
  };

  const claimRows = (numbers: string[]) =>
    t.db
      .selectFrom('claims')
      .select(['id', 'claim_number', 'partner_id', 'environment', 'compensation_amount', 'currency', 'opened_at'])
      .where('claim_number', 'in', numbers)
      .execute();

  before(async () => {
    t = await buildTestApp({ env: { PARASOL_JOB_POLL_SECONDS: '1' } });
    partner = await createTestPartner(t.db);
    other = await createTestPartner(t.db);
  });
  after(() => t.close());

  it('flights event and POST /claims list the claims opened in one order: by claim number', async () => {
    const numbers = await cancelledFlight(partner, 6);
    assert.equal(numbers.length, 6);
    assert.deepEqual(numbers, [...numbers].sort(), 'the command line: by claim number');

    // the same event through the API (an operator's token): the same order
    const flightNumber = `AF${(seq += 1)}`;
    let departureDate = '';
    for (let i = 0; i < 6; i += 1) departureDate = (await insureFlight(t.app, partner, { flightNumber })).departureDate;
    const { auth } = await operatorToken(t, 'claim order');
    const res = await post(
      t.app,
      `${FLIGHT}/claims`,
      { environment: 'sandbox', flightNumber, departureDate, status: 'cancelled' },
      auth,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const viaApi = (res.body.claimsOpened as { claimNumber: string }[]).map((c) => c.claimNumber);
    assert.equal(viaApi.length, 6);
    assert.deepEqual(viaApi, [...viaApi].sort(), 'POST /claims: by claim number');
  });

  it('payouts list pages by --cursor and --limit, and filters by --partner', async () => {
    const mine = await claimRows(await cancelledFlight(partner, 5));
    const theirs = await claimRows(await cancelledFlight(other, 1));
    // created a second apart, newest last; the last two at the same millisecond (the id breaks the tie);
    // a day before UNBOUND_CURSORS_BEFORE, not by the clock: the cursors printed before the binding
    // (below) go on while their row's instant is before it, whenever the test runs
    const base = UNBOUND_CURSORS_BEFORE.getTime() - 86_400_000;
    const at = [0, 1, 2, 3, 3].map((s) => new Date(base + s * 1000));
    for (const [i, c] of [...mine, ...theirs].entries())
      await upsertPendingPayout(t.db, {
        claimId: c.id,
        partnerId: c.partner_id,
        environment: c.environment,
        rail: 'simulated_bank',
        amount: Number(c.compensation_amount),
        currency: c.currency,
        accountKind: 'iban',
        at: at[i] ?? new Date(base),
      });

    const pages: Listed[] = [];
    let cursor: string | null = null;
    do {
      const page: Listed = await json<Listed>(
        'payouts',
        'list',
        '--partner',
        partner.slug,
        '--limit',
        '2',
        ...(cursor ? ['--cursor', cursor] : []),
      );
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor && pages.length < 10);
    assert.deepEqual(
      pages.map((p) => p.payouts.length),
      [2, 2, 1],
    );
    const listed = pages.flatMap((p) => p.payouts);
    assert.ok(
      listed.every((p) => p.partner === partner.slug),
      'only this partner',
    );
    const ids = await t.db
      .selectFrom('payouts')
      .select(['id', 'end_to_end_id', 'created_at'])
      .where('partner_id', '=', partner.id)
      .execute();
    const newestFirst = ids
      .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((p) => p.end_to_end_id);
    assert.deepEqual(
      listed.map((p) => p.endToEndId),
      newestFirst,
      'newest first, the id breaking ties, none repeated or skipped across pages',
    );

    // the text says how to get the next page; a cursor not ours is refused, naming the option
    const text = await cli('payouts', 'list', '--partner', partner.slug, '--limit', '2');
    // one cursor as every list's (platform/cursor.ts): no hash of its own before a dot
    assert.match(text.out, /\nMore: the same command with --cursor [A-Za-z0-9_-]+$/);
    const bad = await cli('payouts', 'list', '--cursor', 'not-a-cursor');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /^error: The cursor is not one this API returned\.\n {2}--cursor: invalid cursor$/);

    // a cursor belongs to its listing: a plain listing's (created_at) is refused by --left-out
    // (left_out_at) or another partner's listing, not compared silently
    const plainCursor = pages[0]!.nextCursor!;
    for (const argv of [
      ['--left-out', '--partner', partner.slug],
      ['--partner', other.slug],
      ['--partner', partner.slug, '--status', 'pending'],
    ]) {
      const mismatch = await cli('payouts', 'list', ...argv, '--limit', '2', '--cursor', plainCursor);
      assert.equal(mismatch.code, 1, argv.join(' '));
      assert.match(
        mismatch.err,
        /^error: The cursor is the next page of a list with other filters.*\n {2}--cursor: is the next page of a list with other filters$/,
      );
    }

    // a cursor printed before the binding (its listing's unkeyed hash, a dot, an unbound cursor) goes on
    // with its own listing while its instant is before UNBOUND_CURSORS_BEFORE; not with another listing,
    // nor once stripped of its binding after it
    const legacy = (at: Date, id: string, listing: unknown[]) =>
      `${createHash('sha256').update(JSON.stringify(listing)).digest('base64url').slice(0, 8)}.${encodeCursor(at, id)}`;
    const key = decodeCursor(plainCursor, '/cursor');
    const plainListing = ['created', null, null, partner.slug, false];
    const old = await json<Listed>(
      'payouts',
      'list',
      '--partner',
      partner.slug,
      '--limit',
      '2',
      '--cursor',
      legacy(key.at, key.id, plainListing),
    );
    assert.deepEqual(old, pages[1], 'the page after it, as the bound cursor gives');
    for (const [cursor, error] of [
      [legacy(key.at, key.id, ['left_out', null, null, partner.slug, false]), /other filters/],
      [legacy(UNBOUND_CURSORS_BEFORE, key.id, plainListing), /not one this API returned/],
    ] as const) {
      const refused = await cli('payouts', 'list', '--partner', partner.slug, '--limit', '2', '--cursor', cursor);
      assert.equal(refused.code, 1);
      assert.match(refused.err, error);
    }

    // --partner takes a slug or an id, and an unknown partner is refused (not an empty listing)
    const byId = await json<Listed>('payouts', 'list', '--partner', partner.id, '--limit', '2');
    assert.deepEqual(byId, pages[0]);
    for (const command of ['payouts', 'claims']) {
      const unknown = await cli(command, 'list', '--partner', 'no-such-partner');
      assert.equal(unknown.code, 1, command);
      assert.equal(unknown.err, 'error: No partner "no-such-partner".', command);
    }
    const claimsById = await json<{ claims: { partner: string }[] }>('claims', 'list', '--partner', other.id);
    assert.ok(claimsById.claims.length > 0 && claimsById.claims.every((c) => c.partner === other.slug));

    // left out of their files: longest left out first, paged the same way
    const [first, second] = listed;
    await t.db
      .updateTable('payouts')
      .set({ rail: 'sepa', left_out_code: 'no_bic' })
      .where('end_to_end_id', 'in', [first!.endToEndId, second!.endToEndId])
      .execute();
    await t.db
      .updateTable('payouts')
      .set({ left_out_at: new Date(base - 60_000) })
      .where('end_to_end_id', '=', first!.endToEndId)
      .execute();
    await t.db
      .updateTable('payouts')
      .set({ left_out_at: new Date(base - 120_000) })
      .where('end_to_end_id', '=', second!.endToEndId)
      .execute();
    const one = await json<Listed>('payouts', 'list', '--left-out', '--partner', partner.slug, '--limit', '1');
    assert.deepEqual(
      one.payouts.map((p) => p.endToEndId),
      [second!.endToEndId],
    );
    assert.ok(one.nextCursor);
    const two = await json<Listed>(
      'payouts',
      'list',
      '--left-out',
      '--partner',
      partner.slug,
      '--limit',
      '1',
      '--cursor',
      one.nextCursor,
    );
    assert.deepEqual(
      two.payouts.map((p) => p.endToEndId),
      [first!.endToEndId],
    );
    assert.equal(two.nextCursor, null);
  });

  it('statement show: a file format without --out is refused, not ignored; with --out the file is written', async () => {
    const refused = await cli('statement', 'show', '--partner', partner.slug, '--month', '2026-01', '--format', 'pdf');
    assert.equal(refused.code, 2, 'a usage error, as bordereau without --out');
    assert.equal(
      refused.err.trim(),
      'error: --format pdf writes a file: give --out <file> (without --out, the totals are printed as text).\n(add --help for usage)',
    );
    assert.equal(refused.out, '');
    const written = new Map<string, Buffer>();
    const pdf = await runCliOn(
      t,
      ['statement', 'show', '--partner', partner.slug, '--month', '2026-01', '--format', 'pdf', '--out', 's.pdf'],
      { writeBytes: async (file, data) => void written.set(file, data) },
    );
    assert.equal(pdf.code, 0, pdf.err);
    assert.equal(written.get('s.pdf')?.subarray(0, 5).toString('latin1'), '%PDF-');
    // without --format and --out: the totals as text, as before
    const totals = await cli('statement', 'show', '--partner', partner.slug, '--month', '2026-01');
    assert.equal(totals.code, 0, totals.err);
  });

  it('rate-limits names every column', async () => {
    const shown = await cli('rate-limits', 'show', partner.slug);
    assert.equal(shown.code, 0, shown.err);
    const [header, row] = shown.out.split('\n');
    assert.match(header!, /^PARTNER\s+CLASS\s+PER MINUTE\s+PER SECOND\s+SOURCE$/);
    assert.match(row!, /\(default\)$/);
  });
});
