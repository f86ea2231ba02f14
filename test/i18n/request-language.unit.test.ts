import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customerLanguageOf, languageOf } from '../../src/i18n/index.ts';

describe('the language a request asks for', () => {
  it('serves the portal in the cookie, else the best of Accept-Language, else English', () => {
    assert.equal(languageOf('fr', 'en-GB'), 'fr', 'the cookie wins');
    assert.equal(languageOf(undefined, 'fr-CA,en;q=0.5'), 'fr');
    assert.equal(languageOf(undefined, 'de-DE, fr;q=0.7, en;q=0.9'), 'en', 'by weight, not by position');
    assert.equal(languageOf(undefined, 'de-DE, fr;q=0.7'), 'fr', 'a later language the portal speaks');
    assert.equal(languageOf(undefined, 'ja'), 'en');
    assert.equal(languageOf(undefined, 'en-GB, fr'), 'en', 'at equal weight, the order: a region is no lesser match');
    assert.equal(languageOf(undefined, 'fr-FR, en'), 'fr');
    assert.equal(languageOf('xx', undefined), 'en');
    assert.equal(languageOf(undefined, ''), 'en');
  });

  it("finds a customer's language only when the browser asks for one of ours", () => {
    assert.equal(customerLanguageOf('nl-BE,nl;q=0.9'), 'nl');
    assert.equal(customerLanguageOf('de-DE, en'), 'de');
    assert.equal(customerLanguageOf('de-DE;q=0.5, en-US;q=0.8'), 'en');
    assert.equal(customerLanguageOf('ja, it;q=0.2'), 'it');
    assert.equal(customerLanguageOf('es;q=0, pt'), 'pt', 'q=0 means "not this one"');
    assert.equal(customerLanguageOf('ja, zh'), undefined);
    assert.equal(customerLanguageOf(undefined), undefined);
    assert.equal(customerLanguageOf('  '), undefined);
  });
});
