import { html, type SafeHtml } from '../../platform/html.ts';
import type { CustomerWords } from './words.ts';

export const de = {
  languageName: 'Deutsch',
  cover: (brand: string, insurer: string) => `${brand} Flugverspätungsversicherung, versichert durch ${insurer}`,
  flightEvent: {
    delayed: (delay: string) => `ist mit ${delay} Verspätung angekommen`,
    cancelled: 'wurde annulliert',
    diverted: 'wurde umgeleitet',
  },
  hours: { one: '# Stunde', other: '# Stunden' },
  minutes: { one: '# Minute', other: '# Minuten' },
  passengers: { one: '# Person', other: '# Personen' },
  days: { one: '# Tag', other: '# Tage' },
  sms: {
    claim: (s) =>
      `${s.brand} (versichert durch ${s.insurer}): Ihr Flug ${s.flight} vom ${s.date} ${s.what}. Sie erhalten ${s.amount}. Bankdaten eingeben: ${s.link}`,
    paymentFailed: (s) =>
      `${s.brand} (versichert durch ${s.insurer}): Ihre Bank hat die Zahlung von ${s.amount} zu Flug ${s.flight} vom ${s.date} abgelehnt. Neue Bankdaten eingeben: ${s.link}`,
    reminder: (s) =>
      `${s.brand} (versichert durch ${s.insurer}): Ihre ${s.amount} zu Flug ${s.flight} vom ${s.date} warten auf Ihre Bankdaten. Bitte bis ${s.due} eingeben: ${s.link}`,
    paid: (s) =>
      `${s.brand} (versichert durch ${s.insurer}): Wir haben ${s.amount} zu Flug ${s.flight} vom ${s.date} auf Ihr Konto mit Endziffern ${s.last4} gezahlt.`,
    voided: (s) =>
      `${s.brand} (versichert durch ${s.insurer}): Ihr Anspruch zu Flug ${s.flight} vom ${s.date} wurde vom Versicherer zurückgezogen und wird nicht gezahlt. Bei Fragen wenden Sie sich an den Verkäufer Ihrer Versicherung.`,
    expired: (s) =>
      `${s.brand} (versichert durch ${s.insurer}): Ihre ${s.amount} zu Flug ${s.flight} vom ${s.date} sind verfallen: Ihre Bankdaten wurden nicht rechtzeitig eingegeben, es wird nicht gezahlt. Bei Fragen wenden Sie sich an den Verkäufer Ihrer Versicherung.`,
  },
  email: {
    greeting: (firstName) => (firstName ? `Guten Tag ${firstName},` : 'Guten Tag,'),
    linkText: 'Falls die Schaltfläche nicht funktioniert, kopieren Sie diesen Link in Ihren Browser:',
    closing: 'Mit freundlichen Grüßen',
    why: (brand) =>
      `Sie erhalten diese E-Mail, weil Sie bei ${brand} eine Flugverspätungsversicherung abgeschlossen haben.`,
    opened: {
      subject: (s) => `${s.brand}: Entschädigung für Ihren Flug ${s.flight}`,
      body: (s) => [
        `Ihr Flug ${s.flight} vom ${s.date} ${s.what}.`,
        `Ihre Versicherung zahlt Ihnen ${s.amount} (${s.passengers}).`,
        `Bitte nennen Sie uns bis zum ${s.due} das Konto, auf das wir den Betrag überweisen sollen.`,
      ],
      action: 'Bankdaten eingeben',
    },
    reminder: {
      subject: (s) => `${s.brand}: Ihre Entschädigung für Flug ${s.flight} wartet`,
      body: (s) => [
        `Ihre Entschädigung von ${s.amount} für Ihren Flug ${s.flight} vom ${s.date} wartet noch auf Ihre Bankdaten.`,
        `Sie haben noch ${s.daysLeft}: Bitte geben Sie sie bis zum ${s.due} ein.`,
      ],
      action: 'Bankdaten eingeben',
    },
    paid: {
      subject: (s) => `${s.brand}: Ihre Entschädigung für Flug ${s.flight} ist bezahlt`,
      body: (s) => [
        `Wir haben ${s.amount} für Ihren Flug ${s.flight} vom ${s.date} auf Ihr Konto mit den Endziffern ${s.last4} überwiesen.`,
        'Der Betrag ist in der Regel nach ein bis zwei Bankarbeitstagen auf Ihrem Konto.',
      ],
    },
  },
  page: {
    title: 'Ihre Entschädigung',
    intro: (flight: SafeHtml, date: string, what: string) => html`Ihr Flug ${flight} vom ${date} ${what}.`,
    amount: 'Betrag Ihrer Entschädigung',
    forPassengers: (passengers) => `Für ${passengers}.`,
    ask: 'Nennen Sie uns das Konto, auf das wir sie überweisen.',
    holder: 'Kontoinhaber',
    iban: 'IBAN',
    bic: 'BIC (wenn Ihre Bank außerhalb des Europäischen Wirtschaftsraums liegt)',
    bicRequired: (currency) => `BIC Ihrer Bank (erforderlich: Ihre Entschädigung wird in ${currency} ausgezahlt)`,
    routingNumber: 'Routing-Nummer (ABA, 9 Ziffern)',
    accountNumber: 'Kontonummer',
    accountType: 'Kontoart',
    chooseAccountType: 'Bitte wählen…',
    checking: 'Girokonto (checking)',
    savings: 'Sparkonto (savings)',
    useIban: 'Ihr Konto ist nicht in den Vereinigten Staaten? Geben Sie stattdessen die IBAN an.',
    useUs: 'Ihr Konto ist in den Vereinigten Staaten? Geben Sie Routing- und Kontonummer an.',
    invalid: 'Bitte prüfen Sie Ihre Angaben',
    submit: 'Senden',
    thanks: (last4) => `Vielen Dank. Wir überweisen Ihre Entschädigung auf das Konto mit den Endziffern ${last4}.`,
    rejected: (last4) =>
      `Ihre Bank hat die Zahlung${last4 ? ` auf das Konto mit den Endziffern ${last4}` : ''} abgelehnt. Geben Sie ein anderes Konto an oder prüfen Sie Ihre Angaben.`,
    why: 'Warum Sie entschädigt werden',
    route: 'Flug',
    scheduledArrival: 'Planmäßige Ankunft am Gate',
    actualArrival: 'Tatsächliche Ankunft am Gate',
    delay: 'Verspätung bei Ankunft',
    rule: (delay) => `Ihre Versicherung zahlt ab einer Ankunftsverspätung von ${delay}.`,
    ruleCancellation: 'Ihre Versicherung zahlt, wenn der Flug annulliert wird.',
    ruleDiversion: 'Ihre Versicherung zahlt, wenn der Flug umgeleitet wird.',
    source: (provider) => (provider ? `Flugdaten von ${provider}.` : 'Dem Versicherer gemeldetes Flugereignis.'),
    statusTitle: 'Stand Ihrer Entschädigung',
    statusPending: (last4) =>
      `Ihre Bankdaten liegen uns vor${last4 ? ` (Konto mit den Endziffern ${last4})` : ''}: Die Zahlung ist unterwegs.`,
    statusPaid: (date) => `Ihre Entschädigung wurde am ${date} gezahlt.`,
    statusExpired: 'Die Frist für Ihre Bankdaten ist abgelaufen. Wenden Sie sich an den Verkäufer Ihrer Versicherung.',
    statusVoided:
      'Diese Entschädigung wurde vom Versicherer zurückgezogen: Sie wird nicht gezahlt. Bei Fragen wenden Sie sich an den Verkäufer Ihrer Versicherung.',
    statusOpened: 'Ihre Entschädigung wird vorbereitet.',
    replacedPaid: 'Diese Entschädigung wurde gezahlt.',
    replacedPending: 'Die Zahlung dieser Entschädigung ist unterwegs.',
    newestMessage:
      'Dieser Link gilt nicht mehr: Verwenden Sie den Link aus der letzten Nachricht, die wir Ihnen gesendet haben.',
    unknownTitle: 'Unbekannter Link',
    unknown: 'Dieser Link gehört zu keiner Entschädigung. Prüfen Sie, ob er vollständig ist.',
    errors: {
      holder_required: 'Geben Sie den Namen des Kontoinhabers an (2 bis 70 Zeichen).',
      holder_not_latin: 'Schreiben Sie den Namen in lateinischen Buchstaben, wie auf Ihrem Kontoauszug.',
      holder_characters:
        'Der Name des Kontoinhabers darf nur Buchstaben, Leerzeichen und die Zeichen - \' . , & / ( ) enthalten (keine Ziffern und keine anderen Zeichen wie < > " ; : ? !).',
      holder_needs_letters:
        'Ein Name besteht aus Buchstaben: Geben Sie den Namen des Kontoinhabers wie auf Ihrem Kontoauszug an, keine Nummer.',
      iban_required: 'Geben Sie Ihre IBAN an.',
      iban_invalid:
        'Eine IBAN beginnt mit 2 Buchstaben (ihr Land) und 2 Ziffern, gefolgt von Buchstaben und Ziffern an den Stellen, die ihr Land vorgibt: Bitte prüfen Sie sie.',
      iban_unknown_country: (f) =>
        f.countryName
          ? `Banken dieses Landes (${f.countryName}, ${f.country}) verwenden keine IBAN: Wir können nur auf eine IBAN des SEPA-Raums überweisen.`
          : `Eine IBAN beginnt mit dem Ländercode aus 2 Buchstaben (DE, FR …): ${f.country} ist keiner. Bitte prüfen Sie sie.`,
      iban_length: (f) =>
        `Eine IBAN mit dem Ländercode ${f.country} (${f.countryName}) hat ${f.expected} Zeichen; Sie haben ${f.entered} eingegeben.`,
      iban_mistyped: 'Diese IBAN scheint vertippt: Ihre Prüfziffern stimmen nicht. Bitte prüfen Sie jedes Zeichen.',
      iban_check_digits:
        'Die Prüfziffern der Kontonummer stimmen nicht (in Frankreich der RIB-Schlüssel): Bitte prüfen Sie die Kontonummer in Ihrer IBAN.',
      iban_not_sepa: 'Wir können nur auf ein Konto im SEPA-Raum überweisen.',
      iban_qr:
        'Dies ist eine QR-IBAN, die nur Zahlungen von QR-Rechnungen empfängt: Geben Sie die gewöhnliche IBAN Ihres Kontos an (auf Ihrem Kontoauszug).',
      bic_required: 'Für dieses Land geben Sie bitte auch die BIC Ihrer Bank an.',
      bic_required_for_currency:
        'Ihre Entschädigung wird in einer anderen Währung als Euro ausgezahlt: Bitte geben Sie die BIC Ihrer Bank an (8 oder 11 Zeichen, zu finden auf Ihrem Kontoauszug oder in Ihrer Banking-App).',
      bic_length: (f) => `Eine BIC hat 8 oder 11 Zeichen; Sie haben ${f.entered} eingegeben.`,
      bic_invalid:
        'Diese BIC ist ungültig: Ihre 8 oder 11 Zeichen beginnen mit 4 Buchstaben (die Bank) und 2 Buchstaben (ihr Land).',
      bic_country_mismatch: 'Diese BIC passt nicht zum Land der IBAN.',
      routing_required: 'Geben Sie die Routing-Nummer Ihrer Bank an (9 Ziffern).',
      routing_invalid: 'Eine Routing-Nummer hat 9 Ziffern: Bitte prüfen Sie sie.',
      routing_unknown_prefix: 'Das ist keine Routing-Nummer einer US-Bank: Bitte prüfen Sie sie.',
      routing_check_digit: 'Diese Routing-Nummer ist ungültig (die letzte Ziffer stimmt nicht): Bitte prüfen Sie sie.',
      account_number_required: 'Geben Sie Ihre Kontonummer an.',
      account_number_too_long: 'Eine Kontonummer hat höchstens 17 Zeichen: Bitte prüfen Sie sie.',
      account_number_invalid:
        'Diese Kontonummer ist ungültig: Verwenden Sie die Ziffern auf Ihren Schecks oder Ihrem Kontoauszug.',
      account_type_invalid: 'Wählen Sie Girokonto oder Sparkonto.',
    },
  },
  footer: {
    insurer: 'Versicherer',
    registration: 'Registrierung',
    regulator: 'Aufsicht',
    contact: 'Kontakt',
    legalNotice: 'Impressum',
    privacyNotice: 'Datenschutzhinweise',
    back: 'Zurück',
  },
  legalNotice: (f) => [
    {
      heading: 'Versicherer und Anbieter',
      paragraphs: [
        `${f.insurer}, ${f.address}.`,
        `Registrierung: ${f.registration}. Aufsicht: ${f.regulator}.`,
        `Kontakt: ${f.email}, ${f.phone}.`,
      ],
    },
    {
      heading: 'Vertrieb',
      paragraphs: [
        `${f.brand} vertreibt diese Flugverspätungsversicherung im Namen von ${f.insurer}, der das Risiko trägt und die Entschädigungen zahlt.`,
      ],
    },
    {
      heading: 'Beschwerden',
      paragraphs: [
        `Schreiben Sie an ${f.email}. Wir bestätigen eine Beschwerde innerhalb von 10 Arbeitstagen und beantworten sie innerhalb von zwei Monaten.`,
      ],
    },
  ],
  privacyNotice: (f) => [
    {
      heading: 'Verantwortlicher',
      paragraphs: [`${f.insurer} (${f.address}). Kontakt für Datenschutzfragen: ${f.privacyEmail}.`],
    },
    {
      heading: 'Welche Daten wir speichern und warum',
      paragraphs: [
        `Beim Abschluss der Versicherung bei ${f.brand}: Ihren Namen, Ihre E-Mail-Adresse, Ihre Mobilnummer, Ihre Sprache, Ihre Buchungsnummer und die versicherten Flüge, um den Vertrag zu erfüllen: Ihre Flüge zu verfolgen, Sie über eine Entschädigung zu informieren und Ihre Fragen zu beantworten.`,
        'Wenn ein Flug entschädigt wird: den Namen des Kontoinhabers und die IBAN (und BIC) oder die US-Bankleitzahl (Routing Number) und Kontonummer, die Sie auf dieser Seite eingeben, um Sie zu bezahlen, sowie die Nachrichten, die wir Ihnen senden.',
      ],
    },
    {
      heading: 'Wie sie geschützt sind',
      paragraphs: [
        'Ihr Name, Ihre E-Mail-Adresse, Ihre Telefonnummer, der Name des Kontoinhabers und die IBAN oder Kontonummer werden verschlüsselt gespeichert. Nach der Eingabe wird die Bankverbindung nur noch mit ihren letzten vier Zeichen angezeigt und nie protokolliert. Ihr Zahlungslink wird nur als Fingerabdruck (Hash) gespeichert.',
      ],
    },
    {
      heading: 'Wer sie erhält',
      paragraphs: [
        `${f.brand}, bei dem Sie die Versicherung gekauft haben, sieht Ihren Vertrag. Unser SMS-Dienstleister erhält Ihre Nummer und unsere Nachrichten; die Banken erhalten den Namen und die IBAN oder Kontonummer, die für die Zahlung nötig sind. Nichts wird verkauft oder für Werbung genutzt.`,
      ],
    },
    {
      heading: 'Wie lange',
      paragraphs: [
        `Der Zahlungslink gilt ${f.bankDetailsDays} (eine Erinnerung schickt einen neuen). Vertrag, Schadenfall und Zahlung werden so lange aufbewahrt, wie der Versicherer Versicherungs- und Buchhaltungsunterlagen gesetzlich aufbewahren muss. Eine automatische Löschung gibt es derzeit nicht: Um Daten löschen zu lassen, die wir nicht aufbewahren müssen, schreiben Sie an ${f.privacyEmail}.`,
      ],
    },
    {
      heading: 'Ihre Rechte',
      paragraphs: [
        `Sie können Auskunft, Berichtigung oder Löschung Ihrer Daten verlangen, ihrer Verwendung widersprechen oder eine Kopie anfordern: schreiben Sie an ${f.privacyEmail}. Sie können sich auch bei Ihrer Datenschutzaufsichtsbehörde beschweren.`,
      ],
    },
  ],
} satisfies CustomerWords;
