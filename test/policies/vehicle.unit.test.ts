import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkVehicle, checkVin, samePlate, vinCheckDigit } from '../../src/policies/vehicle.ts';

describe('the VIN rule (policies/vehicle.ts)', () => {
  it('computes the ISO 3779 check digit, 10 written X', () => {
    assert.equal(vinCheckDigit('1M8GDM9AXKP042788'), 'X');
    assert.equal(vinCheckDigit('1HGCM82633A004352'), '3');
  });

  it('checks the check digit of North American and Chinese VINs only, and the format of all', () => {
    assert.deepEqual(checkVin('1HGCM82633A004352', '/vin'), []);
    assert.equal(checkVin('1HGCM82643A004352', '/vin')[0]?.code, 'invalid');
    assert.equal(checkVin(`L${'1HGCM82643A004352'.slice(1)}`, '/vin').length, 1, 'China: checked');
    assert.deepEqual(checkVin('LFV2A21K6A3123456', '/vin'), [], 'China: a right check digit passes');
    assert.equal(checkVin('LFV2A21K7A3123456', '/vin')[0]?.code, 'invalid', 'China: a wrong one does not');
    assert.deepEqual(checkVin('WVWZZZ1JZXW000001', '/vin'), [], 'Europe: position 9 is the maker’s');
    for (const bad of ['WVWZZZ1JZXW00000', 'WVWZZZ1JZXW0000O1', 'wvwzzz1jzxw000001', 'WVWZZZ1JZXW00000I'])
      assert.equal(checkVin(bad, '/vin')[0]?.code, 'invalid_format', bad);
  });

  it('identifies a vehicle by its registration and first registration date, or by its VIN alone', () => {
    const car = { make: 'Renault', model: 'Clio' };
    const today = '2026-03-10';
    assert.deepEqual(checkVehicle({ ...car, vin: 'VF1RJA00168123456' }, today, '/risk'), []);
    assert.deepEqual(
      checkVehicle({ ...car, vehicleRegistration: 'AB-123-CD', firstRegistrationDate: '2021-03-15' }, today, '/risk'),
      [],
    );
    const fields = (v: Parameters<typeof checkVehicle>[0]) => checkVehicle(v, today, '/risk').map((e) => e.field);
    assert.deepEqual(fields(car), ['/risk/vehicleRegistration']);
    assert.deepEqual(fields({ ...car, vehicleRegistration: 'AB-123-CD' }), ['/risk/firstRegistrationDate']);
    assert.deepEqual(fields({ ...car, vin: 'VF1RJA00168123456', firstRegistrationDate: '2021-03-15' }), [
      '/risk/firstRegistrationDate',
    ]);
    assert.deepEqual(fields({ ...car, vehicleRegistration: 'AB-123-CD', firstRegistrationDate: '2026-03-11' }), [
      '/risk/firstRegistrationDate',
    ]);
  });
});

describe('the same plate (policies/vehicle.ts, samePlate)', () => {
  it('reads a space and a dash as one separator, and keeps where the groups split', () => {
    assert.ok(samePlate('M-AB 123', 'M AB 123'), 'a dash or a space: one separator');
    assert.ok(samePlate('M-AB 123', 'M-AB-123'), 'a dash or a space: one separator');
    assert.ok(!samePlate('M-AB 123', 'MA-B 123'), 'Munich is not Mannheim');
    assert.ok(!samePlate('M-AB 123', 'MAB123'), 'a German plate without its separators is another split');
  });

  it('compares two French SIV plates without their separators, their groups fixed by their form', () => {
    for (const plate of ['AB123CD', 'AB 123 CD', 'AB-123CD'])
      assert.ok(samePlate('AB-123-CD', plate), `AB-123-CD and ${plate}`);
    assert.ok(!samePlate('AB-123-CD', 'AB-123-CE'), 'another letter: another plate');
  });
});
