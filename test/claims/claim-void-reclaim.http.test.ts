import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openClaimsForFlightEvent } from '../../src/claims/open-claims.ts';
import { recordOperatorFlightEvent } from '../../src/monitoring/operator-flight-event.ts';
import {
  allClaims,
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  runCliOn,
  usingPostgres,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * A claim the desk voided (opened on wrong flight data) does not bar its leg for ever: an operator who
 * records the flight's true outcome (`parasol flights event`) opens the leg a new claim — a new
 * number, its evidence and audit naming the voided one, its SMS link, `claim.opened`, the contract
 * active again — while the monitoring, a partner's report or a repeated event open nothing more
 * (migration 0057: one claim not voided per leg).
 */

const REASON = 'Opened on wrong flight data: the provider reported a cancellation by mistake';

/** The claim's leg departed an hour ago (its departure date kept): a void then completes a one-way contract. */
async function departed(t: TestApp, claimNumber: string) {
  await t.db
    .updateTable('contract_legs')
    .set({ departure_at: new Date(Date.now() - 3_600_000) })
    .where('id', '=', t.db.selectFrom('claims').select('leg_id').where('claim_number', '=', claimNumber))
    .execute();
}

describe('a voided claim’s leg gets a new claim from the operator’s event only', () => {
  let t: TestApp;
  let partner: TestPartner;
  let seq = 5100 + (process.pid % 500);
  before(async () => {
    t = await buildTestApp({
      env: {
        PARASOL_JOB_POLL_SECONDS: '1',
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on',
      },
    });
    partner = await createTestPartner(t.db);
    const endpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...partner.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/hooks' },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
  });
  after(() => t.close());

  const cli = (...argv: string[]) => runCliOn(t, ['--json', ...argv], { actor: 'operator:cli-test' });
  const messagesOf = async (contractNumber: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
      headers: partner.auth,
    });
    assert.equal(res.statusCode, 200);
    return (JSON.parse(res.body) as { messages: { body: string; link: string | null }[] }).messages;
  };
  const openedEventsOf = async (claimNumber: string) =>
    (await t.db.selectFrom('webhook_events').select('payload').where('type', '=', 'claim.opened').execute())
      .map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).data)
      .filter((d: { claimNumber: string }) => d.claimNumber === claimNumber);
  const claimsOfContract = (contractNumber: string) =>
    t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select(['cl.claim_number', 'cl.status', 'cl.leg_id', 'cl.evidence', 'c.status as contract_status'])
      .where('c.contract_number', '=', contractNumber)
      .orderBy('cl.claim_number')
      .execute();
  const auditOf = (claimNumber: string, action: string) =>
    t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'claim')
      .where('entity_id', '=', claimNumber)
      .where('action', '=', action)
      .execute();
  const operatorEvent = async (c: { flightNumber: string; departureDate: string }, status = 'cancelled') => {
    const res = await cli('flights', 'event', '--env', 'sandbox', c.flightNumber, c.departureDate, '--status', status);
    assert.equal(res.code, 0, res.err);
    return JSON.parse(res.out) as {
      claimsOpened: { claimNumber: string; replaces: string | null }[];
      contractsReopened: string[];
      claimsNotChanged: { claimNumber: string }[];
    };
  };

  /**
   * A flight insured and reported cancelled by the partner (sandbox), its claim voided by the desk
   * for wrong flight data (`--cause flight_data`), or for `cause` (none: the default, `other`), once
   * its leg has departed (a void ahead leaves the leg not over); with a return flight not decided yet,
   * the contract stays active.
   */
  async function voidedClaim(options: { roundTrip?: boolean; cause?: string | null } = {}) {
    const c = await insureFlight(t.app, partner, {
      flightNumber: `AF${seq++}`,
      ...(options.roundTrip ? { returnFlight: `AF${seq++}` } : {}),
    });
    const reported = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(reported.status, 200, JSON.stringify(reported.body));
    const claimNumber = reported.body.claimsOpened[0].claimNumber as string;
    // the customer has the claim's link when the desk voids it
    const [first] = await eventually(async () => {
      const m = (await messagesOf(c.contractNumber)).filter((x) => x.link);
      return m.length ? m : undefined;
    });
    await departed(t, claimNumber);
    const cause = options.cause === undefined ? 'flight_data' : options.cause;
    const voided = await cli('claims', 'void', claimNumber, '--reason', REASON, ...(cause ? ['--cause', cause] : []));
    assert.equal(voided.code, 0, voided.err);
    assert.equal(JSON.parse(voided.out).outcome, 'done');
    const [claim] = await claimsOfContract(c.contractNumber);
    assert.deepEqual([claim!.status, claim!.contract_status], ['voided', options.roundTrip ? 'active' : 'completed']);
    return { c, claimNumber, link: first!.link! };
  }

  it('the monitoring and a partner’s report saying again what the desk voided open nothing (the contract still active: a return flight)', async () => {
    const { c, claimNumber } = await voidedClaim({ roundTrip: true });
    const monitoring = await openClaimsForFlightEvent(
      { db: t.db, jobs: t.app.parasol.jobs, now: () => new Date() },
      {
        environment: 'sandbox',
        flightNumber: c.flightNumber,
        departureDate: c.departureDate,
        status: 'cancelled',
        source: 'monitoring:simulator',
      },
    );
    assert.deepEqual(monitoring, []);
    const report = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(report.status, 200, JSON.stringify(report.body));
    assert.deepEqual(report.body.claimsOpened, []);
    const claims = await claimsOfContract(c.contractNumber);
    assert.deepEqual(
      claims.map((x) => [x.claim_number, x.status, x.contract_status]),
      [[claimNumber, 'voided', 'active']],
    );
  });

  it('the operator’s event: a new claim replacing the voided one — SMS link, claim.opened, both in /getclaims, contract reopened; repeated: nothing more', async () => {
    const { c, claimNumber: voidedNumber, link: voidedLink } = await voidedClaim();
    const first = await operatorEvent(c);
    assert.equal(first.claimsOpened.length, 1);
    const newNumber = first.claimsOpened[0]!.claimNumber;
    assert.notEqual(newNumber, voidedNumber);
    assert.equal(first.claimsOpened[0]!.replaces, voidedNumber);
    assert.deepEqual(first.contractsReopened, [c.contractNumber]);
    assert.deepEqual(first.claimsNotChanged, [], 'the voided claim is not one to change');

    const claims = await claimsOfContract(c.contractNumber);
    assert.deepEqual(
      claims.map((x) => x.claim_number),
      [voidedNumber, newNumber],
    );
    assert.equal(claims[0]!.status, 'voided');
    assert.notEqual(claims[1]!.status, 'voided');
    assert.equal(claims[0]!.leg_id, claims[1]!.leg_id, 'the same leg');
    assert.equal(claims[1]!.contract_status, 'active');
    const evidence = claims[1]!.evidence as { source: string; replaces: string; reportedBy: string };
    assert.equal(evidence.source, 'operator');
    assert.equal(evidence.replaces, voidedNumber);
    // each trail names the other
    const replaces = await auditOf(newNumber, 'claim_replaces_voided');
    assert.equal(replaces.length, 1);
    assert.equal((replaces[0]!.data as { replaces: string }).replaces, voidedNumber);
    const replaced = await auditOf(voidedNumber, 'claim_replaced');
    assert.equal((replaced[0]!.data as { replacedBy: string }).replacedBy, newNumber);

    // the customer gets the new claim's link, and it opens (the voided claim's stays closed)
    const newLinks = await eventually(async () => {
      const m = (await messagesOf(c.contractNumber)).filter((x) => x.link && x.link !== voidedLink);
      return m.length ? m : undefined;
    });
    assert.equal(newLinks.length, 1);
    const page = await t.app.inject({ method: 'GET', url: new URL(newLinks[0]!.link!).pathname });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /name="iban"/);
    const closed = await t.app.inject({ method: 'GET', url: new URL(voidedLink).pathname });
    assert.equal(closed.statusCode, 410);
    assert.equal((await claimsOfContract(c.contractNumber))[1]!.status, 'awaiting_bank_details');

    // partners: claim.opened for the new one, and both claims listed
    const opened = await openedEventsOf(newNumber);
    assert.equal(opened.length, 1);
    const listed = await allClaims(t.app, partner, { contractNumber: c.contractNumber });
    assert.deepEqual(
      listed.map((x) => [x.claimNumber, x.status]).sort(),
      [
        [voidedNumber, 'voided'],
        [newNumber, 'awaiting_bank_details'],
      ].sort(),
    );
    // the new claim's evidence names the voided one; no other claim's evidence has `replaces`
    const evidenceOf = (n: string) => listed.find((x) => x.claimNumber === n)!.evidence;
    assert.equal(evidenceOf(newNumber).replaces, voidedNumber);
    assert.equal('replaces' in evidenceOf(voidedNumber), false);

    // the same event again, and the monitoring: nothing more
    const again = await operatorEvent(c);
    assert.deepEqual(again.claimsOpened, []);
    assert.deepEqual(again.contractsReopened, []);
    assert.deepEqual(again.claimsNotChanged, []);
    const monitoring = await openClaimsForFlightEvent(
      { db: t.db, jobs: t.app.parasol.jobs, now: () => new Date() },
      {
        environment: 'sandbox',
        flightNumber: c.flightNumber,
        departureDate: c.departureDate,
        status: 'cancelled',
        source: 'monitoring:simulator',
      },
    );
    assert.deepEqual(monitoring, []);
    assert.equal((await claimsOfContract(c.contractNumber)).length, 2);
    assert.equal((await openedEventsOf(newNumber)).length, 1);
  });

  it('an event that pays nothing opens nothing and lists nothing; the new claim voided in turn is replaced again, naming the latest', async () => {
    const { c, claimNumber: firstNumber } = await voidedClaim();
    const onTime = await operatorEvent(c, 'on_time');
    assert.deepEqual(onTime.claimsOpened, []);
    assert.deepEqual(onTime.claimsNotChanged, [], 'a voided claim is never listed for the desk');

    const second = (await operatorEvent(c)).claimsOpened[0]!;
    assert.equal(second.replaces, firstNumber);
    assert.equal(
      (await cli('claims', 'void', second.claimNumber, '--reason', REASON, '--cause', 'flight_data')).code,
      0,
    );
    const third = await operatorEvent(c);
    assert.equal(third.claimsOpened.length, 1);
    assert.equal(third.claimsOpened[0]!.replaces, second.claimNumber);
    const statuses = (await claimsOfContract(c.contractNumber)).map((x) => x.status);
    assert.deepEqual(statuses.slice(0, 2), ['voided', 'voided']);
    assert.equal(statuses.length, 3);
    assert.notEqual(statuses[2], 'voided');
    // the latest void's cause counts: the third voided for fraud is never replaced
    const fraud = await cli('claims', 'void', third.claimsOpened[0]!.claimNumber, '--reason', 'fraud found');
    assert.equal(fraud.code, 0, fraud.err);
    assert.deepEqual((await operatorEvent(c)).claimsOpened, []);
    assert.equal((await claimsOfContract(c.contractNumber)).length, 3);
  });

  it('a claim voided for anything else (--cause other, the default) is never replaced, whoever reports the flight; the cause is audited and kept on the leg', async () => {
    for (const cause of ['other', null]) {
      const { c, claimNumber } = await voidedClaim({ cause });
      const audited = await auditOf(claimNumber, 'claim_voided');
      assert.equal((audited[0]!.data as { cause: string }).cause, 'other');
      const leg = await t.db
        .selectFrom('contract_legs as l')
        .innerJoin('claims as cl', 'cl.leg_id', 'l.id')
        .select(['l.claim_void_cause', 'l.claim_voided_at'])
        .where('cl.claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
      assert.equal(leg.claim_void_cause, 'other');
      assert.ok(leg.claim_voided_at, 'the leg says when its claim was voided');
      for (const status of ['cancelled', 'delayed --delay 200', 'diverted']) {
        const [s, ...rest] = status.split(' ');
        const res = await cli(
          'flights',
          'event',
          '--env',
          'sandbox',
          c.flightNumber,
          c.departureDate,
          '--status',
          s!,
          ...rest,
        );
        assert.equal(res.code, 0, res.err);
        assert.deepEqual(JSON.parse(res.out).claimsOpened, [], `${cause ?? 'default'}: ${status}`);
      }
      const claims = await claimsOfContract(c.contractNumber);
      assert.deepEqual(
        claims.map((x) => [x.claim_number, x.status, x.contract_status]),
        [[claimNumber, 'voided', 'completed']],
      );
    }
  });

  it('an unknown cause is refused (validation_failed, --cause) and voids nothing', async () => {
    const c = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}` });
    const reported = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    const claimNumber = reported.body.claimsOpened[0].claimNumber as string;
    const res = await cli('claims', 'void', claimNumber, '--reason', REASON, '--cause', 'weather');
    assert.equal(res.code, 1);
    assert.equal(JSON.parse(res.err).error.code, 'validation_failed');
    assert.match(res.err, /--cause/);
    assert.notEqual((await claimsOfContract(c.contractNumber))[0]!.status, 'voided');
  });

  it('migration 0057’s repair: a contract completed with a leg still to fly (the old completion bug) is active again, audited; others stay completed', async () => {
    const { c: roundTrip } = await voidedClaim({ roundTrip: true });
    const { c: oneWay } = await voidedClaim();
    // returns that departed 2 days ago (within the planner's 7-day look-back: watched again) and 10 days ago (not)
    const { c: recent } = await voidedClaim({ roundTrip: true });
    const { c: old } = await voidedClaim({ roundTrip: true });
    const day = 24 * 3_600_000;
    for (const [c, daysAgo] of [
      [recent, 2],
      [old, 10],
    ] as const)
      await t.db
        .updateTable('contract_legs')
        .set({ departure_at: new Date(Date.now() - daysAgo * day) })
        .where(
          'contract_id',
          '=',
          t.db.selectFrom('contracts').select('id').where('contract_number', '=', c.contractNumber),
        )
        .where('id', 'not in', t.db.selectFrom('claims').select('leg_id'))
        .execute();
    // as the old completion left them: completed with their return not decided
    await t.db
      .updateTable('contracts')
      .set({ status: 'completed' })
      .where('contract_number', 'in', [roundTrip.contractNumber, recent.contractNumber, old.contractNumber])
      .execute();
    const migration = readFileSync(new URL('../../migrations/0057_claim_per_live_leg.sql', import.meta.url), 'utf8');
    const repair = migration.slice(migration.indexOf('-- One-off repair'));
    await sql.raw(repair).execute(t.db);
    const statusOf = async (contractNumber: string) =>
      (
        await t.db
          .selectFrom('contracts')
          .select('status')
          .where('contract_number', '=', contractNumber)
          .executeTakeFirstOrThrow()
      ).status;
    assert.equal(await statusOf(roundTrip.contractNumber), 'active');
    assert.equal(await statusOf(oneWay.contractNumber), 'completed', 'every leg over');
    assert.equal(await statusOf(recent.contractNumber), 'active', 'its return departed within the look-back');
    assert.equal(await statusOf(old.contractNumber), 'completed', 'its return departed before the look-back');
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'contract')
      .where('entity_id', '=', roundTrip.contractNumber)
      .where('action', '=', 'reopened')
      .execute();
    assert.deepEqual(
      audited.map((a) => [a.actor, (a.data as { reason: string }).reason]),
      [['system', 'completion_bug']],
    );
    // run again: nothing more
    await sql.raw(repair).execute(t.db);
    assert.equal(
      (
        await t.db
          .selectFrom('audit_log')
          .select('id')
          .where('entity_id', '=', roundTrip.contractNumber)
          .where('action', '=', 'reopened')
          .execute()
      ).length,
      1,
    );
  });

  it('the database holds one claim not voided per leg, whatever writes it', async () => {
    const { c } = await voidedClaim();
    const [voided] = await claimsOfContract(c.contractNumber);
    await operatorEvent(c);
    const [, live] = await claimsOfContract(c.contractNumber);
    const copy = t.db
      .insertInto('claims')
      .columns([
        'claim_number',
        'partner_id',
        'environment',
        'contract_id',
        'leg_id',
        'reason',
        'event',
        'status',
        'compensation_amount',
        'currency',
        'evidence',
      ])
      .expression((eb) =>
        eb
          .selectFrom('claims')
          .select([
            eb.val('CLM-99999999').as('claim_number'),
            'partner_id',
            'environment',
            'contract_id',
            'leg_id',
            'reason',
            'event',
            eb.val('opened').as('status'),
            'compensation_amount',
            'currency',
            'evidence',
          ])
          .where('claim_number', '=', voided!.claim_number),
      );
    await assert.rejects(copy.execute(), /claims_live_leg_key/);
    assert.equal(live!.leg_id, voided!.leg_id);
  });
});

describe(
  'two operator events on a voided claim’s leg, concurrently (PostgreSQL)',
  { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite runs one transaction at a time' },
  () => {
    let t: TestApp;
    let partner: TestPartner;
    let seq = 5700 + (process.pid % 500);
    before(async () => {
      t = await buildTestApp({ env: { PARASOL_WORKERS: 'off' } });
      partner = await createTestPartner(t.db);
    });
    after(() => t.close());

    it('exactly one new claim, the contract reopened once (8 rounds)', async () => {
      const deps = { db: t.db, jobs: t.app.parasol.jobs, now: () => new Date() };
      for (let round = 0; round < 8; round += 1) {
        const c = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}` });
        const reported = await post(
          t.app,
          `${FLIGHT}/claims`,
          { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
          partner.auth,
        );
        const voidedNumber = reported.body.claimsOpened[0].claimNumber as string;
        await departed(t, voidedNumber);
        const voided = await runCliOn(t, [
          '--json',
          'claims',
          'void',
          voidedNumber,
          '--reason',
          REASON,
          '--cause',
          'flight_data',
        ]);
        assert.equal(voided.code, 0, voided.err);

        const event = () =>
          recordOperatorFlightEvent(
            deps,
            {
              environment: 'sandbox',
              flightNumber: c.flightNumber,
              departureDate: c.departureDate,
              status: 'cancelled',
            },
            'operator:test',
          );
        const results = await Promise.allSettled([event(), event()]);
        const failed = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason));
        assert.deepEqual(failed, [], `round ${round}: both events succeed`);
        const [a, b] = results.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
        assert.equal(a!.claimsOpened.length + b!.claimsOpened.length, 1, `round ${round}: one new claim`);
        assert.deepEqual(
          [...a!.contractsReopened, ...b!.contractsReopened],
          [c.contractNumber],
          `round ${round}: reopened once`,
        );
        const claims = await t.db
          .selectFrom('claims as cl')
          .innerJoin('contracts as k', 'k.id', 'cl.contract_id')
          .select(['cl.status'])
          .where('k.contract_number', '=', c.contractNumber)
          .orderBy('cl.claim_number')
          .execute();
        assert.deepEqual(
          claims.map((x) => x.status),
          ['voided', 'opened'],
          `round ${round}: the voided claim and one live claim`,
        );
      }
    });
  },
);

describe(
  'a void committing while a partner’s report or an operator’s event opens claims on its flight (PostgreSQL)',
  { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite runs one transaction at a time' },
  () => {
    let t: TestApp;
    let partner: TestPartner;
    let seq = 6300 + (process.pid % 500);
    before(async () => {
      t = await buildTestApp({ env: { PARASOL_WORKERS: 'off' } });
      partner = await createTestPartner(t.db);
    });
    after(() => t.close());

    const blocked = async () =>
      (
        await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0`.execute(t.db)
      ).rows[0]!.n;
    const report = (c: { flightNumber: string; departureDate: string }) =>
      post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
        partner.auth,
      );
    /** A round trip (its return still to fly: the contract stays active once its outbound claim is voided) with its outbound claim. */
    async function claimed() {
      const c = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}`, returnFlight: `AF${seq++}` });
      const reported = await report(c);
      assert.equal(reported.status, 200, JSON.stringify(reported.body));
      const claimNumber = reported.body.claimsOpened[0].claimNumber as string;
      const { leg_id: legId } = await t.db
        .selectFrom('claims')
        .select('leg_id')
        .where('claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
      return { c, claimNumber, legId };
    }
    const claimsOfLeg = async (legId: string) =>
      (
        await t.db
          .selectFrom('claims')
          .select(['claim_number', 'status', 'evidence'])
          .where('leg_id', '=', legId)
          .orderBy('claim_number')
          .execute()
      ).map((x) => ({ ...x, replaces: (x.evidence as { replaces?: string }).replaces ?? null }));
    const voidIt = (claimNumber: string, cause: string) =>
      runCliOn(t, ['--json', 'claims', 'void', claimNumber, '--reason', REASON, '--cause', cause]);

    /**
     * `first` then `second` started while a transaction holds the outbound leg (as a slow statement
     * would), each waiting there or behind the other; then the leg is released and both finish.
     */
    async function interleave<A, B>(legId: string, first: () => Promise<A>, second: () => Promise<B>) {
      let a: Promise<A> | undefined;
      let b: Promise<B> | undefined;
      await t.db.transaction().execute(async (trx) => {
        await sql`SELECT 1 FROM contract_legs WHERE id = ${legId} FOR NO KEY UPDATE`.execute(trx);
        a = first();
        a.catch(() => {});
        await eventually(async () => ((await blocked()) >= 1 ? true : undefined));
        let settled = false;
        b = second();
        b.then(
          () => (settled = true),
          () => (settled = true),
        );
        // the second waits too (for the leg, or for the first's contract lock) — or, were it to take
        // no lock the first holds, is done already: then the assertions below tell what it did
        await eventually(async () => (settled || (await blocked()) >= 2 ? true : undefined));
      });
      return Promise.all([a!, b!]);
    }

    it('the partner’s report started first (its snapshot before the void): no new claim on the voided leg', async () => {
      const { c, claimNumber, legId } = await claimed();
      const [reported, voided] = await interleave(
        legId,
        () => report(c),
        () => voidIt(claimNumber, 'other'),
      );
      assert.equal(reported.status, 200, JSON.stringify(reported.body));
      assert.equal(voided.code, 0, voided.err);
      assert.deepEqual(reported.body.claimsOpened, []);
      assert.deepEqual(
        (await claimsOfLeg(legId)).map((x) => x.status),
        ['voided'],
        'never a live claim on the voided leg',
      );
    });

    it('the void started first: the report waits for it, re-reads the leg and opens nothing', async () => {
      const { c, claimNumber, legId } = await claimed();
      const [voided, reported] = await interleave(
        legId,
        () => voidIt(claimNumber, 'flight_data'),
        () => report(c),
      );
      assert.equal(voided.code, 0, voided.err);
      assert.equal(reported.status, 200, JSON.stringify(reported.body));
      assert.deepEqual(reported.body.claimsOpened, []);
      assert.deepEqual(
        (await claimsOfLeg(legId)).map((x) => x.status),
        ['voided'],
      );
    });

    it('a flight_data void, then an operator’s event waiting for it: one new claim, naming the voided one', async () => {
      const { c, claimNumber, legId } = await claimed();
      const [voided, event] = await interleave(
        legId,
        () => voidIt(claimNumber, 'flight_data'),
        () =>
          recordOperatorFlightEvent(
            { db: t.db, jobs: t.app.parasol.jobs, now: () => new Date() },
            {
              environment: 'sandbox',
              flightNumber: c.flightNumber,
              departureDate: c.departureDate,
              status: 'cancelled',
            },
            'operator:test',
          ),
      );
      assert.equal(voided.code, 0, voided.err);
      assert.equal(event.claimsOpened.length, 1);
      assert.equal(event.claimsOpened[0]!.replaces, claimNumber);
      const claims = await claimsOfLeg(legId);
      assert.deepEqual(
        claims.map((x) => [x.status, x.replaces]),
        [
          ['voided', null],
          ['opened', claimNumber],
        ],
      );
    });
  },
);
