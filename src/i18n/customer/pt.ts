import { html, type SafeHtml } from '../../platform/html.ts';
import type { CustomerWords } from './words.ts';

/** SMS: worded without ã õ ç á í ó ú ê (not GSM-7) — "chegou", "o seu IBAN" — so they stay GSM-7; é is GSM-7. */
export const pt = {
  languageName: 'Português',
  cover: (brand: string, insurer: string) => `Seguro de atraso de voo ${brand}, segurado por ${insurer}`,
  flightEvent: {
    delayed: (delay: string) => `chegou com ${delay} de atraso`,
    cancelled: 'foi cancelado',
    diverted: 'foi desviado',
  },
  hours: { one: '# hora', other: '# horas' },
  minutes: { one: '# minuto', other: '# minutos' },
  passengers: { one: '# passageiro', other: '# passageiros' },
  days: { one: '# dia', other: '# dias' },
  sms: {
    claim: (s) =>
      `${s.brand} (segurado por ${s.insurer}): o seu voo ${s.flight} de ${s.date} ${s.what}. Vai receber ${s.amount}. Indique o seu IBAN: ${s.link}`,
    paymentFailed: (s) =>
      `${s.brand} (segurado por ${s.insurer}): o seu banco recusou o pagamento de ${s.amount} do voo ${s.flight} de ${s.date}. Indique outro IBAN: ${s.link}`,
    reminder: (s) =>
      `${s.brand} (segurado por ${s.insurer}): os seus ${s.amount} do voo ${s.flight} de ${s.date} aguardam o seu IBAN. Indique-o até ${s.due}: ${s.link}`,
    paid: (s) =>
      `${s.brand} (segurado por ${s.insurer}): o pagamento de ${s.amount} do voo ${s.flight} de ${s.date} foi feito para a sua conta terminada em ${s.last4}.`,
    voided: (s) =>
      `${s.brand} (segurado por ${s.insurer}): o pedido do voo ${s.flight} de ${s.date} foi anulado pela seguradora e fica sem pagamento. Contacte o vendedor do seu seguro se tiver perguntas.`,
    expired: (s) =>
      `${s.brand} (segurado por ${s.insurer}): o prazo para indicar o seu IBAN para os ${s.amount} do voo ${s.flight} de ${s.date} terminou: o pedido expirou e fica sem pagamento. Contacte o vendedor do seu seguro se tiver perguntas.`,
  },
  email: {
    greeting: (firstName) => (firstName ? `Olá, ${firstName}:` : 'Olá:'),
    linkText: 'Se o botão não funcionar, copie esta ligação para o seu navegador:',
    closing: 'Com os melhores cumprimentos,',
    why: (brand) => `Recebe este email porque subscreveu o seguro de atraso de voo da ${brand}.`,
    opened: {
      subject: (s) => `${s.brand}: o seu voo ${s.flight} dá direito a indemnização`,
      body: (s) => [
        `O seu voo ${s.flight} de ${s.date} ${s.what}.`,
        `O seu seguro paga-lhe ${s.amount} (${s.passengers}).`,
        `Indique-nos a conta bancária onde o depositar até ${s.due}.`,
      ],
      action: 'Indicar os meus dados bancários',
    },
    reminder: {
      subject: (s) => `${s.brand}: a sua indemnização do voo ${s.flight} aguarda`,
      body: (s) => [
        `A sua indemnização de ${s.amount} pelo voo ${s.flight} de ${s.date} ainda aguarda os seus dados bancários.`,
        `Faltam ${s.daysLeft}: indique-os até ${s.due}.`,
      ],
      action: 'Indicar os meus dados bancários',
    },
    paid: {
      subject: (s) => `${s.brand}: a sua indemnização do voo ${s.flight} foi paga`,
      body: (s) => [
        `Pagámos ${s.amount} na sua conta terminada em ${s.last4} pelo seu voo ${s.flight} de ${s.date}.`,
        'Normalmente o valor chega à sua conta em um a dois dias úteis.',
      ],
    },
  },
  page: {
    title: 'A sua indemnização',
    intro: (flight: SafeHtml, date: string, what: string) => html`O seu voo ${flight} de ${date} ${what}.`,
    amount: 'Montante da sua indemnização',
    forPassengers: (passengers) => `Para ${passengers}.`,
    ask: 'Indique-nos a conta bancária onde a depositamos.',
    holder: 'Titular da conta',
    iban: 'IBAN',
    bic: 'BIC (se o seu banco estiver fora do Espaço Económico Europeu)',
    bicRequired: (currency) => `BIC do seu banco (obrigatório: a sua indemnização é paga em ${currency})`,
    routingNumber: 'Número de encaminhamento (ABA, 9 dígitos)',
    accountNumber: 'Número da conta',
    accountType: 'Tipo de conta',
    chooseAccountType: 'Escolha…',
    checking: 'Conta corrente (checking)',
    savings: 'Conta poupança (savings)',
    useIban: 'A sua conta está fora dos Estados Unidos? Indique antes o IBAN.',
    useUs: 'A sua conta está nos Estados Unidos? Indique os números de encaminhamento e de conta.',
    invalid: 'Verifique os seus dados',
    submit: 'Enviar',
    thanks: (last4) => `Obrigado. Estamos a pagar a sua indemnização na conta terminada em ${last4}.`,
    rejected: (last4) =>
      `O seu banco recusou o pagamento${last4 ? ` para a conta terminada em ${last4}` : ''}. Indique outra conta ou verifique os seus dados.`,
    why: 'Porque é indemnizado',
    route: 'Voo',
    scheduledArrival: 'Chegada prevista à porta',
    actualArrival: 'Chegada efetiva à porta',
    delay: 'Atraso à chegada',
    rule: (delay) => `O seu seguro paga a partir de um atraso de ${delay} à chegada.`,
    ruleCancellation: 'O seu seguro paga quando o voo é cancelado.',
    ruleDiversion: 'O seu seguro paga quando o voo é desviado.',
    source: (provider) => (provider ? `Dados de voo: ${provider}.` : 'Ocorrência de voo comunicada à seguradora.'),
    statusTitle: 'Ponto de situação da sua indemnização',
    statusPending: (last4) =>
      `Temos os seus dados bancários${last4 ? ` (conta terminada em ${last4})` : ''}: o pagamento está a caminho.`,
    statusPaid: (date) => `A sua indemnização foi paga em ${date}.`,
    statusExpired: 'O prazo para indicar os seus dados bancários terminou. Contacte o vendedor do seu seguro.',
    statusVoided:
      'A seguradora retirou esta indemnização: não será paga. Para qualquer questão, contacte o vendedor do seu seguro.',
    statusOpened: 'A sua indemnização está a ser preparada.',
    replacedPaid: 'Esta indemnização foi paga.',
    replacedPending: 'O pagamento desta indemnização está em curso.',
    newestMessage: 'Esta ligação já não é válida: utilize a da última mensagem que lhe enviámos.',
    unknownTitle: 'Ligação desconhecida',
    unknown: 'Esta ligação não corresponde a nenhuma indemnização. Verifique se está completa.',
    errors: {
      holder_required: 'Indique o nome do titular da conta (2 a 70 caracteres).',
      holder_not_latin: 'Escreva o nome em letras latinas, como no seu extrato bancário.',
      holder_characters:
        'O nome do titular só pode conter letras, espaços e os sinais - \' . , & / ( ) (sem algarismos nem outros sinais, como < > " ; : ? !).',
      holder_needs_letters:
        'Um nome leva letras: escreva o nome do titular da conta como no seu extrato bancário, não um número.',
      iban_required: 'Indique o seu IBAN.',
      iban_invalid:
        'Um IBAN começa por 2 letras (o país) e 2 algarismos, seguidos de letras e algarismos nas posições definidas pelo país: verifique-o.',
      iban_unknown_country: (f) =>
        f.countryName
          ? `Os bancos deste país (${f.countryName}, ${f.country}) não usam IBAN: só podemos pagar num IBAN da zona SEPA.`
          : `Um IBAN começa pelo código de 2 letras do país (PT, FR…): ${f.country} não é um deles. Verifique-o.`,
      iban_length: (f) =>
        `Um IBAN com o código de país ${f.country} (${f.countryName}) tem ${f.expected} caracteres; introduziu ${f.entered}.`,
      iban_mistyped: 'Este IBAN parece mal escrito: os dígitos de controlo não correspondem. Verifique cada carácter.',
      iban_check_digits:
        'Os dígitos de controlo do número de conta não coincidem (a chave RIB em França): verifique o número de conta no seu IBAN.',
      iban_not_sepa: 'Só podemos pagar numa conta da zona SEPA.',
      iban_qr:
        'Este é um QR-IBAN, que só recebe pagamentos de faturas QR: indique o IBAN normal da sua conta (no seu extrato bancário).',
      bic_required: 'Para este país, indique também o BIC do seu banco.',
      bic_required_for_currency:
        'A sua indemnização é paga numa moeda diferente do euro: indique o BIC do seu banco (8 ou 11 caracteres, que encontra no extrato bancário ou na aplicação do seu banco).',
      bic_length: (f) => `Um BIC tem 8 ou 11 caracteres; introduziu ${f.entered}.`,
      bic_invalid:
        'Este BIC não é válido: os seus 8 ou 11 caracteres começam por 4 letras (o banco) e 2 letras (o país).',
      bic_country_mismatch: 'Este BIC não corresponde ao país do IBAN.',
      routing_required: 'Indique o número de encaminhamento do seu banco (9 dígitos).',
      routing_invalid: 'Um número de encaminhamento tem 9 dígitos: verifique-o.',
      routing_unknown_prefix: 'Este não é o número de encaminhamento de um banco dos EUA: verifique-o.',
      routing_check_digit: 'Este número de encaminhamento não é válido (o último dígito não corresponde): verifique-o.',
      account_number_required: 'Indique o número da sua conta.',
      account_number_too_long: 'Um número de conta tem no máximo 17 caracteres: verifique-o.',
      account_number_invalid: 'Este número de conta não é válido: use os dígitos dos seus cheques ou do seu extrato.',
      account_type_invalid: 'Escolha conta corrente ou conta poupança.',
    },
  },
  footer: {
    insurer: 'Seguradora',
    registration: 'Registo',
    regulator: 'Autoridade de supervisão',
    contact: 'Contacto',
    legalNotice: 'Informação legal',
    privacyNotice: 'Política de privacidade',
    back: 'Voltar',
  },
  legalNotice: (f) => [
    {
      heading: 'Seguradora e editor',
      paragraphs: [
        `${f.insurer}, ${f.address}.`,
        `Registo: ${f.registration}. Supervisionada por ${f.regulator}.`,
        `Contacto: ${f.email}, ${f.phone}.`,
      ],
    },
    {
      heading: 'Distribuidor',
      paragraphs: [
        `A ${f.brand} comercializa este seguro de atraso de voo por conta da ${f.insurer}, que assume o risco e paga as indemnizações.`,
      ],
    },
    {
      heading: 'Reclamações',
      paragraphs: [
        `Escreva para ${f.email}. Confirmamos a receção de uma reclamação em 10 dias úteis e respondemos no prazo de dois meses.`,
      ],
    },
  ],
  privacyNotice: (f) => [
    {
      heading: 'Responsável pelo tratamento',
      paragraphs: [`${f.insurer} (${f.address}). Contacto de privacidade: ${f.privacyEmail}.`],
    },
    {
      heading: 'Que dados guardamos e porquê',
      paragraphs: [
        `Quando subscreve o seguro junto da ${f.brand}: o seu nome, email, número de telemóvel, idioma, referência da reserva e voos seguros, para executar o contrato: acompanhar os seus voos, avisá-lo quando tem direito a indemnização e responder às suas perguntas.`,
        'Quando um voo dá direito a indemnização: o nome do titular da conta e o IBAN (e BIC), ou os números de encaminhamento (routing number) e de conta norte-americanos, que indica nesta página, para lhe pagar, e as mensagens que lhe enviamos.',
      ],
    },
    {
      heading: 'Como são protegidos',
      paragraphs: [
        'O seu nome, email, telefone, o nome do titular da conta e o IBAN ou número de conta são guardados cifrados. Depois de introduzida, a conta só é mostrada pelos últimos quatro caracteres e nunca é escrita nos registos. A sua ligação de pagamento só é guardada como impressão digital (hash).',
      ],
    },
    {
      heading: 'Quem os recebe',
      paragraphs: [
        `A ${f.brand}, que lhe vendeu o seguro, vê o seu contrato. O nosso fornecedor de SMS recebe o seu número e as nossas mensagens; os bancos recebem o nome e o IBAN ou número de conta necessários para lhe pagar. Nada é vendido nem usado para publicidade.`,
      ],
    },
    {
      heading: 'Durante quanto tempo',
      paragraphs: [
        `A ligação de pagamento funciona durante ${f.bankDetailsDays} (um lembrete envia uma nova). O contrato, o sinistro e o pagamento são guardados enquanto a lei obrigar a seguradora a conservar os seus registos de seguros e contabilísticos. Hoje não há eliminação automática: para eliminar os dados que a lei não nos obriga a guardar, escreva para ${f.privacyEmail}.`,
      ],
    },
    {
      heading: 'Os seus direitos',
      paragraphs: [
        `Pode aceder aos seus dados, retificá-los ou apagá-los, opor-se à sua utilização ou pedir uma cópia escrevendo para ${f.privacyEmail}. Pode também apresentar queixa à autoridade de proteção de dados (em Portugal, a CNPD).`,
      ],
    },
  ],
} satisfies CustomerWords;
