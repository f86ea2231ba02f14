import { html, type SafeHtml } from '../../platform/html.ts';
import type { CustomerWords } from './words.ts';

export const en = {
  languageName: 'English',
  cover: (brand: string, insurer: string) => `${brand} flight delay cover, insured by ${insurer}`,
  flightEvent: {
    delayed: (delay: string) => `arrived ${delay} late`,
    cancelled: 'was cancelled',
    diverted: 'was diverted',
  },
  hours: { one: '# hour', other: '# hours' },
  minutes: { one: '# minute', other: '# minutes' },
  passengers: { one: '# passenger', other: '# passengers' },
  days: { one: '# day', other: '# days' },
  sms: {
    claim: (s) =>
      `${s.brand} (insured by ${s.insurer}): your flight ${s.flight} of ${s.date} ${s.what}. You are paid ${s.amount}. Enter your bank details: ${s.link}`,
    paymentFailed: (s) =>
      `${s.brand} (insured by ${s.insurer}): your bank rejected the payment of ${s.amount} for flight ${s.flight} of ${s.date}. Enter new bank details: ${s.link}`,
    reminder: (s) =>
      `${s.brand} (insured by ${s.insurer}): your ${s.amount} for flight ${s.flight} of ${s.date} still waits for your bank details. Enter them by ${s.due}: ${s.link}`,
    paid: (s) =>
      `${s.brand} (insured by ${s.insurer}): we have paid ${s.amount} into your account ending ${s.last4} for flight ${s.flight} of ${s.date}.`,
    voided: (s) =>
      `${s.brand} (insured by ${s.insurer}): your claim for flight ${s.flight} of ${s.date} has been withdrawn by the insurer and will not be paid. For any question, contact the seller of your insurance.`,
    expired: (s) =>
      `${s.brand} (insured by ${s.insurer}): your ${s.amount} for flight ${s.flight} of ${s.date} has expired: no bank details were given by the due date, so it will not be paid. For any question, contact the seller of your insurance.`,
  },
  email: {
    greeting: (firstName) => (firstName ? `Hello ${firstName},` : 'Hello,'),
    linkText: 'If the button does not work, copy this link into your browser:',
    closing: 'Kind regards,',
    why: (brand) => `You receive this email because you took out flight delay cover with ${brand}.`,
    opened: {
      subject: (s) => `${s.brand}: your flight ${s.flight} is compensated`,
      body: (s) => [
        `Your flight ${s.flight} of ${s.date} ${s.what}.`,
        `Your insurance pays you ${s.amount} (${s.passengers}).`,
        `Tell us the bank account to pay it into by ${s.due}.`,
      ],
      action: 'Enter my bank details',
    },
    reminder: {
      subject: (s) => `${s.brand}: your compensation for flight ${s.flight} is waiting`,
      body: (s) => [
        `Your compensation of ${s.amount} for your flight ${s.flight} of ${s.date} still waits for your bank details.`,
        `You have ${s.daysLeft} left: enter them by ${s.due}.`,
      ],
      action: 'Enter my bank details',
    },
    paid: {
      subject: (s) => `${s.brand}: your compensation for flight ${s.flight} is paid`,
      body: (s) => [
        `We have paid ${s.amount} into your account ending ${s.last4} for your flight ${s.flight} of ${s.date}.`,
        'It usually reaches your account within one to two working days.',
      ],
    },
  },
  page: {
    title: 'Your compensation',
    intro: (flight: SafeHtml, date: string, what: string) => html`Your flight ${flight} of ${date} ${what}.`,
    amount: 'Amount of your compensation',
    forPassengers: (passengers) => `For ${passengers}.`,
    ask: 'Tell us the bank account to pay it into.',
    holder: 'Account holder',
    iban: 'IBAN',
    bic: 'BIC (if your bank is outside the European Economic Area)',
    bicRequired: (currency) => `Your bank’s BIC (required: your compensation is paid in ${currency})`,
    routingNumber: 'Routing number (ABA, 9 digits)',
    accountNumber: 'Account number',
    accountType: 'Account type',
    chooseAccountType: 'Choose…',
    checking: 'Checking',
    savings: 'Savings',
    useIban: 'Your account is outside the United States? Give its IBAN instead.',
    useUs: 'Your account is in the United States? Give its routing and account numbers.',
    invalid: 'Please check your details',
    submit: 'Send',
    thanks: (last4) => `Thank you. We are paying your compensation into the account ending ${last4}.`,
    rejected: (last4) =>
      `Your bank rejected the payment${last4 ? ` to the account ending ${last4}` : ''}. Give another account, or check your details.`,
    why: 'Why you are compensated',
    route: 'Flight',
    scheduledArrival: 'Scheduled arrival at the gate',
    actualArrival: 'Actual arrival at the gate',
    delay: 'Delay at arrival',
    rule: (delay) => `Your insurance pays from a delay of ${delay} at arrival.`,
    ruleCancellation: 'Your insurance pays when the flight is cancelled.',
    ruleDiversion: 'Your insurance pays when the flight is diverted.',
    source: (provider) => (provider ? `Flight data from ${provider}.` : 'Flight event reported to the insurer.'),
    statusTitle: 'Where your compensation stands',
    statusPending: (last4) =>
      `We have your bank details${last4 ? ` (account ending ${last4})` : ''}: the payment is on its way.`,
    statusPaid: (date) => `Your compensation has been paid (${date}).`,
    statusExpired: 'The time to give your bank details has run out. Contact the seller of your insurance.',
    statusVoided:
      'This compensation has been withdrawn by the insurer: it will not be paid. For any question, contact the seller of your insurance.',
    statusOpened: 'Your compensation is being prepared.',
    replacedPaid: 'This compensation has been paid.',
    replacedPending: 'The payment of this compensation is on its way.',
    newestMessage: 'This link no longer works: use the link in the most recent message we have sent you.',
    unknownTitle: 'Unknown link',
    unknown: 'This link does not match any compensation. Check that it is complete.',
    errors: {
      holder_required: 'Give the account holder’s name (2 to 70 characters).',
      holder_not_latin: 'Write the name in Latin letters, as on your bank statement.',
      holder_characters:
        'The account holder’s name may only contain letters, spaces and the signs - \' . , & / ( ) (no digits, no other signs such as < > " ; : ? !).',
      holder_needs_letters:
        'A name needs letters: write the account holder’s name as on your bank statement, not a number.',
      iban_required: 'Give your IBAN.',
      iban_invalid:
        'An IBAN starts with 2 letters (its country) and 2 digits, followed by letters and digits in the places its country sets: please check it.',
      iban_unknown_country: (f) =>
        f.countryName
          ? `Banks of this country (${f.countryName}, ${f.country}) do not use IBANs: we can only pay into an IBAN of the SEPA area.`
          : `An IBAN starts with its country’s 2-letter code (FR, DE…): ${f.country} is not one. Please check it.`,
      iban_length: (f) =>
        `An IBAN with country code ${f.country} (${f.countryName}) has ${f.expected} characters; you entered ${f.entered}.`,
      iban_mistyped: 'This IBAN looks mistyped: its check digits do not match. Please check each character.',
      iban_check_digits:
        'The account number’s check digits do not match (the RIB key in France): please check the account number in your IBAN.',
      iban_not_sepa: 'We can only pay into an account in the SEPA area.',
      iban_qr:
        'This is a QR-IBAN, which only receives payments of QR-bills: give your account’s ordinary IBAN (on your bank statement).',
      bic_required: 'For this country, give your bank’s BIC too.',
      bic_required_for_currency:
        'Your compensation is paid in a currency other than the euro: give your bank’s BIC (8 or 11 characters, on your bank statement or in your banking app).',
      bic_length: (f) => `A BIC has 8 or 11 characters; you entered ${f.entered}.`,
      bic_invalid:
        'This BIC is not valid: its 8 or 11 characters start with 4 letters (the bank) and 2 letters (its country).',
      bic_country_mismatch: 'This BIC does not match the IBAN’s country.',
      routing_required: 'Give your bank’s routing number (9 digits).',
      routing_invalid: 'A routing number is 9 digits: please check it.',
      routing_unknown_prefix: 'This is not a US bank’s routing number: please check it.',
      routing_check_digit: 'This routing number is not valid (its last digit does not match): please check it.',
      account_number_required: 'Give your account number.',
      account_number_too_long: 'An account number is at most 17 characters: please check it.',
      account_number_invalid: 'This account number is not valid: use the digits shown on your checks or statement.',
      account_type_invalid: 'Choose checking or savings.',
    },
  },
  footer: {
    insurer: 'Insurer',
    registration: 'Registration',
    regulator: 'Supervisor',
    contact: 'Contact',
    legalNotice: 'Legal notice',
    privacyNotice: 'Privacy notice',
    back: 'Back',
  },
  legalNotice: (f) => [
    {
      heading: 'Insurer and publisher',
      paragraphs: [
        `${f.insurer}, ${f.address}.`,
        `Registration: ${f.registration}. Supervised by ${f.regulator}.`,
        `Contact: ${f.email}, ${f.phone}.`,
      ],
    },
    {
      heading: 'Distributor',
      paragraphs: [
        `${f.brand} sells this flight delay cover on behalf of ${f.insurer}, which carries the risk and pays the compensation.`,
      ],
    },
    {
      heading: 'Complaints',
      paragraphs: [
        `Write to ${f.email}. We acknowledge a complaint within 10 working days and answer within two months.`,
      ],
    },
  ],
  privacyNotice: (f) => [
    {
      heading: 'Who is responsible',
      paragraphs: [`${f.insurer} (${f.address}) is the data controller. Privacy contact: ${f.privacyEmail}.`],
    },
    {
      heading: 'What we keep and why',
      paragraphs: [
        `When you buy the cover from ${f.brand}: your name, email address, mobile phone number, language, booking reference and insured flights, to run the insurance contract: watch your flights, tell you when you are compensated and answer your questions.`,
        'When a flight is compensated: the account holder’s name and the IBAN (and BIC), or the US routing and account numbers, you give on this page, to pay you, and the messages we send you.',
      ],
    },
    {
      heading: 'How it is protected',
      paragraphs: [
        'Your name, email address, phone number, account holder’s name and IBAN or account number are stored encrypted. After you enter it, the account is only ever shown by its last four characters and is never written to logs. Your payment link is stored only as a fingerprint.',
      ],
    },
    {
      heading: 'Who receives it',
      paragraphs: [
        `${f.brand}, which sold you the cover, sees your contract. Our text-message provider receives your phone number and our messages; the banks receive the name and IBAN or account number needed to pay you. Nothing is sold or used for advertising.`,
      ],
    },
    {
      heading: 'How long',
      paragraphs: [
        `The payment link works for ${f.bankDetailsDays} (a reminder sends a new one). The contract, claim and payment records are kept as long as the insurer must keep insurance and accounting records by law. There is no automatic deletion today: to have data deleted that the law does not require us to keep, write to ${f.privacyEmail}.`,
      ],
    },
    {
      heading: 'Your rights',
      paragraphs: [
        `You may access, correct or delete your data, object to its use or ask for a copy, by writing to ${f.privacyEmail}. You may also complain to your data protection authority.`,
      ],
    },
  ],
} satisfies CustomerWords;
