import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CUSTOMER_LANGUAGES } from '../../src/platform/language.ts';
import { gsm7Spelling, isGsm7, smsLength } from '../../src/notify/sms/segments.ts';
import {
  claimLink,
  formatAmount,
  formatDelay,
  formatDepartureDate,
  renderClaimSms,
  renderPaidSms,
  renderPaymentFailedSms,
  renderReminderSms,
  renderVoidedSms,
  renderExpiredSms,
  smsAmount,
  type ClaimEvent,
  type ClaimSmsInput,
  type Language,
} from '../../src/notify/sms/templates.ts';

/** A realistic token: 32 random bytes in base64url (43 characters, 256 bits). */
const TOKEN = 'q3Zk9Vb0T1xYw2cR8mN5pL4sH7dF6gJ0aE-_uI9oP1k';
const PUBLIC_URL = 'https://parasol.example.com';
/** The partner's brand and the insurer's short name every message names. */
const NAMES = { brand: 'SkyFly', insurer: 'Parasol' };

const EVENTS: Record<string, ClaimEvent> = {
  delayed: { kind: 'delayed', arrivalDelayMinutes: 195 },
  cancelled: { kind: 'cancelled' },
  diverted: { kind: 'diverted' },
};

function render(language: Language, event: ClaimEvent, overrides: Partial<ClaimSmsInput> = {}) {
  return renderClaimSms({
    language,
    ...NAMES,
    flightNumber: 'AF1234',
    departureDate: '2025-03-12',
    event,
    amount: 5000,
    currency: 'EUR',
    publicUrl: PUBLIC_URL,
    token: TOKEN,
    ...overrides,
  });
}

describe('claim SMS templates', () => {
  it('English: flight, date, event, amount "€50.00" and the link', () => {
    assert.equal(
      render('en', EVENTS.delayed!).body,
      `SkyFly (insured by Parasol): your flight AF1234 of 12 Mar 2025 arrived 3 h 15 min late. You are paid €50.00. Enter your bank details: ${PUBLIC_URL}/c/${TOKEN}`,
    );
    assert.match(
      render('en', EVENTS.cancelled!).body,
      /^SkyFly \(insured by Parasol\): your flight AF1234 of 12 Mar 2025 was cancelled\. You are paid €50\.00\./,
    );
    assert.match(
      render('en', EVENTS.diverted!).body,
      /^SkyFly \(insured by Parasol\): your flight AF1234 of 12 Mar 2025 was diverted\. You are paid €50\.00\./,
    );
  });

  it('French: flight, date, event, amount "50,00 €" and the link', () => {
    assert.equal(
      render('fr', EVENTS.delayed!).body,
      `SkyFly (assuré par Parasol) : votre vol AF1234 du 12/03/2025 est arrivé avec 3 h 15 min de retard. Vous recevez 50,00 €. Saisissez votre RIB : ${PUBLIC_URL}/c/${TOKEN}`,
    );
    assert.match(
      render('fr', EVENTS.cancelled!).body,
      /^SkyFly \(assuré par Parasol\) : votre vol AF1234 du 12\/03\/2025 a été annulé\. Vous recevez 50,00 €\./,
    );
    assert.match(
      render('fr', EVENTS.diverted!).body,
      /^SkyFly \(assuré par Parasol\) : votre vol AF1234 du 12\/03\/2025 a été dérouté\. Vous recevez 50,00 €\./,
    );
  });

  for (const language of CUSTOMER_LANGUAGES) {
    for (const [name, event] of Object.entries(EVENTS)) {
      it(`${language} ${name}: link PARASOL_PUBLIC_URL/c/<token>, GSM-7, two segments`, () => {
        const sms = render(language, event);
        assert.equal(sms.link, `${PUBLIC_URL}/c/${TOKEN}`);
        assert.ok(sms.body.endsWith(` ${sms.link}`), 'the link ends the message (nothing glued to it)');
        assert.equal(sms.encoding, 'GSM-7');
        assert.ok(isGsm7(sms.body));
        assert.equal(sms.segments, 2);
        assert.ok(sms.units <= 2 * 153);
      });
    }
  }

  it('the longest realistic message stays within two GSM-7 segments with an 80-character public URL and a 20-character brand', () => {
    const longUrl = `https://${'a'.repeat(80 - 'https://'.length)}`;
    for (const language of CUSTOMER_LANGUAGES) {
      const sms = render(
        language,
        { kind: 'delayed', arrivalDelayMinutes: 23 * 60 + 59 },
        { amount: 1_234_567_89, flightNumber: 'U21234', publicUrl: longUrl, brand: 'B'.repeat(20) },
      );
      assert.equal(sms.encoding, 'GSM-7', language);
      assert.equal(sms.segments, 2, `${language}: ${sms.units} septets`);
    }
  });

  it('a voided claim: withdrawn, not paid, no link, no amount; GSM-7 within two segments in every language', () => {
    for (const language of CUSTOMER_LANGUAGES) {
      const sms = renderVoidedSms({
        language,
        ...NAMES,
        brand: 'B'.repeat(20),
        flightNumber: 'U21234',
        departureDate: '2025-03-12',
      });
      assert.equal(sms.link, null);
      assert.ok(sms.body.includes('U21234') && !/http|€|EUR/.test(sms.body), `${language}: ${sms.body}`);
      assert.equal(sms.encoding, 'GSM-7', `${language}: ${sms.body}`);
      assert.ok(sms.segments <= 2, `${language}: ${sms.units} septets`);
    }
  });

  it('an expired claim: not paid, whom to ask, no link; GSM-7 within two segments in every language, the longest case', () => {
    for (const language of CUSTOMER_LANGUAGES) {
      const sms = renderExpiredSms({
        language,
        ...NAMES,
        brand: 'B'.repeat(20),
        flightNumber: 'U21234',
        departureDate: '2025-03-12',
        amount: 123456789,
        currency: 'EUR',
      });
      assert.equal(sms.link, null);
      assert.ok(sms.body.includes('U21234') && !/http/.test(sms.body), `${language}: ${sms.body}`);
      assert.equal(sms.encoding, 'GSM-7', `${language}: ${sms.body}`);
      assert.ok(sms.segments <= 2, `${language}: ${sms.units} septets`);
    }
    const en = renderExpiredSms({
      language: 'en',
      ...NAMES,
      flightNumber: 'AF1234',
      departureDate: '2025-03-12',
      amount: 5000,
      currency: 'EUR',
    });
    console.log(`expired, en: ${en.units} septets`);
    assert.equal(
      en.body,
      'SkyFly (insured by Parasol): your €50.00 for flight AF1234 of 12 Mar 2025 has expired: no bank details were given by the due date, so it will not be paid. For any question, contact the seller of your insurance.',
    );
  });

  it('spells a brand or an insurer with letters GSM-7 lacks in GSM-7, so one "ô" does not make every message UCS-2', () => {
    for (const language of CUSTOMER_LANGUAGES) {
      const sms = render(language, { kind: 'cancelled' }, { brand: 'Voyages Côte d’Azur', insurer: 'Assurœ' });
      assert.equal(sms.encoding, 'GSM-7', language);
      assert.equal(sms.segments, 2, language);
      assert.ok(sms.body.includes("Voyages Cote d'Azur"), sms.body);
      assert.ok(sms.body.includes('Assuroe'), sms.body);
    }
    // without the spelling the same message is UCS-2 (67 units a segment instead of 153): 3 segments, not 2
    assert.equal(smsLength(render('fr', { kind: 'cancelled' }).body.replace('SkyFly', 'Côte')).segments, 3);
  });

  it('GSM-7 spelling keeps what GSM-7 has and leaves other scripts alone', () => {
    assert.equal(
      gsm7Spelling('Émile Ñandú Ça øre Straße'),
      'Émile Ñandu Ça øre Straße',
      'é Ñ Ç ø ß are GSM-7; ú is not',
    );
    assert.equal(gsm7Spelling('Œuvre ŒUVRE Łódź'), 'Oeuvre OEUVRE Lodz');
    assert.equal(gsm7Spelling('“Fly” – Now… l’air'), '"Fly" - Now... l\'air');
    assert.equal(gsm7Spelling('Nice\u00a0Air\u202fOne'), 'Nice Air One');
    assert.equal(gsm7Spelling('東京エア'), '東京エア');
    assert.equal(gsm7Spelling('Fly 😀'), 'Fly 😀');
    assert.ok(isGsm7(gsm7Spelling('àâäçéèêëîïôöùûüÿñ ÀÂÄÇÉÈÊËÎÏÔÖÙÛÜŸÑ')));
  });

  it('measured lengths (documented in docs/sms.md)', () => {
    const measured = Object.fromEntries(
      CUSTOMER_LANGUAGES.flatMap((language) =>
        Object.entries(EVENTS).map(([name, event]) => [`${language} ${name}`, render(language, event).units]),
      ),
    );
    assert.deepEqual(measured, {
      'fr delayed': 217,
      'fr cancelled': 193,
      'fr diverted': 194,
      'en delayed': 208,
      'en cancelled': 198,
      'en diverted': 197,
      'de delayed': 224,
      'de cancelled': 200,
      'de diverted': 200,
      'es delayed': 227,
      'es cancelled': 208,
      'es diverted': 207,
      'it delayed': 230,
      'it cancelled': 212,
      'it diverted': 211,
      'nl delayed': 222,
      'nl cancelled': 197,
      'nl diverted': 194,
      'pt delayed': 210,
      'pt cancelled': 192,
      'pt diverted': 191,
    });
  });

  it("amounts come from integer minor units, exactly, in the locale's format", () => {
    assert.equal(formatAmount(5000, 'EUR', 'en'), '€50.00');
    assert.equal(formatAmount(5000, 'EUR', 'fr'), '50,00 €');
    assert.equal(formatAmount(29, 'EUR', 'en'), '€0.29');
    assert.equal(formatAmount(115, 'EUR', 'fr'), '1,15 €');
    assert.equal(formatAmount(100000001, 'EUR', 'en'), '€1,000,000.01');
    assert.equal(formatAmount(100000001, 'EUR', 'fr'), '1 000 000,01 €');
    // Beyond 2^53 / 100 a float would lose the cents; the decimal string keeps them.
    assert.equal(formatAmount(Number.MAX_SAFE_INTEGER, 'EUR', 'en'), '€90,071,992,547,409.91');
    assert.equal(formatAmount(5000, 'JPY', 'en'), 'JP¥5,000');
    assert.ok(isGsm7(formatAmount(123456789, 'EUR', 'fr')), 'no no-break spaces left');
  });

  it('an SMS writes a currency whose symbol GSM-7 lacks by its ISO code (₹ would make the message UCS-2), in every language', () => {
    assert.equal(formatAmount(5000, 'INR', 'en'), '₹50.00', 'the symbol, as emails and the page show it');
    assert.equal(smsAmount(5000, 'INR', 'en'), 'INR 50.00');
    assert.equal(smsAmount(5000, 'INR', 'fr'), '50,00 INR');
    assert.equal(smsAmount(5000, 'EUR', 'en'), '€50.00', 'a symbol GSM-7 has is kept');
    assert.equal(smsAmount(5000, 'GBP', 'fr'), '50,00 £GB');
    for (const currency of ['INR', 'TRY', 'PLN', 'CZK', 'UAH', 'ILS', 'KRW', 'THB', 'NGN', 'PHP', 'VND'])
      for (const language of CUSTOMER_LANGUAGES) {
        const amount = smsAmount(123456789, currency, language);
        assert.ok(isGsm7(amount), `${currency} in ${language}: ${amount}`);
        const sms = render(language, EVENTS.delayed!, { currency, amount: 123456789 });
        assert.equal(sms.encoding, 'GSM-7', `${currency} in ${language}`);
        assert.equal(sms.segments, 2, `${currency} in ${language}`);
      }
  });

  it('Intl.NumberFormat formats a decimal string exactly (Node 20, NumberFormat v3)', () => {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR', maximumFractionDigits: 2 });
    // As a number, 0.1 + 0.2 rounds; as a string nothing is ever rounded on the way in.
    assert.equal(format.format('12345678901234567.89' as unknown as number), '€12,345,678,901,234,567.89');
    // eslint-disable-next-line no-loss-of-precision -- the point: a number literal has already lost it
    assert.equal(format.format(12345678901234567.89), '€12,345,678,901,234,568.00');
  });

  it('delays, dates and links', () => {
    assert.equal(formatDelay(195), '3 h 15 min');
    assert.equal(formatDelay(180), '3 h');
    assert.equal(formatDelay(45), '45 min');
    assert.throws(() => formatDelay(-1), RangeError);
    assert.equal(formatDepartureDate('2025-08-01', 'fr'), '01/08/2025');
    assert.equal(formatDepartureDate('2025-08-01', 'en'), '1 Aug 2025');
    assert.throws(() => formatDepartureDate('1/8/2025', 'en'), RangeError);
    assert.equal(claimLink('https://x.example/', TOKEN), `https://x.example/c/${TOKEN}`);
    assert.throws(() => claimLink(PUBLIC_URL, 'not a token'), RangeError);
  });
});

describe('SMS segments', () => {
  it('GSM-7: 160 septets in one SMS, 153 per segment beyond', () => {
    assert.deepEqual(smsLength('a'.repeat(160)), { encoding: 'GSM-7', units: 160, segments: 1, nonGsmCharacters: [] });
    assert.equal(smsLength('a'.repeat(161)).segments, 2);
    assert.equal(smsLength('a'.repeat(306)).segments, 2);
    assert.equal(smsLength('a'.repeat(307)).segments, 3);
    assert.equal(smsLength('').segments, 0);
  });

  it('GSM-7 extension characters take two septets and an escape pair is never split', () => {
    assert.equal(smsLength('€'.repeat(80)).units, 160);
    assert.equal(smsLength('€'.repeat(80)).segments, 1);
    // 152 septets then "€": 154 > 153, the pair moves to the second segment.
    assert.equal(smsLength(`${'a'.repeat(152)}€${'a'.repeat(100)}`).segments, 2);
    assert.equal(
      smsLength(`${'a'.repeat(152)}€${'a'.repeat(152)}`).segments,
      3,
      '306 septets but the split pair costs a slot',
    );
  });

  it('French accents outside GSM-7 switch the whole message to UCS-2 (70 / 67 units)', () => {
    assert.equal(isGsm7('é è à ù É Ç'), true);
    for (const c of ['ê', 'ç', 'ô', 'û', 'î', 'œ', '\u00A0', '\u202F']) assert.equal(isGsm7(c), false, c);
    const ucs2 = smsLength(`être ${'a'.repeat(65)}`);
    assert.deepEqual(ucs2, { encoding: 'UCS-2', units: 70, segments: 1, nonGsmCharacters: ['ê'] });
    assert.equal(smsLength(`ê${'a'.repeat(70)}`).segments, 2);
    assert.equal(smsLength('😀'.repeat(34)).units, 68);
    assert.equal(smsLength(`${'a'.repeat(66)}😀`).segments, 1, '68 units fit in one SMS');
    assert.equal(
      smsLength(`${'a'.repeat(66)}😀${'a'.repeat(66)}`).segments,
      3,
      '134 units, but a surrogate pair is never split',
    );
  });
});

describe('payment failed SMS', () => {
  for (const language of CUSTOMER_LANGUAGES) {
    it(`${language}: names the amount, the flight and the new link; GSM-7 within two segments`, () => {
      const sms = renderPaymentFailedSms({
        language,
        ...NAMES,
        flightNumber: 'AF1234',
        departureDate: '2025-03-12',
        amount: 5000,
        currency: 'EUR',
        publicUrl: PUBLIC_URL,
        token: TOKEN,
      });
      assert.ok(sms.body.includes('AF1234'));
      assert.ok(sms.body.includes(formatAmount(5000, 'EUR', language)));
      assert.ok(sms.body.endsWith(`${PUBLIC_URL}/c/${TOKEN}`));
      assert.equal(sms.link, `${PUBLIC_URL}/c/${TOKEN}`);
      assert.ok(isGsm7(sms.body), 'GSM-7 only');
      assert.ok(sms.segments <= 2, `${sms.segments} segments`);
    });
  }
});

describe('reminder and receipt SMS, in every customer language', () => {
  const longUrl = `https://${'a'.repeat(80 - 'https://'.length)}`;
  for (const language of CUSTOMER_LANGUAGES) {
    it(`${language} reminder: amount, flight, the last day before the due date, the new link; GSM-7, two segments`, () => {
      const sms = renderReminderSms({
        language,
        ...NAMES,
        flightNumber: 'AF1234',
        departureDate: '2025-03-12',
        amount: 5000,
        currency: 'EUR',
        publicUrl: PUBLIC_URL,
        token: TOKEN,
        dueAt: new Date('2025-04-11T09:30:00Z'),
      });
      assert.ok(sms.body.includes('AF1234'));
      assert.ok(sms.body.includes(formatAmount(5000, 'EUR', language)));
      assert.ok(sms.body.includes(formatDepartureDate('2025-04-10', language)), 'the last whole day: the day before');
      assert.ok(!sms.body.includes('undefined'), 'no missing word');
      assert.ok(sms.body.endsWith(`${PUBLIC_URL}/c/${TOKEN}`));
      assert.equal(sms.link, `${PUBLIC_URL}/c/${TOKEN}`);
      assert.ok(isGsm7(sms.body), 'GSM-7 only');
      assert.equal(sms.segments, 2, `${sms.units} septets`);
      // the longest realistic case stays in two segments with an 80-character public URL
      const longest = renderReminderSms({
        language,
        ...NAMES,
        flightNumber: 'U21234',
        departureDate: '2025-03-12',
        amount: 1_234_567_89,
        currency: 'EUR',
        publicUrl: longUrl,
        token: TOKEN,
        dueAt: new Date('2025-12-31T23:59:00Z'),
      });
      assert.equal(longest.encoding, 'GSM-7');
      assert.equal(longest.segments, 2, `${language}: ${longest.units} septets`);
    });

    it(`${language} receipt: amount, account ending, flight; no link; GSM-7, one segment`, () => {
      const sms = renderPaidSms({
        language,
        ...NAMES,
        flightNumber: 'AF1234',
        departureDate: '2025-03-12',
        amount: 1_234_567_89,
        currency: 'EUR',
        ibanLast4: '3000',
      });
      assert.ok(sms.body.includes('AF1234') && sms.body.includes('3000'));
      assert.ok(sms.body.includes(formatAmount(1_234_567_89, 'EUR', language)));
      assert.ok(!sms.body.includes('undefined'), 'no missing word');
      assert.equal(sms.link, null);
      assert.ok(isGsm7(sms.body), 'GSM-7 only');
      assert.equal(sms.segments, 1, `${sms.units} septets`);
    });
  }
});
