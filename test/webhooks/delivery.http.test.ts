import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addEndpoint, listDeliveries, removeEndpoint } from '../../src/webhooks/webhooks.ts';
import { recordOperatorFlightEvent } from '../../src/monitoring/operator-flight-event.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  runCliOn,
  trip,
  type TestApp,
  type TestPartner,
  consent,
} from '../helper.ts';
import { OpenApiContract } from '../openapi-contract.ts';
import { Receiver } from './receiver.ts';

/**
 * End to end, as a partner sees it: the app runs its workers (the embedded default), the partner
 * integrates over HTTP, and its receiver on 127.0.0.1 gets signed events it verifies with
 * standardwebhooks — retried by the job queue when it fails.
 */

let t: TestApp;
let receiver: Receiver;
const endpoints: string[] = [];

before(async () => {
  t = await buildTestApp({ env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on', PARASOL_JOB_POLL_SECONDS: '1' } });
  receiver = await Receiver.start();
});
after(async () => {
  const { jobs, keys } = t.app.parasol;
  for (const id of endpoints)
    await removeEndpoint(
      { db: t.db, jobs, keys, allowPrivate: true, now: () => new Date() },
      { actor: 'operator:test' },
      id,
    ).catch(() => undefined);
  await receiver.close();
  await t.close();
});

async function register(partner: TestPartner, path: string, eventTypes?: string[]) {
  const { jobs, keys } = t.app.parasol;
  const { endpoint, secret } = await addEndpoint(
    { db: t.db, jobs, keys, allowPrivate: true, now: () => new Date() },
    { actor: 'operator:test', partnerId: partner.id, environment: partner.environment },
    { url: receiver.url(path), eventTypes },
  );
  receiver.secret(path, secret);
  endpoints.push(endpoint.id);
  return endpoint;
}

let seq = Math.floor(Math.random() * 8000) + 1000;

async function subscribe(partner: TestPartner) {
  const body = trip(30 + (seq % 300));
  const quote = await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth);
  assert.equal(quote.status, 200, JSON.stringify(quote.body));
  const reply = await post(
    t.app,
    `${FLIGHT}/subscribe`,
    {
      quoteReference: quote.body.quoteReference,
      customer: {
        firstName: 'Ada',
        lastName: 'Byron',
        email: 'ada@example.com',
        phone: '+33612345678',
        language: 'en',
      },
      booking: { reference: 'PNR777' },
      consent: consent(),
      flights: [
        {
          flightNumber: `AF${seq++}`,
          departureAirport: 'CDG',
          arrivalAirport: 'JFK',
          departureDateTime: body.departureDateTime,
        },
      ],
    },
    partner.auth,
  );
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return reply.body;
}

describe('webhooks delivered by the workers', () => {
  it('subscribe over HTTP → contract.created arrives signed; cancel → contract.cancelled', async () => {
    const partner = await createTestPartner(t.db);
    const path = `/e2e/${process.pid}/contracts`;
    await register(partner, path);
    const contract = await subscribe(partner);
    const [createdEvent] = await receiver.waitFor(path, 1);
    assert.equal(createdEvent!.verified, true, createdEvent!.verifyError ?? '');
    assert.equal(createdEvent!.payload!.type, 'contract.created');
    assert.equal(createdEvent!.payload!.data.contractNumber, contract.contractNumber);
    assert.deepEqual(createdEvent!.payload!.data.premium, contract.premium);

    const cancel = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: contract.contractNumber, reason: 'ticket_cancelled' },
      partner.auth,
    );
    assert.equal(cancel.status, 200);
    const [, cancelledEvent] = await receiver.waitFor(path, 2);
    assert.equal(cancelledEvent!.verified, true, cancelledEvent!.verifyError ?? '');
    assert.equal(cancelledEvent!.payload!.type, 'contract.cancelled');
    assert.deepEqual(cancelledEvent!.payload!.data, cancel.body);
    assert.notEqual(cancelledEvent!.headers['webhook-id'], createdEvent!.headers['webhook-id']);
  });

  it('a receiver failing once gets the same event again about 5 s later, same webhook-id', async () => {
    const partner = await createTestPartner(t.db);
    const path = `/e2e/${process.pid}/flaky`;
    await register(partner, path, ['contract.created']);
    receiver.answer(path, (n) => (n === 1 ? { status: 500, body: 'try later' } : { status: 200 }));
    await subscribe(partner);
    const [first, second] = await receiver.waitFor(path, 2, 30_000);
    assert.ok(first!.verified && second!.verified);
    assert.equal(second!.headers['webhook-id'], first!.headers['webhook-id']);
    assert.equal(second!.body, first!.body);
    const gap = Number(second!.headers['webhook-timestamp']) - Number(first!.headers['webhook-timestamp']);
    assert.ok(gap >= 4 && gap <= 15, `retried about 5 s later, got ${gap} s`);

    // the log shows both attempts once the second is recorded
    let log = await listDeliveries(
      { db: t.db, keys: t.app.parasol.keys },
      { actor: 'operator:test', partnerId: partner.id, environment: partner.environment },
    );
    for (let i = 0; i < 50 && log.deliveries[0]?.status !== 'succeeded'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      log = await listDeliveries(
        { db: t.db, keys: t.app.parasol.keys },
        { actor: 'operator:test', partnerId: partner.id, environment: partner.environment },
      );
    }
    const [delivery] = log.deliveries;
    assert.equal(delivery!.status, 'succeeded');
    assert.deepEqual(
      delivery!.attemptLog.map((a) => [a.attempt, a.statusCode, a.error]),
      [
        [1, 500, 'HTTP 500: try later'],
        [2, 200, null],
      ],
    );
  });

  it('claim.opened of a claim replacing a voided one carries replaces (the voided claim number, as the claims API’s evidence), and so do its later events (claim.voided); any other claim’s none', async () => {
    const partner = await createTestPartner(t.db);
    const path = `/e2e/${process.pid}/claims-replaced`;
    await register(partner, path, ['claim.opened']);
    await register(partner, `/e2e/${process.pid}/claims-replaced-voided`, ['claim.voided']);
    const c = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}` });
    const reported = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(reported.status, 200, JSON.stringify(reported.body));
    const voidedNumber = reported.body.claimsOpened[0].claimNumber as string;
    const [first] = await receiver.waitFor(path, 1);
    assert.equal(first!.verified, true, first!.verifyError ?? '');
    assert.equal(first!.payload!.data.claimNumber, voidedNumber);
    assert.equal('replaces' in first!.payload!.data, false, 'a first claim: no replaces (absent, not null)');

    const voided = await runCliOn(t, [
      '--json',
      'claims',
      'void',
      voidedNumber,
      '--reason',
      'opened on a wrong report',
      '--cause',
      'flight_data',
    ]);
    assert.equal(voided.code, 0, voided.err);
    const event = await recordOperatorFlightEvent(
      { db: t.db, jobs: t.app.parasol.jobs, now: () => new Date() },
      { environment: 'sandbox', flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      'operator:test',
    );
    const newNumber = event.claimsOpened[0]?.claimNumber;
    assert.ok(newNumber, 'the operator’s event opened a new claim');
    const [, second] = await receiver.waitFor(path, 2);
    assert.equal(second!.verified, true, second!.verifyError ?? '');
    assert.equal(second!.payload!.type, 'claim.opened');
    assert.equal(second!.payload!.data.claimNumber, newNumber);
    assert.equal(second!.payload!.data.replaces, voidedNumber, 'names the voided claim');
    // as the claims API gives the claim's evidence: every page (one may stop at the commit horizon
    // while a notification job's transaction is open)
    const listed: { claimNumber: string; evidence: { replaces?: string } }[] = [];
    let cursor: string | undefined;
    do {
      const page = await post(
        t.app,
        `${FLIGHT}/getclaims`,
        { contractNumber: c.contractNumber, ...(cursor ? { cursor } : {}) },
        partner.auth,
      );
      assert.equal(page.status, 200, JSON.stringify(page.body));
      listed.push(...page.body.claims);
      cursor = page.body.nextCursor ?? undefined;
    } while (cursor);
    const api = listed.find((x) => x.claimNumber === newNumber);
    assert.ok(api, 'the claims API lists the new claim');
    assert.equal(api.evidence.replaces, second!.payload!.data.replaces, 'the same as the claims API');

    // a later event of the replacing claim carries it too: claim.voided when it is voided in turn
    const voidedAgain = await runCliOn(t, [
      '--json',
      'claims',
      'void',
      newNumber,
      '--reason',
      'fraud found on the claim',
      '--cause',
      'other',
    ]);
    assert.equal(voidedAgain.code, 0, voidedAgain.err);
    const voidedPath = `/e2e/${process.pid}/claims-replaced-voided`;
    const voidedEvents = await receiver.waitFor(voidedPath, 2);
    const byClaim = (n: string) => voidedEvents.find((r) => r.payload?.data.claimNumber === n);
    assert.equal(byClaim(voidedNumber)?.payload?.type, 'claim.voided', 'the first claim’s claim.voided');
    assert.equal('replaces' in byClaim(voidedNumber)!.payload!.data, false, 'the first claim replaces none');
    const later = byClaim(newNumber);
    assert.equal(later?.verified, true, later?.verifyError ?? 'the replacement’s claim.voided delivered');
    assert.equal(later!.payload!.type, 'claim.voided');
    assert.equal(later!.payload!.data.replaces, voidedNumber, 'claim.voided of the replacement names the voided one');
    // every body matches the document's webhooks section
    const contract = new OpenApiContract(t.app);
    await contract.load(FLIGHT);
    for (const r of [first!, second!]) assert.equal(contract.checkWebhook(FLIGHT, r.body), 'claim.opened');
    for (const r of voidedEvents) assert.equal(contract.checkWebhook(FLIGHT, r.body), 'claim.voided');
  });
});
