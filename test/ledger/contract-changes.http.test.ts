import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dayRange, premiumBordereau } from '../../src/ledger/index.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * The money of a contract after its sale, through the real routes: a flight change, a passenger and a
 * leg cancelled, then the whole contract. After every step the ledger holds exactly the contract's
 * premium (written and tax, less refunds) and its commission; at the end, nothing. The premium
 * bordereau shows each movement with the contract as that movement left it.
 */
describe('ledger: a contract changed, partly then wholly cancelled', () => {
  let t: TestApp;
  let a: TestPartner;
  const seq = 7900 + (process.pid % 90);
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

  before(async () => {
    t = await buildTestApp();
    a = await createTestPartner(t.db);
  });
  after(() => t.close());

  const contractRow = (contractNumber: string) =>
    t.db.selectFrom('contracts').selectAll().where('contract_number', '=', contractNumber).executeTakeFirstOrThrow();
  /** What the ledger holds of a contract: premium (net + tax) less refunds, and commission. */
  const held = async (contractNumber: string) => {
    const entries = await t.db
      .selectFrom('ledger_entries as le')
      .innerJoin('contracts as c', 'c.id', 'le.contract_id')
      .select(['le.kind', 'le.amount'])
      .where('c.contract_number', '=', contractNumber)
      .execute();
    const sum = (kinds: string[]) =>
      entries.filter((e) => kinds.includes(e.kind)).reduce((n, e) => n + Number(e.amount), 0);
    return { premium: sum(['premium_written', 'tax']) - sum(['refund']), commission: sum(['commission']) };
  };
  const assertHeld = async (contractNumber: string, step: string) => {
    const c = await contractRow(contractNumber);
    const expected =
      c.status === 'cancelled'
        ? { premium: 0, commission: 0 }
        : { premium: Number(c.premium_total), commission: Number(c.premium_commission) };
    assert.deepEqual(await held(contractNumber), expected, `after ${step}`);
  };

  let contractNumber: string;
  let outboundFlight: string;
  let returnFlight: string;
  const newFlight = `AF${seq + 100}`;

  it('holds the contract’s premium and commission after every change, and nothing once cancelled', async () => {
    outboundFlight = `AF${seq}`;
    returnFlight = `AF${seq + 1}`;
    const sold = await insureFlight(t.app, a, {
      flightNumber: outboundFlight,
      returnFlight,
      passengers: 3,
      days: 12,
    });
    contractNumber = sold.contractNumber;
    await assertHeld(contractNumber, 'the sale');

    const preview = await post(
      t.app,
      `${FLIGHT}/contracts/${contractNumber}/flight-change/preview`,
      {
        flights: [
          {
            leg: 0,
            flightNumber: newFlight,
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: `${sold.departureDate}T06:15`,
          },
        ],
      },
      a.auth,
    );
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    const changed = await post(
      t.app,
      `${FLIGHT}/contracts/${contractNumber}/flight-change`,
      { changeReference: preview.body.changeReference },
      { ...a.auth, 'idempotency-key': `money-change-${contractNumber}` },
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    await assertHeld(contractNumber, 'the flight change');

    const passenger = await post(
      t.app,
      `${FLIGHT}/contracts/${contractNumber}/partial-cancellation`,
      { passengers: 1, reason: 'customer_request' },
      a.auth,
    );
    assert.equal(passenger.status, 200, JSON.stringify(passenger.body));
    await assertHeld(contractNumber, 'a passenger cancelled');

    const leg = await post(
      t.app,
      `${FLIGHT}/contracts/${contractNumber}/partial-cancellation`,
      { leg: 1, reason: 'ticket_cancelled' },
      a.auth,
    );
    assert.equal(leg.status, 200, JSON.stringify(leg.body));
    await assertHeld(contractNumber, 'the return cancelled');

    const before = await contractRow(contractNumber);
    const cancelled = await post(t.app, `${FLIGHT}/cancel`, { contractNumber, reason: 'customer_request' }, a.auth);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.refund.amount, Number(before.premium_total), 'the rest of the premium, no more');
    await assertHeld(contractNumber, 'the full cancellation');
  });

  it('the premium bordereau shows each movement with the contract as it left it (passengers, flights)', async () => {
    const report = await premiumBordereau(t.db, { partnerId: a.id, environment: 'sandbox' }, dayRange(day(-1), day(1)));
    const rows = report.rows.filter((r) => r.contract_number === contractNumber);
    const shown = rows.map((r) => ({
      movement: r.movement,
      passengers: r.passengers,
      flights: r.flights.split('; ').map((f) => f.split(' ')[0]),
    }));
    assert.deepEqual(shown, [
      // the sale is what was sold, whatever happened to the contract since (a closed month's
      // bordereau does not change afterwards)
      { movement: 'written', passengers: 3, flights: [outboundFlight, returnFlight] },
      { movement: 'flight_changed', passengers: 3, flights: [newFlight, returnFlight] },
      { movement: 'passenger_cancelled', passengers: 2, flights: [newFlight, returnFlight] },
      { movement: 'leg_cancelled', passengers: 2, flights: [newFlight] },
      { movement: 'cancelled', passengers: 2, flights: [newFlight] },
    ]);
    const written = rows.find((r) => r.movement === 'written')!;
    const sale = await t.db
      .selectFrom('contract_versions as v')
      .innerJoin('contracts as c', 'c.id', 'v.contract_id')
      .select(['v.premium_net', 'v.flights'])
      .where('c.contract_number', '=', contractNumber)
      .where('v.version', '=', 1)
      .executeTakeFirstOrThrow();
    assert.equal(written.premium_net, Number(sale.premium_net));
    assert.equal(
      written.first_departure_at.toISOString(),
      new Date(sale.flights.find((f) => f.leg === 0)!.departureAt).toISOString(),
      'the first departure as sold',
    );
  });
});
