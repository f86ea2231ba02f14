import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkFlightWatch } from '../../src/monitoring/check-flight.ts';
import { planWatches } from '../../src/monitoring/plan-watches.ts';
import { flightProvidersFromConfig } from '../../src/monitoring/providers.ts';
import { saveSimulatedFlightEvent } from '../../src/monitoring/simulated-events-repo.ts';
import { createUser } from '../../src/partners/users.ts';
import {
  allClaims,
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  uniqueSlug,
  type Reply,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { Browser } from '../web/inject-browser.ts';
import {
  checkDeps,
  claimsOf,
  clock,
  flightNumber,
  minutes,
  monitoringApp,
  plus,
  randomDay,
  subscribe,
  watchOf,
} from '../monitoring/watch-fixtures.ts';

/**
 * Issue 13 §3: a claim decided by the monitoring (the sandbox simulator as provider) carries its
 * evidence — provider, gate times, the delay computed, the rule and its version, decided at — in
 * /getclaims and in GET /claims/{claimNumber}, to its partner only.
 */

const DAY = 86_400_000;

describe('claims with their evidence', () => {
  const c = clock(new Date());
  let t: TestApp;
  let partner: TestPartner;
  let other: TestPartner;
  before(async () => {
    t = await monitoringApp(c);
    partner = await createTestPartner(t.db);
    other = await createTestPartner(t.db);
  });
  after(() => t.close());

  async function call(method: 'GET' | 'POST', url: string, who: TestPartner, body?: unknown): Promise<Reply> {
    const res = await t.app.inject({
      method,
      url,
      headers: { ...who.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: body as object } : {}),
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined, headers: res.headers };
  }

  it('a delayed flight: provider, gate times, delay, tier and configuration version, decided at', async () => {
    const flight = flightNumber();
    const contract = await subscribe(t, c, partner, flight, randomDay(), { passengers: 2 });
    const departure = contract.departureAt;
    c.set(new Date(departure.getTime() - DAY));
    await planWatches({ db: t.db, now: c.now });
    const watch = await watchOf(t, 'sandbox', flight, contract.departureDate);
    assert.ok(watch, 'the flight is watched');
    await saveSimulatedFlightEvent(t.db, {
      environment: 'sandbox',
      event: {
        flightNumber: flight,
        departureDate: contract.departureDate,
        status: 'delayed',
        arrivalDelayMinutes: 200,
      },
      actor: 'operator:test',
      now: c.now(),
    });
    c.set(plus(departure, minutes(400)));
    const result = await checkFlightWatch(checkDeps(t, c, flightProvidersFromConfig(undefined, t.db, c.now)), watch.id);
    assert.equal(result.outcome, 'decided');
    const [stored] = await claimsOf(t, 'sandbox', flight, contract.departureDate);
    assert.ok(stored, 'the monitoring opened a claim');

    const openedOn = await t.db
      .selectFrom('claims')
      .select(['claim_number', 'opened_at'])
      .where('id', '=', stored.id)
      .executeTakeFirstOrThrow();
    const day = openedOn.opened_at.toISOString().slice(0, 10);
    const listed = await allClaims(t.app, partner, {
      fromDate: day,
      toDate: day,
      contractNumber: contract.contractNumber,
    });
    assert.equal(listed.length, 1, JSON.stringify(listed));
    const claim = listed[0]!;
    const scheduledArrival = plus(departure, minutes(120));
    assert.deepEqual(claim.evidence, {
      source: 'monitoring:simulator',
      provider: 'simulator',
      providerFlightId: claim.evidence.providerFlightId,
      scheduledDeparture: departure.toISOString(),
      actualDeparture: claim.evidence.actualDeparture,
      scheduledArrival: scheduledArrival.toISOString(),
      actualArrival: plus(scheduledArrival, minutes(200)).toISOString(),
      divertedTo: null,
      delayMinutes: 200,
      rule: {
        trigger: 'delay_tier',
        minDelayMinutes: 180,
        amountPerPassenger: { amount: 10_000, currency: 'EUR' },
        passengers: 2,
        configurationVersion: 1,
      },
      decidedAt: openedOn.opened_at.toISOString(),
    });
    assert.equal(claim.compensation.amount, 20_000, 'the rule × passengers is the compensation');

    const read = await call('GET', `${FLIGHT}/claims/${openedOn.claim_number}`, partner);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.deepEqual(read.body, claim, 'the claim read answers as the listing');
    const lower = await call('GET', `${FLIGHT}/claims/${openedOn.claim_number.toLowerCase()}`, partner);
    assert.equal(lower.status, 200);

    const foreign = await call('GET', `${FLIGHT}/claims/${openedOn.claim_number}`, other);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'claim_not_found');
    const unknown = await call('GET', `${FLIGHT}/claims/CLM-99999999`, partner);
    assert.equal(unknown.status, 404);
    const malformed = await call('GET', `${FLIGHT}/claims/not-a-claim`, partner);
    assert.equal(malformed.status, 404, 'a malformed claim number names no claim, as a malformed contract number');
    assert.equal(malformed.body.code, 'claim_not_found', JSON.stringify(malformed.body));
  });

  it('a reported cancellation: the reporter as source, the cancellation rule', async () => {
    const flight = flightNumber();
    const contract = await subscribe(t, c, partner, flight, randomDay());
    const reported = await call('POST', `${FLIGHT}/claims`, partner, {
      flightNumber: flight,
      departureDate: contract.departureDate,
      status: 'cancelled',
    });
    assert.equal(reported.status, 200, JSON.stringify(reported.body));
    const [claim] = reported.body.claimsOpened;
    assert.equal(claim.evidence.source, 'partner_report');
    assert.equal(claim.evidence.provider, null);
    assert.equal(claim.evidence.scheduledArrival, null);
    assert.equal(claim.evidence.delayMinutes, null);
    assert.deepEqual(claim.evidence.rule, {
      trigger: 'cancellation',
      minDelayMinutes: null,
      amountPerPassenger: { amount: 15_000, currency: 'EUR' },
      passengers: 1,
      configurationVersion: 1,
    });
    const read = await call('GET', `${FLIGHT}/claims/${claim.claimNumber}`, partner);
    assert.deepEqual(read.body.evidence, claim.evidence);
  });
});

describe('the consoles show a claim’s evidence', () => {
  const ADMIN = { email: 'ops-evidence-tests@parasol.test', password: 'operator password 42' };
  const PASSWORD = 'console test password';
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password } });
  });
  after(() => t.close());

  it('the partner’s contract page and the operator’s claim page', async () => {
    const partner = await createTestPartner(t.db);
    const flight = await insureFlight(t.app, partner, { flightNumber: 'AF1234', passengers: 2 });
    const reported = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF1234', departureDate: flight.departureDate, status: 'delayed', arrivalDelayMinutes: 150 },
      partner.auth,
    );
    assert.equal(reported.status, 200, JSON.stringify(reported.body));
    const claim = reported.body.claimsOpened[0];
    assert.equal(claim.evidence.rule.minDelayMinutes, 120);
    assert.equal(claim.evidence.delayMinutes, 150);

    const email = `${uniqueSlug('evidence')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const console_ = new Browser(t.app);
    assert.equal((await console_.signIn(email, PASSWORD)).statusCode, 303);
    const contractPage = await console_.get(`/console/contracts/${flight.contractNumber}?env=sandbox`);
    assert.equal(contractPage.statusCode, 200);
    assert.match(contractPage.body, new RegExp(`id="evidence-${claim.claimNumber}"`));
    assert.match(contractPage.body, /<dt>Source<\/dt><dd>partner_report<\/dd>/);
    assert.match(contractPage.body, /<dt>Delay computed<\/dt><dd>150 min<\/dd>/);
    assert.match(contractPage.body, /≥ 120 min → €50\.00 × 2/);

    const operator = new Browser(t.app);
    await operator.signIn(ADMIN.email, ADMIN.password, 'admin');
    const list = await operator.get('/admin/claims');
    assert.match(list.body, new RegExp(`href="/admin/claims/${claim.claimNumber}"`));
    const claimPage = await operator.get(`/admin/claims/${claim.claimNumber}`);
    assert.equal(claimPage.statusCode, 200);
    assert.match(claimPage.body, new RegExp(`id="claim-number">${claim.claimNumber}<`));
    assert.match(claimPage.body, /id="evidence"/);
    assert.match(claimPage.body, /<dt>Rule version \(configuration\)<\/dt><dd>v1<\/dd>/);
    assert.equal((await operator.get('/admin/claims/CLM-99999999')).statusCode, 404);
    assert.equal((await console_.get(`/admin/claims/${claim.claimNumber}`)).statusCode, 403, 'operators only');
  });
});
