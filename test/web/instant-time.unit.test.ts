import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { leftOutNote } from '../../src/web/admin-claim-view.ts';
import { formatShortInstant, instantTime } from '../../src/web/layout.ts';

/**
 * Instants a person reads in the consoles' dense tables: to the minute, in the page's language, the zone said
 * by the column's header (or with the instant where no header says it), the ISO instant in `<time datetime>`.
 */

const AT = new Date('2026-03-02T09:30:41.250Z');

describe('instants in the page’s language', () => {
  test('compact, to the minute, UTC, without the zone: the column’s header says it', () => {
    assert.equal(formatShortInstant(AT, 'en'), '2 Mar 2026, 09:30');
    assert.equal(formatShortInstant(AT, 'fr'), '2 mars 2026, 09:30');
    // en-GB writes September 'Sept': a test reading English months must know it
    assert.equal(formatShortInstant(new Date('2026-09-02T09:30:00Z'), 'en'), '2 Sept 2026, 09:30');
  });

  test('the UTC day and time, whatever the process’s time zone: 23:30 UTC is still that day', (context) => {
    const before = process.env.TZ;
    context.after(() => {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    });
    const late = new Date('2026-11-28T23:30:00Z');
    // UTC+14 (already the 29th there) and UTC−10 (13:30 there); Node takes a TZ set while it runs
    for (const zone of ['Pacific/Kiritimati', 'America/Adak']) {
      process.env.TZ = zone;
      assert.equal(Intl.DateTimeFormat().resolvedOptions().timeZone, zone, 'the process in that zone');
      assert.notEqual(late.getHours(), 23, `${zone}: the local clock is not UTC's`);
      assert.equal(formatShortInstant(late, 'fr'), '28 nov. 2026, 23:30', zone);
      assert.equal(formatShortInstant(late, 'en'), '28 Nov 2026, 23:30', zone);
      assert.equal(String(instantTime(late, 'en', { zone: true })).includes('28 Nov 2026, 23:30 UTC'), true, zone);
    }
  });

  test('in a <time> keeping the ISO instant; `never` when there is none; with its zone in a sentence', () => {
    assert.equal(String(instantTime(AT, 'fr')), '<time datetime="2026-03-02T09:30:41.250Z">2 mars 2026, 09:30</time>');
    assert.equal(instantTime(null, 'en', { never: '—' }), '—');
    assert.equal(instantTime(null, 'en'), '');
    assert.equal(
      String(instantTime(AT, 'en', { zone: true })),
      '<time datetime="2026-03-02T09:30:41.250Z">2 Mar 2026, 09:30 UTC</time>',
    );
  });

  test('a payout left out: since when in the sentence of the page’s language, the words escaped, the <time> not', () => {
    assert.equal(
      String(leftOutNote('en', AT, 'no_bic')),
      'left out: no BIC (since <time datetime="2026-03-02T09:30:41.250Z">2 Mar 2026, 09:30 UTC</time>)',
    );
    assert.equal(
      String(leftOutNote('fr', AT, 'no_debtor_address')),
      'écarté\u202f: adresse de l’assureur non renseignée (depuis le <time datetime="2026-03-02T09:30:41.250Z">2 mars 2026, 09:30 UTC</time>)',
    );
    assert.match(String(leftOutNote('en', AT, 'invalid')), /^left out of its file \(since <time /);
  });
});
