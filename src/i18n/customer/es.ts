import { html, type SafeHtml } from '../../platform/html.ts';
import type { CustomerWords } from './words.ts';

/** SMS: worded without á í ó ú (not GSM-7) — "ha llegado", "puede introducirlos" — so they stay GSM-7. */
export const es = {
  languageName: 'Español',
  cover: (brand: string, insurer: string) => `Seguro de retraso de vuelo ${brand}, asegurado por ${insurer}`,
  flightEvent: {
    delayed: (delay: string) => `ha llegado con ${delay} de retraso`,
    cancelled: 'ha sido cancelado',
    diverted: 'ha sido desviado',
  },
  hours: { one: '# hora', other: '# horas' },
  minutes: { one: '# minuto', other: '# minutos' },
  passengers: { one: '# pasajero', other: '# pasajeros' },
  days: { one: '# día', other: '# días' },
  sms: {
    claim: (s) =>
      `${s.brand} (asegurado por ${s.insurer}): su vuelo ${s.flight} del ${s.date} ${s.what}. Le pagamos ${s.amount}. Introduzca sus datos bancarios: ${s.link}`,
    paymentFailed: (s) =>
      `${s.brand} (asegurado por ${s.insurer}): su banco ha rechazado el pago de ${s.amount} del vuelo ${s.flight} del ${s.date}. Introduzca otros datos bancarios: ${s.link}`,
    reminder: (s) =>
      `${s.brand} (asegurado por ${s.insurer}): sus ${s.amount} del vuelo ${s.flight} del ${s.date} esperan sus datos bancarios. Puede introducirlos hasta el ${s.due}: ${s.link}`,
    paid: (s) =>
      `${s.brand} (asegurado por ${s.insurer}): hemos pagado ${s.amount} en su cuenta terminada en ${s.last4} por el vuelo ${s.flight} del ${s.date}.`,
    voided: (s) =>
      `${s.brand} (asegurado por ${s.insurer}): el expediente del vuelo ${s.flight} del ${s.date} queda anulado por la aseguradora y no da lugar a pago. Si tiene preguntas, contacte con el vendedor de su seguro.`,
    expired: (s) =>
      `${s.brand} (asegurado por ${s.insurer}): sus ${s.amount} del vuelo ${s.flight} del ${s.date} han caducado: no recibimos sus datos bancarios a tiempo y quedan sin pago. Si tiene preguntas, contacte con el vendedor de su seguro.`,
  },
  email: {
    greeting: (firstName) => (firstName ? `Hola, ${firstName}:` : 'Hola:'),
    linkText: 'Si el botón no funciona, copie este enlace en su navegador:',
    closing: 'Un cordial saludo,',
    why: (brand) => `Recibe este correo porque contrató el seguro de retraso de vuelo de ${brand}.`,
    opened: {
      subject: (s) => `${s.brand}: su vuelo ${s.flight} tiene indemnización`,
      body: (s) => [
        `Su vuelo ${s.flight} del ${s.date} ${s.what}.`,
        `Su seguro le paga ${s.amount} (${s.passengers}).`,
        `Indíquenos la cuenta bancaria en la que ingresarlo antes del ${s.due}.`,
      ],
      action: 'Introducir mis datos bancarios',
    },
    reminder: {
      subject: (s) => `${s.brand}: su indemnización del vuelo ${s.flight} le espera`,
      body: (s) => [
        `Su indemnización de ${s.amount} por el vuelo ${s.flight} del ${s.date} sigue esperando sus datos bancarios.`,
        `Le quedan ${s.daysLeft}: introdúzcalos antes del ${s.due}.`,
      ],
      action: 'Introducir mis datos bancarios',
    },
    paid: {
      subject: (s) => `${s.brand}: su indemnización del vuelo ${s.flight} está pagada`,
      body: (s) => [
        `Hemos ingresado ${s.amount} en su cuenta terminada en ${s.last4} por su vuelo ${s.flight} del ${s.date}.`,
        'Normalmente llega a su cuenta en uno o dos días hábiles.',
      ],
    },
  },
  page: {
    title: 'Su indemnización',
    intro: (flight: SafeHtml, date: string, what: string) => html`Su vuelo ${flight} del ${date} ${what}.`,
    amount: 'Importe de su indemnización',
    forPassengers: (passengers) => `Para ${passengers}.`,
    ask: 'Indíquenos la cuenta bancaria en la que se la ingresamos.',
    holder: 'Titular de la cuenta',
    iban: 'IBAN',
    bic: 'BIC (si su banco está fuera del Espacio Económico Europeo)',
    bicRequired: (currency) => `BIC de su banco (obligatorio: su indemnización se paga en ${currency})`,
    routingNumber: 'Número de ruta (ABA, 9 dígitos)',
    accountNumber: 'Número de cuenta',
    accountType: 'Tipo de cuenta',
    chooseAccountType: 'Elija…',
    checking: 'Cuenta corriente (checking)',
    savings: 'Cuenta de ahorro (savings)',
    useIban: '¿Su cuenta está fuera de los Estados Unidos? Indique su IBAN.',
    useUs: '¿Su cuenta está en los Estados Unidos? Indique sus números de ruta y de cuenta.',
    invalid: 'Revise sus datos',
    submit: 'Enviar',
    thanks: (last4) => `Gracias. Ingresamos su indemnización en la cuenta terminada en ${last4}.`,
    rejected: (last4) =>
      `Su banco ha rechazado el pago${last4 ? ` a la cuenta terminada en ${last4}` : ''}. Indique otra cuenta o revise sus datos.`,
    why: 'Por qué le indemnizamos',
    route: 'Vuelo',
    scheduledArrival: 'Llegada prevista a la puerta',
    actualArrival: 'Llegada real a la puerta',
    delay: 'Retraso a la llegada',
    rule: (delay) => `Su seguro paga a partir de un retraso de ${delay} a la llegada.`,
    ruleCancellation: 'Su seguro paga cuando el vuelo se cancela.',
    ruleDiversion: 'Su seguro paga cuando el vuelo se desvía.',
    source: (provider) =>
      provider ? `Datos de vuelo de ${provider}.` : 'Incidencia de vuelo comunicada a la aseguradora.',
    statusTitle: 'Estado de su indemnización',
    statusPending: (last4) =>
      `Tenemos sus datos bancarios${last4 ? ` (cuenta terminada en ${last4})` : ''}: el pago está en curso.`,
    statusPaid: (date) => `Su indemnización se pagó el ${date}.`,
    statusExpired: 'El plazo para dar sus datos bancarios ha vencido. Contacte con el vendedor de su seguro.',
    statusVoided:
      'La aseguradora ha retirado esta indemnización: no se pagará. Para cualquier pregunta, contacte con el vendedor de su seguro.',
    statusOpened: 'Estamos preparando su indemnización.',
    replacedPaid: 'Esta indemnización ha sido pagada.',
    replacedPending: 'El pago de esta indemnización está en curso.',
    newestMessage: 'Este enlace ya no es válido: utilice el del último mensaje que le hemos enviado.',
    unknownTitle: 'Enlace desconocido',
    unknown: 'Este enlace no corresponde a ninguna indemnización. Compruebe que está completo.',
    errors: {
      holder_required: 'Indique el nombre del titular de la cuenta (de 2 a 70 caracteres).',
      holder_not_latin: 'Escriba el nombre en letras latinas, como en su extracto bancario.',
      holder_characters:
        'El nombre del titular solo puede contener letras, espacios y los signos - \' . , & / ( ) (ni cifras ni otros signos, como < > " ; : ? !).',
      holder_needs_letters:
        'Un nombre lleva letras: escriba el nombre del titular de la cuenta como en su extracto bancario, no un número.',
      iban_required: 'Indique su IBAN.',
      iban_invalid:
        'Un IBAN empieza por 2 letras (su país) y 2 cifras, seguidas de letras y cifras en las posiciones que fija su país: compruébelo.',
      iban_unknown_country: (f) =>
        f.countryName
          ? `Los bancos de este país (${f.countryName}, ${f.country}) no usan IBAN: solo podemos pagar en un IBAN de la zona SEPA.`
          : `Un IBAN empieza por el código de 2 letras de su país (ES, FR…): ${f.country} no lo es. Compruébelo.`,
      iban_length: (f) =>
        `Un IBAN con el código de país ${f.country} (${f.countryName}) tiene ${f.expected} caracteres; ha introducido ${f.entered}.`,
      iban_mistyped: 'Este IBAN parece mal escrito: sus dígitos de control no coinciden. Compruebe cada carácter.',
      iban_check_digits:
        'Los dígitos de control del número de cuenta no coinciden (la clave RIB en Francia): compruebe el número de cuenta de su IBAN.',
      iban_not_sepa: 'Solo podemos pagar en una cuenta de la zona SEPA.',
      iban_qr:
        'Este es un QR-IBAN, que solo recibe pagos de facturas QR: indique el IBAN ordinario de su cuenta (en su extracto bancario).',
      bic_required: 'Para este país, indique también el BIC de su banco.',
      bic_required_for_currency:
        'Su indemnización se paga en una moneda distinta del euro: indique el BIC de su banco (8 u 11 caracteres; figura en su extracto bancario o en la aplicación de su banco).',
      bic_length: (f) => `Un BIC tiene 8 u 11 caracteres; ha introducido ${f.entered}.`,
      bic_invalid:
        'Este BIC no es válido: sus 8 u 11 caracteres empiezan por 4 letras (el banco) y 2 letras (su país).',
      bic_country_mismatch: 'Este BIC no corresponde al país del IBAN.',
      routing_required: 'Indique el número de ruta de su banco (9 dígitos).',
      routing_invalid: 'Un número de ruta tiene 9 dígitos: compruébelo.',
      routing_unknown_prefix: 'No es el número de ruta de un banco estadounidense: compruébelo.',
      routing_check_digit: 'Este número de ruta no es válido (su último dígito no coincide): compruébelo.',
      account_number_required: 'Indique su número de cuenta.',
      account_number_too_long: 'Un número de cuenta tiene como máximo 17 caracteres: compruébelo.',
      account_number_invalid: 'Este número de cuenta no es válido: use los dígitos de sus cheques o de su extracto.',
      account_type_invalid: 'Elija cuenta corriente o cuenta de ahorro.',
    },
  },
  footer: {
    insurer: 'Aseguradora',
    registration: 'Registro',
    regulator: 'Supervisor',
    contact: 'Contacto',
    legalNotice: 'Aviso legal',
    privacyNotice: 'Política de privacidad',
    back: 'Volver',
  },
  legalNotice: (f) => [
    {
      heading: 'Aseguradora y editor',
      paragraphs: [
        `${f.insurer}, ${f.address}.`,
        `Registro: ${f.registration}. Supervisada por ${f.regulator}.`,
        `Contacto: ${f.email}, ${f.phone}.`,
      ],
    },
    {
      heading: 'Distribuidor',
      paragraphs: [
        `${f.brand} comercializa este seguro de retraso de vuelo por cuenta de ${f.insurer}, que asume el riesgo y paga las indemnizaciones.`,
      ],
    },
    {
      heading: 'Reclamaciones',
      paragraphs: [
        `Escriba a ${f.email}. Acusamos recibo de una reclamación en 10 días hábiles y la respondemos en un plazo de dos meses.`,
      ],
    },
  ],
  privacyNotice: (f) => [
    {
      heading: 'Responsable del tratamiento',
      paragraphs: [`${f.insurer} (${f.address}). Contacto de privacidad: ${f.privacyEmail}.`],
    },
    {
      heading: 'Qué datos guardamos y por qué',
      paragraphs: [
        `Al contratar el seguro con ${f.brand}: su nombre, correo electrónico, número de móvil, idioma, referencia de reserva y vuelos asegurados, para ejecutar el contrato: seguir sus vuelos, avisarle cuando tiene indemnización y responder a sus preguntas.`,
        'Cuando un vuelo da derecho a indemnización: el nombre del titular de la cuenta y el IBAN (y BIC), o los números de ruta (routing number) y de cuenta estadounidenses, que introduce en esta página, para pagarle, y los mensajes que le enviamos.',
      ],
    },
    {
      heading: 'Cómo se protegen',
      paragraphs: [
        'Su nombre, correo electrónico, teléfono, el nombre del titular de la cuenta y el IBAN o número de cuenta se guardan cifrados. Una vez introducida, la cuenta solo se muestra con sus cuatro últimos caracteres y nunca se escribe en los registros. Su enlace de pago solo se guarda como huella (hash).',
      ],
    },
    {
      heading: 'Quién los recibe',
      paragraphs: [
        `${f.brand}, que le vendió el seguro, ve su contrato. Nuestro proveedor de SMS recibe su número y nuestros mensajes; los bancos reciben el nombre y el IBAN o número de cuenta necesarios para pagarle. No se vende nada ni se usa con fines publicitarios.`,
      ],
    },
    {
      heading: 'Durante cuánto tiempo',
      paragraphs: [
        `El enlace de pago funciona durante ${f.bankDetailsDays} (un recordatorio envía uno nuevo). El contrato, la indemnización y el pago se conservan mientras la ley obligue a la aseguradora a guardar sus registros de seguros y contables. Hoy no hay borrado automático: para que se supriman los datos que la ley no nos obliga a guardar, escriba a ${f.privacyEmail}.`,
      ],
    },
    {
      heading: 'Sus derechos',
      paragraphs: [
        `Puede acceder a sus datos, rectificarlos o suprimirlos, oponerse a su uso o pedir una copia escribiendo a ${f.privacyEmail}. También puede reclamar ante la autoridad de protección de datos (en España, la AEPD).`,
      ],
    },
  ],
} satisfies CustomerWords;
