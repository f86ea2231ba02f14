import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { correctVoidCause } from '../../src/claims/index.ts';
import { recordOperatorFlightEvent } from '../../src/monitoring/operator-flight-event.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  runCliOn,
  usingPostgres,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';

/**
 * The claim desk corrects a voided claim's cause (`parasol claims void-cause`, the claim page): the
 * leg follows (the opener reads it: `flight_data` lets an operator's flight event open the leg a new
 * claim, `other` never), audited with both causes, once per token; refused for a claim not voided
 * (`claim_not_voided`), for the cause it has (`void_cause_unchanged`), and once a new claim replaced
 * it (`claim_replaced`).
 */

const ADMIN = { email: 'ops-void-cause-tests@parasol.test', password: 'operator password 42' };
const REASON = 'Voided with the wrong cause: the airline record shows the flight landed on time';

describe('the claim desk corrects a void’s cause', () => {
  let t: TestApp;
  let partner: TestPartner;
  let operator: Browser;
  let seq = 7300 + (process.pid % 500);
  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password, PARASOL_WORKERS: 'off' },
    });
    partner = await createTestPartner(t.db);
    operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303, 'operator signs in');
  });
  after(() => t.close());

  const cli = (...argv: string[]) => runCliOn(t, ['--json', ...argv], { actor: 'operator:cli-test' });
  const codeOf = (res: { err: string }) => (JSON.parse(res.err) as { error: { code: string } }).error.code;
  const legOf = (claimNumber: string) =>
    t.db
      .selectFrom('contract_legs as l')
      .innerJoin('claims as cl', 'cl.leg_id', 'l.id')
      .select(['l.claim_void_cause', 'l.claim_voided_at'])
      .where('cl.claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
  const corrections = (claimNumber: string) =>
    t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'claim')
      .where('entity_id', '=', claimNumber)
      .where('action', '=', 'void_cause_corrected')
      .execute();
  const operatorEvent = async (c: { flightNumber: string; departureDate: string }) => {
    const res = await cli(
      'flights',
      'event',
      '--env',
      'sandbox',
      c.flightNumber,
      c.departureDate,
      '--status',
      'cancelled',
    );
    assert.equal(res.code, 0, res.err);
    return (JSON.parse(res.out) as { claimsOpened: { claimNumber: string; replaces: string | null }[] }).claimsOpened;
  };

  /** A flight insured, reported cancelled by the partner (sandbox), its claim voided for `cause`. */
  async function voidedClaim(cause: 'flight_data' | 'other') {
    const c = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}` });
    const reported = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(reported.status, 200, JSON.stringify(reported.body));
    const claimNumber = reported.body.claimsOpened[0].claimNumber as string;
    const voided = await cli('claims', 'void', claimNumber, '--reason', 'opened on a wrong report', '--cause', cause);
    assert.equal(voided.code, 0, voided.err);
    return { c, claimNumber };
  }

  async function desk(claimNumber: string) {
    const res = await operator.get(`/admin/claims/${claimNumber}`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    const actionToken = /name="actionToken" value="([^"]+)"/.exec(res.body)?.[1];
    assert.ok(actionToken, 'the page has a one-time token');
    return { body: res.body, form: { _csrf: csrfOf(res.body)!, actionToken } };
  }

  it('CLI: other → flight_data, once per token, audited with both; the operator’s event then replaces the claim, whose cause is then refused (claim_replaced)', async () => {
    const { c, claimNumber } = await voidedClaim('other');
    assert.deepEqual(await operatorEvent(c), [], 'voided for other: never replaced');
    const { claim_voided_at: voidedAt } = await legOf(claimNumber);

    const once = 'void-cause-once-token-0001';
    const args = ['claims', 'void-cause', claimNumber, '--cause', 'flight_data', '--reason', REASON, '--once', once];
    const done = await cli(...args);
    assert.equal(done.code, 0, done.err);
    assert.deepEqual(JSON.parse(done.out), { claimNumber, outcome: 'done' });
    const again = await cli(...args);
    assert.equal(again.code, 0, again.err);
    assert.equal(JSON.parse(again.out).outcome, 'replayed', 'the same token: nothing done again');
    const leg = await legOf(claimNumber);
    assert.equal(leg.claim_void_cause, 'flight_data', 'the leg follows');
    assert.equal(leg.claim_voided_at?.getTime(), voidedAt?.getTime(), 'the void’s time stays');
    const audited = await corrections(claimNumber);
    assert.equal(audited.length, 1, 'one audit row');
    assert.equal(audited[0]!.actor, 'operator:cli-test');
    assert.deepEqual(audited[0]!.data, { reason: REASON, from: 'other', to: 'flight_data' });
    const shown = await runCliOn(t, ['claims', 'show', claimNumber]);
    assert.match(shown.out, /voided for flight_data/, shown.out);

    // the cause it has already: refused
    const unchanged = await cli('claims', 'void-cause', claimNumber, '--cause', 'flight_data', '--reason', REASON);
    assert.equal(unchanged.code, 1, 'refused');
    assert.equal(codeOf(unchanged), 'void_cause_unchanged');

    // the opener reads the corrected cause: the operator's event opens the leg a new claim
    const [replacement] = await operatorEvent(c);
    assert.equal(replacement?.replaces, claimNumber, 'the new claim replaces the voided one');
    const replaced = await cli('claims', 'void-cause', claimNumber, '--cause', 'other', '--reason', REASON);
    assert.equal(replaced.code, 1, 'refused');
    assert.equal(codeOf(replaced), 'claim_replaced');
    assert.match(replaced.err, new RegExp(replacement!.claimNumber));
    assert.equal((await legOf(claimNumber)).claim_void_cause, 'flight_data', 'nothing changed');
    const replacedShown = await cli('claims', 'show', claimNumber);
    assert.deepEqual(JSON.parse(replacedShown.out).void, { cause: null, replacedBy: replacement!.claimNumber });

    // the replacement is live: not voided, nothing to correct
    const live = await cli('claims', 'void-cause', replacement!.claimNumber, '--cause', 'other', '--reason', REASON);
    assert.equal(codeOf(live), 'claim_not_voided');
    assert.equal((await corrections(claimNumber)).length, 1, 'refusals audit nothing');
  });

  it('CLI: flight_data → other: the operator’s event no longer opens the leg a new claim; --cause is required and checked', async () => {
    const { c, claimNumber } = await voidedClaim('flight_data');
    const missing = await cli('claims', 'void-cause', claimNumber, '--reason', REASON);
    assert.equal(missing.code, 2, 'a usage error without --cause');
    assert.match(missing.err, /--cause/);
    const weather = await cli('claims', 'void-cause', claimNumber, '--cause', 'weather', '--reason', REASON);
    assert.equal(codeOf(weather), 'validation_failed');
    assert.match(weather.err, /--cause/);
    const empty = await cli('claims', 'void-cause', claimNumber, '--cause', ' ', '--reason', REASON);
    assert.equal(codeOf(empty), 'validation_failed');
    const done = await cli(
      'claims',
      'void-cause',
      claimNumber,
      '--cause',
      'other',
      '--reason',
      'fraud found after all',
    );
    assert.equal(done.code, 0, done.err);
    assert.equal((await legOf(claimNumber)).claim_void_cause, 'other');
    assert.deepEqual(await operatorEvent(c), [], 'voided for other now: never replaced');
  });

  it('voiding a voided claim again: another cause is refused (claim_voided_for_other_cause, pointing to void-cause) and changes nothing; its own cause, none, or the same token: replayed', async () => {
    const once = `void-again-${process.pid}-${seq}`;
    const c = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}` });
    const reported = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    const claimNumber = reported.body.claimsOpened[0].claimNumber as string;
    const voidArgs = (cause: string, token: string) =>
      cli('claims', 'void', claimNumber, '--reason', REASON, '--cause', cause, '--once', token);
    const first = await voidArgs('other', once);
    assert.equal(JSON.parse(first.out).outcome, 'done', first.err);
    // the same token: a true replay, whatever the cause it now says
    const replay = await voidArgs('flight_data', once);
    assert.equal(replay.code, 0, replay.err);
    assert.equal(JSON.parse(replay.out).outcome, 'replayed', 'the same token: replayed');
    const other = await voidArgs('flight_data', `${once}-b`);
    assert.equal(other.code, 1, 'another cause, a new token: refused');
    assert.equal(codeOf(other), 'claim_voided_for_other_cause');
    assert.match(other.err, /parasol claims void-cause/, 'points to the correction');
    assert.equal((await legOf(claimNumber)).claim_void_cause, 'other', 'the cause stays');
    const same = await voidArgs('other', `${once}-c`);
    assert.equal(JSON.parse(same.out).outcome, 'replayed', 'its own cause: done already');
    const none = await cli('claims', 'void', claimNumber, '--reason', REASON);
    assert.equal(JSON.parse(none.out).outcome, 'replayed', 'no cause given: done already');
    assert.deepEqual(await operatorEvent(c), [], 'still other: never replaced');
  });

  it('a voided claim on a cancelled contract: its cause is not corrected (contract_cancelled), nothing changes', async () => {
    // voided for wrong flight data, the partner cancelled the contract for its full premium
    const { c, claimNumber } = await voidedClaim('flight_data');
    const cancelled = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: c.contractNumber, reason: 'customer_request' },
      partner.auth,
    );
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    // a fraud found afterwards: the refund stands, the cause is not turned into `other`
    const refused = await cli('claims', 'void-cause', claimNumber, '--cause', 'other', '--reason', REASON);
    assert.equal(refused.code, 1, 'refused');
    assert.equal(codeOf(refused), 'contract_cancelled');
    assert.match(refused.err, /premium refunded, as the void for wrong flight data allowed/);
    assert.match(refused.err, /claim desk to recover/);
    assert.equal((await legOf(claimNumber)).claim_void_cause, 'flight_data', 'nothing changed');
    assert.equal((await corrections(claimNumber)).length, 0, 'nothing audited');
  });

  it('the claim page: shows the cause, corrects it once per form; refusals at the top of the page; a replaced claim offers no form', async () => {
    const { c, claimNumber } = await voidedClaim('other');
    const { body, form } = await desk(claimNumber);
    assert.match(body, /id="claim-void">For another cause/);
    assert.match(body, /id="desk-void-cause"/);
    assert.doesNotMatch(body, /id="desk-void"/, 'voided: no void form');
    // the other cause is offered checked
    assert.match(body, /id="desk-void-cause-cause-flight-data" name="cause" value="flight_data" checked/);

    const done = await operator.post(`/admin/claims/${claimNumber}/void-cause`, {
      ...form,
      reason: REASON,
      cause: 'flight_data',
    });
    assert.equal(done.statusCode, 303, done.body.slice(0, 300));
    assert.equal(done.headers.location, `/admin/claims/${claimNumber}?done=done`);
    const again = await operator.post(`/admin/claims/${claimNumber}/void-cause`, {
      ...form,
      reason: REASON,
      cause: 'flight_data',
    });
    assert.equal(again.headers.location, `/admin/claims/${claimNumber}?done=replayed`, 'a double submit: replayed');
    assert.equal((await legOf(claimNumber)).claim_void_cause, 'flight_data');
    assert.equal((await corrections(claimNumber)).length, 1);

    const next = await desk(claimNumber);
    assert.match(next.body, /id="claim-void">For wrong flight data/);
    const unchanged = await operator.post(`/admin/claims/${claimNumber}/void-cause`, {
      ...next.form,
      reason: REASON,
      cause: 'flight_data',
    });
    assert.equal(unchanged.statusCode, 409);
    assert.match(
      unchanged.body,
      new RegExp(`role="alert"><ul><li>Claim ${claimNumber} was voided for flight_data already.</li>`),
      'the refusal says why (void_cause_unchanged)',
    );
    const noCause = await operator.post(`/admin/claims/${claimNumber}/void-cause`, {
      ...(await desk(claimNumber)).form,
      reason: REASON,
    });
    assert.equal(noCause.statusCode, 422);

    const [replacement] = await operatorEvent(c);
    assert.equal(replacement?.replaces, claimNumber);
    const replaced = await desk(claimNumber);
    assert.match(replaced.body, new RegExp(`id="claim-void">Replaced by ${replacement!.claimNumber}`));
    assert.doesNotMatch(replaced.body, /id="desk-void-cause"/, 'replaced: no form');
    const refused = await operator.post(`/admin/claims/${claimNumber}/void-cause`, {
      ...replaced.form,
      reason: REASON,
      cause: 'other',
    });
    assert.equal(refused.statusCode, 409);
    assert.match(
      refused.body,
      new RegExp(`role="alert"><ul><li>Claim ${claimNumber} was replaced by ${replacement!.claimNumber}:`),
      'the refusal says why (claim_replaced)',
    );
    assert.equal((await legOf(claimNumber)).claim_void_cause, 'flight_data');
    // a live claim's page offers no correction
    assert.doesNotMatch((await desk(replacement!.claimNumber)).body, /id="desk-void-cause"/);
  });
});

describe(
  'a correction to other and an operator’s event on the same leg, concurrently (PostgreSQL)',
  { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite runs one transaction at a time' },
  () => {
    let t: TestApp;
    let partner: TestPartner;
    let seq = 7900 + (process.pid % 500);
    before(async () => {
      t = await buildTestApp({ env: { PARASOL_WORKERS: 'off' } });
      partner = await createTestPartner(t.db);
    });
    after(() => t.close());

    it('never a replacement standing on a leg marked other: either the event replaced the claim and the correction is refused, or the correction won and the event opened nothing (8 rounds)', async () => {
      const deps = { db: t.db, jobs: t.app.parasol.jobs, keys: t.app.parasol.keys, now: () => new Date() };
      for (let round = 0; round < 8; round += 1) {
        const c = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}` });
        const reported = await post(
          t.app,
          `${FLIGHT}/claims`,
          { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
          partner.auth,
        );
        const claimNumber = reported.body.claimsOpened[0].claimNumber as string;
        const voided = await runCliOn(t, [
          '--json',
          'claims',
          'void',
          claimNumber,
          '--reason',
          REASON,
          '--cause',
          'flight_data',
        ]);
        assert.equal(voided.code, 0, voided.err);

        const [corrected, event] = await Promise.allSettled([
          correctVoidCause(deps, {
            claimNumber,
            actor: 'operator:test',
            reason: REASON,
            actionToken: `void-cause-race-${process.pid}-${round}`,
            cause: 'other',
          }),
          recordOperatorFlightEvent(
            deps,
            {
              environment: 'sandbox',
              flightNumber: c.flightNumber,
              departureDate: c.departureDate,
              status: 'cancelled',
            },
            'operator:test',
          ),
        ]);
        assert.equal(event.status, 'fulfilled', `round ${round}: the event succeeds`);
        const opened = event.status === 'fulfilled' ? event.value.claimsOpened.length : -1;
        const leg = await t.db
          .selectFrom('contract_legs as l')
          .innerJoin('claims as cl', 'cl.leg_id', 'l.id')
          .select('l.claim_void_cause')
          .where('cl.claim_number', '=', claimNumber)
          .executeTakeFirstOrThrow();
        if (opened === 1) {
          assert.equal(corrected.status, 'rejected', `round ${round}: replaced first, the correction is refused`);
          assert.equal(
            corrected.status === 'rejected' ? (corrected.reason as { code?: string }).code : undefined,
            'claim_replaced',
            `round ${round}: claim_replaced`,
          );
          assert.equal(leg.claim_void_cause, 'flight_data', `round ${round}: the leg keeps flight_data`);
        } else {
          assert.equal(opened, 0, `round ${round}: nothing opened`);
          assert.equal(corrected.status, 'fulfilled', `round ${round}: corrected first`);
          assert.equal(leg.claim_void_cause, 'other', `round ${round}: the leg says other`);
        }
      }
    });
  },
);
