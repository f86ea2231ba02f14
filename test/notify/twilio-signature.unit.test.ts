import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTwilioSignature, twilioSignature } from '../../src/notify/sms/twilio-signature.ts';

// Twilio's published request-validation example (its security documentation and the test suites of
// its official SDKs): auth token 12345, this URL and these POST parameters give this signature.
const TOKEN = '12345';
const URL_ = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const PARAMS: [string, string][] = [
  ['Digits', '1234'],
  ['To', '+18005551212'],
  ['From', '+14158675309'],
  ['Caller', '+14158675309'],
  ['CallSid', 'CA1234567890ABCDE'],
];
const SIGNATURE = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';

describe("Twilio's request signature", () => {
  it("reproduces Twilio's published examples", () => {
    assert.equal(twilioSignature(TOKEN, URL_, PARAMS), SIGNATURE);
    // a repeated parameter (twilio-python's example): its distinct values, sorted
    assert.equal(
      twilioSignature(TOKEN, URL_, [
        ['Sid', 'CA123'],
        ['SidAccount', 'AC123'],
        ['Digits', '5678'],
        ['Digits', '1234'],
        ['Digits', '1234'],
      ]),
      'IK+Dwps556ElfBT0I3Rgjkr1wJU=',
    );
    // the URL as Twilio called it, case included (twilio-csharp's example)
    assert.equal(
      twilioSignature(TOKEN, 'https://MyCompany.com/myapp.php?foo=1&bar=2', PARAMS),
      'g9IN/x4Cft2g517EjYvEvM/W7LU=',
    );
  });

  it('accepts the signature with or without the default port, and nothing altered', () => {
    assert.ok(isTwilioSignature(TOKEN, URL_, PARAMS, SIGNATURE));
    assert.ok(isTwilioSignature(TOKEN, 'https://mycompany.com:443/myapp.php?foo=1&bar=2', PARAMS, SIGNATURE));
    const withPort = twilioSignature(TOKEN, 'https://mycompany.com:443/myapp.php?foo=1&bar=2', PARAMS);
    assert.ok(isTwilioSignature(TOKEN, URL_, PARAMS, withPort));
    assert.ok(!isTwilioSignature(TOKEN, 'https://mycompany.com:8443/myapp.php?foo=1&bar=2', PARAMS, SIGNATURE));
    assert.ok(!isTwilioSignature(TOKEN, `${URL_}&baz=3`, PARAMS, SIGNATURE));
    assert.ok(!isTwilioSignature('54321', URL_, PARAMS, SIGNATURE));
    assert.ok(!isTwilioSignature(TOKEN, URL_, [...PARAMS.slice(1), ['Digits', '9999']], SIGNATURE));
    assert.ok(!isTwilioSignature(TOKEN, URL_, [...PARAMS, ['MessageStatus', 'delivered']], SIGNATURE));
    assert.ok(!isTwilioSignature(TOKEN, URL_, PARAMS, undefined));
    assert.ok(!isTwilioSignature(TOKEN, URL_, PARAMS, ''));
    assert.ok(!isTwilioSignature(TOKEN, URL_, PARAMS, 'RSOYDt4T1cUTdK1PDd93/VVr8B8'));
  });
});
