import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customerPhoneError, customerPhoneRefusal } from '../../src/notify/index.ts';
import { fr } from '../../src/i18n/fr.ts';

/** The one rule of a customer's phone: subscription, contact change and the claim desk (notify/sms/customer-phone.ts). */
describe('customerPhoneError', () => {
  it('passes a valid mobile written in E.164', () => {
    assert.equal(customerPhoneError('+33612345678', '/phone'), undefined);
  });

  it('refuses what is no valid E.164 number: invalid_format, validation_failed', () => {
    for (const phone of ['0612345678', '+33 6 12 34 56 78', '+3361234', 'mobile']) {
      const error = customerPhoneError(phone, '/customer/phone');
      assert.equal(error?.code, 'invalid_format', phone);
      assert.equal(error?.field, '/customer/phone');
      assert.equal(customerPhoneRefusal(error!).code, 'validation_failed', phone);
    }
  });

  it('refuses a valid number the SMS cannot reach: not_allowed, phone_not_mobile', () => {
    const landline = customerPhoneError('+33123456789', '/phone');
    assert.equal(landline?.code, 'not_allowed');
    assert.match(landline!.message, /landline/);
    const tollFree = customerPhoneError('+33805123456', '/phone');
    assert.equal(tollFree?.code, 'not_allowed');
    assert.match(tollFree!.message, /cannot receive an SMS/);
    assert.equal(customerPhoneRefusal(tollFree!).code, 'phone_not_mobile');
  });

  it('the French page says the number cannot receive an SMS, not that it is a landline (toll-free, pager…)', () => {
    const message = fr.problems.phone_not_mobile;
    assert.ok(message, 'phone_not_mobile has a French message');
    assert.match(message, /ne peut pas recevoir de SMS\u202f:/);
    assert.doesNotMatch(message, /fixe/);
  });
});
