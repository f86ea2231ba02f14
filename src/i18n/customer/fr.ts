import { html, type SafeHtml } from '../../platform/html.ts';
import type { CustomerWords } from './words.ts';

export const fr = {
  languageName: 'Français',
  cover: (brand: string, insurer: string) => `Assurance retard de vol ${brand}, assurée par ${insurer}`,
  flightEvent: {
    delayed: (delay: string) => `est arrivé avec ${delay} de retard`,
    cancelled: 'a été annulé',
    diverted: 'a été dérouté',
  },
  hours: { one: '# heure', other: '# heures' },
  minutes: { one: '# minute', other: '# minutes' },
  passengers: { one: '# passager', other: '# passagers' },
  days: { one: '# jour', other: '# jours' },
  sms: {
    claim: (s) =>
      `${s.brand} (assuré par ${s.insurer}) : votre vol ${s.flight} du ${s.date} ${s.what}. Vous recevez ${s.amount}. Saisissez votre RIB : ${s.link}`,
    paymentFailed: (s) =>
      `${s.brand} (assuré par ${s.insurer}) : votre banque a refusé le virement de ${s.amount} pour le vol ${s.flight} du ${s.date}. Saisissez un autre RIB : ${s.link}`,
    reminder: (s) =>
      `${s.brand} (assuré par ${s.insurer}) : vos ${s.amount} pour le vol ${s.flight} du ${s.date} attendent votre RIB. Saisissez-le au plus tard le ${s.due} : ${s.link}`,
    paid: (s) =>
      `${s.brand} (assuré par ${s.insurer}) : nous avons versé ${s.amount} sur votre compte se terminant par ${s.last4} pour le vol ${s.flight} du ${s.date}.`,
    voided: (s) =>
      `${s.brand} (assuré par ${s.insurer}) : votre demande d'indemnisation pour le vol ${s.flight} du ${s.date} a été retirée par l'assureur et ne sera pas payée. Pour toute question, contactez le vendeur de votre assurance.`,
    expired: (s) =>
      `${s.brand} (assuré par ${s.insurer}) : vos ${s.amount} pour le vol ${s.flight} du ${s.date} ont expiré : votre RIB n'a pas été saisi à temps, ils ne seront pas payés. Pour toute question, contactez le vendeur de votre assurance.`,
  },
  email: {
    greeting: (firstName) => (firstName ? `Bonjour ${firstName},` : 'Bonjour,'),
    linkText: 'Si le bouton ne fonctionne pas, copiez ce lien dans votre navigateur\u202f:',
    closing: 'Bien cordialement,',
    why: (brand) => `Vous recevez ce courriel car vous avez souscrit l’assurance retard de vol de ${brand}.`,
    opened: {
      subject: (s) => `${s.brand}\u202f: votre vol ${s.flight} est indemnisé`,
      body: (s) => [
        `Votre vol ${s.flight} du ${s.date} ${s.what}.`,
        `Votre assurance vous verse ${s.amount} (${s.passengers}).`,
        `Indiquez-nous le compte bancaire sur lequel la verser, au plus tard le ${s.due}.`,
      ],
      action: 'Saisir mes coordonnées bancaires',
    },
    reminder: {
      subject: (s) => `${s.brand}\u202f: votre indemnisation pour le vol ${s.flight} vous attend`,
      body: (s) => [
        `Votre indemnisation de ${s.amount} pour votre vol ${s.flight} du ${s.date} attend toujours vos coordonnées bancaires.`,
        `Il vous reste ${s.daysLeft}\u202f: saisissez-les au plus tard le ${s.due}.`,
      ],
      action: 'Saisir mes coordonnées bancaires',
    },
    paid: {
      subject: (s) => `${s.brand}\u202f: votre indemnisation pour le vol ${s.flight} est versée`,
      body: (s) => [
        `Nous avons versé ${s.amount} sur votre compte se terminant par ${s.last4} pour votre vol ${s.flight} du ${s.date}.`,
        'Le virement arrive en général sous un à deux jours ouvrés.',
      ],
    },
  },
  page: {
    title: 'Votre indemnisation',
    intro: (flight: SafeHtml, date: string, what: string) => html`Votre vol ${flight} du ${date} ${what}.`,
    amount: 'Montant de votre indemnisation',
    forPassengers: (passengers) => `Pour ${passengers}.`,
    ask: 'Indiquez le compte bancaire sur lequel nous vous la versons.',
    holder: 'Titulaire du compte',
    iban: 'IBAN',
    bic: 'BIC (si votre banque est hors de l’Espace économique européen)',
    bicRequired: (currency) => `BIC de votre banque (obligatoire\u202f: votre indemnisation est versée en ${currency})`,
    routingNumber: 'Numéro de routage (ABA, 9 chiffres)',
    accountNumber: 'Numéro de compte',
    accountType: 'Type de compte',
    chooseAccountType: 'Choisissez…',
    checking: 'Compte courant (checking)',
    savings: 'Compte d’épargne (savings)',
    useIban: 'Votre compte est hors des États-Unis\u202f? Indiquez plutôt son IBAN.',
    useUs: 'Votre compte est aux États-Unis\u202f? Indiquez ses numéros de routage et de compte.',
    invalid: 'Vérifiez vos informations',
    submit: 'Envoyer',
    thanks: (last4) => `Merci. Nous virons votre indemnisation sur le compte se terminant par ${last4}.`,
    rejected: (last4) =>
      `Votre banque a refusé le virement${last4 ? ` vers le compte se terminant par ${last4}` : ''}. Indiquez un autre compte, ou vérifiez vos coordonnées.`,
    why: 'Pourquoi vous êtes indemnisé',
    route: 'Vol',
    scheduledArrival: 'Arrivée prévue au terminal',
    actualArrival: 'Arrivée réelle au terminal',
    delay: 'Retard à l’arrivée',
    rule: (delay) => `Votre assurance paie à partir d’un retard de ${delay} à l’arrivée.`,
    ruleCancellation: 'Votre assurance paie quand le vol est annulé.',
    ruleDiversion: 'Votre assurance paie quand le vol est dérouté.',
    source: (provider) => (provider ? `Données de vol\u202f: ${provider}.` : 'Événement de vol signalé à l’assureur.'),
    statusTitle: 'Où en est votre indemnisation',
    statusPending: (last4) =>
      `Nous avons vos coordonnées bancaires${last4 ? ` (compte se terminant par ${last4})` : ''}\u202f: le paiement est en cours.`,
    statusPaid: (date) => `Votre indemnisation a été versée le ${date}.`,
    statusExpired:
      'Le délai pour donner vos coordonnées bancaires est dépassé. Contactez le vendeur de votre assurance.',
    statusVoided:
      'Cette indemnisation a été retirée par l’assureur\u202f: elle ne sera pas payée. Pour toute question, contactez le vendeur de votre assurance.',
    statusOpened: 'Votre indemnisation est en préparation.',
    replacedPaid: 'Cette indemnisation a été versée.',
    replacedPending: 'Le paiement de cette indemnisation est en cours.',
    newestMessage: 'Ce lien n’est plus valable\u202f: utilisez celui du dernier message que nous vous avons envoyé.',
    unknownTitle: 'Lien inconnu',
    unknown: 'Ce lien ne correspond à aucune indemnisation. Vérifiez qu’il est complet.',
    errors: {
      holder_required: 'Indiquez le nom du titulaire du compte (2 à 70 caractères).',
      holder_not_latin: 'Écrivez le nom en lettres latines, comme sur votre relevé bancaire.',
      holder_characters:
        'Le nom du titulaire ne peut contenir que des lettres, des espaces et les signes - \' . , & / ( ) (ni chiffres ni autres signes, tels que < > ou ").',
      holder_needs_letters:
        'Un nom s’écrit avec des lettres\u202f: indiquez le nom du titulaire du compte tel qu’il figure sur votre relevé, pas un numéro.',
      iban_required: 'Indiquez votre IBAN.',
      iban_invalid:
        'Un IBAN commence par 2 lettres (son pays) et 2 chiffres, suivis de lettres et de chiffres aux places que fixe son pays\u202f: vérifiez-le.',
      iban_unknown_country: (f) =>
        f.countryName
          ? `Les banques de ce pays (${f.countryName}, ${f.country}) n’utilisent pas d’IBAN\u202f: nous ne pouvons virer que vers un IBAN de la zone SEPA.`
          : `Un IBAN commence par le code à 2 lettres de son pays (FR, DE…)\u202f: ${f.country} n’en est pas un. Vérifiez-le.`,
      iban_length: (f) =>
        `Un IBAN de code pays ${f.country} (${f.countryName}) compte ${f.expected} caractères\u202f; vous en avez saisi ${f.entered}.`,
      iban_mistyped:
        'Cet IBAN semble mal saisi\u202f: ses chiffres de contrôle ne correspondent pas. Vérifiez chaque caractère.',
      iban_check_digits:
        'La clé de contrôle du numéro de compte ne correspond pas (clé RIB en France)\u202f: vérifiez le numéro de compte dans votre IBAN.',
      iban_not_sepa: 'Nous ne pouvons virer que vers un compte de la zone SEPA.',
      iban_qr:
        'Ceci est un QR-IBAN, qui ne reçoit que les paiements de QR-factures\u202f: indiquez l’IBAN ordinaire de votre compte (sur votre relevé bancaire).',
      bic_required: 'Pour ce pays, indiquez aussi le BIC de votre banque.',
      bic_required_for_currency:
        'Votre indemnisation est versée dans une autre devise que l’euro\u202f: indiquez le BIC de votre banque (8 ou 11 caractères, sur votre RIB ou dans l’application de votre banque).',
      bic_length: (f) => `Un BIC compte 8 ou 11 caractères\u202f; vous en avez saisi ${f.entered}.`,
      bic_invalid:
        'Ce BIC n’est pas valide\u202f: ses 8 ou 11 caractères commencent par 4 lettres (la banque) et 2 lettres (son pays).',
      bic_country_mismatch: 'Ce BIC ne correspond pas au pays de l’IBAN.',
      routing_required: 'Indiquez le numéro de routage de votre banque (9 chiffres).',
      routing_invalid: 'Un numéro de routage a 9 chiffres\u202f: vérifiez-le.',
      routing_unknown_prefix: 'Ce n’est pas le numéro de routage d’une banque américaine\u202f: vérifiez-le.',
      routing_check_digit:
        'Ce numéro de routage n’est pas valide (son dernier chiffre ne correspond pas)\u202f: vérifiez-le.',
      account_number_required: 'Indiquez votre numéro de compte.',
      account_number_too_long: 'Un numéro de compte a au plus 17 caractères\u202f: vérifiez-le.',
      account_number_invalid:
        'Ce numéro de compte n’est pas valide\u202f: reprenez les chiffres de vos chèques ou de votre relevé.',
      account_type_invalid: 'Choisissez compte courant ou compte d’épargne.',
    },
  },
  footer: {
    insurer: 'Assureur',
    registration: 'Immatriculation',
    regulator: 'Autorité de contrôle',
    contact: 'Contact',
    legalNotice: 'Mentions légales',
    privacyNotice: 'Protection des données',
    back: 'Retour',
  },
  legalNotice: (f) => [
    {
      heading: 'Assureur et éditeur',
      paragraphs: [
        `${f.insurer}, ${f.address}.`,
        `Immatriculation\u202f: ${f.registration}. Sous le contrôle de ${f.regulator}.`,
        `Contact\u202f: ${f.email}, ${f.phone}.`,
      ],
    },
    {
      heading: 'Distributeur',
      paragraphs: [
        `${f.brand} distribue cette assurance retard de vol pour le compte de ${f.insurer}, qui porte le risque et verse les indemnisations.`,
      ],
    },
    {
      heading: 'Réclamations',
      paragraphs: [
        `Écrivez à ${f.email}. Nous accusons réception d’une réclamation sous 10 jours ouvrés et y répondons sous deux mois.`,
      ],
    },
  ],
  privacyNotice: (f) => [
    {
      heading: 'Responsable du traitement',
      paragraphs: [`${f.insurer} (${f.address}). Contact pour vos données\u202f: ${f.privacyEmail}.`],
    },
    {
      heading: 'Ce que nous conservons et pourquoi',
      paragraphs: [
        `Quand vous souscrivez l’assurance auprès de ${f.brand}\u202f: vos nom et prénom, adresse e-mail, numéro de mobile, langue, référence de réservation et vols assurés, pour exécuter le contrat\u202f: suivre vos vols, vous prévenir quand vous êtes indemnisé et répondre à vos questions.`,
        'Quand un vol est indemnisé\u202f: le nom du titulaire du compte et l’IBAN (et le BIC), ou les numéros de routage et de compte américains, que vous saisissez sur cette page, pour vous payer, ainsi que les messages que nous vous envoyons.',
      ],
    },
    {
      heading: 'Comment elles sont protégées',
      paragraphs: [
        'Vos nom et prénom, adresse e-mail, numéro de téléphone, nom du titulaire du compte et IBAN ou numéro de compte sont stockés chiffrés. Une fois saisi, le compte n’est plus affiché que par ses quatre derniers caractères et n’est jamais écrit dans les journaux. Votre lien de paiement n’est conservé que sous forme d’empreinte.',
      ],
    },
    {
      heading: 'Qui les reçoit',
      paragraphs: [
        `${f.brand}, qui vous a vendu l’assurance, voit votre contrat. Notre prestataire d’envoi de SMS reçoit votre numéro et nos messages\u202f; les banques reçoivent le nom et l’IBAN ou le numéro de compte nécessaires pour vous payer. Rien n’est vendu ni utilisé à des fins publicitaires.`,
      ],
    },
    {
      heading: 'Combien de temps',
      paragraphs: [
        `Le lien de paiement fonctionne ${f.bankDetailsDays} (un rappel en envoie un nouveau). Le contrat, l’indemnisation et le paiement sont conservés aussi longtemps que la loi oblige l’assureur à garder ses dossiers d’assurance et sa comptabilité. Il n’y a pas aujourd’hui de suppression automatique\u202f: pour faire effacer ce que la loi ne nous oblige pas à garder, écrivez à ${f.privacyEmail}.`,
      ],
    },
    {
      heading: 'Vos droits',
      paragraphs: [
        `Vous pouvez accéder à vos données, les rectifier ou les effacer, vous opposer à leur utilisation ou en demander une copie en écrivant à ${f.privacyEmail}. Vous pouvez aussi saisir la CNIL ou l’autorité de protection des données de votre pays.`,
      ],
    },
  ],
} satisfies CustomerWords;
