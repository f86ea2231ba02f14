import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide, type FlightQuery } from '../../src/monitoring/flight-status.ts';
import { SimulatorProvider } from '../../src/monitoring/simulator.ts';

const AF6: FlightQuery = { flightNumber: 'AF006', departureDate: '2025-06-01', origin: 'CDG', destination: 'JFK' };
const afterwards = () => new Date('2025-06-03T00:00:00Z');

describe('flight simulator', () => {
  it('answers what the platform set, in the shape of a real provider', async () => {
    const simulator = new SimulatorProvider({ now: afterwards });
    simulator.setFlightEvent({
      flightNumber: 'AF6',
      departureDate: '2025-06-01',
      status: 'delayed',
      arrivalDelayMinutes: 185,
    });
    const status = await simulator.fetchStatus(AF6);
    assert.ok(status);
    assert.equal(status.provider, 'simulator');
    assert.equal(
      status.flightNumber,
      'AF006',
      'AF6 and AF006 are the same flight; the record keeps the leg’s designator',
    );
    assert.equal(status.final, true);
    // synthetic schedule: 12:00 Paris (10:00Z), 120 min block
    assert.deepEqual(status.scheduledDeparture, new Date('2025-06-01T10:00:00Z'));
    assert.deepEqual(status.scheduledArrival, new Date('2025-06-01T12:00:00Z'));
    assert.deepEqual(status.actualArrival, new Date('2025-06-01T15:05:00Z'));
    assert.deepEqual(decide(status), { kind: 'delayed', arrivalDelayMinutes: 185 });
    assert.deepEqual((status.raw as { simulator: boolean }).simulator, true);
  });

  it('on time, cancelled, diverted', async () => {
    const simulator = new SimulatorProvider({ now: afterwards });
    const q = (flightNumber: string): FlightQuery => ({ ...AF6, flightNumber });
    simulator.setFlightEvent({ flightNumber: 'AF1', departureDate: '2025-06-01', status: 'on_time' });
    simulator.setFlightEvent({ flightNumber: 'AF2', departureDate: '2025-06-01', status: 'cancelled' });
    simulator.setFlightEvent({
      flightNumber: 'AF3',
      departureDate: '2025-06-01',
      status: 'diverted',
      divertedTo: 'bos',
    });
    assert.deepEqual(decide((await simulator.fetchStatus(q('AF001')))!), { kind: 'on_time' });
    assert.deepEqual(decide((await simulator.fetchStatus(q('AF002')))!), { kind: 'cancelled' });
    const diverted = (await simulator.fetchStatus(q('AF003')))!;
    assert.equal(diverted.divertedTo, 'BOS');
    assert.deepEqual(decide(diverted), { kind: 'diverted' });
  });

  it('uses the leg’s departure as its schedule when given', async () => {
    const simulator = new SimulatorProvider({ now: afterwards, blockMinutes: 510 });
    simulator.setFlightEvent({
      flightNumber: 'AF6',
      departureDate: '2025-06-01',
      status: 'delayed',
      arrivalDelayMinutes: 42,
    });
    const status = await simulator.fetchStatus({ ...AF6, scheduledDeparture: new Date('2025-06-01T08:30:00Z') });
    assert.deepEqual(status!.scheduledArrival, new Date('2025-06-01T17:00:00Z'));
    assert.deepEqual(decide(status!), { kind: 'delayed', arrivalDelayMinutes: 42 });
  });

  it('a new event replaces the previous one; events are per date', async () => {
    const simulator = new SimulatorProvider({ now: afterwards, whenUnset: 'unknown' });
    simulator.setFlightEvent({
      flightNumber: 'AF6',
      departureDate: '2025-06-01',
      status: 'delayed',
      arrivalDelayMinutes: 20,
    });
    simulator.setFlightEvent({ flightNumber: 'AF006', departureDate: '2025-06-01', status: 'cancelled' });
    assert.deepEqual(decide((await simulator.fetchStatus(AF6))!), { kind: 'cancelled' });
    assert.equal(simulator.getFlightEvent('AF6', '2025-06-01')?.status, 'cancelled');
    assert.equal(await simulator.fetchStatus({ ...AF6, departureDate: '2025-06-02' }), undefined);
    assert.ok(simulator.clearFlightEvent('AF6', '2025-06-01'));
    assert.equal(await simulator.fetchStatus(AF6), undefined);
  });

  it('refuses a delayed event without a whole number of minutes, and bad designators', () => {
    const simulator = new SimulatorProvider();
    assert.throws(
      () => simulator.setFlightEvent({ flightNumber: 'AF6', departureDate: '2025-06-01', status: 'delayed' }),
      RangeError,
    );
    assert.throws(
      () =>
        simulator.setFlightEvent({
          flightNumber: 'AF6',
          departureDate: '2025-06-01',
          status: 'delayed',
          arrivalDelayMinutes: 12.5,
        }),
      RangeError,
    );
    assert.throws(
      () =>
        simulator.setFlightEvent({
          flightNumber: 'AF6',
          departureDate: '2025-06-01',
          status: 'delayed',
          arrivalDelayMinutes: -1,
        }),
      RangeError,
    );
    assert.throws(
      () => simulator.setFlightEvent({ flightNumber: 'AIRFRANCE', departureDate: '2025-06-01', status: 'cancelled' }),
      RangeError,
    );
    assert.throws(
      () => simulator.setFlightEvent({ flightNumber: 'AF6', departureDate: '1 June', status: 'cancelled' }),
      RangeError,
    );
  });

  it('a flight nobody set: pending until its synthetic arrival, then on time (default)', async () => {
    let now = new Date('2025-06-01T11:00:00Z');
    const simulator = new SimulatorProvider({ now: () => now });
    const before = await simulator.fetchStatus(AF6);
    assert.deepEqual(decide(before!), { kind: 'pending', reason: 'not_final' });
    now = new Date('2025-06-01T12:00:00Z');
    assert.deepEqual(decide((await simulator.fetchStatus(AF6))!), { kind: 'on_time' });
  });

  it('a flight nobody set, other policies: never final, or unknown', async () => {
    const pending = new SimulatorProvider({ now: afterwards, whenUnset: 'pending' });
    assert.equal(decide((await pending.fetchStatus(AF6))!).kind, 'pending');
    const unknown = new SimulatorProvider({ now: afterwards, whenUnset: 'unknown' });
    assert.equal(await unknown.fetchStatus(AF6), undefined);
  });

  it('honours an aborted signal', async () => {
    const simulator = new SimulatorProvider();
    await assert.rejects(simulator.fetchStatus(AF6, { signal: AbortSignal.abort() }), { name: 'AbortError' });
  });
});
