import type { BankDetailsIssue, ClaimForCustomer } from '../claims/bank-details.ts';
import { formatAmount, formatDelay, formatDepartureDate } from '../notify/templates.ts';
import { html, type SafeHtml } from './html.ts';

/** The customer's bank-details page, in French or English, mobile first, no script needed. */

type Language = 'fr' | 'en';

const TEXT = {
  fr: {
    title: 'Votre indemnisation',
    intro: (c: ClaimForCustomer) => html`Votre vol <strong>${c.flightNumber}</strong> du ${formatDepartureDate(c.departureDate, 'fr')} ${eventText(c, 'fr')}.`,
    amount: 'Montant de votre indemnisation',
    ask: 'Indiquez le compte bancaire sur lequel nous vous la versons.',
    holder: 'Titulaire du compte',
    iban: 'IBAN',
    bic: 'BIC (si votre banque est hors de l’Espace économique européen)',
    submit: 'Envoyer',
    thanks: (last4: string) => `Merci. Nous virons votre indemnisation sur le compte se terminant par ${last4}.`,
    rejected: (last4: string | null) =>
      `Votre banque a refusé le virement${last4 ? ` vers le compte se terminant par ${last4}` : ''}. Indiquez un autre compte, ou vérifiez vos coordonnées.`,
    paid: 'Votre indemnisation a été versée.',
    closed: 'Ce lien a déjà servi ou n’est plus valable.',
    closedPaid: (last4: string | null) => (last4 ? `Vos coordonnées bancaires ont été reçues (compte se terminant par ${last4}).` : 'Ce lien n’est plus valable.'),
    unknownTitle: 'Lien inconnu',
    unknown: 'Ce lien ne correspond à aucune indemnisation. Vérifiez qu’il est complet.',
    errors: {
      holder_required: 'Indiquez le nom du titulaire du compte (2 à 70 caractères).',
      holder_not_latin: 'Écrivez le nom en lettres latines, comme sur votre relevé bancaire.',
      iban_required: 'Indiquez votre IBAN.',
      iban_invalid: 'Cet IBAN n’est pas valide : vérifiez-le.',
      iban_check_digits: 'La clé de contrôle du numéro de compte ne correspond pas (clé RIB en France) : vérifiez le numéro de compte dans votre IBAN.',
      iban_not_sepa: 'Nous ne pouvons virer que vers un compte de la zone SEPA.',
      bic_required: 'Pour ce pays, indiquez aussi le BIC de votre banque.',
      bic_invalid: 'Ce BIC n’est pas valide.',
      bic_country_mismatch: 'Ce BIC ne correspond pas au pays de l’IBAN.',
    },
  },
  en: {
    title: 'Your compensation',
    intro: (c: ClaimForCustomer) => html`Your flight <strong>${c.flightNumber}</strong> of ${formatDepartureDate(c.departureDate, 'en')} ${eventText(c, 'en')}.`,
    amount: 'Your compensation',
    ask: 'Tell us the bank account to pay it into.',
    holder: 'Account holder',
    iban: 'IBAN',
    bic: 'BIC (if your bank is outside the European Economic Area)',
    submit: 'Send',
    thanks: (last4: string) => `Thank you. We are paying your compensation into the account ending ${last4}.`,
    rejected: (last4: string | null) => `Your bank rejected the payment${last4 ? ` to the account ending ${last4}` : ''}. Give another account, or check your details.`,
    paid: 'Your compensation has been paid.',
    closed: 'This link has been used already or is no longer valid.',
    closedPaid: (last4: string | null) => (last4 ? `Your bank details have been received (account ending ${last4}).` : 'This link is no longer valid.'),
    unknownTitle: 'Unknown link',
    unknown: 'This link does not match any compensation. Check that it is complete.',
    errors: {
      holder_required: 'Give the account holder’s name (2 to 70 characters).',
      holder_not_latin: 'Write the name in Latin letters, as on your bank statement.',
      iban_required: 'Give your IBAN.',
      iban_invalid: 'This IBAN is not valid: please check it.',
      iban_check_digits: 'The account number’s check digits do not match (the RIB key in France): please check the account number in your IBAN.',
      iban_not_sepa: 'We can only pay into an account in the SEPA area.',
      bic_required: 'For this country, give your bank’s BIC too.',
      bic_invalid: 'This BIC is not valid.',
      bic_country_mismatch: 'This BIC does not match the IBAN’s country.',
    },
  },
} as const;

function eventText(c: ClaimForCustomer, language: Language): string {
  if (c.event === 'delayed') return language === 'fr' ? `est arrivé avec ${formatDelay(c.delayMinutes ?? 0)} de retard` : `arrived ${formatDelay(c.delayMinutes ?? 0)} late`;
  if (c.event === 'cancelled') return language === 'fr' ? 'a été annulé' : 'was cancelled';
  return language === 'fr' ? 'a été dérouté' : 'was diverted';
}

function layout(language: Language, title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} — Parasol</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; padding: 1rem; color: #1a1a1a; background: #f6f7f9; line-height: 1.5; }
  main { max-width: 32rem; margin: 0 auto; background: #fff; border-radius: .5rem; padding: 1.25rem; }
  h1 { font-size: 1.4rem; margin-top: 0; }
  .amount { font-size: 1.8rem; font-weight: 700; margin: .25rem 0 1rem; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input { width: 100%; box-sizing: border-box; font-size: 1.1rem; padding: .6rem; border: 1px solid #6b7280; border-radius: .4rem; }
  input[aria-invalid="true"] { border: 2px solid #b42318; }
  .error { color: #b42318; margin: .25rem 0 0; }
  button { margin-top: 1.25rem; width: 100%; font-size: 1.1rem; padding: .8rem; border: 0; border-radius: .4rem; background: #1d4ed8; color: #fff; }
  button:focus, input:focus { outline: 3px solid #93c5fd; }
</style>
</head>
<body><main>${body}</main></body>
</html>`.value;
}

export interface FormState {
  values: { accountHolder: string; iban: string; bic: string };
  issues: BankDetailsIssue[];
}

export function claimPage(claim: ClaimForCustomer, form: FormState = { values: { accountHolder: '', iban: '', bic: '' }, issues: [] }): string {
  const t = TEXT[claim.language];
  const field = (name: 'accountHolder' | 'iban' | 'bic', label: string, autocomplete: string) => {
    const issue = form.issues.find((i) => i.field === name);
    const id = `f-${name}`;
    return html`<label for="${id}">${label}</label>
<input id="${id}" name="${name}" value="${form.values[name]}" autocomplete="${autocomplete}" ${issue ? html`aria-invalid="true" aria-describedby="${id}-error"` : ''}>
${issue ? html`<p class="error" id="${id}-error">${t.errors[issue.code]}</p>` : ''}`;
  };
  return layout(
    claim.language,
    t.title,
    html`<h1>${t.title}</h1>
<p>${t.intro(claim)}</p>
<p>${t.amount}</p>
<p class="amount">${formatAmount(claim.amount, claim.currency, claim.language)}</p>
${claim.status === 'failed' ? html`<p class="error" role="alert">${t.rejected(claim.ibanLast4)}</p>` : ''}
<p>${t.ask}</p>
<form method="post" novalidate>
${field('accountHolder', t.holder, 'name')}
${field('iban', t.iban, 'off')}
${field('bic', t.bic, 'off')}
<button type="submit">${t.submit}</button>
</form>`,
  );
}

export function thanksPage(claim: ClaimForCustomer, last4: string): string {
  const t = TEXT[claim.language];
  return layout(claim.language, t.title, html`<h1>${t.title}</h1><p class="amount">${formatAmount(claim.amount, claim.currency, claim.language)}</p><p>${t.thanks(last4)}</p>`);
}

export function closedPage(claim: ClaimForCustomer): string {
  const t = TEXT[claim.language];
  return layout(claim.language, t.title, claim.status === 'paid'
      ? html`<h1>${t.title}</h1><p class="amount">${formatAmount(claim.amount, claim.currency, claim.language)}</p><p>${t.paid}</p>`
      : html`<h1>${t.title}</h1><p>${t.closed}</p><p>${t.closedPaid(claim.ibanLast4)}</p>`);
}

/** An unknown link says so in both languages: we do not know the customer's. */
export function unknownPage(): string {
  return layout('fr', `${TEXT.fr.unknownTitle} / ${TEXT.en.unknownTitle}`, html`<h1>${TEXT.fr.unknownTitle}</h1><p>${TEXT.fr.unknown}</p><h1 lang="en">${TEXT.en.unknownTitle}</h1><p lang="en">${TEXT.en.unknown}</p>`);
}
