import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { customerWords } from '../../src/i18n/index.ts';
import { escapeHtml } from '../../src/platform/html.ts';
import type { CustomerLang } from '../../src/platform/language.ts';
import { buildTestApp, createTestPartner, sandboxClaimLink, type TestApp, type TestPartner } from '../helper.ts';

/**
 * The bank-details form refuses an account holder's name with markup or control characters (saying
 * what a name may hold), one of digits only (a name needs letters), and an IBAN of the wrong length
 * (its country's length and the length typed): 422, nothing stored, the link still open, what was
 * typed shown back escaped.
 */
describe('the bank-details form: what the holder’s name and the IBAN may be', () => {
  let t: TestApp;
  let partner: TestPartner;
  let seq = 6500 + (process.pid % 400);

  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
    partner = await createTestPartner(t.db);
  });
  after(() => t.close());

  /** A sandbox claim on a cancelled flight, for a customer of `language`: its bank-details link path. */
  async function claimLink(language: CustomerLang): Promise<string> {
    return (await sandboxClaimLink(t, partner, { flightNumber: `AF${seq++}`, language })).path;
  }

  const send = (path: string, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: path,
      payload: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

  const IBAN = 'DE89 3704 0044 0532 0130 00';

  it('markup and control characters in the name: 422, what a name may hold, the value escaped, the link still open', async () => {
    const path = await claimLink('fr');
    const w = customerWords('fr').page.errors;
    for (const accountHolder of [
      '<script>alert(1)</script>',
      '<b>Jean</b> Dupont',
      'Jean\u0007Dupont',
      'Jean\u202eDupont',
    ]) {
      const res = await send(path, { accountKind: 'iban', accountHolder, iban: IBAN, bic: '' });
      assert.equal(res.statusCode, 422, accountHolder);
      assert.ok(res.body.includes(`id="f-accountHolder-error">${escapeHtml(w.holder_characters)}</p>`), accountHolder);
      assert.doesNotMatch(res.body, /<script>alert|<b>Jean/);
    }
    const escaped = await send(path, { accountKind: 'iban', accountHolder: '<script>alert(1)</script>', iban: IBAN });
    assert.match(escaped.body, /value="&lt;script&gt;alert\(1\)&lt;\/script&gt;"/);
    // nothing was taken: the same link takes a proper name
    const taken = await send(path, { accountKind: 'iban', accountHolder: 'Jean Dupont', iban: IBAN, bic: '' });
    assert.equal(taken.statusCode, 200, taken.body.slice(0, 500));
  });

  it('U+0000, which no text may hold: the form back in the customer’s language, not a problem+json', async () => {
    const path = await claimLink('de');
    const w = customerWords('de').page.errors;
    const res = await send(path, { accountKind: 'iban', accountHolder: 'Jean\u0000Dupont', iban: IBAN, bic: '' });
    assert.equal(res.statusCode, 422);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.ok(res.body.includes(`id="f-accountHolder-error">${escapeHtml(w.holder_characters)}</p>`));
    assert.ok(
      res.body.includes('id="f-accountHolder" name="accountHolder" value="JeanDupont"'),
      'shown back without it',
    );
    assert.ok(res.body.includes(`value="${IBAN}"`), 'the other fields kept');
    // an unknown link stays a 404 page
    const unknown = await send('/c/abc', { accountHolder: 'A\u0000' });
    assert.equal(unknown.statusCode, 404, unknown.body);
    assert.match(unknown.headers['content-type'] as string, /^text\/html/);
  });

  it('U+0000 in a field the form does not show (accountKind, an extra one): the form back, not a problem+json', async () => {
    const path = await claimLink('en');
    const cases: Record<string, string>[] = [
      { accountKind: 'iban\u0000', accountHolder: 'Jean Dupont', iban: IBAN },
      { accountKind: 'iban', accountHolder: 'Jean Dupont', iban: IBAN, extra: '\u0000' },
    ];
    for (const fields of cases) {
      const res = await send(path, fields);
      assert.equal(res.statusCode, 422, JSON.stringify(fields));
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.ok(res.body.includes('value="Jean Dupont"'), 'the form back as sent');
    }
  });

  it('a name of digits: "a name needs letters", not "Latin letters"', async () => {
    const path = await claimLink('en');
    const w = customerWords('en').page.errors;
    const res = await send(path, { accountKind: 'iban', accountHolder: '0612345678', iban: IBAN, bic: '' });
    assert.equal(res.statusCode, 422);
    assert.ok(res.body.includes(`id="f-accountHolder-error">${w.holder_needs_letters}</p>`));
    assert.ok(!res.body.includes(w.holder_not_latin), 'not the Latin letters message');
  });

  it('an IBAN of the wrong length says its country’s length and the length typed; a short BIC says 8 or 11', async () => {
    const path = await claimLink('en');
    const res = await send(path, {
      accountKind: 'iban',
      accountHolder: 'Ada Byron',
      iban: 'FR76 3000 6000 0112 3456 7890 18',
      bic: 'AGRIFRPP1',
    });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /An IBAN with country code FR \(France\) has 27 characters; you entered 26\./);
    const bic = await send(path, {
      accountKind: 'iban',
      accountHolder: 'Ada Byron',
      iban: 'FR76 3000 6000 0112 3456 7890 189',
      bic: 'AGRIFRPP1',
    });
    assert.equal(bic.statusCode, 422);
    assert.match(bic.body, /A BIC has 8 or 11 characters; you entered 9\./);
  });
});
