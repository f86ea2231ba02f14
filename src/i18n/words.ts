import type { ErrorCode, FieldErrorCode } from '../platform/errors.ts';
import type { SafeHtml } from '../platform/html.ts';

/**
 * Every word a language file gives (en.ts, fr.ts, … each `satisfies Words`): a missing, extra or
 * mistyped entry fails the type-check.
 */
export interface Words {
  skip: string;
  brand: string;
  areas: {
    portal: string;
    console: string;
    admin: string;
  };
  nav: {
    reports: string;
    apis: string;
    keys: string;
    configuration: string;
    dashboard: string;
    claims: string;
    partners: string;
    flights: string;
    outbox: string;
    payouts: string;
    limits: string;
    portal: string;
    console: string;
    webhooks: string;
    risk: string;
  };
  language: string;
  signedInAs: string;
  signOut: string;
  signIn: string;
  email: string;
  password: string;
  signInTitle: {
    portal: string;
    admin: string;
  };
  signInInvalid: string;
  signInLocked: (minutes: number) => string;
  formExpired: string;
  forbidden: string;
  forbiddenAdmin: string;
  badQuery: string;
  notFound: string;
  error: string;
  catalogTitle: string;
  catalogIntro: string;
  catalogEmpty: string;
  open: string;
  whatItDoes: string;
  gettingStarted: string;
  baseUrl: string;
  steps: {
    key: string;
    auth: string;
    call: string;
    reference: string;
  };
  reference: string;
  apiDefinition: string;
  downloadOpenapi: string;
  keysTitle: string;
  keysIntro: string;
  environment: string;
  label: string;
  key: string;
  created: string;
  lastUsed: string;
  status: string;
  active: string;
  revoked: string;
  never: string;
  createKey: string;
  revoke: string;
  revokeConfirm: string;
  newKeyTitle: string;
  newKeyWarning: string;
  copy: string;
  copied: string;
  noKeys: string;
  envNotAllowed: string;
  configTitle: string;
  configIntro: string;
  formula: string;
  formulas: {
    delay: string;
    cancellation: string;
    delay_and_cancellation: string;
  };
  delayTiers: string;
  tier: (n: number) => string;
  minDelay: string;
  amount: string;
  cancellationAmount: string;
  commission: string;
  bounds: string;
  boundsText: (a: { commission: string; compensation: string; formulas: string }) => string;
  save: string;
  saved: (v: number) => string;
  fixErrors: string;
  preview: string;
  sampleFlight: string;
  premiumTotal: string;
  net: string;
  tax: string;
  commissionAmount: string;
  previewInvalid: string;
  breakdownTitle: (version: string) => string;
  credibility: string;
  expectedLoss: string;
  premiumShare: string;
  payoutEvent: string;
  probability: string;
  payout: string;
  explanation: string;
  eventCancellation: string;
  eventDiversion: string;
  eventDelay: (from: number, to: number | null) => string;
  history: string;
  version: string;
  by: string;
  at: string;
  noConfig: string;
  unsignedAgreement: string;
  noAgreement: string;
  errors: {
    commission: (min: string, max: string) => string;
    amount: (min: string, max: string) => string;
    minutes: string;
    tiers: string;
    formula: string;
    number: string;
    order: string;
  };
  partnersTitle: string;
  slug: string;
  name: string;
  createPartner: string;
  agreement: string;
  draft: string;
  signed: string;
  sign: string;
  signConfirm: string;
  setAgreement: string;
  evidenceTitle: string;
  evidenceSource: string;
  evidenceProvider: string;
  scheduledDeparture: string;
  actualDeparture: string;
  scheduledArrival: string;
  actualArrival: string;
  delayComputed: string;
  evidenceRule: string;
  ruleVersion: string;
  decidedAt: string;
  divertedTo: string;
  documentsTitle: string;
  documentsNone: string;
  documentsVersion: string;
  documentsIpid: string;
  documentsTerms: string;
  documentsUrl: string;
  documentsLabel: string;
  documentsSha256: string;
  insurerName: string;
  insurerRegistration: string;
  insurerAddress: string;
  insurerRegulator: string;
  complaintsEmail: string;
  complaintsUrl: string;
  setDocuments: string;
  allowedFormulas: string;
  currency: string;
  taxRate: string;
  commissionMin: string;
  commissionMax: string;
  compensationMin: string;
  compensationMax: string;
  subscriptions: string;
  subscribe: string;
  unsubscribe: string;
  users: string;
  createUser: string;
  none: string;
  signedBy: string;
  done: string;
  all: string;
  webhooksTitle: string;
  webhooksIntro: string;
  url: string;
  description: string;
  eventTypes: string;
  allTypes: string;
  addEndpoint: string;
  sendTest: string;
  rotate: string;
  remove: string;
  removeConfirm: string;
  secretTitle: string;
  secretWarning: string;
  deliveries: string;
  attempts: string;
  noEndpoints: string;
  noDeliveries: string;
  testSent: string;
  redeliver: string;
  redelivered: string;
  failing: string;
  failingHint: string;
  noneTicked: string;
  dashboardTitle: string;
  quotesCounted: string;
  quotesSeries: string;
  conversionRate: string;
  last30: string;
  subscriptionsSeries: string;
  cancellationsSeries: string;
  claimsSeries: string;
  cancellationRate: string;
  notMeasurable: string;
  claimsByStatus: string;
  premiumVsPaid: string;
  premiumWritten: string;
  compensationPaid: string;
  refunds: string;
  day: string;
  count: string;
  contract: string;
  customer: string;
  booking: string;
  legs: string;
  /** The contract's versions table (issue 13 §1): title, the kinds of change, the difference column. */
  contractVersions: string;
  contractChanges: Record<'subscribed' | 'flight_changed' | 'passenger_cancelled' | 'leg_cancelled', string>;
  difference: string;
  flight: string;
  /** A codeshare leg: 'AF3612 operated as DL264'. */
  operatedAs: string;
  departure: string;
  premium: string;
  refund: string;
  coverage: string;
  claimsTitle: string;
  claimsIntro: string;
  fromDate: string;
  toDate: string;
  contractNumber: string;
  filter: string;
  nextPage: string;
  firstPage: string;
  reason: string;
  opened: string;
  paid: string;
  delay: string;
  noClaims: string;
  claimStatus: {
    opened: string;
    awaiting_bank_details: string;
    payment_pending: string;
    paid: string;
    expired: string;
    failed: string;
  };
  /** The claim SMS and the customer's bank-details page share the words of what happened to the flight. */
  flightEvent: {
    delayed: (delay: string) => string;
    cancelled: string;
    diverted: string;
  };
  /** SMS bodies: GSM-7 characters only (docs/sms.md). */
  sms: {
    claim: (s: { flight: string; date: string; what: string; amount: string; link: string }) => string;
    paymentFailed: (s: { flight: string; date: string; amount: string; link: string }) => string;
    /** A claim still waiting for bank details a few days before its due date: a new link, the last day to use it. */
    reminder: (s: { flight: string; date: string; amount: string; due: string; link: string }) => string;
    /** The receipt once the compensation is paid: no link (the claim page says the same). */
    paid: (s: { flight: string; date: string; amount: string; last4: string }) => string;
  };
  /** The customer's bank-details page behind the SMS link (web/claim-page.ts). */
  claimPage: {
    title: string;
    intro: (flight: SafeHtml, date: string, what: string) => SafeHtml;
    amount: string;
    ask: string;
    holder: string;
    iban: string;
    bic: string;
    submit: string;
    thanks: (last4: string) => string;
    rejected: (last4: string | null) => string;
    paid: string;
    closed: string;
    closedPaid: (last4: string | null) => string;
    /** Why the customer is paid: the flight facts of the claim's evidence (issue 13 §3). */
    why: string;
    route: string;
    scheduledArrival: string;
    actualArrival: string;
    delay: string;
    rule: (minutes: string) => string;
    ruleCancellation: string;
    ruleDiversion: string;
    source: (provider: string | null) => string;
    /** The claim's status once the link has done its work. */
    statusTitle: string;
    statusPending: (last4: string | null) => string;
    statusPaid: (date: string) => string;
    statusExpired: string;
    statusOpened: string;
    unknownTitle: string;
    unknown: string;
    errors: {
      holder_required: string;
      holder_not_latin: string;
      iban_required: string;
      iban_invalid: string;
      iban_check_digits: string;
      iban_not_sepa: string;
      bic_required: string;
      bic_invalid: string;
      bic_country_mismatch: string;
    };
  };
  /** The operator console's limits page (web/admin-limits-view.ts). */
  limitsPage: {
    saved: string;
    highestExposure: string;
    exposureIntro: string;
    filter: string;
    local: string;
    legs: string;
    exposure: string;
    cap: string;
    shareOfCap: string;
    capsPerFlight: string;
    setBy: string;
    default: string;
    capMajorUnits: string;
    setCap: string;
    stopSales: string;
    scope: string;
    departuresFrom: string;
    until: string;
    by: string;
    resume: string;
    resumeSales: string;
    suspendSales: string;
    suspendHelp: string;
    airline: string;
    airport: string;
    routeFrom: string;
    routeTo: string;
    oneFlightDeparture: string;
    resumeConfirm: (scope: string) => string;
  };
  /** The operator console's risk model page (web/admin-risk-routes.ts). */
  riskModels: {
    title: string;
    intro: string;
    version: string;
    source: string;
    base: string;
    observations: string;
    dataUntil: string;
    activeIn: string;
    created: string;
    activate: string;
    environment: string;
    all: string;
    refit: string;
    refitHelp: string;
    refitQueued: string;
    activated: (version: string, envs: string) => string;
  };
  /** Money reports (issue 14 §1): bordereaux, statement, exports (web/report-routes.ts, report-views.ts). */
  reports: {
    title: string;
    intro: string;
    month: string;
    environment: string;
    partner: string;
    show: string;
    statement: string;
    premiumBordereau: string;
    claimsBordereau: string;
    exports: string;
    exportsIntro: string;
    from: string;
    to: string;
    contractsCsv: string;
    claimsCsv: string;
    currency: string;
    collected: string;
    commission: string;
    refunds: string;
    due: string;
    compensationPaid: string;
    none: string;
  };
  /** Amendable agreements (issue 14 §2): the versions of an agreement in both consoles. */
  agreementVersions: {
    historyTitle: string;
    historyIntro: string;
    version: string;
    effective: string;
    state: string;
    inForce: string;
    scheduled: string;
    superseded: string;
    draft: string;
    signed: string;
    reason: string;
    changes: string;
    original: string;
    noChange: string;
    none: string;
    fields: Record<
      'allowedFormulas' | 'taxRate' | 'commissionMin' | 'commissionMax' | 'compensationMin' | 'compensationMax',
      string
    >;
    amendTitle: string;
    amendIntro: string;
    effectiveLabel: string;
    effectiveHint: string;
    reasonLabel: string;
    amend: string;
    amendConfirm: string;
    /** The contract's agreement version, or this when sold under an unsigned draft. */
    soldUnder: string;
    unsignedDraft: string;
    /** A signed version not yet effective will reject the partner's configuration. */
    futureWarning: (version: number, date: string) => string;
    /** The configuration is outside the version in force: quotes are refused. */
    outsideWarning: (version: number) => string;
    configFields: Record<'formula' | 'commissionRate' | 'delayTiers' | 'cancellationAmount' | 'currency', string>;
  };
  /** A field error of a domain rule, by its code (platform/errors.ts), for pages in this language. */
  fieldErrors: Record<FieldErrorCode, string>;
  /**
   * English pages show the domain's own detail; other languages show these, by error code, and give
   * every code (`satisfies Record<ErrorCode, string>` in their file).
   */
  problems: Partial<Record<ErrorCode, string>>;
}
