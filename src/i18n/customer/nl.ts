import { html, type SafeHtml } from '../../platform/html.ts';
import type { CustomerWords } from './words.ts';

export const nl = {
  languageName: 'Nederlands',
  cover: (brand: string, insurer: string) => `${brand} vluchtvertragingsverzekering, verzekerd door ${insurer}`,
  flightEvent: {
    delayed: (delay: string) => `is met ${delay} vertraging aangekomen`,
    cancelled: 'is geannuleerd',
    diverted: 'is omgeleid',
  },
  hours: { one: '# uur', other: '# uur' },
  minutes: { one: '# minuut', other: '# minuten' },
  passengers: { one: '# reiziger', other: '# reizigers' },
  days: { one: '# dag', other: '# dagen' },
  sms: {
    claim: (s) =>
      `${s.brand} (verzekerd door ${s.insurer}): uw vlucht ${s.flight} van ${s.date} ${s.what}. U krijgt ${s.amount}. Vul uw bankgegevens in: ${s.link}`,
    paymentFailed: (s) =>
      `${s.brand} (verzekerd door ${s.insurer}): uw bank heeft de betaling van ${s.amount} voor vlucht ${s.flight} van ${s.date} geweigerd. Vul nieuwe bankgegevens in: ${s.link}`,
    reminder: (s) =>
      `${s.brand} (verzekerd door ${s.insurer}): uw ${s.amount} voor vlucht ${s.flight} van ${s.date} wacht op uw bankgegevens. Vul ze uiterlijk ${s.due} in: ${s.link}`,
    paid: (s) =>
      `${s.brand} (verzekerd door ${s.insurer}): we hebben ${s.amount} voor vlucht ${s.flight} van ${s.date} betaald op uw rekening eindigend op ${s.last4}.`,
    voided: (s) =>
      `${s.brand} (verzekerd door ${s.insurer}): uw claim voor vlucht ${s.flight} van ${s.date} is door de verzekeraar ingetrokken en wordt niet betaald. Vragen? Neem contact op met de verkoper van uw verzekering.`,
    expired: (s) =>
      `${s.brand} (verzekerd door ${s.insurer}): uw ${s.amount} voor vlucht ${s.flight} van ${s.date} is vervallen: uw bankgegevens kwamen niet op tijd, er wordt niet betaald. Vragen? Neem contact op met de verkoper van uw verzekering.`,
  },
  email: {
    greeting: (firstName) => (firstName ? `Beste ${firstName},` : 'Beste klant,'),
    linkText: 'Werkt de knop niet? Kopieer dan deze link naar uw browser:',
    closing: 'Met vriendelijke groet,',
    why: (brand) => `U ontvangt deze e-mail omdat u bij ${brand} een vluchtvertragingsverzekering hebt afgesloten.`,
    opened: {
      subject: (s) => `${s.brand}: vergoeding voor uw vlucht ${s.flight}`,
      body: (s) => [
        `Uw vlucht ${s.flight} van ${s.date} ${s.what}.`,
        `Uw verzekering betaalt u ${s.amount} (${s.passengers}).`,
        `Laat ons uiterlijk ${s.due} weten op welke bankrekening we het bedrag mogen storten.`,
      ],
      action: 'Bankgegevens invullen',
    },
    reminder: {
      subject: (s) => `${s.brand}: uw vergoeding voor vlucht ${s.flight} wacht op u`,
      body: (s) => [
        `Uw vergoeding van ${s.amount} voor uw vlucht ${s.flight} van ${s.date} wacht nog op uw bankgegevens.`,
        `U hebt nog ${s.daysLeft}: vul ze uiterlijk ${s.due} in.`,
      ],
      action: 'Bankgegevens invullen',
    },
    paid: {
      subject: (s) => `${s.brand}: uw vergoeding voor vlucht ${s.flight} is betaald`,
      body: (s) => [
        `We hebben ${s.amount} voor uw vlucht ${s.flight} van ${s.date} gestort op uw rekening eindigend op ${s.last4}.`,
        'Het bedrag staat meestal binnen een tot twee werkdagen op uw rekening.',
      ],
    },
  },
  page: {
    title: 'Uw vergoeding',
    intro: (flight: SafeHtml, date: string, what: string) => html`Uw vlucht ${flight} van ${date} ${what}.`,
    amount: 'Bedrag van uw vergoeding',
    forPassengers: (passengers) => `Voor ${passengers}.`,
    ask: 'Laat ons weten op welke bankrekening we het bedrag storten.',
    holder: 'Rekeninghouder',
    iban: 'IBAN',
    bic: 'BIC (als uw bank buiten de Europese Economische Ruimte ligt)',
    bicRequired: (currency) => `BIC van uw bank (verplicht: uw vergoeding wordt uitbetaald in ${currency})`,
    routingNumber: 'Routingnummer (ABA, 9 cijfers)',
    accountNumber: 'Rekeningnummer',
    accountType: 'Soort rekening',
    chooseAccountType: 'Kies…',
    checking: 'Betaalrekening (checking)',
    savings: 'Spaarrekening (savings)',
    useIban: 'Staat uw rekening buiten de Verenigde Staten? Geef dan het IBAN.',
    useUs: 'Staat uw rekening in de Verenigde Staten? Geef het routingnummer en het rekeningnummer.',
    invalid: 'Controleer uw gegevens',
    submit: 'Versturen',
    thanks: (last4) => `Dank u. We storten uw vergoeding op de rekening eindigend op ${last4}.`,
    rejected: (last4) =>
      `Uw bank heeft de betaling${last4 ? ` naar de rekening eindigend op ${last4}` : ''} geweigerd. Geef een andere rekening op of controleer uw gegevens.`,
    why: 'Waarom u een vergoeding krijgt',
    route: 'Vlucht',
    scheduledArrival: 'Geplande aankomst aan de gate',
    actualArrival: 'Werkelijke aankomst aan de gate',
    delay: 'Vertraging bij aankomst',
    rule: (delay) => `Uw verzekering betaalt vanaf een vertraging van ${delay} bij aankomst.`,
    ruleCancellation: 'Uw verzekering betaalt als de vlucht wordt geannuleerd.',
    ruleDiversion: 'Uw verzekering betaalt als de vlucht wordt omgeleid.',
    source: (provider) =>
      provider ? `Vluchtgegevens van ${provider}.` : 'Vluchtgebeurtenis gemeld aan de verzekeraar.',
    statusTitle: 'Stand van uw vergoeding',
    statusPending: (last4) =>
      `We hebben uw bankgegevens${last4 ? ` (rekening eindigend op ${last4})` : ''}: de betaling is onderweg.`,
    statusPaid: (date) => `Uw vergoeding is betaald op ${date}.`,
    statusExpired:
      'De termijn om uw bankgegevens op te geven is verlopen. Neem contact op met de verkoper van uw verzekering.',
    statusVoided:
      'Deze vergoeding is door de verzekeraar ingetrokken: ze wordt niet betaald. Vragen? Neem contact op met de verkoper van uw verzekering.',
    statusOpened: 'Uw vergoeding wordt voorbereid.',
    replacedPaid: 'Deze vergoeding is betaald.',
    replacedPending: 'De betaling van deze vergoeding is onderweg.',
    newestMessage: 'Deze link is niet meer geldig: gebruik de link in het laatste bericht dat wij u hebben gestuurd.',
    unknownTitle: 'Onbekende link',
    unknown: 'Deze link hoort bij geen enkele vergoeding. Controleer of hij volledig is.',
    errors: {
      holder_required: 'Vul de naam van de rekeninghouder in (2 tot 70 tekens).',
      holder_not_latin: 'Schrijf de naam in Latijnse letters, zoals op uw bankafschrift.',
      holder_characters:
        'De naam van de rekeninghouder mag alleen letters, spaties en de tekens - \' . , & / ( ) bevatten (geen cijfers en geen andere tekens zoals < > " ; : ? !).',
      holder_needs_letters:
        'Een naam bestaat uit letters: vul de naam van de rekeninghouder in zoals op uw bankafschrift, geen nummer.',
      iban_required: 'Vul uw IBAN in.',
      iban_invalid:
        'Een IBAN begint met 2 letters (het land) en 2 cijfers, gevolgd door letters en cijfers op de plaatsen die het land bepaalt: controleer hem.',
      iban_unknown_country: (f) =>
        f.countryName
          ? `Banken in dit land (${f.countryName}, ${f.country}) gebruiken geen IBAN: wij kunnen alleen betalen op een IBAN in het SEPA-gebied.`
          : `Een IBAN begint met de landcode van 2 letters (NL, BE…): ${f.country} is er geen. Controleer hem.`,
      iban_length: (f) =>
        `Een IBAN met landcode ${f.country} (${f.countryName}) heeft ${f.expected} tekens; u hebt er ${f.entered} ingevuld.`,
      iban_mistyped: 'Deze IBAN lijkt verkeerd getypt: de controlecijfers kloppen niet. Controleer elk teken.',
      iban_check_digits:
        'De controlecijfers van het rekeningnummer kloppen niet (de RIB-sleutel in Frankrijk): controleer het rekeningnummer in uw IBAN.',
      iban_not_sepa: 'We kunnen alleen betalen op een rekening in het SEPA-gebied.',
      iban_qr:
        'Dit is een QR-IBAN, die alleen betalingen van QR-facturen ontvangt: vul de gewone IBAN van uw rekening in (op uw rekeningafschrift).',
      bic_required: 'Vul voor dit land ook de BIC van uw bank in.',
      bic_required_for_currency:
        'Uw vergoeding wordt uitbetaald in een andere valuta dan de euro: vul de BIC van uw bank in (8 of 11 tekens, te vinden op uw rekeningafschrift of in uw bankapp).',
      bic_length: (f) => `Een BIC heeft 8 of 11 tekens; u hebt er ${f.entered} ingevuld.`,
      bic_invalid:
        'Deze BIC is niet geldig: de 8 of 11 tekens beginnen met 4 letters (de bank) en 2 letters (het land).',
      bic_country_mismatch: 'Deze BIC past niet bij het land van de IBAN.',
      routing_required: 'Geef het routingnummer van uw bank (9 cijfers).',
      routing_invalid: 'Een routingnummer heeft 9 cijfers: controleer het.',
      routing_unknown_prefix: 'Dit is geen routingnummer van een Amerikaanse bank: controleer het.',
      routing_check_digit: 'Dit routingnummer is ongeldig (het laatste cijfer klopt niet): controleer het.',
      account_number_required: 'Geef uw rekeningnummer.',
      account_number_too_long: 'Een rekeningnummer heeft ten hoogste 17 tekens: controleer het.',
      account_number_invalid: 'Dit rekeningnummer is ongeldig: gebruik de cijfers op uw cheques of rekeningafschrift.',
      account_type_invalid: 'Kies betaalrekening of spaarrekening.',
    },
  },
  footer: {
    insurer: 'Verzekeraar',
    registration: 'Registratie',
    regulator: 'Toezichthouder',
    contact: 'Contact',
    legalNotice: 'Juridische informatie',
    privacyNotice: 'Privacyverklaring',
    back: 'Terug',
  },
  legalNotice: (f) => [
    {
      heading: 'Verzekeraar en uitgever',
      paragraphs: [
        `${f.insurer}, ${f.address}.`,
        `Registratie: ${f.registration}. Onder toezicht van ${f.regulator}.`,
        `Contact: ${f.email}, ${f.phone}.`,
      ],
    },
    {
      heading: 'Distributeur',
      paragraphs: [
        `${f.brand} verkoopt deze vluchtvertragingsverzekering namens ${f.insurer}, die het risico draagt en de vergoedingen betaalt.`,
      ],
    },
    {
      heading: 'Klachten',
      paragraphs: [
        `Schrijf naar ${f.email}. We bevestigen een klacht binnen 10 werkdagen en beantwoorden haar binnen twee maanden.`,
      ],
    },
  ],
  privacyNotice: (f) => [
    {
      heading: 'Verwerkingsverantwoordelijke',
      paragraphs: [`${f.insurer} (${f.address}). Contact voor privacyvragen: ${f.privacyEmail}.`],
    },
    {
      heading: 'Wat we bewaren en waarom',
      paragraphs: [
        `Wanneer u de verzekering bij ${f.brand} afsluit: uw naam, e-mailadres, mobiele nummer, taal, boekingsreferentie en verzekerde vluchten, om het contract uit te voeren: uw vluchten volgen, u laten weten wanneer u een vergoeding krijgt en uw vragen beantwoorden.`,
        'Wanneer een vlucht wordt vergoed: de naam van de rekeninghouder en de IBAN (en BIC), of het Amerikaanse routingnummer en rekeningnummer, die u op deze pagina invult, om u te betalen, en de berichten die we u sturen.',
      ],
    },
    {
      heading: 'Hoe ze beschermd zijn',
      paragraphs: [
        'Uw naam, e-mailadres, telefoonnummer, de naam van de rekeninghouder en de IBAN of het rekeningnummer worden versleuteld opgeslagen. Na invoer wordt de rekening alleen nog met de laatste vier tekens getoond en nooit in logbestanden geschreven. Uw betaallink wordt alleen als vingerafdruk (hash) bewaard.',
      ],
    },
    {
      heading: 'Wie ze ontvangt',
      paragraphs: [
        `${f.brand}, dat u de verzekering verkocht, ziet uw contract. Onze sms-dienst ontvangt uw nummer en onze berichten; de banken ontvangen de naam en de IBAN of het rekeningnummer die nodig zijn om u te betalen. Niets wordt verkocht of voor reclame gebruikt.`,
      ],
    },
    {
      heading: 'Hoe lang',
      paragraphs: [
        `De betaallink werkt ${f.bankDetailsDays} (een herinnering stuurt een nieuwe). Contract, schadegeval en betaling worden bewaard zolang de verzekeraar wettelijk verzekerings- en boekhoudgegevens moet bewaren. Automatische verwijdering is er vandaag niet: wilt u gegevens laten verwijderen die we niet hoeven te bewaren, schrijf dan naar ${f.privacyEmail}.`,
      ],
    },
    {
      heading: 'Uw rechten',
      paragraphs: [
        `U kunt uw gegevens inzien, laten corrigeren of verwijderen, bezwaar maken tegen het gebruik ervan of een kopie vragen door te schrijven naar ${f.privacyEmail}. U kunt ook een klacht indienen bij uw toezichthouder voor gegevensbescherming (in Nederland de Autoriteit Persoonsgegevens).`,
      ],
    },
  ],
} satisfies CustomerWords;
