import type { ErrorCode, FieldErrorCode } from '../platform/errors.ts';

/** A delay band's terms as the preview shows them (percentages already formatted). */
export interface DelayBandWords {
  from: number;
  to: number;
  pFrom: string;
  pTo: string;
  p: string;
  exact: boolean;
}

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
  /** A one-time form (claim desk, webhooks pages) sent without its page's token, or with another partner's. */
  formStale: string;
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
  /** The configuration form saved from a version another save replaced since (`configuration_changed`). */
  configurationChanged: {
    /** `opened` 0: the form was opened before any configuration existed. */
    message: (a: { opened: number; current: number; by: string; at: string }) => string;
    changes: (opened: number) => string;
    /** The current version has the opened one's terms (saves since restored them): nothing to list. */
    sameTerms: (opened: number) => string;
    /** One field that changed: its value now, and before. */
    nowWas: (now: string, was: string) => string;
    kept: string;
    reload: string;
  };
  preview: string;
  sampleFlight: string;
  premiumTotal: string;
  net: string;
  tax: string;
  commissionAmount: string;
  previewInvalid: string;
  breakdownTitle: (version: string, environment: string) => string;
  credibility: string;
  expectedLoss: string;
  premiumShare: string;
  payoutEvent: string;
  probability: string;
  payout: string;
  explanation: string;
  eventCancellation: string;
  eventDiversion: string;
  /** A delay band's line: P(≥ from) − P(≥ to), shown rounded, "=" the band's shown probability when exact, else "≈". */
  delayBand: (band: DelayBandWords) => string;
  eventDelay: (from: number, to: number | null) => string;
  /**
   * A factor of the risk model's explanation, named as the model names it ("long-haul", "winter",
   * "midday (hour 10)", "month 12 (prior)", "Thursday", "to JFK", "OO on SAT–LAX", "cap"): English
   * as it is; another language translates the words and keeps the codes, a label it does not know as it is.
   */
  riskFactor: (label: string) => string;
  history: string;
  version: string;
  /** The configuration version a contract was sold under (its contract page). */
  configurationVersion: string;
  by: string;
  at: string;
  noConfig: string;
  unsignedAgreement: string;
  noAgreement: string;
  errors: {
    commission: (min: string, max: string) => string;
    /** A rate with more decimals than the form takes. */
    commissionDecimals: (min: string, max: string, decimals: number) => string;
    amount: (min: string, max: string) => string;
    /** An amount with more decimals than its currency has (0: a whole amount). */
    amountDecimals: (min: string, max: string, decimals: number) => string;
    /** An amount longer than the form reads: refused, never cut. */
    amountTooLong: (max: number) => string;
    /** "1,500" in a currency of three decimals: 1.5 or 1,500. */
    amountAmbiguous: (currency: string) => string;
    minutes: string;
    /** A tier row half filled: minutes without an amount. */
    tierAmountMissing: string;
    /** A tier row half filled: an amount without minutes. */
    tierMinutesMissing: string;
    tiers: string;
    formula: string;
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
  evidenceReplaces: string;
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
  /** The agreement forms' compensation bounds, in major units of `currency` (its `decimals`: the example's). */
  compensationMin: (currency: string, decimals: number) => string;
  compensationMax: (currency: string, decimals: number) => string;
  /** The draft's currency switched from `from` to `to`, the bounds typed in `from` left unchanged. */
  boundsCurrencyChanged: (from: string, to: string) => string;
  /** A bound that is not an amount of `currency`: at most `decimals` decimals, like `example`. */
  amountInCurrency: (currency: string, decimals: number, example: string) => string;
  /** The operator's agreement forms, saved from a state another save replaced: what the user typed is kept. */
  agreementFormKept: string;
  /**
   * The operator console's conflict answers (409 `conflict`, `agreement_changed`), one sentence per form
   * (web-kit.ts `conflictLine`): what the save met, or what replaced the state its form was opened on.
   */
  adminConflicts: {
    /** What replaced the agreement: a signed version (the latest), or its draft saved again. */
    latestVersion: (version: number) => string;
    draftSavedAgain: string;
    /** The draft's terms form, opened on a draft another save replaced. */
    draftReplaced: (replaced: string) => string;
    /** The amendment form, opened on a version another amendment (or signature) replaced. */
    amendReplaced: (replaced: string) => string;
    /** The sign button, on a page that showed a draft another save replaced. */
    signReplaced: (replaced: string) => string;
    /** The amendment form, on an agreement not signed (nothing to amend). */
    notSigned: string;
    /** The documents form, on a partner without an agreement yet (the documents belong to its terms). */
    documentsNoAgreement: string;
    /** A new partner, with an identifier (slug) another partner has. */
    slugTaken: (slug: string) => string;
    /** A new portal user, with an address that has an account already. */
    emailTaken: (email: string) => string;
  };
  /** The terms of an agreement in one line (the operator's partner page). */
  agreementSummary: (a: {
    formulas: string;
    currency: string;
    tax: string;
    commission: string;
    compensation: string;
  }) => string;
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
  /** The same, on a rotate form's second answer (the secret shown again, not only once). */
  secretShownAgain: string;
  deliveries: string;
  attempts: string;
  noEndpoints: string;
  noDeliveries: string;
  testSent: string;
  redeliver: string;
  redelivered: string;
  /** A webhooks page's one-time form sent again (the partner console's and the operator's page). */
  formReplayed: string;
  /** The rotate form sent twice: rotated once, the secret in force shown again. */
  rotateReplayed: string;
  /** The rotate form sent twice, a later rotation since: no secret shown. */
  rotateSuperseded: string;
  failing: string;
  failingHint: string;
  /** An endpoint's pause, by its reason (the API's pausedReason), and since when. */
  pausedBecause: Record<'manual' | 'gone' | 'failing', string>;
  pausedSince: string;
  /** At the top of the webhooks page when the platform paused an endpoint (410 Gone, failing for days). */
  pausedByPlatform: string;
  pause: string;
  resume: string;
  noneTicked: string;
  dashboardTitle: string;
  quotesCounted: string;
  quotesSeries: string;
  conversionRate: string;
  last30: string;
  periodRefused: string;
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
  /** A contract's page with no claim (noClaims speaks of a period). */
  noContractClaims: string;
  claimStatus: {
    opened: string;
    awaiting_bank_details: string;
    payment_pending: string;
    paid: string;
    expired: string;
    failed: string;
    voided: string;
  };
  /** The partner console's brand name: the name customers read in their SMS, emails and pages. */
  brandName: {
    title: string;
    intro: string;
    label: string;
    hint: (min: number, max: number) => string;
    save: string;
    saved: string;
    errors: { too_short: string; too_long: string; invalid_format: string };
  };
  /** The operator's claim desk (web/admin-claim-view.ts): the claim, its messages, payouts, audit trail and actions. */
  claimDesk: {
    claimTitle: string;
    partner: string;
    event: string;
    compensation: string;
    customerLanguage: string;
    phone: string;
    account: string;
    bankDetailsDue: string;
    failureReason: string;
    review: string;
    underReview: (by: string, at: string, reason: string) => string;
    notUnderReview: string;
    messagesTitle: string;
    kind: string;
    channel: string;
    providerId: string;
    attempts: string;
    sentAt: string;
    to: string;
    noMessages: string;
    payoutsTitle: string;
    attempt: string;
    endToEndId: string;
    rail: string;
    outcome: string;
    providerReference: string;
    settledAt: string;
    noPayouts: string;
    auditTitle: string;
    actor: string;
    action: string;
    details: string;
    actionsTitle: string;
    reasonLabel: string;
    reasonHint: string;
    resendLink: string;
    resendHint: string;
    correctPhone: string;
    newPhone: string;
    correctPhoneHint: string;
    markReview: string;
    markReviewHint: string;
    approve: string;
    approveHint: string;
    correctAmount: string;
    newAmount: (currency: string) => string;
    correctAmountHint: (max: string) => string;
    voidClaim: string;
    voidHint: string;
    /** Give a pending payout the creditor's BIC (payouts' setPayoutBic). */
    setBic: string;
    setBicHint: string;
    newBic: string;
    /** A pending payout a batch left out of its file: for want of a BIC, or another reason; since when. */
    leftOut: (noBic: boolean, since: string) => string;
    /** A pending payout left out because the insurer's postal address is not configured (a bank outside the EEA); since when. */
    leftOutNoAddress: (since: string) => string;
    /** The payouts page's left-out filter (web/admin-watch-routes.ts): its stat card per currency, title, hint, columns. */
    leftOutCount: (currency: string) => string;
    leftOutTitle: string;
    leftOutHint: string;
    leftOutSince: string;
    leftOutWhy: string;
    /** A left-out payout whose fault is not (only) its BIC: the claim page is where to look. */
    leftOutNotBic: string;
    /** A left-out payout waiting for the insurer's address: what the operator does (no form, a setting). */
    leftOutSetAddress: string;
    voidCause: string;
    voidCauseFlightData: string;
    voidCauseOther: string;
    /** A voided claim: why it was voided (the leg's cause), or the claim that replaced it. */
    voided: string;
    voidedFor: (flightData: boolean) => string;
    replacedBy: (claimNumber: string) => string;
    /** Correct a voided claim's cause (claims' correctVoidCause). */
    correctVoidCause: string;
    correctVoidCauseHint: string;
    done: string;
    replayed: string;
  };
  /** The operator console's page of one partner's webhooks (admin-webhook-routes.ts). */
  adminWebhooks: {
    title: (partner: string) => string;
    /** On the partner's page: the section's heading, and what the link opens. */
    section: string;
    link: string;
    intro: string;
    /** Paused by hand, as an operator reads it (the platform's pauses: the top-level pausedBecause). */
    pausedManually: string;
    failingSince: string;
    /** Failing already before failingSince's look-back began. */
    failingLonger: (days: number) => string;
    lastDay: (failed: number, succeeded: number) => string;
    state: string;
    endpoint: string;
    created: string;
    event: string;
    nextRetry: string;
    noRetry: string;
    attemptLog: string;
    /** One attempt: its number, when, and what came back (an HTTP code or the error). */
    attempt: (n: number, at: string, answer: string) => string;
    noAnswer: string;
    statuses: Record<'pending' | 'succeeded' | 'failed', string>;
    status: string;
    environment: string;
    filter: string;
    /** What was done (a form sent twice: the top-level formReplayed, the partner console's words too). */
    done: Record<'resumed' | 'paused' | 'test' | 'redelivered', string>;
    pauseConfirm: string;
    noSecrets: string;
    /** In place of "send again": the delivery's endpoint was removed, or is paused. */
    endpointRemoved: string;
    resumeFirst: string;
  };
  /** The operator console's limits page (web/admin-limits-view.ts). */
  limitsPage: {
    saved: string;
    alreadySuspended: string;
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
    departingFrom: string;
    departingUntil: string;
    perCurrency: string;
    untilResumed: string;
    /** The suspend form's checkbox: no end, in force until sales are resumed. */
    untilResumedChoice: string;
    showStopSales: string;
    stopSaleStates: { current: string; future: string; past: string; inForce: string; all: string };
    state: string;
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
    /**
     * The activation is saved; this server's reload failed (another environment's version). `why` is the
     * error's English message (logged too): a language other than English need not show it.
     */
    refreshFailed: (why: string) => string;
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
    /** The exports' introduction, naming their longest range (`MAX_EXPORT_DAYS`, both ends included). */
    exportsIntro: (days: number) => string;
    from: string;
    to: string;
    contractsCsv: string;
    claimsCsv: string;
    currency: string;
    collected: string;
    commission: string;
    refunds: string;
    due: string;
    taxNetOfRefunds: string;
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
  /** Partner users (issue 14 §2): roles, the console's Users page, invitations, password reset, the email outbox. */
  /**
   * The email to a partner's users holding the webhooks permission when Parasol pauses one of its
   * endpoints (webhooks/pause-notice.ts): `reason` the API's pausedReason (gone or failing).
   */
  webhookPausedMail: {
    subject: (p: { partner: string; environment: string }) => string;
    text: (p: {
      partner: string;
      environment: string;
      url: string;
      endpointId: string;
      reason: 'gone' | 'failing';
      days: number;
      pendingEnded: number;
      link: string | null;
    }) => string;
  };
  partnerUsers: {
    nav: string;
    title: string;
    intro: string;
    roles: { admin: string; developer: string; viewer: string };
    roleHelp: { admin: string; developer: string; viewer: string };
    invitedStatus: string;
    activeStatus: string;
    role: string;
    status: string;
    lastSignIn: string;
    never: string;
    actions: string;
    inviteTitle: string;
    invite: string;
    invited: (email: string) => string;
    /** Each form's 409 `conflict`, in the page's words (the code alone says only "conflict"). */
    conflicts: {
      /** The address is a user of the partner already (an invitation). */
      taken: (email: string) => string;
      /** The user signed in already: no invitation to send again. */
      accepted: string;
      /** The partner's last active admin may be neither demoted nor removed. */
      lastAdmin: string;
    };
    changeRole: string;
    roleChanged: string;
    remove: string;
    removed: string;
    you: string;
    forbidden: string;
    forgotLink: string;
    forgotTitle: string;
    forgotIntro: string;
    sendLink: string;
    forgotSent: string;
    forgotLimited: string;
    setPasswordTitle: { invitation: string; password_reset: string };
    setPasswordIntro: (email: string) => string;
    newPassword: string;
    confirmPassword: string;
    passwordRule: string;
    passwordsDiffer: string;
    passwordTooShort: string;
    passwordTooLong: string;
    savePassword: string;
    linkInvalid: string;
    /** An invitation's link when its address already signs in, at another partner. */
    addressTaken: string;
    resend: string;
    resent: (email: string) => string;
    /** The status of an invited user whose link has expired. */
    invitationExpired: string;
    inviteLimited: (minutes: number) => string;
    passwordSet: string;
    emailsNav: string;
    emailsTitle: string;
    emailsIntro: string;
    kind: string;
    to: string;
    subject: string;
    body: string;
    mail: {
      invitationSubject: (partner: string) => string;
      invitationText: (p: { partner: string; role: string; link: string; hours: number }) => string;
      resetSubject: string;
      resetText: (p: { link: string; minutes: number }) => string;
    };
  };
  /** A field error of a domain rule, by its code (platform/errors.ts), for pages in this language. */
  fieldErrors: Record<FieldErrorCode, string>;
  /** An `out_of_range` amount whose rule names its ceiling (`atMostIn`, web-kit.ts): the ceiling, its currency. */
  fieldErrorAtMost: (amount: string, currency: string) => string;
  /** A range longer than its maximum (the ledger's `dayRange` messages only: an export's, the dashboard's; `fieldErrorText`): N. */
  fieldErrorAtMostDays: (days: number) => string;
  /** A `too_long` text whose message names its bound ("at most N characters", `fieldErrorText`): N. */
  fieldErrorAtMostCharacters: (max: number) => string;
  /**
   * English pages show the domain's own detail; other languages show these, by error code, and give
   * every code (`satisfies Record<ErrorCode, string>` in their file).
   */
  problems: Partial<Record<ErrorCode, string>>;
}
