import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  buildTestApp,
  consent,
  createTestPartner,
  CUSTOMER,
  FLIGHT,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * A contract's life through the partner API under a clock far from real time (docs/ARCHITECTURE.md,
 * "Clocks"): the sale, a contact change, a passenger cancelled, a flight changed and the cancellation
 * are dated by the use case's clock — the contract's dates, its versions, its audit rows and its
 * ledger entries —, never by the database's.
 */
describe('contract changes on the application clock', () => {
  let t: TestApp;
  let a: TestPartner;
  const SOLD = new Date('2031-05-04T10:00:00.000Z');
  let clock = SOLD;
  const hoursAfterSale = (hours: number) => (clock = new Date(SOLD.getTime() + hours * 3_600_000));
  before(async () => {
    t = await buildTestApp({ now: () => clock });
    a = await createTestPartner(t.db);
  });
  after(() => t.close());

  const auditAt = async (entityIds: string[], action: string) => {
    const rows = await t.db
      .selectFrom('audit_log')
      .select(['at'])
      .where('entity', '=', 'contract')
      .where('entity_id', 'in', entityIds)
      .where('action', '=', action)
      .execute();
    assert.equal(rows.length, 1, `one ${action} audit row: ${JSON.stringify(rows)}`);
    return rows[0]!.at.toISOString();
  };
  const ledgerDates = async (contractId: string, eventKey: string) => {
    const rows = await t.db
      .selectFrom('ledger_entries')
      .select(['event_key', 'occurred_at'])
      .where('contract_id', '=', contractId)
      .where('event_key', 'like', eventKey)
      .execute();
    assert.ok(rows.length > 0, `ledger entries ${eventKey} of the contract`);
    return [...new Set(rows.map((r) => r.occurred_at.toISOString()))];
  };

  it('dates the sale, its changes and its cancellation by the use case clock', async () => {
    const trip = {
      departureAirport: 'CDG',
      arrivalAirport: 'JFK',
      airline: 'AF',
      departureDateTime: '2031-05-16T10:30',
      returnDepartureDateTime: '2031-05-23T18:00',
      additionalPassengers: 1,
    };
    const quote = await post(t.app, `${FLIGHT}/getPrice`, trip, a.auth);
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const sold = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: CUSTOMER,
        booking: { reference: 'CLK123' },
        flights: [
          {
            flightNumber: 'AF7801',
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: trip.departureDateTime,
          },
          {
            flightNumber: 'AF7802',
            departureAirport: 'JFK',
            arrivalAirport: 'CDG',
            departureDateTime: trip.returnDepartureDateTime,
          },
        ],
        consent: consent(quote.body.documents.version, SOLD),
      },
      a.auth,
    );
    assert.equal(sold.status, 201, JSON.stringify(sold.body));
    const number = sold.body.contractNumber as string;
    const contract = await t.db
      .selectFrom('contracts')
      .select(['id', 'created_at'])
      .where('contract_number', '=', number)
      .executeTakeFirstOrThrow();
    assert.equal(contract.created_at.toISOString(), SOLD.toISOString(), 'the contract is created at the clock');
    assert.equal(await auditAt([number], 'created'), SOLD.toISOString(), 'the sale audited at the clock');
    assert.deepEqual(
      await ledgerDates(contract.id, '%written%'),
      [SOLD.toISOString()],
      'the premium written at the clock',
    );

    const contactAt = hoursAfterSale(1).toISOString();
    const contact = await t.app.inject({
      method: 'PATCH',
      url: `${FLIGHT}/contracts/${number}/customer`,
      payload: { email: 'camille.martin@example.com' },
      headers: { 'content-type': 'application/json', ...a.auth },
    });
    assert.equal(contact.statusCode, 200, contact.body);
    assert.equal(await auditAt([number], 'contact_changed'), contactAt, 'the contact change audited at the clock');

    const partAt = hoursAfterSale(2).toISOString();
    const part = await post(
      t.app,
      `${FLIGHT}/contracts/${number}/partial-cancellation`,
      { passengers: 1, reason: 'customer_request' },
      a.auth,
    );
    assert.equal(part.status, 200, JSON.stringify(part.body));
    assert.equal(part.body.cancelledAt, partAt, 'the partial cancellation answers the clock');
    assert.equal(
      await auditAt([number], 'passenger_cancelled'),
      partAt,
      'the passenger cancelled audited at the clock',
    );

    const changeAt = hoursAfterSale(3).toISOString();
    const preview = await post(
      t.app,
      `${FLIGHT}/contracts/${number}/flight-change/preview`,
      {
        flights: [
          {
            leg: 0,
            flightNumber: 'AF7803',
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: '2031-05-17T10:30',
          },
        ],
      },
      a.auth,
    );
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    const changed = await post(
      t.app,
      `${FLIGHT}/contracts/${number}/flight-change`,
      { changeReference: preview.body.changeReference },
      a.auth,
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(await auditAt([number], 'flight_changed'), changeAt, 'the flight change audited at the clock');

    const versions = await t.db
      .selectFrom('contract_versions')
      .select(['version', 'created_at'])
      .where('contract_id', '=', contract.id)
      .orderBy('version')
      .execute();
    assert.deepEqual(
      versions.map((v) => [v.version, v.created_at.toISOString()]),
      [
        [1, SOLD.toISOString()],
        [2, partAt],
        [3, changeAt],
      ],
      'each version dated by the clock of the change that made it',
    );
    assert.deepEqual(
      await ledgerDates(contract.id, '%:passenger_cancelled:2'),
      [partAt],
      'the refund of version 2 at the clock',
    );

    const cancelAt = hoursAfterSale(4).toISOString();
    const cancelled = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: number, reason: 'customer_request' },
      a.auth,
    );
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.cancelledAt, cancelAt, 'the cancellation answers the clock');
    const row = await t.db
      .selectFrom('contracts')
      .select(['cancelled_at'])
      .where('id', '=', contract.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.cancelled_at?.toISOString(), cancelAt, 'cancelled_at is the clock');
    assert.equal(await auditAt([number], 'cancelled'), cancelAt, 'the cancellation audited at the clock');
    assert.deepEqual(
      await ledgerDates(contract.id, '%:cancelled'),
      [cancelAt],
      'the refund of the cancellation at the clock',
    );
  });
});
