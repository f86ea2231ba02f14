import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CUSTOMER_LANGUAGES,
  CUSTOMER_WORDS,
  formatDuration,
  plural,
  type CustomerLang,
} from '../../src/i18n/customer/index.ts';
import {
  renderClaimOpenedEmail,
  renderClaimSms,
  renderPaidSms,
  renderPaymentFailedSms,
  renderReceiptEmail,
  renderReminderEmail,
  renderReminderSms,
  type ClaimEvent,
} from '../../src/notify/index.ts';
import { DEMO_INSURER } from '../../src/platform/config.ts';

/**
 * Every customer template (SMS, emails) rendered in every language, with the counts that change
 * the words (1 and many passengers, minutes, hours, days): no key missing, nothing unfilled, the
 * brand, the insurer and the link present, and each SMS's encoding and segments.
 */

const TOKEN = 'q3Zk9Vb0T1xYw2cR8mN5pL4sH7dF6gJ0aE-_uI9oP1k';
const PUBLIC_URL = 'https://claims.parasol.example';
const LINK = `${PUBLIC_URL}/c/${TOKEN}`;
const BRAND = 'SkyFly';

const EVENTS: ClaimEvent[] = [
  { kind: 'delayed', arrivalDelayMinutes: 61 }, // 1 hour 1 minute
  { kind: 'delayed', arrivalDelayMinutes: 135 }, // 2 hours 15 minutes
  { kind: 'delayed', arrivalDelayMinutes: 180 },
  { kind: 'cancelled' },
  { kind: 'diverted' },
];

const LEAKS = /undefined|NaN|\bnull\b|\[object |[{}]|#/;

function base(language: CustomerLang) {
  return {
    language,
    brand: BRAND,
    flightNumber: 'AF1234',
    departureDate: '2026-03-12',
    amount: 12_345,
    currency: 'EUR',
  };
}

/** The keys of a words object, deep, functions and strings as leaves. */
function shape(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, v]) => shape(v, `${prefix}.${key}`));
}

describe('customer words: seven languages, one shape', () => {
  it('every language has every key of English, and no other (the type-check says so too)', () => {
    const english = shape(CUSTOMER_WORDS.en).sort();
    for (const language of CUSTOMER_LANGUAGES)
      assert.deepEqual(shape(CUSTOMER_WORDS[language]).sort(), english, language);
  });

  it('plurals through Intl.PluralRules, numbers through Intl.NumberFormat', () => {
    assert.equal(plural('en', 1, CUSTOMER_WORDS.en.passengers), '1 passenger');
    assert.equal(plural('en', 3, CUSTOMER_WORDS.en.passengers), '3 passengers');
    assert.equal(plural('fr', 1, CUSTOMER_WORDS.fr.passengers), '1 passager');
    assert.equal(plural('fr', 0, CUSTOMER_WORDS.fr.days), '0 jour', 'French: 0 takes the singular');
    assert.equal(plural('de', 2, CUSTOMER_WORDS.de.days), '2 Tage');
    assert.equal(plural('nl', 1, CUSTOMER_WORDS.nl.minutes), '1 minuut');
    assert.equal(plural('pt', 2, CUSTOMER_WORDS.pt.passengers), '2 passageiros');
    assert.equal(plural('de', 1000, CUSTOMER_WORDS.de.days), '1.000 Tage', 'grouped in the locale');
    assert.equal(formatDuration('en', 61), '1 hour 1 minute');
    assert.equal(formatDuration('it', 135), '2 ore 15 minuti');
    assert.equal(formatDuration('es', 1), '1 minuto');
    assert.equal(formatDuration('nl', 120), '2 uur');
  });
});

describe('the privacy notice in every language', () => {
  /** The words for a (US) account number, besides the IBAN. */
  const ACCOUNT_NUMBER: Record<CustomerLang, RegExp> = {
    en: /account number/,
    fr: /numéro(s)? de (routage et de )?compte/,
    de: /Kontonummer/,
    es: /número(s)? de (ruta \(routing number\) y de )?cuenta/,
    it: /numer[oi] di (routing e di )?conto/,
    nl: /rekeningnummer/,
    pt: /número(s)? de (encaminhamento \(routing number\) e de )?conta/,
  };
  const facts = {
    brand: BRAND,
    insurer: 'Insurer',
    address: 'Address',
    registration: 'R',
    regulator: 'Reg',
    email: 'e@example.test',
    phone: '+33 1',
    privacyEmail: 'p@example.test',
    bankDetailsDays: '30 days',
  };
  for (const language of CUSTOMER_LANGUAGES)
    it(`${language}: what is kept, stored encrypted and sent to banks names the IBAN and the account number`, () => {
      const sections = CUSTOMER_WORDS[language].privacyNotice(facts);
      // what we keep, how it is protected, who receives it
      for (const section of sections.slice(1, 4)) {
        const text = section.paragraphs.join(' ');
        assert.match(text, /IBAN/, `${language}: ${section.heading}`);
        assert.match(text, ACCOUNT_NUMBER[language], `${language}: ${section.heading}`);
      }
    });
});

describe('every customer SMS in every language', () => {
  const counts: string[] = [];
  for (const language of CUSTOMER_LANGUAGES) {
    it(`${language}: brand, insurer, link, no leak; GSM-7; two segments with a link, one for the receipt`, () => {
      const names = { ...base(language), insurer: DEMO_INSURER.shortName };
      const linked = [
        ...EVENTS.map((event) => renderClaimSms({ ...names, event, publicUrl: PUBLIC_URL, token: TOKEN })),
        renderPaymentFailedSms({ ...names, publicUrl: PUBLIC_URL, token: TOKEN }),
        renderReminderSms({ ...names, publicUrl: PUBLIC_URL, token: TOKEN, dueAt: new Date('2026-04-11T09:30:00Z') }),
      ];
      for (const sms of linked) {
        assert.ok(sms.body.startsWith(`${BRAND} (`), sms.body);
        assert.ok(sms.body.includes(DEMO_INSURER.shortName), sms.body);
        assert.ok(sms.body.endsWith(LINK), sms.body);
        assert.doesNotMatch(sms.body.replace(LINK, ''), LEAKS);
        assert.equal(sms.encoding, 'GSM-7', sms.body);
        assert.ok(sms.segments <= 2, `${sms.units} septets: ${sms.body}`);
      }
      const paid = renderPaidSms({ ...names, ibanLast4: '3000' });
      assert.ok(paid.body.startsWith(`${BRAND} (`) && paid.body.includes('3000'));
      assert.doesNotMatch(paid.body, LEAKS);
      assert.equal(paid.encoding, 'GSM-7');
      assert.equal(paid.segments, 1, paid.body);
      counts.push(
        `${language}: claim ${linked[0]!.units}, payment failed ${linked[5]!.units}, reminder ${linked[6]!.units}, receipt ${paid.units} septets`,
      );
    });
  }
  it('segment counts (printed)', (t) => {
    assert.equal(counts.length, CUSTOMER_LANGUAGES.length);
    for (const line of counts) t.diagnostic(line);
  });
});

describe('every customer email in every language', () => {
  const now = new Date('2026-04-08T09:30:00Z');
  const dueAt = new Date('2026-04-11T09:30:00Z');
  for (const language of CUSTOMER_LANGUAGES) {
    it(`${language}: subject, text and HTML with the brand, the insurer's identity and the link; plural cases`, () => {
      const w = CUSTOMER_WORDS[language];
      const common = { ...base(language), insurer: DEMO_INSURER, firstName: 'Zoë <script>' };
      const emails = [
        ...[1, 3].flatMap((passengers) =>
          EVENTS.map((event) =>
            renderClaimOpenedEmail({ ...common, event, passengers, publicUrl: PUBLIC_URL, token: TOKEN, dueAt }),
          ),
        ),
        renderReminderEmail({ ...common, publicUrl: PUBLIC_URL, token: TOKEN, dueAt, now }),
        renderReminderEmail({
          ...common,
          publicUrl: PUBLIC_URL,
          token: TOKEN,
          dueAt,
          now: new Date('2026-04-10T08:00:00Z'),
        }),
        renderReceiptEmail({ ...common, ibanLast4: '3000' }),
      ];
      for (const email of emails) {
        assert.ok(email.subject.includes(BRAND) && email.subject.includes('AF1234'), email.subject);
        for (const body of [email.text, email.html]) {
          assert.ok(body.includes(BRAND), 'the brand');
          assert.ok(body.includes(w.cover(BRAND, DEMO_INSURER.legalName).replace(/&/g, '&amp;')), 'cover line');
          assert.ok(body.includes(DEMO_INSURER.registration) && body.includes(DEMO_INSURER.email), 'the insurer');
        }
        assert.doesNotMatch(email.text.replaceAll(LINK, ''), /undefined|NaN|\[object |[{}]|#/);
        assert.doesNotMatch(email.subject, LEAKS);
        const html = email.html.replace(/style="[^"]*"/g, '').replaceAll(LINK, '');
        assert.doesNotMatch(html, /undefined|NaN|\[object |[{}]|#/);
        assert.ok(!email.html.includes('<script>'), 'HTML escaped');
        assert.ok(email.html.includes('Zoë &lt;script&gt;'));
      }
      for (const email of emails.slice(0, -1)) {
        assert.ok(email.text.includes(LINK) && email.html.includes(`href="${LINK}"`), 'the same link as the SMS');
        assert.ok(email.html.includes(`href="${LINK}/privacy"`), 'the privacy notice');
      }
      assert.ok(!emails.at(-1)!.text.includes(LINK), 'the receipt has no link');
      assert.ok(emails[0]!.text.includes(plural(language, 1, w.passengers)), 'one passenger');
      assert.ok(emails[5]!.text.includes(plural(language, 3, w.passengers)), 'three passengers');
      assert.ok(emails[0]!.text.includes(formatDuration(language, 61)), '1 hour 1 minute');
      assert.ok(emails[1]!.text.includes(formatDuration(language, 135)), 'hours and minutes');
      assert.ok(emails[10]!.text.includes(plural(language, 3, w.days)), 'three days left');
      assert.ok(emails[11]!.text.includes(plural(language, 1, w.days)), 'one day left');
      // the insurer's labels: "Assureur :" with a narrow no-break space in French, "Insurer:" in English
      const insurerLine = `${w.footer.insurer}${language === 'fr' ? '\u202f' : ''}: ${DEMO_INSURER.legalName}`;
      for (const email of emails) assert.ok(email.text.includes(insurerLine), `${language}: ${insurerLine}`);
    });
  }
});
