import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { riskModelV1, type RiskModel, type RiskModelSource } from '../../src/flight/risk-model.ts';
import { createApiKey } from '../../src/partners/api-keys.ts';
import { createUser } from '../../src/partners/users.ts';
import { sampleTrip } from '../../src/web/console-routes.ts';
import { buildTestApp, createTestPartner, FLIGHT, post, uniqueSlug, type TestApp } from '../helper.ts';
import { Browser } from './inject-browser.ts';

/** The configuration page's live preview shows /getPrice's per-leg explanation. */

const PASSWORD = 'console preview password';

describe('console: the premium preview explains the price', () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp()));
  after(() => t.close());

  test('each payout event of the sample flight with its probability and the model’s explanation, as /getPrice gives them', async () => {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('preview')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);

    const quote = await post(t.app, `${FLIGHT}/getPrice`, sampleTrip(new Date()), partner.auth);
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const page = await browser.get('/console');
    assert.equal(page.statusCode, 200);
    const breakdown = /<div class="breakdown" id="preview-breakdown">([\s\S]*?)<\/div>/.exec(page.body)?.[1];
    assert.ok(breakdown, 'the preview has a breakdown');
    assert.match(breakdown, /risk model v1/);
    assert.match(breakdown, /CDG → JFK/);
    const [leg] = quote.body.breakdown;
    const rows = [
      ...breakdown.matchAll(
        /<tr><td>([^<]+)<\/td><td>([^<]+)<\/td><td>[^<]+<\/td><td class="explanation">([^<]+)(?:<br><span class="band">([^<]+)<\/span>)?<\/td><\/tr>/g,
      ),
    ].map((m) => [m[1], m[2], m[3], m[4]]);
    assert.deepEqual(
      rows.map((r) => r[2]),
      leg.events.map((e: { explanation: { text: string } }) => e.explanation.text),
      'the same explanations as /getPrice',
    );
    assert.deepEqual(
      rows.map((r) => r[0]),
      ['Cancelled', 'Diverted', 'Delay 120–180 min', 'Delay ≥ 180 min'],
    );
    assert.equal(rows[0]![1], `${(leg.events[0].probability * 100).toFixed(2)} %`);
    // a band's explanation is that of reaching its tier (2.24 % for ≥ 120 min) while its probability is
    // the band's (1.45 %): the line under it says how the two meet, from the next tier's explanation
    const pct = (p: number) => `${(p * 100).toFixed(2)} %`;
    const [, , band, last] = leg.events as { probability: number; explanation: { probability: number } }[];
    assert.equal(rows[2]![1], pct(band!.probability));
    // each term is shown rounded: the line's arithmetic holds as shown, else it says "≈" (off by rounding)
    const line = /^The band: (\d+\.\d\d) % \(≥ 120 min\) − (\d+\.\d\d) % \(≥ 180 min\) ([=≈]) (\d+\.\d\d) %$/.exec(
      rows[2]![3] ?? '',
    );
    assert.ok(line, `the band line: ${rows[2]![3]}`);
    const [, a, b, sign, c] = line;
    assert.equal(`${a} %`, pct(band!.explanation.probability));
    assert.equal(`${b} %`, pct(last!.explanation.probability));
    assert.equal(`${c} %`, rows[2]![1], 'the band line ends on the band’s probability as its row shows it');
    const hundredths = (s: string) => Math.round(Number(s) * 100);
    assert.equal(sign === '=', hundredths(a!) - hundredths(b!) === hundredths(c!), rows[2]![3]);
    assert.equal(rows[3]![3], undefined, 'the last tier: its explanation is its probability');
    assert.equal(rows[3]![1], pct(last!.explanation.probability));
  });
});

/** Version 1 with cancellations twice as likely: another model, active in production only. */
const doubledCancellations: RiskModel = {
  version: 'v1-production-test',
  probabilities(leg) {
    const p = riskModelV1.probabilities(leg);
    return {
      cancellation: p.cancellation.mul(2),
      diversion: p.diversion,
      delayAtLeast: (minutes) => p.delayAtLeast(minutes),
      credibility: p.credibility,
      explain: (event) => p.explain(event),
    };
  },
};

describe('console: the preview prices with the model of the environment the partner sells in', () => {
  // the operator activates a model per environment, a new one often in sandbox first: the preview priced
  // with sandbox's whatever the agreement, so a signed partner read premiums production never gave
  const models: RiskModelSource = {
    active: (environment) => (environment === 'production' ? doubledCancellations : riskModelV1),
    get: (version) => [riskModelV1, doubledCancellations].find((m) => m.version === version),
  };
  let t: TestApp;
  before(async () => (t = await buildTestApp({ riskModels: models })));
  after(() => t.close());

  async function consoleOf(partnerId: string) {
    const email = `${uniqueSlug('preview-env')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId, email, password: PASSWORD });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
    const page = await browser.get('/console');
    assert.equal(page.statusCode, 200);
    return page.body;
  }
  const shownTotal = (body: string) => Number(/id="preview-total" data-amount="(\d+)"/.exec(body)?.[1]);

  test('signed: production’s model and premium, as production’s /getPrice gives them', async () => {
    const partner = await createTestPartner(t.db);
    const { plaintext } = await createApiKey(t.db, 'operator:test', {
      partnerId: partner.id,
      environment: 'production',
    });
    const production = await post(t.app, `${FLIGHT}/getPrice`, sampleTrip(new Date()), {
      authorization: `Bearer ${plaintext}`,
    });
    assert.equal(production.status, 200, JSON.stringify(production.body));
    const sandbox = await post(t.app, `${FLIGHT}/getPrice`, sampleTrip(new Date()), partner.auth);
    assert.notEqual(sandbox.body.premium.total.amount, production.body.premium.total.amount, 'the two models differ');
    const body = await consoleOf(partner.id);
    assert.equal(shownTotal(body), production.body.premium.total.amount);
    assert.match(body, /How it is priced in production \(risk model v1-production-test\)/);
  });

  test('unsigned (sandbox only): sandbox’s model and premium', async () => {
    const partner = await createTestPartner(t.db, { signed: false });
    const sandbox = await post(t.app, `${FLIGHT}/getPrice`, sampleTrip(new Date()), partner.auth);
    assert.equal(sandbox.status, 200, JSON.stringify(sandbox.body));
    const body = await consoleOf(partner.id);
    assert.equal(shownTotal(body), sandbox.body.premium.total.amount);
    assert.match(body, /How it is priced in sandbox \(risk model v1\)/);
  });
});
