import { html, type SafeHtml } from '../../platform/html.ts';
import type { CustomerWords } from './words.ts';

export const it = {
  languageName: 'Italiano',
  cover: (brand: string, insurer: string) => `Assicurazione ritardo volo ${brand}, assicurata da ${insurer}`,
  flightEvent: {
    delayed: (delay: string) => `è arrivato con ${delay} di ritardo`,
    cancelled: 'è stato cancellato',
    diverted: 'è stato dirottato',
  },
  hours: { one: '# ora', other: '# ore' },
  minutes: { one: '# minuto', other: '# minuti' },
  passengers: { one: '# passeggero', other: '# passeggeri' },
  days: { one: '# giorno', other: '# giorni' },
  sms: {
    claim: (s) =>
      `${s.brand} (assicurato da ${s.insurer}): il suo volo ${s.flight} del ${s.date} ${s.what}. Le paghiamo ${s.amount}. Inserisca i suoi dati bancari: ${s.link}`,
    paymentFailed: (s) =>
      `${s.brand} (assicurato da ${s.insurer}): la sua banca ha rifiutato il pagamento di ${s.amount} per il volo ${s.flight} del ${s.date}. Inserisca altri dati bancari: ${s.link}`,
    reminder: (s) =>
      `${s.brand} (assicurato da ${s.insurer}): i suoi ${s.amount} per il volo ${s.flight} del ${s.date} attendono i suoi dati bancari. Li inserisca entro il ${s.due}: ${s.link}`,
    paid: (s) =>
      `${s.brand} (assicurato da ${s.insurer}): abbiamo versato ${s.amount} sul suo conto che termina con ${s.last4} per il volo ${s.flight} del ${s.date}.`,
    voided: (s) =>
      `${s.brand} (assicurato da ${s.insurer}): l'assicuratore ha ritirato il suo indennizzo per il volo ${s.flight} del ${s.date}, che non sarà pagato. Per qualsiasi domanda, contatti il venditore della sua assicurazione.`,
    expired: (s) =>
      `${s.brand} (assicurato da ${s.insurer}): i suoi ${s.amount} per il volo ${s.flight} del ${s.date} sono scaduti: i dati bancari non sono arrivati in tempo e non saranno pagati. Per qualsiasi domanda, contatti il venditore della sua assicurazione.`,
  },
  email: {
    greeting: (firstName) => (firstName ? `Gentile ${firstName},` : 'Gentile cliente,'),
    linkText: 'Se il pulsante non funziona, copi questo link nel suo browser:',
    closing: 'Cordiali saluti,',
    why: (brand) => `Riceve questa email perché ha sottoscritto l’assicurazione ritardo volo di ${brand}.`,
    opened: {
      subject: (s) => `${s.brand}: il suo volo ${s.flight} è indennizzato`,
      body: (s) => [
        `Il suo volo ${s.flight} del ${s.date} ${s.what}.`,
        `La sua assicurazione le paga ${s.amount} (${s.passengers}).`,
        `Ci indichi il conto bancario su cui versarlo entro il ${s.due}.`,
      ],
      action: 'Inserisci i dati bancari',
    },
    reminder: {
      subject: (s) => `${s.brand}: il suo indennizzo per il volo ${s.flight} la aspetta`,
      body: (s) => [
        `Il suo indennizzo di ${s.amount} per il volo ${s.flight} del ${s.date} attende ancora i suoi dati bancari.`,
        `Le restano ${s.daysLeft}: li inserisca entro il ${s.due}.`,
      ],
      action: 'Inserisci i dati bancari',
    },
    paid: {
      subject: (s) => `${s.brand}: il suo indennizzo per il volo ${s.flight} è stato pagato`,
      body: (s) => [
        `Abbiamo versato ${s.amount} sul suo conto che termina con ${s.last4} per il volo ${s.flight} del ${s.date}.`,
        'Di solito l’importo arriva sul conto entro uno o due giorni lavorativi.',
      ],
    },
  },
  page: {
    title: 'Il suo indennizzo',
    intro: (flight: SafeHtml, date: string, what: string) => html`Il suo volo ${flight} del ${date} ${what}.`,
    amount: 'Importo del suo indennizzo',
    forPassengers: (passengers) => `Per ${passengers}.`,
    ask: 'Ci indichi il conto bancario su cui versarlo.',
    holder: 'Intestatario del conto',
    iban: 'IBAN',
    bic: 'BIC (se la sua banca è fuori dallo Spazio economico europeo)',
    bicRequired: (currency) => `BIC della sua banca (obbligatorio: l’indennizzo le viene pagato in ${currency})`,
    routingNumber: 'Routing number (ABA, 9 cifre)',
    accountNumber: 'Numero di conto',
    accountType: 'Tipo di conto',
    chooseAccountType: 'Scegli…',
    checking: 'Conto corrente (checking)',
    savings: 'Conto di risparmio (savings)',
    useIban: 'Il suo conto è fuori dagli Stati Uniti? Indichi invece l’IBAN.',
    useUs: 'Il suo conto è negli Stati Uniti? Indichi il routing number e il numero di conto.',
    invalid: 'Verifichi i suoi dati',
    submit: 'Invia',
    thanks: (last4) => `Grazie. Versiamo il suo indennizzo sul conto che termina con ${last4}.`,
    rejected: (last4) =>
      `La sua banca ha rifiutato il pagamento${last4 ? ` sul conto che termina con ${last4}` : ''}. Indichi un altro conto o verifichi i suoi dati.`,
    why: 'Perché viene indennizzato',
    route: 'Volo',
    scheduledArrival: 'Arrivo previsto al gate',
    actualArrival: 'Arrivo effettivo al gate',
    delay: 'Ritardo all’arrivo',
    rule: (delay) => `La sua assicurazione paga a partire da un ritardo di ${delay} all’arrivo.`,
    ruleCancellation: 'La sua assicurazione paga quando il volo è cancellato.',
    ruleDiversion: 'La sua assicurazione paga quando il volo è dirottato.',
    source: (provider) => (provider ? `Dati di volo: ${provider}.` : 'Evento di volo segnalato all’assicuratore.'),
    statusTitle: 'A che punto è il suo indennizzo',
    statusPending: (last4) =>
      `Abbiamo i suoi dati bancari${last4 ? ` (conto che termina con ${last4})` : ''}: il pagamento è in corso.`,
    statusPaid: (date) => `Il suo indennizzo è stato pagato il ${date}.`,
    statusExpired: 'Il termine per indicare i dati bancari è scaduto. Contatti il venditore della sua assicurazione.',
    statusVoided:
      'L’assicuratore ha ritirato questo indennizzo: non sarà pagato. Per qualsiasi domanda, contatti il venditore della sua assicurazione.',
    statusOpened: 'Stiamo preparando il suo indennizzo.',
    replacedPaid: 'Questo indennizzo è stato pagato.',
    replacedPending: 'Il pagamento di questo indennizzo è in corso.',
    newestMessage: 'Questo link non è più valido: utilizzi quello dell’ultimo messaggio che le abbiamo inviato.',
    unknownTitle: 'Link sconosciuto',
    unknown: 'Questo link non corrisponde a nessun indennizzo. Verifichi che sia completo.',
    errors: {
      holder_required: 'Indichi il nome dell’intestatario del conto (da 2 a 70 caratteri).',
      holder_not_latin: 'Scriva il nome in lettere latine, come sul suo estratto conto.',
      holder_characters:
        'Il nome dell’intestatario può contenere solo lettere, spazi e i segni - \' . , & / ( ) (né cifre né altri segni, come < > " ; : ? !).',
      holder_needs_letters:
        'Un nome è fatto di lettere: scriva il nome dell’intestatario del conto come sul suo estratto conto, non un numero.',
      iban_required: 'Indichi il suo IBAN.',
      iban_invalid:
        'Un IBAN inizia con 2 lettere (il paese) e 2 cifre, seguite da lettere e cifre nelle posizioni stabilite dal paese: lo verifichi.',
      iban_unknown_country: (f) =>
        f.countryName
          ? `Le banche di questo paese (${f.countryName}, ${f.country}) non usano l’IBAN: possiamo pagare solo su un IBAN dell’area SEPA.`
          : `Un IBAN inizia con il codice di 2 lettere del paese (IT, FR…): ${f.country} non lo è. Lo verifichi.`,
      iban_length: (f) =>
        `Un IBAN con codice paese ${f.country} (${f.countryName}) ha ${f.expected} caratteri; ne ha inseriti ${f.entered}.`,
      iban_mistyped:
        'Questo IBAN sembra digitato male: le cifre di controllo non corrispondono. Verifichi ogni carattere.',
      iban_check_digits:
        'Le cifre di controllo del numero di conto non corrispondono (la chiave RIB in Francia): verifichi il numero di conto nel suo IBAN.',
      iban_not_sepa: 'Possiamo pagare solo su un conto dell’area SEPA.',
      iban_qr:
        'Questo è un QR-IBAN, che riceve solo pagamenti di fatture QR: indichi l’IBAN ordinario del suo conto (sul suo estratto conto).',
      bic_required: 'Per questo paese, indichi anche il BIC della sua banca.',
      bic_required_for_currency:
        'L’indennizzo le viene pagato in una valuta diversa dall’euro: indichi il BIC della sua banca (8 o 11 caratteri, lo trova sull’estratto conto o nell’app della banca).',
      bic_length: (f) => `Un BIC ha 8 o 11 caratteri; ne ha inseriti ${f.entered}.`,
      bic_invalid:
        'Questo BIC non è valido: i suoi 8 o 11 caratteri iniziano con 4 lettere (la banca) e 2 lettere (il paese).',
      bic_country_mismatch: 'Questo BIC non corrisponde al paese dell’IBAN.',
      routing_required: 'Indichi il routing number della sua banca (9 cifre).',
      routing_invalid: 'Un routing number ha 9 cifre: lo verifichi.',
      routing_unknown_prefix: 'Non è il routing number di una banca statunitense: lo verifichi.',
      routing_check_digit: 'Questo routing number non è valido (l’ultima cifra non corrisponde): lo verifichi.',
      account_number_required: 'Indichi il numero di conto.',
      account_number_too_long: 'Un numero di conto ha al massimo 17 caratteri: lo verifichi.',
      account_number_invalid:
        'Questo numero di conto non è valido: usi le cifre dei suoi assegni o dell’estratto conto.',
      account_type_invalid: 'Scelga conto corrente o conto di risparmio.',
    },
  },
  footer: {
    insurer: 'Assicuratore',
    registration: 'Iscrizione',
    regulator: 'Autorità di vigilanza',
    contact: 'Contatti',
    legalNotice: 'Note legali',
    privacyNotice: 'Informativa privacy',
    back: 'Indietro',
  },
  legalNotice: (f) => [
    {
      heading: 'Assicuratore ed editore',
      paragraphs: [
        `${f.insurer}, ${f.address}.`,
        `Iscrizione: ${f.registration}. Sotto la vigilanza di ${f.regulator}.`,
        `Contatti: ${f.email}, ${f.phone}.`,
      ],
    },
    {
      heading: 'Distributore',
      paragraphs: [
        `${f.brand} distribuisce questa assicurazione ritardo volo per conto di ${f.insurer}, che sostiene il rischio e paga gli indennizzi.`,
      ],
    },
    {
      heading: 'Reclami',
      paragraphs: [
        `Scriva a ${f.email}. Confermiamo la ricezione di un reclamo entro 10 giorni lavorativi e rispondiamo entro due mesi.`,
      ],
    },
  ],
  privacyNotice: (f) => [
    {
      heading: 'Titolare del trattamento',
      paragraphs: [`${f.insurer} (${f.address}). Contatto privacy: ${f.privacyEmail}.`],
    },
    {
      heading: 'Quali dati conserviamo e perché',
      paragraphs: [
        `Quando sottoscrive l’assicurazione con ${f.brand}: nome, indirizzo email, numero di cellulare, lingua, codice di prenotazione e voli assicurati, per eseguire il contratto: seguire i suoi voli, avvisarla quando ha diritto a un indennizzo e rispondere alle sue domande.`,
        'Quando un volo viene indennizzato: il nome dell’intestatario del conto e l’IBAN (e il BIC), oppure i numeri di routing e di conto statunitensi, che inserisce in questa pagina, per pagarla, e i messaggi che le inviamo.',
      ],
    },
    {
      heading: 'Come sono protetti',
      paragraphs: [
        'Nome, indirizzo email, numero di telefono, nome dell’intestatario del conto e IBAN o numero di conto sono conservati cifrati. Una volta inserito, il conto viene mostrato solo con gli ultimi quattro caratteri e non viene mai scritto nei log. Il suo link di pagamento è conservato solo come impronta (hash).',
      ],
    },
    {
      heading: 'Chi li riceve',
      paragraphs: [
        `${f.brand}, che le ha venduto l’assicurazione, vede il suo contratto. Il nostro fornitore di SMS riceve il suo numero e i nostri messaggi; le banche ricevono il nome e l’IBAN o il numero di conto necessari per pagarla. Nulla viene venduto né usato per pubblicità.`,
      ],
    },
    {
      heading: 'Per quanto tempo',
      paragraphs: [
        `Il link di pagamento vale ${f.bankDetailsDays} (un promemoria ne invia uno nuovo). Contratto, sinistro e pagamento sono conservati finché la legge obbliga l’assicuratore a tenere i documenti assicurativi e contabili. Oggi non esiste una cancellazione automatica: per far cancellare i dati che la legge non ci obbliga a conservare, scriva a ${f.privacyEmail}.`,
      ],
    },
    {
      heading: 'I suoi diritti',
      paragraphs: [
        `Può accedere ai suoi dati, rettificarli o cancellarli, opporsi al loro uso o chiederne una copia scrivendo a ${f.privacyEmail}. Può anche proporre reclamo all’autorità per la protezione dei dati (in Italia, il Garante privacy).`,
      ],
    },
  ],
} satisfies CustomerWords;
