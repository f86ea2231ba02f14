import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import type { Environment } from '../../src/platform/db-schema.ts';
import { sealJson } from '../../src/platform/signed-token.ts';
import {
  parseLocalDeparture,
  type LegFacts,
  type RiskEvent,
  type RiskFactor,
  type RiskModel,
  type RiskModelSource,
} from '../../src/flight/risk-model.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  post,
  subscription,
  trip,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * A hand-made fitted model: known base rates, one factor for the departure hour and one for the
 * arrival airport, one more (and a higher credibility) when the flight number is known; `scale`
 * tells two versions apart. Every number is an exact decimal, so the premiums are computed by hand.
 */
function fittedDouble(version: string, scale = 1): RiskModel {
  return {
    version,
    probabilities(leg: LegFacts) {
      const { hour } = parseLocalDeparture(leg.departureLocal);
      const factors: RiskFactor[] = [
        { label: `hour ${hour}`, factor: 1.1, credibility: 0.9 },
        { label: leg.arrivalAirport, factor: 0.8 * scale, credibility: 0.7 },
        ...(leg.flightNumber
          ? [
              {
                label: `${leg.flightNumber} on ${leg.departureAirport}–${leg.arrivalAirport}`,
                factor: 0.5,
                credibility: 0.6,
              },
            ]
          : []),
      ];
      const product = factors.reduce((acc, f) => acc.times(f.factor), new Decimal(1));
      const delayBase = (minutes: number) => new Decimal(minutes <= 120 ? 0.05 : minutes <= 180 ? 0.02 : 0.01);
      const cancellation = product.times(0.02);
      const diversion = new Decimal(0.002);
      const delayAtLeast = (minutes: number) => product.times(delayBase(minutes));
      return {
        cancellation,
        diversion,
        delayAtLeast,
        credibility: leg.flightNumber ? 0.8 : 0.3,
        explain(event: RiskEvent) {
          if (event === 'cancellation') return { base: 0.02, factors, probability: cancellation.toNumber() };
          if (event === 'diversion') return { base: 0.002, factors: [], probability: 0.002 };
          return {
            base: delayBase(event.delayAtLeast).toNumber(),
            factors,
            probability: delayAtLeast(event.delayAtLeast).toNumber(),
          };
        },
      };
    },
  };
}

/** Active version per environment, switchable by the test; `get` knows only the active ones. */
class SwitchableSource implements RiskModelSource {
  constructor(public models: Record<Environment, RiskModel>) {}
  active(environment: Environment): RiskModel {
    return this.models[environment];
  }
  get(version: string): RiskModel | undefined {
    return Object.values(this.models).find((m) => m.version === version);
  }
}

const eur = (amount: number) => ({ amount, currency: 'EUR' });

describe('Flight Delay API — model version and per-leg explanation', () => {
  let t: TestApp;
  let partner: TestPartner;
  const a = fittedDouble('test-A');
  const source = new SwitchableSource({ sandbox: a, preproduction: a, production: fittedDouble('test-prod', 1.25) });
  before(async () => {
    t = await buildTestApp({ riskModels: source });
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  it('breaks each leg down into payout events with explanations, expected loss and premium share', async () => {
    const res = await post(t.app, `${FLIGHT}/getPrice`, trip(30, { returnTrip: true }), partner.auth);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const q = res.body;
    assert.equal(q.modelVersion, 'test-A');
    assert.equal(q.breakdown.length, 2);
    const [out, back] = q.breakdown;
    assert.equal(out.departureAirport, 'CDG');
    assert.equal(back.departureAirport, 'JFK');
    assert.equal(out.flightNumber, null);
    assert.equal(out.credibility, 0.3);
    // p = 0.02 × 1.1 × 0.8 = 0.0176; delay ≥120: 0.044, ≥180: 0.0176 → band [120,180): 0.0264
    assert.deepEqual(
      out.events.map(
        (e: {
          event: string;
          minDelayMinutes: number | null;
          maxDelayMinutes: number | null;
          probability: number;
          payout: unknown;
        }) => [e.event, e.minDelayMinutes, e.maxDelayMinutes, e.probability, e.payout],
      ),
      [
        ['cancellation', null, null, 0.0176, eur(15_000)],
        ['diversion', null, null, 0.002, eur(15_000)],
        ['delay', 120, 180, 0.0264, eur(5_000)],
        ['delay', 180, null, 0.0176, eur(10_000)],
      ],
    );
    const cancellation = out.events[0].explanation;
    assert.equal(cancellation.text, '2.00 % × 1.10 (hour 10) × 0.80 (JFK) = 1.76 %');
    assert.deepEqual(cancellation.factors, [
      { label: 'hour 10', factor: 1.1, credibility: 0.9 },
      { label: 'JFK', factor: 0.8, credibility: 0.7 },
    ]);
    assert.equal(cancellation.base, 0.02);
    assert.equal(cancellation.probability, 0.0176);
    assert.equal(
      out.events[2].explanation.text,
      '5.00 % × 1.10 (hour 10) × 0.80 (JFK) = 4.40 %',
      'a band explains reaching its tier',
    );
    assert.equal(back.events[0].explanation.text, '2.00 % × 1.10 (hour 18) × 0.80 (CDG) = 1.76 %');
    // E = 0.0176×15000 + 0.002×15000 + 0.0264×5000 + 0.0176×10000 = 602; loading 0.15 + 0.10 + 0.10×(1−0.3) = 0.32
    // net = round(602 × 1.32 / 0.8) = round(993.3) = 993
    assert.deepEqual(out.expectedLoss, eur(602));
    assert.deepEqual(out.premium, eur(993));
    assert.equal(
      q.premium.net.amount,
      out.premium.amount + back.premium.amount,
      'the legs’ shares make the net premium (1 passenger)',
    );
  });

  it('prices the named flight, signs it, and makes /subscribe name that flight', async () => {
    const body = { ...trip(31, { returnTrip: true }), flightNumber: 'af 6', returnFlightNumber: 'AF007' };
    const res = await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [out, back] = res.body.breakdown;
    assert.equal(out.flightNumber, 'AF6');
    assert.equal(back.flightNumber, 'AF007');
    assert.equal(out.credibility, 0.8);
    assert.equal(
      out.events[0].explanation.text,
      '2.00 % × 1.10 (hour 10) × 0.80 (JFK) × 0.50 (AF6 on CDG–JFK) = 0.88 %',
    );
    // E = 0.0088×15000 + 30 + 0.0132×5000 + 0.0088×10000 = 316; loading 0.27; net = round(316 × 1.27 / 0.8) = round(501.65) = 502
    assert.deepEqual(out.premium, eur(502));

    const plain = trip(31, { returnTrip: true });
    const wrong = await post(t.app, `${FLIGHT}/subscribe`, subscription(res.body.quoteReference, plain), partner.auth);
    assert.equal(wrong.status, 422);
    assert.equal(wrong.body.code, 'flights_mismatch');
    assert.deepEqual(wrong.body.errors, [
      { field: '/flights/0/flightNumber', code: 'invalid', message: 'the quote was priced for flight AF6' },
    ]);
    const flights = subscription(res.body.quoteReference, plain).flights;
    flights[0]!.flightNumber = 'AF 6';
    const ok = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      { ...subscription(res.body.quoteReference, plain), flights },
      partner.auth,
    );
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.deepEqual(
      ok.body.flights.map((f: { flightNumber: string }) => f.flightNumber),
      ['AF6', 'AF007'],
    );
  });

  it('refuses flight numbers of another airline, malformed, or for a return that is not there', async () => {
    const other = await post(t.app, `${FLIGHT}/getPrice`, { ...trip(), flightNumber: 'BA117' }, partner.auth);
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'validation_failed');
    assert.deepEqual(other.body.errors, [
      { field: '/flightNumber', code: 'invalid', message: 'must start with the airline AF' },
    ]);
    const oneWay = await post(t.app, `${FLIGHT}/getPrice`, { ...trip(), returnFlightNumber: 'AF007' }, partner.auth);
    assert.equal(oneWay.status, 422);
    assert.equal(oneWay.body.errors[0].field, '/returnFlightNumber');
    const malformed = await post(t.app, `${FLIGHT}/getPrice`, { ...trip(), flightNumber: 'AF-006' }, partner.auth);
    assert.equal(malformed.status, 422);
    assert.equal(malformed.body.code, 'validation_failed');
    assert.equal(malformed.body.errors[0].field, '/flightNumber');
  });

  it('a quote priced under version A subscribes at its quoted price after version B becomes active', async () => {
    const body = trip(32);
    const quotedA = (await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth)).body;
    assert.equal(quotedA.modelVersion, 'test-A');
    source.models = { ...source.models, sandbox: fittedDouble('test-B', 2) };
    try {
      const quotedB = (await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth)).body;
      assert.equal(quotedB.modelVersion, 'test-B');
      assert.ok(quotedB.premium.total.amount > quotedA.premium.total.amount, 'version B prices the same trip higher');
      assert.equal(
        source.get('test-A'),
        source.models.preproduction,
        'A is still known here, but subscribe does not ask for it',
      );

      const res = await post(t.app, `${FLIGHT}/subscribe`, subscription(quotedA.quoteReference, body), partner.auth);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(res.body.premium, quotedA.premium);
      assert.equal(res.body.modelVersion, 'test-A');
      const row = await t.db
        .selectFrom('contracts')
        .select(['risk_model_version', 'premium_total'])
        .where('contract_number', '=', res.body.contractNumber)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { risk_model_version: 'test-A', premium_total: quotedA.premium.total.amount });

      // even a version no longer known anywhere: the signed amounts suffice
      source.models = {
        sandbox: fittedDouble('test-C'),
        preproduction: fittedDouble('test-C'),
        production: fittedDouble('test-C'),
      };
      assert.equal(source.get('test-B'), undefined);
      const late = await post(t.app, `${FLIGHT}/subscribe`, subscription(quotedB.quoteReference, body), partner.auth);
      assert.equal(late.status, 201, JSON.stringify(late.body));
      assert.equal(late.body.modelVersion, 'test-B');
      assert.deepEqual(late.body.premium, quotedB.premium);
    } finally {
      source.models = { sandbox: a, preproduction: a, production: fittedDouble('test-prod', 1.25) };
    }
  });

  it('prices each environment with its active version', async () => {
    const production = await createTestPartner(t.db, { environment: 'production' });
    const body = trip(33);
    const sandboxQuote = (await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth)).body;
    const productionQuote = (await post(t.app, `${FLIGHT}/getPrice`, body, production.auth)).body;
    assert.equal(sandboxQuote.modelVersion, 'test-A');
    assert.equal(productionQuote.modelVersion, 'test-prod');
    assert.notDeepEqual(
      productionQuote.breakdown[0].events[0].probability,
      sandboxQuote.breakdown[0].events[0].probability,
    );
    const res = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(productionQuote.quoteReference, body),
      production.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.modelVersion, 'test-prod');
  });

  it('simulations show the same breakdown as a quote with the same terms', async () => {
    const body = trip(34);
    const quoted = (await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth)).body;
    const simulated = await post(
      t.app,
      `${FLIGHT}/getPrice/simulate`,
      {
        ...body,
        formula: 'delay_and_cancellation',
        compensation: {
          delay: [
            { minDelayMinutes: 120, amount: eur(5_000) },
            { minDelayMinutes: 180, amount: eur(10_000) },
          ],
          cancellation: eur(15_000),
        },
        commissionRate: 0.2,
      },
      partner.auth,
    );
    assert.equal(simulated.status, 200, JSON.stringify(simulated.body));
    assert.equal(simulated.body.modelVersion, 'test-A');
    assert.deepEqual(simulated.body.breakdown, quoted.breakdown);
    assert.deepEqual(simulated.body.premium, quoted.premium);
  });

  it('still subscribes q2 references (issued before model versions were signed) as priced by v1', async () => {
    const body = trip(35);
    const q = (await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth)).body;
    const [, terms, , id] = q.quoteReference.split('.');
    const decoded = JSON.parse(Buffer.from(terms!, 'base64url').toString());
    decoded.splice(8, 4); // q2 terms: no model version (nor documents and agreement versions, legs' nets, signed since in q3)
    const q2 = `${sealJson(t.app.parasol.keys.quoteSigning, 'q2', JSON.stringify(decoded))}.${id}`;
    const res = await post(t.app, `${FLIGHT}/subscribe`, subscription(q2, body), partner.auth);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.modelVersion, 'v1');
  });
});

describe('Flight Delay API — the default model (version 1) explains its table', () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp()));
  after(() => t.close());

  it('quotes with v1, credibility 0, the table factors in each explanation', async () => {
    const partner = await createTestPartner(t.db);
    const res = await post(
      t.app,
      `${FLIGHT}/getPrice`,
      { ...trip(30), departureDateTime: '2027-10-15T11:00' },
      partner.auth,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.modelVersion, 'v1');
    const [leg] = res.body.breakdown;
    assert.equal(leg.credibility, 0);
    // CDG–JFK is long haul; October has no season factor; 11:00 is midday
    assert.equal(leg.events[0].explanation.text, '1.50 % × 0.50 (long-haul) × 1.00 (midday (hour 11)) = 0.75 %');
    const contract = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(res.body.quoteReference, { ...trip(30), departureDateTime: '2027-10-15T11:00' }),
      partner.auth,
    );
    assert.equal(contract.status, 201, JSON.stringify(contract.body));
    assert.equal(contract.body.modelVersion, 'v1');
  });
});
