import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  abaChecksumValid,
  checkUsBankAccount,
  isAchRoutingPrefix,
  maskAccountNumber,
} from '../../src/payouts/us-bank-account.ts';

/** US bank accounts: ABA routing numbers, DFI account numbers, account types (src/payouts/us-bank-account.ts). */
describe('US bank account', () => {
  const valid = { routingNumber: '021000021', accountNumber: '000123456789', accountType: 'checking' };

  it('accepts real routing numbers and keeps the account as the NACHA file needs it', () => {
    for (const routingNumber of ['021000021', '026009593', '011000015', '111000025', '322271627', '121000358'])
      assert.ok(abaChecksumValid(routingNumber), routingNumber);
    const check = checkUsBankAccount({
      routingNumber: '0210 0002-1',
      accountNumber: '0001-2345 6789',
      accountType: 'Savings ',
    });
    assert.deepEqual(check, {
      ok: true,
      account: { routingNumber: '021000021', accountNumber: '000123456789', accountType: 'savings' },
    });
  });

  it('refuses a routing number whose 3-7-1 check digit does not match, each single-digit typo included', () => {
    const check = checkUsBankAccount({ ...valid, routingNumber: '021000022' });
    assert.deepEqual(check.ok ? [] : check.issues.map((i) => [i.field, i.code]), [
      ['routingNumber', 'routing_check_digit'],
    ]);
    // the 3-7-1 weights are prime to 10: any one digit changed breaks the sum
    for (let position = 0; position < 9; position++)
      for (let digit = 0; digit <= 9; digit++) {
        const typo = `${valid.routingNumber.slice(0, position)}${digit}${valid.routingNumber.slice(position + 1)}`;
        if (typo !== valid.routingNumber) assert.equal(abaChecksumValid(typo), false, typo);
      }
  });

  it('knows the Federal Reserve routing symbols ACH uses: 00–12, 21–32, 61–72, 80', () => {
    const accepted = Array.from({ length: 100 }, (_, n) => n).filter(isAchRoutingPrefix);
    assert.deepEqual(accepted, [
      ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
      ...[21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32],
      ...[61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72],
      80,
    ]);
    // 500000005 has a right check digit, but no bank's routing number starts with 50
    assert.ok(abaChecksumValid('500000005'));
    const check = checkUsBankAccount({ ...valid, routingNumber: '500000005' });
    assert.deepEqual(check.ok ? [] : check.issues.map((i) => i.code), ['routing_unknown_prefix']);
  });

  it('reports every field at once, each with its code', () => {
    const check = checkUsBankAccount({
      routingNumber: '12345',
      accountNumber: '1234567890123456789',
      accountType: 'brokerage',
    });
    assert.deepEqual(check.ok ? [] : check.issues.map((i) => [i.field, i.code]), [
      ['routingNumber', 'routing_invalid'],
      ['accountNumber', 'account_number_too_long'],
      ['accountType', 'account_type_invalid'],
    ]);
    const empty = checkUsBankAccount({ routingNumber: ' ', accountNumber: '- -', accountType: '' });
    assert.deepEqual(empty.ok ? [] : empty.issues.map((i) => i.code), [
      'routing_required',
      'account_number_required',
      'account_type_invalid',
    ]);
    const letters = checkUsBankAccount({ ...valid, accountNumber: 'ABC' });
    assert.deepEqual(letters.ok ? [] : letters.issues.map((i) => i.code), ['account_number_invalid']);
    const punctuation = checkUsBankAccount({ ...valid, accountNumber: '1234/5678' });
    assert.deepEqual(punctuation.ok ? [] : punctuation.issues.map((i) => i.code), ['account_number_invalid']);
  });

  it('takes 1 to 17 characters, letters put in upper case', () => {
    assert.equal(checkUsBankAccount({ ...valid, accountNumber: '7' }).ok, true);
    assert.equal(checkUsBankAccount({ ...valid, accountNumber: '12345678901234567' }).ok, true);
    assert.equal(checkUsBankAccount({ ...valid, accountNumber: '123456789012345678' }).ok, false);
    const lettered = checkUsBankAccount({ ...valid, accountNumber: '12ab34' });
    assert.equal(lettered.ok && lettered.account.accountNumber, '12AB34');
  });

  it('masks an account number to its last four', () => {
    assert.equal(maskAccountNumber('000123456789'), '•••• 6789');
    assert.equal(maskAccountNumber('0001-2345 6789'), '•••• 6789');
  });
});
