import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { deriveKeyring } from '../../src/platform/crypto.ts';
import { listStopSales, suspendSales } from '../../src/limits/index.ts';
import { addExposure, stopSalesAndCap } from '../../src/limits/limits-repo.ts';
import { openTestDatabase, runCliOn, testConfig, usingPostgres } from '../helper.ts';

/**
 * `parasol limits …` and `parasol sales …` through runCliOn. Caps are set on (preproduction, NOK), a
 * pair no other test file uses; the flights are random minutes months ahead.
 */

const { db } = await openTestDatabase({ after: (close: () => unknown) => after(async () => void (await close())) });
const NOW = new Date();

const keys = deriveKeyring(crypto.randomBytes(32)); // its lookup key binds --after to its list
const cli = (...argv: string[]) =>
  runCliOn({ db }, argv, {
    now: () => NOW,
    config: testConfig({ PARASOL_FLIGHT_CAP_DEFAULT: '250000' }),
    keys,
  });

async function json<T = any>(...argv: string[]): Promise<T> {
  const run = await cli('--json', ...argv);
  assert.equal(run.code, 0, `${argv.join(' ')} failed: ${run.err}`);
  return JSON.parse(run.out) as T;
}

function departure(): { local: string; at: Date } {
  const at = new Date(NOW.getTime() + (90 + crypto.randomInt(200)) * 86_400_000);
  at.setUTCHours(crypto.randomInt(6, 22), crypto.randomInt(60), 0, 0);
  return { local: at.toISOString().slice(0, 16), at };
}

describe('parasol limits', () => {
  it('sets a cap in major units, audited, and lists it', async () => {
    const set = await json('limits', 'set-cap', 'preproduction', 'nok', '60000.00');
    assert.deepEqual(set.cap, { environment: 'preproduction', currency: 'NOK', amount: 6_000_000 });
    const { caps } = await json('limits', 'caps');
    const cap = caps.find(
      (c: { environment: string; currency: string }) => c.environment === 'preproduction' && c.currency === 'NOK',
    );
    assert.equal(cap.amount, 6_000_000);
    assert.equal(cap.default, false);
    assert.equal(cap.updatedBy, 'operator:test');
    const text = await cli('limits', 'caps');
    assert.match(text.out, /preproduction\s+NOK\s+60000\.00 NOK\s+operator:test/);
    const audit = await db
      .selectFrom('audit_log')
      .selectAll()
      .where('entity', '=', 'exposure_cap')
      .where('entity_id', '=', 'preproduction/NOK')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.equal((audit.data as { amount: number }).amount, 6_000_000);
  });

  it('reads one decimal comma as the point, as every CLI amount', async () => {
    const set = await json('limits', 'set-cap', 'preproduction', 'NOK', '60000,50');
    assert.deepEqual(set.cap, { environment: 'preproduction', currency: 'NOK', amount: 6_000_050 });
    const thousands = await cli('limits', 'set-cap', 'preproduction', 'NOK', '60,000.00');
    assert.equal(thousands.code, 1);
  });

  it('refuses a cap that is not a positive amount of the currency, naming the argument', async () => {
    const run = await cli('limits', 'set-cap', 'preproduction', 'NOK', '12.345');
    assert.equal(run.code, 1);
    assert.match(run.err, /<amount>/);
    const zero = await cli('limits', 'set-cap', 'preproduction', 'NOK', '0');
    assert.equal(zero.code, 1);
    // a typing error on the currency would leave the intended one at its default
    const typo = await cli('limits', 'set-cap', 'preproduction', 'NKO', '10.00');
    assert.equal(typo.code, 1);
    assert.match(typo.err, /<currency>/);
    for (const code of ['EUROS', 'EU', '']) {
      const malformed = await cli('limits', 'set-cap', 'preproduction', code, '10.00');
      assert.equal(malformed.code, 1, code);
      assert.match(malformed.err, /<currency>/, `${code}: the currency is named`);
      assert.doesNotMatch(malformed.err, /<amount>/, `${code}: not the amount`);
    }
    const env = await cli('limits', 'set-cap', 'staging', 'NOK', '10.00');
    assert.equal(env.code, 1);
    assert.match(env.err, /<env>/);
  });

  it('shows the most exposed upcoming flights with their share of the cap', async () => {
    await json('limits', 'set-cap', 'preproduction', 'NOK', '60000.00');
    const d = departure();
    const key = {
      environment: 'preproduction' as const,
      currency: 'NOK',
      airline: 'SK',
      departureAirport: 'OSL',
      arrivalAirport: 'CPH',
      departureLocal: d.local,
    };
    assert.equal(await addExposure(db, key, d.at, 4_500_000, 6_000_000), 4_500_000);
    assert.equal(
      await addExposure(db, key, d.at, 1_600_000, 6_000_000),
      undefined,
      'the repository refuses what passes the cap',
    );
    const { flights } = await json('limits', 'flights', '--env', 'preproduction', '--limit', '500');
    const mine = flights.find(
      (f: { departureLocal: string; airline: string }) => f.airline === 'SK' && f.departureLocal === d.local,
    );
    assert.equal(mine.amount, 4_500_000);
    assert.equal(mine.cap, 6_000_000);
    assert.equal(mine.share, 0.75);
    const text = await cli('limits', 'flights', '--env', 'preproduction', '--limit', '500');
    assert.match(text.out, new RegExp(`SK OSL-CPH\\s+${d.local}\\s+1\\s+45000\\.00 NOK\\s+60000\\.00 NOK\\s+75\\.0 %`));
    assert.equal((await cli('limits', 'flights', '--limit', '0')).code, 1);
  });

  it('uses PARASOL_FLIGHT_CAP_DEFAULT where the operator set no cap (sandbox NOK here)', async () => {
    const d = departure();
    const key = {
      environment: 'sandbox' as const,
      currency: 'NOK',
      airline: 'SK',
      departureAirport: 'OSL',
      arrivalAirport: 'CPH',
      departureLocal: d.local,
    };
    assert.equal(await addExposure(db, key, d.at, 5_000_000, 25_000_000), 5_000_000);
    const { flights } = await json('limits', 'flights', '--env', 'sandbox', '--limit', '500');
    const mine = flights.find(
      (f: { departureLocal: string; airline: string }) => f.airline === 'SK' && f.departureLocal === d.local,
    );
    assert.equal(mine.cap, 25_000_000, '250,000 NOK');
    assert.equal(mine.share, 0.2);
  });

  it('orders flights by the share of their cap, not by amounts in different currencies (production here)', async () => {
    await json('limits', 'set-cap', 'production', 'EUR', '200000.00');
    const flight = async (currency: string, airline: string, amount: number) => {
      const d = departure();
      const key = {
        environment: 'production' as const,
        currency,
        airline,
        departureAirport: 'CDG',
        arrivalAirport: 'NRT',
        departureLocal: d.local,
      };
      assert.equal(await addExposure(db, key, d.at, amount, Number.MAX_SAFE_INTEGER), amount);
    };
    await flight('EUR', 'AF', 10_000_000); // 100,000.00 EUR of the 200,000.00 set: 50 %
    await flight('JPY', 'JL', 200_000); // 200,000 JPY of the default 250,000 (no minor unit): 80 %
    await flight('KWD', 'KU', 225_000_000); // 225,000.000 KWD of the default 250,000.000: 90 %
    const { flights } = await json('limits', 'flights', '--env', 'production', '--limit', '3');
    assert.deepEqual(
      flights.map((f: { currency: string; cap: number; share: number }) => [f.currency, f.cap, f.share]),
      [
        ['KWD', 250_000_000, 0.9],
        ['JPY', 250_000, 0.8],
        ['EUR', 20_000_000, 0.5],
      ],
    );
  });
});

describe('parasol limits flights: one line per flight, pages, filters', () => {
  it('shows a flight sold in two currencies on one line with each total against its own cap', async () => {
    await json('limits', 'set-cap', 'preproduction', 'NOK', '60000.00');
    const d = departure();
    const key = (currency: string) => ({
      environment: 'preproduction' as const,
      currency,
      airline: 'LX',
      departureAirport: 'ZRH',
      arrivalAirport: 'OSL',
      departureLocal: d.local,
    });
    await addExposure(db, key('NOK'), d.at, 1_200_000, 6_000_000); // 20 %
    await addExposure(db, key('SEK'), d.at, 7_500_000, 25_000_000); // 30 % of the default 250,000 SEK
    const { flights } = await json('limits', 'flights', '--env', 'preproduction', '--airline', 'lx', '--limit', '500');
    const mine = flights.filter((f: { departureLocal: string }) => f.departureLocal === d.local);
    assert.equal(mine.length, 1, 'one line');
    assert.equal(mine[0].currency, 'SEK', 'the line is ranked by its most used cap');
    assert.equal(mine[0].share, 0.3);
    assert.deepEqual(
      mine[0].currencies.map((c: { currency: string; amount: number; cap: number; share: number }) => [
        c.currency,
        c.amount,
        c.cap,
        c.share,
      ]),
      [
        ['SEK', 7_500_000, 25_000_000, 0.3],
        ['NOK', 1_200_000, 6_000_000, 0.2],
      ],
    );
    const text = await cli('limits', 'flights', '--env', 'preproduction', '--airline', 'LX', '--limit', '500');
    assert.match(
      text.out,
      new RegExp(
        `LX ZRH-OSL\\s+${d.local}\\s+1 \\+ 1\\s+75000\\.00 SEK \\+ 12000\\.00 NOK\\s+250000\\.00 SEK \\+ 60000\\.00 NOK\\s+30\\.0 % \\+ 20\\.0 %`,
      ),
    );
    const sek = await json('limits', 'flights', '--env', 'preproduction', '--airline', 'LX', '--currency', 'sek');
    assert.deepEqual(
      sek.flights.map((f: { currencies: { currency: string }[] }) => f.currencies.map((c) => c.currency)),
      [['SEK']],
      'a currency filter keeps that currency only',
    );
  });

  it('pages by keyset in a stable order (share, then departure), every flight once, and filters by date', async () => {
    const mine: { local: string; share: number }[] = [];
    for (const amount of [600_000, 1_800_000, 1_800_000, 3_000_000, 600_000, 4_200_000]) {
      const d = departure();
      await addExposure(
        db,
        {
          environment: 'preproduction',
          currency: 'NOK',
          airline: 'LO',
          departureAirport: 'WAW',
          arrivalAirport: 'OSL',
          departureLocal: d.local,
        },
        d.at,
        amount,
        6_000_000,
      );
      mine.push({ local: d.local, share: amount / 6_000_000 });
    }
    const all = (await json('limits', 'flights', '--env', 'preproduction', '--airline', 'LO', '--limit', '500'))
      .flights;
    const expected = [...mine].sort((a, b) => b.share - a.share || (a.local < b.local ? -1 : 1)).map((m) => m.local);
    assert.deepEqual(
      all.map((f: { departureLocal: string }) => f.departureLocal),
      expected,
    );
    const paged: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page: { flights: { departureLocal: string }[]; next: string | null } = await json(
        'limits',
        'flights',
        '--env',
        'preproduction',
        '--airline',
        'LO',
        '--limit',
        '4',
        ...(after ? ['--after', after] : []),
      );
      paged.push(...page.flights.map((f) => f.departureLocal));
      after = page.next;
      pages++;
    } while (after && pages < 10);
    assert.equal(pages, 2);
    assert.deepEqual(paged, expected, 'pages of 4: every flight once, in the order of the whole list');
    const text = await cli('limits', 'flights', '--env', 'preproduction', '--airline', 'LO', '--limit', '4');
    assert.match(text.out, /Next page: --after \S+/);

    const day = mine[2]!.local.slice(0, 10);
    const dated = await json('limits', 'flights', '--airline', 'LO', '--from', day, '--to', day);
    assert.ok(dated.flights.length >= 1);
    assert.ok(dated.flights.every((f: { departureLocal: string }) => f.departureLocal.startsWith(day)));

    // a cursor continues its own list: with other filters it is refused, not read as a place in them
    const next = (await json('limits', 'flights', '--env', 'preproduction', '--airline', 'LO', '--limit', '4')).next;
    for (const other of [
      ['--env', 'preproduction', '--airline', 'LX'],
      ['--airline', 'LO'],
      ['--env', 'preproduction', '--airline', 'LO', '--currency', 'NOK'],
      ['--env', 'preproduction', '--airline', 'LO', '--from', mine[0]!.local.slice(0, 10)],
    ]) {
      const refused = await cli('limits', 'flights', ...other, '--after', next);
      assert.equal(refused.code, 1, other.join(' '));
      assert.match(refused.err, /--after: is the next page of a list with other filters/, other.join(' '));
    }
    const sameList = await json(
      'limits',
      'flights',
      '--env',
      'preproduction',
      '--airline',
      'lo',
      '--limit',
      '9',
      '--after',
      next,
    );
    assert.deepEqual(
      sameList.flights.map((f: { departureLocal: string }) => f.departureLocal),
      expected.slice(4),
      'the same filters as typed otherwise (lower case, another page size): the same list',
    );

    const badCursor = await cli('limits', 'flights', '--after', 'not-a-page');
    assert.equal(badCursor.code, 1);
    assert.match(badCursor.err, /--after/);
    const badDate = await cli('limits', 'flights', '--from', '2027-02-30');
    assert.equal(badDate.code, 1);
    assert.match(badDate.err, /--from/);
  });
});

describe('parasol limits flights: pages through ties', () => {
  it('pages flights of the same share and departure in the order of their key, every one once', async () => {
    // one day months beyond the other tests' flights: three departures, three routes each, one amount
    const day = new Date(NOW.getTime() + 330 * 86_400_000).toISOString().slice(0, 10);
    const arrivals = ['OSL', 'BGO', 'TRD'];
    const flights: { local: string; arrival: string }[] = [];
    for (const time of ['09:00', '07:00', '08:00'])
      for (const arrival of arrivals) {
        const local = `${day}T${time}`;
        await addExposure(
          db,
          {
            environment: 'preproduction',
            currency: 'NOK',
            airline: 'LH',
            departureAirport: 'FRA',
            arrivalAirport: arrival,
            departureLocal: local,
          },
          new Date(`${local}:00Z`),
          1_200_000,
          6_000_000,
        );
        flights.push({ local, arrival });
      }
    const expected = flights
      .sort((a, b) => (a.local < b.local ? -1 : a.local > b.local ? 1 : a.arrival < b.arrival ? -1 : 1))
      .map((f) => `${f.local} ${f.arrival}`);
    const filter = ['--env', 'preproduction', '--airline', 'LH', '--from', day, '--to', day];
    const line = (f: { departureLocal: string; arrivalAirport: string }) => `${f.departureLocal} ${f.arrivalAirport}`;
    assert.deepEqual((await json('limits', 'flights', ...filter)).flights.map(line), expected);
    for (const limit of ['1', '2', '4']) {
      const paged: string[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        const page: { flights: { departureLocal: string; arrivalAirport: string }[]; next: string | null } = await json(
          'limits',
          'flights',
          ...filter,
          '--limit',
          limit,
          ...(after ? ['--after', after] : []),
        );
        paged.push(...page.flights.map(line));
        after = page.next;
        pages++;
      } while (after && pages < 20);
      assert.deepEqual(paged, expected, `pages of ${limit}: every flight once, none skipped at a tie`);
      assert.equal(pages, Math.ceil(9 / Number(limit)));
    }
  });
});

describe('parasol sales', () => {
  it('suspends with no end (until resumed), lists by state, overlaps, and a period that passed stops applying by itself', async () => {
    const day = 86_400_000;
    const openEnded = await json(
      'sales',
      'suspend',
      '--env',
      'preproduction',
      '--airline',
      'LO',
      '--from',
      new Date(NOW.getTime() + 10 * day).toISOString(),
      '--until-resumed',
      '--reason',
      'airline in administration',
    );
    assert.equal(openEnded.stopSale.endsAt, null, '--until-resumed: open-ended');
    const text = await cli(
      'sales',
      'suspend',
      '--env',
      'preproduction',
      '--airline',
      'LO',
      '--from',
      new Date(NOW.getTime() + 10 * day).toISOString(),
      '--until-resumed',
      '--reason',
      'airline in administration',
    );
    assert.match(
      text.out,
      /Already suspended: .*until sales are resumed/,
      'the same open-ended stop-sale, not a second',
    );
    // overlapping it: an airport stop-sale that started an hour ago and ends in 20 days
    const strike = await json(
      'sales',
      'suspend',
      '--env',
      'preproduction',
      '--airport',
      'WAW',
      '--from',
      new Date(NOW.getTime() - 3_600_000).toISOString(),
      '--until',
      new Date(NOW.getTime() + 20 * day).toISOString(),
      '--reason',
      'ATC strike',
    );
    const ids = (list: { stopSales: { id: string; state: string }[] }) =>
      list.stopSales
        .filter((s) => s.id === openEnded.stopSale.id || s.id === strike.stopSale.id)
        .map((s) => [s.id === openEnded.stopSale.id ? 'open-ended' : 'strike', s.state]);
    assert.deepEqual(ids(await json('sales', 'list')), [
      ['strike', 'current'],
      ['open-ended', 'future'],
    ]);
    assert.deepEqual(ids(await json('sales', 'list', '--state', 'current')), [['strike', 'current']]);
    assert.deepEqual(ids(await json('sales', 'list', '--state', 'future')), [['open-ended', 'future']]);
    assert.deepEqual(ids(await json('sales', 'list', '--state', 'past')), []);
    const listed = await cli('sales', 'list', '--state', 'future');
    // a future stop-sale already refuses the sales of its departures: it covers later departures
    assert.match(listed.out, new RegExp(`${openEnded.stopSale.id}.*until resumed\\s+covering later departures`));
    assert.match((await cli('sales', 'list')).out, new RegExp(`${strike.stopSale.id}.*covering departures now`));
    const both = await cli('sales', 'list', '--all', '--state', 'current');
    assert.equal(both.code, 1, '--all and --state: which one was meant is not guessed');
    assert.match(both.err, /--state: --all or --state, not both/);

    const leg = (at: Date) => ({
      airline: 'LO',
      departureAirport: 'WAW',
      arrivalAirport: 'OSL',
      departureLocal: at.toISOString().slice(0, 16),
      departureAt: at,
    });
    const covering = async (now: Date, at: Date) =>
      (
        await stopSalesAndCap(db, { after: now, environment: 'preproduction', currency: 'NOK', legs: [leg(at)] })
      ).stops.map((s) => s.id);
    // both cover a departure in 15 days: the one starting first answers (its reason in the 409)
    assert.deepEqual(await covering(NOW, new Date(NOW.getTime() + 15 * day)), [strike.stopSale.id]);
    // the open-ended one covers a departure years ahead
    assert.deepEqual(await covering(NOW, new Date(NOW.getTime() + 1500 * day)), [openEnded.stopSale.id]);
    // 30 days on, the strike's period has passed: listed as past, applying to nothing, without a job
    const later = new Date(NOW.getTime() + 30 * day);
    const inForceLater = await listStopSales(db, { now: later });
    assert.ok(!inForceLater.some((s) => s.id === strike.stopSale.id));
    assert.ok(inForceLater.some((s) => s.id === openEnded.stopSale.id));
    assert.ok((await listStopSales(db, { now: later, state: 'past' })).some((s) => s.id === strike.stopSale.id));
    assert.deepEqual(await covering(later, new Date(later.getTime() + day)), [openEnded.stopSale.id]);

    await json('sales', 'resume', openEnded.stopSale.id);
    assert.deepEqual(ids(await json('sales', 'list', '--state', 'past')), [['open-ended', 'past']]);
    assert.deepEqual(await covering(NOW, new Date(NOW.getTime() + 1500 * day)), []);
    await json('sales', 'resume', strike.stopSale.id);
  });

  it('suspends sales for a route over a period, lists the stop-sale, and resumes', async () => {
    const from = new Date(NOW.getTime() + 40 * 86_400_000).toISOString();
    const until = new Date(NOW.getTime() + 42 * 86_400_000).toISOString();
    const { stopSale } = await json(
      'sales',
      'suspend',
      '--env',
      'preproduction',
      '--airline',
      'sk',
      '--route',
      'osl-cph',
      '--from',
      from,
      '--until',
      until,
      '--reason',
      'ATC strike',
    );
    assert.equal(stopSale.environment, 'preproduction');
    assert.equal(stopSale.airline, 'SK');
    assert.equal(stopSale.departureAirport, 'OSL');
    assert.equal(stopSale.arrivalAirport, 'CPH');
    assert.equal(stopSale.startsAt, from);
    // the same command run again (a retry): the same stop-sale, not a second one resuming would leave
    const again = await json(
      'sales',
      'suspend',
      '--env',
      'preproduction',
      '--airline',
      'SK',
      '--route',
      'OSL-CPH',
      '--from',
      from,
      '--until',
      until,
      '--reason',
      'ATC strike',
    );
    assert.equal(again.stopSale.id, stopSale.id);
    assert.equal(again.alreadySuspended, true);
    const told = await cli(
      'sales',
      'suspend',
      '--env',
      'preproduction',
      '--airline',
      'SK',
      '--route',
      'OSL-CPH',
      '--from',
      from,
      '--until',
      until,
      '--reason',
      'ATC strike',
    );
    assert.match(told.out, new RegExp(`Already suspended: stop-sale ${stopSale.id} .*Nothing changed`));
    const listed = await json('sales', 'list');
    assert.ok(listed.stopSales.some((s: { id: string }) => s.id === stopSale.id));
    assert.match(
      (await cli('sales', 'list')).out,
      new RegExp(`${stopSale.id}\\s+preproduction\\s+airline SK, route OSL→CPH`),
    );

    const resumed = await json('sales', 'resume', stopSale.id);
    assert.ok(resumed.stopSale.resumedAt);
    assert.ok(!(await json('sales', 'list')).stopSales.some((s: { id: string }) => s.id === stopSale.id));
    assert.ok((await json('sales', 'list', '--all')).stopSales.some((s: { id: string }) => s.id === stopSale.id));
    assert.equal(
      (await json('sales', 'resume', stopSale.id)).stopSale.resumedAt,
      resumed.stopSale.resumedAt,
      'resuming twice changes nothing',
    );
    const audit = await db
      .selectFrom('audit_log')
      .select('action')
      .where('entity', '=', 'stop_sale')
      .where('entity_id', '=', stopSale.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audit.map((a) => a.action),
      ['created', 'resumed'],
    );
  });

  it(
    'two identical suspends at once make one stop-sale (PostgreSQL)',
    { skip: usingPostgres ? false : 'PGlite runs one transaction at a time' },
    async () => {
      const input = {
        environment: 'preproduction',
        airport: 'TRD',
        startsAt: new Date(NOW.getTime() + 60 * 86_400_000).toISOString(),
        endsAt: new Date(NOW.getTime() + 61 * 86_400_000).toISOString(),
        reason: `form sent twice ${crypto.randomUUID()}`,
      };
      // connections open beforehand, so that the suspends run side by side rather than one opening its own
      await Promise.all(Array.from({ length: 5 }, () => sql`SELECT pg_sleep(0.05)`.execute(db)));
      const stops = await Promise.all(Array.from({ length: 5 }, () => suspendSales(db, 'operator:test', input, NOW)));
      assert.equal(new Set(stops.map((s) => s.id)).size, 1, 'every suspend answers the first one’s stop-sale');
      const rows = await db.selectFrom('stop_sales').select('id').where('reason', '=', input.reason).execute();
      assert.equal(rows.length, 1, 'one stop-sale in the table');
    },
  );

  it('lists with --all the latest 1,000 stop-sales, not the oldest', async () => {
    const year = 86_400_000 * 365;
    await db
      .insertInto('stop_sales')
      .values(
        Array.from({ length: 1000 }, (_, i) => ({
          environment: 'preproduction' as const,
          airport: 'BGO',
          starts_at: new Date(NOW.getTime() - 3 * year + i * 60_000),
          ends_at: new Date(NOW.getTime() - 2 * year),
          reason: 'long past',
          created_by: 'operator:test',
        })),
      )
      .execute();
    const from = new Date(NOW.getTime() + 50 * 86_400_000).toISOString();
    const until = new Date(NOW.getTime() + 51 * 86_400_000).toISOString();
    const { stopSale } = await json(
      'sales',
      'suspend',
      '--env',
      'preproduction',
      '--airport',
      'BGO',
      '--from',
      from,
      '--until',
      until,
      '--reason',
      'the latest',
    );
    const { stopSales } = await json('sales', 'list', '--all');
    assert.equal(stopSales.length, 1000);
    assert.ok(
      stopSales.some((s: { id: string }) => s.id === stopSale.id),
      'the stop-sale just made is in the history',
    );
    const starts = stopSales.map((s: { startsAt: string }) => s.startsAt);
    assert.deepEqual(starts, [...starts].sort(), 'by start');
    assert.match(
      (await cli('sales', 'list', '--all')).out,
      /… and \d+ more \(older\), not listed\./,
      'the listing says it is capped',
    );
  });

  it('suspends one flight by its local departure, in every environment', async () => {
    const d = departure();
    const { stopSale } = await json(
      'sales',
      'suspend',
      '--airline',
      'SK',
      '--route',
      'OSL-CPH',
      '--departure',
      d.local,
      '--reason',
      'aircraft grounded',
    );
    assert.equal(stopSale.environment, 'all');
    // OSL is UTC+1 or +2: the period is the flight's departure minute
    assert.equal(new Date(stopSale.endsAt).getTime() - new Date(stopSale.startsAt).getTime(), 60_000);
    await cli('sales', 'resume', stopSale.id);
  });

  it('refuses a stop-sale without an end unless --until-resumed says so, and one with both', async () => {
    const future = (days: number) => new Date(NOW.getTime() + days * 86_400_000).toISOString();
    const forgotten = await cli('sales', 'suspend', '--airport', 'ORY', '--from', future(1), '--reason', 'strike');
    assert.equal(forgotten.code, 1, 'a forgotten end is not read as a stop-sale without one');
    assert.match(forgotten.err, /--until: is required .*or say until sales are resumed/);
    const both = await cli(
      'sales',
      'suspend',
      '--airport',
      'ORY',
      '--from',
      future(1),
      '--until',
      future(2),
      '--until-resumed',
      '--reason',
      'strike',
    );
    assert.equal(both.code, 1);
    assert.match(both.err, /--until-resumed: an end or until sales are resumed, not both/);
    const flight = await cli(
      'sales',
      'suspend',
      '--airline',
      'AF',
      '--route',
      'CDG-JFK',
      '--departure',
      future(3).slice(0, 16),
      '--until-resumed',
      '--reason',
      'grounded',
    );
    assert.equal(flight.code, 1, 'one flight is its departure minute');
    assert.match(flight.err, /--until-resumed: one flight/);
    const listed = await json('sales', 'list', '--state', 'all');
    assert.ok(!listed.stopSales.some((s: { reason: string }) => s.reason === 'strike' || s.reason === 'grounded'));
  });

  it('refuses a stop-sale without a scope, with an unknown code, a reversed or past period, naming the options', async () => {
    const future = (days: number) => new Date(NOW.getTime() + days * 86_400_000).toISOString();
    const none = await cli('sales', 'suspend', '--from', future(1), '--until', future(2), '--reason', 'x');
    assert.equal(none.code, 1);
    assert.match(none.err, /--airline/);
    const unknown = await cli(
      'sales',
      'suspend',
      '--airport',
      'QQQ',
      '--from',
      future(1),
      '--until',
      future(2),
      '--reason',
      'x',
    );
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /--airport/);
    const reversed = await cli(
      'sales',
      'suspend',
      '--airport',
      'ORY',
      '--from',
      future(2),
      '--until',
      future(1),
      '--reason',
      'x',
    );
    assert.equal(reversed.code, 1);
    assert.match(reversed.err, /--until/);
    const past = await cli(
      'sales',
      'suspend',
      '--airport',
      'ORY',
      '--from',
      future(-3),
      '--until',
      future(-2),
      '--reason',
      'x',
    );
    assert.equal(past.code, 1);
    const badRoute = await cli(
      'sales',
      'suspend',
      '--route',
      'ORY',
      '--from',
      future(1),
      '--until',
      future(2),
      '--reason',
      'x',
    );
    assert.equal(badRoute.code, 1);
    assert.match(badRoute.err, /--route/);
    // a date that does not exist is refused, not read as another one (30 February as 2 March)
    const year = NOW.getUTCFullYear() + 1;
    const noSuchDay = await cli(
      'sales',
      'suspend',
      '--airport',
      'ORY',
      '--from',
      `${year}-02-30T00:00Z`,
      '--until',
      `${year}-03-31T00:00Z`,
      '--reason',
      'x',
    );
    assert.equal(noSuchDay.code, 1);
    assert.match(noSuchDay.err, /--from: must be an ISO 8601 instant/);
    // 24:00 and an offset no zone has (the platform's -12:00 to +14:00) are typos, not instants
    for (const from of [`${year}-03-01T24:00Z`, `${year}-03-01T00:00-13:00`, `${year}-03-01T00:00+14:60`]) {
      const typo = await cli(
        'sales',
        'suspend',
        '--airport',
        'ORY',
        '--from',
        from,
        '--until',
        `${year}-03-31T00:00Z`,
        '--reason',
        'x',
      );
      assert.equal(typo.code, 1, from);
      assert.match(typo.err, /--from: must be an ISO 8601 instant/, from);
    }
    const offset = await json(
      'sales',
      'suspend',
      '--env',
      'preproduction',
      '--airport',
      'ORY',
      '--from',
      `${year}-03-01T00:00:30.5+14:00`,
      '--until',
      `${year}-03-31T00:00-12:00`,
      '--reason',
      `offsets ${crypto.randomUUID()}`,
    );
    assert.equal(offset.stopSale.startsAt, `${year}-02-28T10:00:30.500Z`, 'the offset applied, seconds kept');
    assert.equal(offset.stopSale.endsAt, `${year}-03-31T12:00:00.000Z`);
    await json('sales', 'resume', offset.stopSale.id);
    // one flight and a period: which would apply? Refused rather than one silently ignored
    const both = await cli(
      'sales',
      'suspend',
      '--airline',
      'AF',
      '--route',
      'CDG-JFK',
      '--departure',
      `${year}-03-01T10:30`,
      '--from',
      future(1),
      '--until',
      future(2),
      '--reason',
      'x',
    );
    assert.equal(both.code, 1);
    assert.match(both.err, /--from/);
    const blank = await cli(
      'sales',
      'suspend',
      '--airport',
      'ORY',
      '--from',
      future(1),
      '--until',
      future(2),
      '--reason',
      '  ',
    );
    assert.equal(blank.code, 1);
    assert.match(blank.err, /--reason: is required/, 'a blank reason is missing, not too long');
    const missing = await cli('sales', 'resume', crypto.randomUUID());
    assert.equal(missing.code, 1);
    assert.match(missing.err, /No stop-sale/);
  });
});
