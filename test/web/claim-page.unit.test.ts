import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claimEvidence } from '../../src/claims/evidence.ts';
import type { BankDetailsIssue, ClaimForCustomer } from '../../src/payouts/index.ts';
import { CUSTOMER_LANGUAGES, customerWords } from '../../src/i18n/customer/index.ts';
import { DEMO_INSURER } from '../../src/platform/config.ts';
import { escapeHtml } from '../../src/platform/html.ts';
import { claimPage, closedPage, issueText, legalPage, thanksPage } from '../../src/web/claim-page.ts';

const LEGAL = { insurer: DEMO_INSURER, bankDetailsDays: 30 };
const TOKEN = 'q3Zk9Vb0T1xYw2cR8mN5pL4sH7dF6gJ0aE-_uI9oP1k';

/** The customer's page behind the SMS link says why they are paid, and where the claim stands once used. */

function claim(overrides: Partial<ClaimForCustomer> = {}): ClaimForCustomer {
  const evidence = claimEvidence({
    reason: 'delay',
    event: 'delayed',
    delay_minutes: 200,
    compensation_amount: 20_000,
    currency: 'EUR',
    opened_at: new Date('2026-12-24T18:00:00Z'),
    evidence: {
      source: 'monitoring:flightaware',
      provider: 'flightaware',
      scheduledArrival: '2026-12-24T13:30:00.000Z',
      actualArrival: '2026-12-24T16:50:00.000Z',
    },
    coverage: {
      delayTiers: [
        { minDelayMinutes: 120, amount: 5_000 },
        { minDelayMinutes: 180, amount: 10_000 },
      ],
      cancellationAmount: 0,
    },
    passengers: 2,
    configuration_version: 3,
  });
  return {
    claimId: '00000000-0000-0000-0000-000000000001',
    claimNumber: 'CLM-00000001',
    environment: 'sandbox',
    status: 'awaiting_bank_details',
    event: 'delayed',
    delayMinutes: 200,
    amount: 20_000,
    currency: 'EUR',
    flightNumber: 'AF006',
    departureDate: '2026-12-24',
    language: 'en',
    brand: 'SkyFly',
    passengers: 2,
    open: true,
    replaced: false,
    newestMessage: false,
    ibanLast4: null,
    departureAirport: 'CDG',
    arrivalAirport: 'JFK',
    paidAt: null,
    evidence,
    ...overrides,
  };
}

describe('the customer claim page', () => {
  it('says why: gate times in the arrival airport’s time, the delay, the tier, the provider', () => {
    const page = claimPage(claim(), LEGAL, TOKEN);
    assert.match(page, /AF006 CDG → JFK/);
    assert.match(page, /id="scheduled-arrival">24 Dec 2026, 08:30 \(JFK\)/);
    assert.match(page, /id="actual-arrival">24 Dec 2026, 11:50 \(JFK\)/);
    assert.match(page, /id="delay">3 hours 20 minutes/);
    assert.match(page, /pays from a delay of 3 hours at arrival/);
    assert.match(page, /For 2 passengers\./);
    assert.match(page, /Flight data from flightaware\./);
    assert.match(page, /<form method="post"/);
  });

  it('in French', () => {
    const page = claimPage(claim({ language: 'fr' }), LEGAL, TOKEN);
    assert.match(page, /Pourquoi vous êtes indemnisé/);
    assert.match(page, /à partir d’un retard de 3 heures à l’arrivée/);
    assert.match(page, /Pour 2 passagers\./);
  });

  it('refused details: the page says so at its top, in its title, and takes the focus there, in every language', () => {
    // on a phone the fields are below the fold: without it the page came back scrolled to the top,
    // focus on the body and the same title, as if Send had done nothing
    const values = { accountHolder: '', iban: 'DE89 3704 0044 0532 0130 01', bic: '' };
    const issues = [
      { field: 'accountHolder', code: 'holder_required' },
      { field: 'iban', code: 'iban_invalid' },
    ] as const;
    for (const language of CUSTOMER_LANGUAGES) {
      const w = customerWords(language).page;
      const page = claimPage(claim({ language }), LEGAL, TOKEN, { values, issues: [...issues] });
      const summary =
        /<div class="alert" role="alert" id="error-summary" tabindex="-1" autofocus>([\s\S]*?)<\/div>/.exec(page);
      assert.ok(summary, `${language}: an error summary`);
      assert.ok(page.indexOf('id="error-summary"') < page.indexOf('<form'), `${language}: above the form`);
      assert.ok(summary[1]!.includes(w.invalid), language);
      assert.ok(summary[1]!.includes(`<a href="#f-accountHolder">${w.errors.holder_required}</a>`), language);
      assert.ok(summary[1]!.includes(`<a href="#f-iban">${w.errors.iban_invalid}</a>`), language);
      assert.equal(page.match(/autofocus/g)?.length, 1, `${language}: one element takes the focus`);
      assert.match(page, new RegExp(`<title>${w.invalid} — ${w.title} — SkyFly</title>`), language);
      // what was typed stays
      assert.match(page, /id="f-iban" name="iban" value="DE89 3704 0044 0532 0130 01"/);
    }
    const fresh = claimPage(claim(), LEGAL, TOKEN);
    assert.doesNotMatch(fresh, /id="error-summary"|autofocus/);
    assert.match(fresh, /<title>Your compensation — SkyFly<\/title>/);
  });

  it('after the link: the status instead of a dead end', () => {
    const pending = closedPage(claim({ status: 'payment_pending', open: false, ibanLast4: '3000' }), LEGAL, TOKEN);
    assert.match(pending, /data-status="payment_pending"/);
    assert.match(pending, /account ending 3000\): the payment is on its way/);
    assert.match(pending, /Why you are compensated/);
    assert.doesNotMatch(pending, /<form/);
    const paid = closedPage(
      claim({ status: 'paid', open: false, paidAt: new Date('2026-12-27T10:00:00Z') }),
      LEGAL,
      TOKEN,
    );
    assert.match(paid, /has been paid \(27 Dec 2026, 05:00 \(JFK\)\)/);
    const expired = closedPage(claim({ status: 'expired', open: false }), LEGAL, TOKEN);
    assert.match(expired, /has run out/);
  });

  it('one date format per page: the gate times’ dates written as the flight’s date, in every language', () => {
    const dates: Record<string, string> = {
      en: '24 Dec 2026',
      fr: '24/12/2026',
      de: '24.12.2026',
      es: '24/12/2026',
      it: '24/12/2026',
      nl: '24-12-2026',
      pt: '24/12/2026',
    };
    for (const language of CUSTOMER_LANGUAGES) {
      const page = claimPage(claim({ language }), LEGAL, TOKEN);
      const route = /AF006 CDG → JFK, ([^<]+)<\/dd>/.exec(page)?.[1];
      const scheduled = /id="scheduled-arrival">([^<]+) \(JFK\)/.exec(page)?.[1];
      assert.equal(route, dates[language], `${language}: the flight's date`);
      assert.ok(scheduled?.startsWith(dates[language]!), `${language}: the gate time's date, got ${scheduled}`);
      assert.match(scheduled ?? '', /08:30$/, `${language}: the gate time`);
    }
  });

  it('an earlier link: where the claim stands, and the newest message holds the link to use (never a form)', () => {
    for (const language of CUSTOMER_LANGUAGES) {
      const w = customerWords(language).page;
      const page = closedPage(
        claim({ language, status: 'failed', open: false, newestMessage: true, ibanLast4: '4300' }),
        LEGAL,
        TOKEN,
      );
      assert.ok(page.includes(`<p id="newest-message" role="alert">${w.newestMessage}</p>`), `${language}: the hint`);
      assert.match(page, /data-status="failed"/, `${language}: where the claim stands`);
      assert.doesNotMatch(page, /<form/, `${language}: no form`);
      if (language !== 'en')
        assert.notEqual(w.newestMessage, customerWords('en').page.newestMessage, `${language}: its own words`);
    }
    const used = closedPage(claim({ status: 'payment_pending', open: false }), LEGAL, TOKEN);
    assert.doesNotMatch(used, /newest-message/, 'a link that served, the claim paying: no hint');
  });

  it('a replaced link: none of the claim’s details, one neutral status line at most, the hint while it waits', () => {
    const details = (page: string, what: string) => {
      assert.doesNotMatch(page, /AF006/, `${what}: no flight number`);
      assert.doesNotMatch(page, /200|€/, `${what}: no amount`);
      assert.doesNotMatch(page, /4300/, `${what}: no IBAN last 4`);
      assert.doesNotMatch(page, /passeng|passag|Passag/i, `${what}: no passengers`);
      assert.doesNotMatch(page, /id="why"|<form/, `${what}: neither why nor a form`);
    };
    for (const language of CUSTOMER_LANGUAGES) {
      const w = customerWords(language).page;
      const base = { language, open: false, replaced: true, ibanLast4: '4300' } as const;
      const waiting = closedPage(claim({ ...base, status: 'failed', newestMessage: true }), LEGAL, TOKEN);
      details(waiting, `${language} failed`);
      assert.ok(waiting.includes(w.newestMessage), `${language}: the hint while the claim waits`);
      assert.doesNotMatch(waiting, /claim-status/, `${language}: waiting, the hint is the only line`);
      const paid = closedPage(
        claim({ ...base, status: 'paid', paidAt: new Date('2026-12-27T10:00:00Z') }),
        LEGAL,
        TOKEN,
      );
      details(paid, `${language} paid`);
      assert.ok(paid.includes(`data-status="paid">${w.replacedPaid}</p>`), `${language}: paid, one neutral line`);
      assert.doesNotMatch(paid, /2026|newest-message/, `${language}: paid, no date, no hint`);
      const pending = closedPage(claim({ ...base, status: 'payment_pending' }), LEGAL, TOKEN);
      details(pending, `${language} payment_pending`);
      assert.ok(pending.includes(w.replacedPending), `${language}: pending, one neutral line`);
      if (language !== 'en')
        assert.notEqual(w.replacedPaid, customerWords('en').page.replacedPaid, `${language}: its own words`);
    }
  });

  it('every language, every state: the brand line, the insurer footer, the legal links; nothing missing', () => {
    for (const language of CUSTOMER_LANGUAGES) {
      const w = customerWords(language);
      const pages = [
        claimPage(claim({ language, passengers: 1, delayMinutes: 61 }), LEGAL, TOKEN),
        claimPage(claim({ language }), LEGAL, TOKEN, {
          values: { accountHolder: '', iban: 'FR76', bic: '' },
          issues: [{ field: 'iban', code: 'iban_invalid' }],
        }),
        claimPage(claim({ language, status: 'failed', ibanLast4: '3000' }), LEGAL, TOKEN),
        thanksPage(claim({ language }), LEGAL, TOKEN, '3000'),
        closedPage(claim({ language, status: 'payment_pending', open: false, ibanLast4: '3000' }), LEGAL, TOKEN),
        closedPage(
          claim({ language, status: 'paid', open: false, paidAt: new Date('2026-12-27T10:00:00Z') }),
          LEGAL,
          TOKEN,
        ),
        closedPage(claim({ language, status: 'expired', open: false }), LEGAL, TOKEN),
        closedPage(claim({ language, status: 'opened', open: false, event: 'cancelled' }), LEGAL, TOKEN),
        legalPage('legal', claim({ language }), LEGAL, TOKEN),
        legalPage('privacy', claim({ language }), LEGAL, TOKEN),
        // paid in another currency than EUR: the BIC required, its label and error in the language
        claimPage(claim({ language, currency: 'SEK' }), LEGAL, TOKEN, {
          values: { accountHolder: 'Helene Muller', iban: 'DE89370400440532013000', bic: '' },
          issues: [{ field: 'bic', code: 'bic_required_for_currency' }],
        }),
      ];
      for (const page of pages) {
        assert.match(page, new RegExp(`<html lang="${language}">`));
        assert.ok(page.includes(w.cover('SkyFly', DEMO_INSURER.legalName)), `${language}: the brand line`);
        assert.ok(
          page.includes(DEMO_INSURER.registration) && page.includes(DEMO_INSURER.email),
          `${language}: the insurer`,
        );
        assert.ok(page.includes(`href="/c/${TOKEN}/legal"`) && page.includes(`href="/c/${TOKEN}/privacy"`), language);
        assert.doesNotMatch(page, /undefined|NaN|\[object /, language);
        assert.doesNotMatch(page.replace(/<style>[\s\S]*<\/style>/, ''), /[{}]/, `${language}: no placeholder left`);
      }
      assert.ok(
        pages[0]!.includes(w.page.forPassengers(w.passengers.one!.replace('#', '1'))),
        `${language}: one passenger`,
      );
      assert.ok(pages[9]!.includes(DEMO_INSURER.privacyEmail), `${language}: the privacy contact`);
      assert.ok(
        pages[10]!.includes(w.page.bicRequired('SEK')) && pages[10]!.includes(w.page.errors.bic_required_for_currency),
        `${language}: the BIC required`,
      );
    }
  });

  it('the BIC: required for a claim paid in another currency than EUR, in every language; in EUR only outside the EEA', () => {
    const en = claimPage(claim({ currency: 'GBP' }), LEGAL, TOKEN);
    assert.match(en, /<label for="f-bic">Your bank’s BIC \(required: your compensation is paid in GBP\)<\/label>/);
    assert.match(en, /id="f-bic"[^>]*aria-required="true"/);
    const euro = claimPage(claim(), LEGAL, TOKEN);
    assert.match(euro, /<label for="f-bic">BIC \(if your bank is outside the European Economic Area\)<\/label>/);
    assert.doesNotMatch(euro, /id="f-bic"[^>]*aria-required/);
    const native: Record<string, RegExp> = {
      fr: /BIC de votre banque \(obligatoire\u202f: votre indemnisation est versée en CHF\)/,
      de: /BIC Ihrer Bank \(erforderlich: Ihre Entschädigung wird in CHF ausgezahlt\)/,
      es: /BIC de su banco \(obligatorio: su indemnización se paga en CHF\)/,
      it: /BIC della sua banca \(obbligatorio: l’indennizzo le viene pagato in CHF\)/,
      nl: /BIC van uw bank \(verplicht: uw vergoeding wordt uitbetaald in CHF\)/,
      pt: /BIC do seu banco \(obrigatório: a sua indemnização é paga em CHF\)/,
      en: /Your bank’s BIC \(required: your compensation is paid in CHF\)/,
    };
    for (const language of CUSTOMER_LANGUAGES) {
      const w = customerWords(language).page;
      const page = claimPage(claim({ language, currency: 'CHF' }), LEGAL, TOKEN, {
        values: { accountHolder: 'Helene Muller', iban: 'DE89 3704 0044 0532 0130 00', bic: '' },
        issues: [{ field: 'bic', code: 'bic_required_for_currency' }],
      });
      assert.ok(page.includes(`<label for="f-bic">${w.bicRequired('CHF')}</label>`), language);
      assert.match(page, native[language]!, language);
      assert.ok(page.includes(`id="f-bic-error">${w.errors.bic_required_for_currency}</p>`), language);
      if (language !== 'en')
        assert.notEqual(
          w.errors.bic_required_for_currency,
          customerWords('en').page.errors.bic_required_for_currency,
          `${language}: its own words, not English`,
        );
      assert.doesNotMatch(page, /undefined|NaN|\[object /, language);
    }
  });

  it('the privacy notice says what is kept, encrypted, for how long', () => {
    const page = legalPage('privacy', claim(), LEGAL, TOKEN);
    assert.match(page, /stored encrypted/);
    assert.match(page, /works for 30 days/);
    assert.match(page, /no automatic deletion today/);
    const de = legalPage('privacy', claim({ language: 'de' }), LEGAL, TOKEN);
    assert.match(de, /verschlüsselt gespeichert/);
    assert.match(de, /gilt 30 Tage/);
  });
});

describe('the customer claim page, once paid', () => {
  it('dates the payment as the page’s other instants: in the arrival airport’s time, named', () => {
    // 02:30 UTC on the 25th is still the 24th in New York: the UTC date said the day after
    const page = closedPage(
      claim({ status: 'paid', open: false, paidAt: new Date('2026-12-25T02:30:00Z') }),
      LEGAL,
      TOKEN,
    );
    assert.match(
      page,
      /id="claim-status" data-status="paid">Your compensation has been paid \(24 Dec 2026, 21:30 \(JFK\)\)\./,
    );
  });

  for (const language of CUSTOMER_LANGUAGES)
    it(`says “your compensation” once above the amount, in ${language}: the label is not the heading again`, () => {
      const w = customerWords(language).page;
      assert.notEqual(w.amount, w.title);
      const page = claimPage(claim({ language }), LEGAL, TOKEN);
      assert.match(page, new RegExp(`<h1>${w.title}</h1>`));
      assert.match(page, new RegExp(`<p>${w.amount}</p>`));
    });
});

describe('the customer claim page, refused details say what is expected', () => {
  const refused = (language: (typeof CUSTOMER_LANGUAGES)[number], issues: BankDetailsIssue[], accountHolder = '') =>
    claimPage(claim({ language }), LEGAL, TOKEN, {
      values: { accountHolder, iban: 'FR76 3000 6000 0112 3456 7890 18', bic: 'AGRIFRPPX' },
      issues,
    });

  it('an IBAN of the wrong length names its country, the length it has and the length entered, in every language', () => {
    const issue: BankDetailsIssue = {
      field: 'iban',
      code: 'iban_length',
      facts: { country: 'FR', expected: 27, entered: 26 },
    };
    const country: Record<string, string> = {
      en: 'France',
      fr: 'France',
      de: 'Frankreich',
      es: 'Francia',
      it: 'Francia',
      nl: 'Frankrijk',
      pt: 'França',
    };
    for (const language of CUSTOMER_LANGUAGES) {
      const text = issueText(language, issue);
      assert.match(text, /\bFR\b/, `${language}: ${text}`);
      assert.ok(text.includes(country[language]!), `${language}: the country's name: ${text}`);
      assert.match(text, /\b27\b.*\b26\b/, `${language}: expected, then entered: ${text}`);
      const page = refused(language, [issue]);
      assert.ok(page.includes(`id="f-iban-error">${escapeHtml(text)}</p>`), language);
      assert.ok(page.includes(`<a href="#f-iban">${escapeHtml(text)}</a>`), `${language}: in the summary too`);
    }
    assert.equal(issueText('en', issue), 'An IBAN with country code FR (France) has 27 characters; you entered 26.');
  });

  it('a BIC says 8 or 11 characters; a checksum failure says the IBAN looks mistyped; each language its own words', () => {
    const bic: BankDetailsIssue = { field: 'bic', code: 'bic_length', facts: { entered: 9 } };
    for (const language of CUSTOMER_LANGUAGES) {
      assert.match(issueText(language, bic), /\b8\b.*\b11\b.*\b9\b/, language);
      assert.match(issueText(language, { field: 'bic', code: 'bic_invalid' }), /\b8\b.*\b11\b/, language);
      if (language !== 'en')
        for (const code of ['iban_mistyped', 'iban_invalid', 'holder_characters', 'holder_needs_letters'] as const)
          assert.notEqual(
            customerWords(language).page.errors[code],
            customerWords('en').page.errors[code],
            `${language}: ${code} in its own words`,
          );
    }
    assert.match(issueText('en', { field: 'iban', code: 'iban_mistyped' }), /looks mistyped/);
    assert.equal(issueText('en', bic), 'A BIC has 8 or 11 characters; you entered 9.');
  });

  it('a country without IBANs is named, not called "no country code"; a QR-IBAN is said to be one; every language', () => {
    const us: BankDetailsIssue = { field: 'iban', code: 'iban_unknown_country', facts: { country: 'US', entered: 12 } };
    const xx: BankDetailsIssue = { field: 'iban', code: 'iban_unknown_country', facts: { country: 'XX', entered: 27 } };
    const zz: BankDetailsIssue = { field: 'iban', code: 'iban_unknown_country', facts: { country: 'ZZ', entered: 27 } };
    assert.equal(
      issueText('en', us),
      'Banks of this country (United States, US) do not use IBANs: we can only pay into an IBAN of the SEPA area.',
    );
    assert.match(issueText('fr', us), /\(États-Unis, US\) n’utilisent pas d’IBAN\u202f: /);
    assert.match(issueText('en', xx), /XX is not one/);
    assert.match(issueText('en', zz), /ZZ is not one/);
    for (const language of CUSTOMER_LANGUAGES) {
      assert.match(issueText(language, us), /\(.+, US\)/, language);
      assert.doesNotMatch(issueText(language, us), /US (is|n’en|ist|no lo|non lo|não)/, language);
      assert.match(issueText(language, { field: 'iban', code: 'iban_qr' }), /QR-IBAN/, language);
    }
  });

  it('the holder: markup is refused with what a name may hold, digits with "a name needs letters", and the value typed is escaped', () => {
    for (const language of CUSTOMER_LANGUAGES) {
      const w = customerWords(language).page.errors;
      assert.ok(w.holder_characters.includes("- ' . ,"), `${language}: the signs allowed are listed`);
      assert.notEqual(w.holder_needs_letters, w.holder_not_latin, language);
      const page = refused(
        language,
        [{ field: 'accountHolder', code: 'holder_characters' }],
        '<script>alert(1)</script>"',
      );
      assert.ok(page.includes(`id="f-accountHolder-error">${escapeHtml(w.holder_characters)}</p>`), language);
      assert.ok(page.includes('value="&lt;script&gt;alert(1)&lt;/script&gt;&quot;"'), `${language}: escaped`);
      assert.doesNotMatch(page, /<script>alert/, language);
    }
    assert.match(customerWords('en').page.errors.holder_needs_letters, /A name needs letters/);
  });

  it('French typography: a narrow no-break space before the colon of the footer’s labels; none in English', () => {
    const fr = claimPage(claim({ language: 'fr' }), LEGAL, TOKEN);
    assert.ok(fr.includes('Assureur\u202f: '), 'Assureur :');
    assert.ok(fr.includes('Contact\u202f: '), 'Contact :');
    const body = fr.slice(fr.indexOf('<body>')).replace(/<[^>]*>/g, '');
    assert.doesNotMatch(body, /[\p{L}) ][:;?!]( |$)/mu, 'no colon, semicolon, question or exclamation mark without it');
    const en = claimPage(claim({ language: 'en' }), LEGAL, TOKEN);
    assert.ok(en.includes('Insurer: '));
    assert.doesNotMatch(en, /\u202f:/);
  });
});
