import { toDecimalString } from '../platform/money.ts';
import { Decimal } from 'decimal.js';
import { explanationTextOf, type ClaimView, type Simulation } from '../flight/index.ts';
import {
  BRAND_NAME,
  ENVIRONMENTS,
  TIER_LIMITS,
  checkTerms,
  futureViolations,
  type Agreement,
  type Configuration,
  type Environment,
} from '../partners/index.ts';
import { agreementHistory, violationList } from './agreement-history-view.ts';
import { evidenceList } from './claim-evidence.ts';
import type { ContractDetail } from './contract-detail.ts';
import type { Dashboard } from './dashboard.ts';
import type { FormErrors, FormValues } from './configuration-form.ts';
import { html, SafeHtml } from '../platform/html.ts';
import { label, t, type Lang } from '../i18n/index.ts';
import {
  csrfField,
  decimalIn,
  errorSummary,
  fieldError,
  formatDate,
  formatDay,
  formatMoney,
  instantTime,
  dayTime,
  localDateTime,
  mayChange,
  page,
  percentIn,
  rateIn,
  tableRegion,
  type PageContext,
} from './layout.ts';

/** The partner console's pages: configuration with the live preview, contract, claims, dashboard. */

/** The preview's simulation and the environment whose risk model priced it, or the fields that stop it. */
export type Preview =
  | { simulation: Simulation; environment: Environment; errors?: undefined }
  | { simulation?: undefined; errors: FormErrors };

export function previewFragment(lang: Lang, preview: Preview | undefined): SafeHtml {
  const w = t(lang);
  if (!preview) return html`<p class="muted">${w.previewInvalid}</p>`;
  if (!preview.simulation) {
    return html`<p class="alert">${w.previewInvalid}</p><ul class="error">${Object.values(preview.errors).map((m) => html`<li>${m}</li>`)}</ul>`;
  }
  const p = preview.simulation.premium;
  const money = (m: { amount: number; currency: string }) => formatMoney(m.amount, m.currency, lang);
  return html`<p>${w.premiumTotal}</p>
<p class="total" id="preview-total" data-amount="${p.total.amount}">${money(p.total)}</p>
<dl class="premium"><dt>${w.net}</dt><dd>${money(p.net)}</dd><dt>${w.tax}</dt><dd>${money(p.tax)}</dd><dt>${w.commissionAmount}</dt><dd id="preview-commission">${money(p.commission)}</dd></dl>
${breakdownFragment(lang, preview.simulation, preview.environment)}`;
}

type SimulationEvent = Simulation['breakdown'][number]['events'][number];

/** A probability as the preview shows it: a percentage with 2 decimals. */
const percentOf = (p: number) => new Decimal(p).times(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
const percent = (p: number, lang: Lang = 'en') => percentIn(lang, p);

/**
 * How the model built a probability, in the page's language: English, the API's own `text`; French, the
 * same formatter (`explanationText`) with its numbers written the French way and each factor named in
 * French (`riskFactor`: "long-courrier", "hiver", "mi-journée (heure 10)") — the same figures, rounded once.
 */
export function explanationIn(lang: Lang, x: SimulationEvent['explanation']): string {
  if (lang === 'en') return x.text;
  return explanationTextOf(x, {
    decimal: (value, digits) => decimalIn(lang, value, digits),
    percent: (fraction) => percentIn(lang, fraction),
    name: t(lang).riskFactor,
  });
}

export interface DelayBandTerms {
  from: number;
  to: number;
  /** P(≥ from), P(≥ to) and the band's probability, each as shown (2 decimals). */
  pFrom: string;
  pTo: string;
  p: string;
  /** Whether the shown terms' difference is the shown band probability; else they differ by rounding (≈). */
  exact: boolean;
}

/**
 * A delay band's explanation is the model's for reaching its tier, P(≥ from): the band's probability
 * shown beside it is P(≥ from) − P(≥ to), the next tier's explanation — said under it, else the two
 * disagree. Each term is rounded on its own, so their difference can be 0.01 off the band's rounded
 * probability (2.18 − 1.25 vs 0.94): the line then says "≈", never a false "=". Undefined outside a band.
 */
export function delayBandTerms(
  e: SimulationEvent,
  events: readonly SimulationEvent[],
  lang: Lang = 'en',
): DelayBandTerms | undefined {
  if (e.event !== 'delay' || e.minDelayMinutes === null || e.maxDelayMinutes === null) return undefined;
  const next = events.find((x) => x.event === 'delay' && x.minDelayMinutes === e.maxDelayMinutes);
  if (!next) return undefined;
  const [from, to, band] = [e.explanation.probability, next.explanation.probability, e.probability].map(percentOf);
  return {
    from: e.minDelayMinutes,
    to: e.maxDelayMinutes,
    pFrom: percent(e.explanation.probability, lang),
    pTo: percent(next.explanation.probability, lang),
    p: percent(e.probability, lang),
    exact: from!.minus(to!).equals(band!),
  };
}

/** The per-leg breakdown of /getPrice: each payout event with its probability and the model's explanation. */
function breakdownFragment(lang: Lang, simulation: Simulation, environment: Environment): SafeHtml {
  const w = t(lang);
  const money = (m: { amount: number; currency: string }) => formatMoney(m.amount, m.currency, lang);
  const eventLabel = (e: SimulationEvent) =>
    e.event === 'cancellation'
      ? w.eventCancellation
      : e.event === 'diversion'
        ? w.eventDiversion
        : w.eventDelay(e.minDelayMinutes ?? 0, e.maxDelayMinutes);
  const bandLine = (e: SimulationEvent, events: SimulationEvent[]) => {
    const band = delayBandTerms(e, events, lang);
    return band ? html`<br><span class="band">${w.delayBand(band)}</span>` : '';
  };
  return html`<div class="breakdown" id="preview-breakdown"><p>${w.breakdownTitle(simulation.modelVersion, environment)}</p>
${simulation.breakdown.map(
  (leg) => html`<h4>${leg.departureAirport} → ${leg.arrivalAirport}</h4>
<dl class="premium"><dt>${w.credibility}</dt><dd>${decimalIn(lang, leg.credibility, 2)}</dd><dt>${w.expectedLoss}</dt><dd>${money(leg.expectedLoss)}</dd><dt>${w.premiumShare}</dt><dd>${money(leg.premium)}</dd></dl>
${tableRegion(
  `${leg.departureAirport} → ${leg.arrivalAirport}`,
  html`<table><thead><tr><th scope="col">${w.payoutEvent}</th><th scope="col">${w.probability}</th><th scope="col">${w.payout}</th><th scope="col">${w.explanation}</th></tr></thead>
<tbody>${leg.events.map((e) => html`<tr><td>${eventLabel(e)}</td><td>${percent(e.probability, lang)}</td><td>${money(e.payout)}</td><td class="explanation">${explanationIn(lang, e.explanation)}${bandLine(e, leg.events)}</td></tr>`)}</tbody></table>`,
)}`,
)}</div>`;
}

export interface ConfigurationView {
  agreement: Agreement | undefined;
  history: Configuration[];
  values: FormValues | undefined;
  /** The configuration version the form was opened from (its hidden field; 0: none), sent back with a save. */
  formVersion: number;
  /**
   * A save refused because another one replaced the form's version meanwhile (that version is `history[0]`,
   * and the form now carries it): who saved it, as the partner's users know them (an email; the actor
   * otherwise), and the version the refused form was opened from.
   */
  conflict?: { savedBy: string; opened: number } | undefined;
  errors: FormErrors;
  saved?: number | undefined;
  preview: Preview | undefined;
  /** Every version of the agreement (its history, and the amendments not yet effective). */
  versions: Agreement[];
  now: Date;
  /** The brand name form: the value shown, its error, whether it was just saved. */
  brand: BrandView;
}

export interface BrandView {
  value: string;
  error?: 'too_short' | 'too_long' | 'invalid_format' | undefined;
  saved?: boolean | undefined;
}

/** The brand name customers read (SMS, emails, bank-details page): its own small form, saved apart from the terms. */
function brandSection(ctx: PageContext, brand: BrandView): SafeHtml {
  const w = t(ctx.lang).brandName;
  return html`<section class="card" id="brand" aria-labelledby="brand-title"><h2 id="brand-title">${w.title}</h2>
${brand.saved ? html`<p class="notice" role="status">${w.saved}</p>` : ''}
<p class="muted">${w.intro}</p>
<form method="post" action="/console/brand" novalidate>
${csrfField(ctx.session!.csrfToken)}
<div><label for="f-brandName">${w.label}</label>
<input id="f-brandName" name="brandName" value="${brand.value}" size="30" aria-describedby="f-brandName-hint${brand.error === undefined ? '' : ' f-brandName-error'}"${brand.error === undefined ? '' : html` aria-invalid="true" autofocus`}>
<p class="muted" id="f-brandName-hint">${w.hint(BRAND_NAME.min, BRAND_NAME.max)}</p>
${brand.error === undefined ? '' : html`<p class="error" id="f-brandName-error">${w.errors[brand.error]}</p>`}</div>
<p><button type="submit">${w.save}</button></p>
</form></section>`;
}

export function configurationPage(ctx: PageContext, view: ConfigurationView): string {
  const w = t(ctx.lang);
  const { agreement, values, errors } = view;
  if (!agreement || !values)
    return page(
      ctx,
      w.configTitle,
      html`<h1>${w.configTitle}</h1><p class="alert">${w.noAgreement}</p>${brandSection(ctx, view.brand)}`,
    );
  const money = (minor: number) => formatMoney(minor, agreement.currency, ctx.lang);
  const pct = (rate: string) => rateIn(ctx.lang, rate);
  // the phone's keyboard: digits only for minutes, digits and a separator for amounts and the rate
  const input = (name: string, label: string, value: string, inputmode: 'numeric' | 'decimal' = 'decimal') => {
    const error = fieldError(`f-${name}`, errors[name]);
    return html`<div><label for="f-${name}">${label}</label>
<input id="f-${name}" name="${name}" value="${value}" inputmode="${inputmode}" size="10"${error.attributes}>
${error.message}</div>`;
  };
  const tiers = values.tiers.map(
    (tier, i) => html`<fieldset><legend>${w.tier(i + 1)}</legend>
${input(`tier_minutes_${i}`, w.minDelay, tier.minutes, 'numeric')}
${input(`tier_amount_${i}`, `${w.amount} (${agreement.currency})`, tier.amount, 'decimal')}</fieldset>`,
  );
  const formulaError = fieldError('f-formula', errors.formula);
  const form = html`<form method="post" action="/console" id="config-form" novalidate>
${csrfField(ctx.session!.csrfToken)}
<input type="hidden" name="version" value="${view.formVersion}">
<div><label for="f-formula">${w.formula}</label>
<select id="f-formula" name="formula"${formulaError.attributes}>${agreement.allowedFormulas.map(
    (f) => html`<option value="${f}"${values.formula === f ? html` selected` : ''}>${w.formulas[f]}</option>`,
  )}</select>
${formulaError.message}</div>
<h2>${w.delayTiers}</h2>
<div class="tiers">${tiers}</div>
<h2>${w.cancellationAmount}</h2>
${input('cancellation', `${w.cancellationAmount} (${agreement.currency})`, values.cancellation, 'decimal')}
<h2>${w.commission}</h2>
${input('commission', w.commission, values.commission)}
${mayChange(ctx, 'configuration') ? html`<p><button type="submit">${w.save}</button></p>` : html`<p class="muted">${w.partnerUsers.forbidden}</p>`}
</form>`;
  const history = view.history.length
    ? tableRegion(
        w.history,
        html`<table><caption class="visually-hidden">${w.history}</caption><thead><tr><th scope="col">${w.version}</th><th scope="col">${w.formula}</th><th scope="col">${w.delayTiers}</th><th scope="col">${w.cancellationAmount}</th><th scope="col">${w.commission}</th><th scope="col">${w.by}</th><th scope="col">${w.at}</th></tr></thead><tbody>${view.history.map(
          (c) =>
            html`<tr><td>${c.version}</td><td>${w.formulas[c.formula]}</td><td>${c.delayTiers.map((d) => `${d.minDelayMinutes} min → ${money(d.amount)}`).join(' · ')}</td><td>${c.cancellationAmount ? money(c.cancellationAmount) : '—'}</td><td>${pct(c.commissionRate)}</td><td>${c.createdBy}</td><td>${formatDate(c.createdAt, ctx.lang, '')}</td></tr>`,
        )}</tbody></table>`,
      )
    : html`<p>${w.noConfig}</p>`;
  return page(
    ctx,
    w.configTitle,
    html`<h1>${w.configTitle}</h1>
${view.saved ? html`<p class="notice" role="status">${w.saved(view.saved)}</p>` : ''}
${view.conflict ? configurationConflict(ctx, view, money, pct) : ''}
${configurationErrorSummary(ctx, agreement, values, errors)}
${agreement.status !== 'signed' ? html`<p class="alert">${w.unsignedAgreement}</p>` : ''}
${configurationWarnings(ctx, view)}
<p>${w.configIntro}</p>
<p class="muted">${label(ctx.lang, w.bounds)} ${w.boundsText({ commission: `${pct(agreement.commissionMin)} – ${pct(agreement.commissionMax)}`, compensation: `${money(agreement.compensationMin)} – ${money(agreement.compensationMax)}`, formulas: agreement.allowedFormulas.map((f) => w.formulas[f]).join(', ') })} (${TIER_LIMITS.maxTiers} ${w.delayTiers.toLowerCase()} max.)</p>
<div class="split">
<section class="card" aria-label="${w.configTitle}">${form}</section>
<section class="card" aria-labelledby="preview-title"><h2 id="preview-title">${w.preview}</h2><p class="muted">${w.sampleFlight}</p>
<div id="preview" aria-live="polite" hx-post="/console/preview" hx-trigger="input from:#config-form delay:300ms, change from:#config-form" hx-include="#config-form" hx-swap="innerHTML">${previewFragment(ctx.lang, view.preview)}</div></section>
</div>
${brandSection(ctx, view.brand)}
<h2>${w.history}</h2>
${history}
<h2>${w.agreementVersions.historyTitle}</h2>
<p class="muted">${w.agreementVersions.historyIntro}</p>
${agreementHistory(ctx, view.versions, view.now)}`,
    { scripts: ['htmx.min.js'] },
  );
}

/**
 * The refused fields, said at the top in the form's order, each message a link to its field and named by
 * its label (five tiers share their messages); the focus goes there (`autofocus`, no script), as on the
 * claim page: a keyboard or screen reader user lands on what to fix rather than at the top of the page.
 */
export function configurationErrorSummary(
  ctx: PageContext,
  agreement: Agreement,
  values: FormValues,
  errors: FormErrors,
): SafeHtml | string {
  const w = t(ctx.lang);
  const labels: [string, string][] = [
    ['formula', w.formula],
    ...values.tiers.flatMap((_, i): [string, string][] => [
      [`tier_minutes_${i}`, `${w.tier(i + 1)} — ${w.minDelay}`],
      [`tier_amount_${i}`, `${w.tier(i + 1)} — ${w.amount} (${agreement.currency})`],
    ]),
    ['cancellation', `${w.cancellationAmount} (${agreement.currency})`],
    ['commission', w.commission],
  ];
  return errorSummary(
    w.fixErrors,
    labels
      .filter(([name]) => errors[name] !== undefined)
      .map(([name, text]) => ({ field: `f-${name}`, text: `${label(ctx.lang, text)} ${errors[name]}` })),
  );
}

/**
 * A save refused because the configuration moved on since the form was opened: who saved which version
 * when, what it changed from the version the form was opened from, and the way back to the current one.
 */
function configurationConflict(
  ctx: PageContext,
  view: ConfigurationView,
  money: (minor: number) => string,
  pct: (rate: string) => string,
): SafeHtml | string {
  const w = t(ctx.lang);
  const c = w.configurationChanged;
  const current = view.history[0];
  if (!current) return '';
  const openedVersion = view.conflict?.opened ?? view.formVersion;
  const opened = view.history.find((c) => c.version === openedVersion);
  const tiers = (c: Configuration) =>
    c.delayTiers.map((d) => `${d.minDelayMinutes} min → ${money(d.amount)}`).join(' · ') || '—';
  const cancellation = (c: Configuration) => (c.cancellationAmount ? money(c.cancellationAmount) : '—');
  const fields: [string, (c: Configuration) => string][] = [
    [w.formula, (c) => w.formulas[c.formula]],
    [w.delayTiers, tiers],
    [w.cancellationAmount, cancellation],
    [w.commission, (c) => pct(c.commissionRate)],
  ];
  const changes = fields
    .filter(([, show]) => !opened || show(opened) !== show(current))
    .map(
      ([name, show]) =>
        html`<li>${label(ctx.lang, name)} ${opened ? c.nowWas(show(current), show(opened)) : show(current)}</li>`,
    );
  return html`<div class="alert" role="alert" id="configuration-changed">
<p>${c.message({ opened: openedVersion, current: current.version, by: view.conflict?.savedBy ?? current.createdBy, at: formatDate(current.createdAt, ctx.lang, '') })}</p>
${opened && !changes.length ? html`<p>${c.sameTerms(opened.version)}</p>` : html`<p>${c.changes(opened ? opened.version : 0)}</p><ul>${changes}</ul>`}
<p>${c.kept} <a href="/console">${c.reload}</a>.</p></div>`;
}

export function contractPage(ctx: PageContext, c: ContractDetail): string {
  const w = t(ctx.lang);
  const money = (minor: number) => formatMoney(minor, c.currency, ctx.lang);
  return page(
    ctx,
    `${w.contract} ${c.contractNumber}`,
    html`<h1>${w.contract} <span id="contract-number">${c.contractNumber}</span></h1>
<div class="card"><dl class="premium">
<dt>${w.status}</dt><dd>${c.status}</dd><dt>${w.environment}</dt><dd>${c.environment}</dd>
<dt>${w.customer}</dt><dd>${c.customerName}</dd><dt>${w.booking}</dt><dd>${c.bookingReference}</dd>
<dt>${w.formula}</dt><dd>${w.formulas[c.formula as keyof typeof w.formulas] ?? c.formula}</dd><dt>${w.version}</dt><dd id="contract-version">${c.version}</dd>
<dt>${w.configurationVersion}</dt><dd id="contract-configuration-version">${c.configurationVersion}</dd>
<dt>${w.agreementVersions.soldUnder}</dt><dd id="contract-agreement-version">${c.agreementVersion ?? w.agreementVersions.unsignedDraft}</dd>
<dt>${w.premium}</dt><dd>${money(c.premium.total)}</dd><dt>${w.commissionAmount}</dt><dd>${money(c.premium.commission)}</dd>
<dt>${w.created}</dt><dd>${formatDate(c.createdAt, ctx.lang, '')}</dd>
${c.cancelledAt ? html`<dt>${w.refund}</dt><dd>${money(c.refundAmount ?? 0)} (${c.cancelReason ?? ''}, ${formatDate(c.cancelledAt, ctx.lang, '')})</dd>` : ''}
</dl></div>
<h2>${w.coverage}</h2>
<p>${c.coverage.delayTiers.map((d) => `${d.minDelayMinutes} min → ${money(d.amount)}`).join(' · ')}${c.coverage.cancellationAmount ? ` · ${label(ctx.lang, w.formulas.cancellation)} ${money(c.coverage.cancellationAmount)}` : ''} (× ${c.passengers})</p>
<h2>${w.legs}</h2>
${tableRegion(w.legs, html`<table><thead><tr><th scope="col">${w.flight}</th><th scope="col">${w.departure}</th><th scope="col">→</th></tr></thead><tbody>${c.legs.map((l) => html`<tr><td>${l.flightNumber}${l.operatingFlightNumber ? ` (${w.operatedAs} ${l.operatingFlightNumber})` : ''}</td><td>${l.departureAirport} ${localDateTime(l.departureLocal, ctx.lang)}</td><td>${l.arrivalAirport}</td></tr>`)}</tbody></table>`)}
${
  c.versions.length
    ? html`<h2>${w.contractVersions}</h2>
${tableRegion(w.contractVersions, html`<table id="contract-versions"><thead><tr><th scope="col">#</th><th scope="col">${w.created} (UTC)</th><th scope="col">${w.reason}</th><th scope="col">${w.legs}</th><th scope="col">${w.premium}</th><th scope="col">${w.difference}</th></tr></thead><tbody>${c.versions.map((v) => html`<tr><td>${v.version}</td><td>${instantTime(new Date(v.at), ctx.lang)}</td><td>${w.contractChanges[v.change]}</td><td>${v.flights.map((f, i) => html`${i ? ' · ' : ''}${f.flightNumber} ${f.departureAirport} ${localDateTime(f.departureDateTime, ctx.lang)}`)}</td><td>${money(v.premium.amount)}</td><td>${v.difference.amount > 0 ? '+' : ''}${money(v.difference.amount)}</td></tr>`)}</tbody></table>`)}`
    : ''
}
<h2>${w.claimsTitle}</h2>
${claimsTable(ctx, c.environment, c.claims, w.noContractClaims)}
${c.claims.map((claim) => html`<details class="card" open><summary>${w.evidenceTitle} — ${claim.claimNumber}</summary>${evidenceList(ctx, claim.evidence, `evidence-${claim.claimNumber}`)}</details>`)}`,
  );
}

/** The claims in a table; `empty` says there are none (the listing's default speaks of a period). */
function claimsTable(ctx: PageContext, environment: Environment, claims: ClaimView[], empty?: string): SafeHtml {
  const w = t(ctx.lang);
  if (claims.length === 0) return html`<p>${empty ?? w.noClaims}</p>`;
  return tableRegion(
    w.claimsTitle,
    html`<table><caption class="visually-hidden">${w.claimsTitle}</caption><thead><tr><th scope="col">#</th><th scope="col">${w.contract}</th><th scope="col">${w.status}</th><th scope="col">${w.reason}</th><th scope="col">${w.flight}</th><th scope="col">${w.delay}</th><th scope="col">${w.amount}</th><th scope="col">${w.opened} (UTC)</th><th scope="col">${w.paid} (UTC)</th></tr></thead><tbody>${claims.map(
      (c) =>
        html`<tr><td>${c.claimNumber}</td><td><a href="/console/contracts/${c.contractNumber}?env=${environment}">${c.contractNumber}</a></td><td>${w.claimStatus[c.status]}</td><td>${c.reason}</td><td>${c.flightNumber} ${dayTime(c.departureDate, ctx.lang)}</td><td>${c.delayMinutes ?? ''}</td><td>${formatMoney(c.compensation.amount, c.compensation.currency, ctx.lang)}</td><td>${dayTime(c.openedAt, ctx.lang)}</td><td>${dayTime(c.paidAt, ctx.lang)}</td></tr>`,
    )}</tbody></table>`,
  );
}

/** The claims filters at fault, each message shown next to its field. */
export type ClaimsFilterErrors = { from?: string; to?: string; contract?: string };

export function claimsPage(
  ctx: PageContext,
  f: { environment: Environment; fromDate: string; toDate: string; contractNumber: string; cursor: string },
  result: { claims: ClaimView[]; nextCursor: string | null },
  problem: string | undefined,
  errors: ClaimsFilterErrors = {},
): string {
  const w = t(ctx.lang);
  const first = (['from', 'to', 'contract'] as const).find((name) => errors[name] !== undefined);
  const filter = (name: keyof ClaimsFilterErrors, text: string, input: (invalid: SafeHtml | '') => SafeHtml) => {
    const error = fieldError(`c-${name}`, errors[name], first === name);
    return html`<div><label for="c-${name}">${text}</label>${input(error.attributes)}${error.message}</div>`;
  };
  const query = (cursor?: string) =>
    `?${new URLSearchParams({ env: f.environment, from: f.fromDate, to: f.toDate, contract: f.contractNumber, ...(cursor ? { cursor } : {}) }).toString()}`;
  return page(
    ctx,
    w.claimsTitle,
    html`<h1>${w.claimsTitle}</h1><p>${w.claimsIntro}</p>
<form method="get" action="/console/claims" class="row card">
<div><label for="c-env">${w.environment}</label><select id="c-env" name="env">${ENVIRONMENTS.map((e) => html`<option${e === f.environment ? html` selected` : ''}>${e}</option>`)}</select></div>
${filter('from', w.fromDate, (invalid) => html`<input id="c-from" name="from" type="date" value="${f.fromDate}"${invalid}>`)}
${filter('to', w.toDate, (invalid) => html`<input id="c-to" name="to" type="date" value="${f.toDate}"${invalid}>`)}
${filter('contract', w.contractNumber, (invalid) => html`<input id="c-contract" name="contract" value="${f.contractNumber}" size="14"${invalid}>`)}
<div><button type="submit">${w.filter}</button></div></form>
${problem ? html`<p class="alert" role="alert">${problem}</p>` : ''}
${claimsTable(ctx, f.environment, result.claims)}
<p class="pager">${f.cursor ? html`<a href="/console/claims${query()}">${w.firstPage}</a>` : ''}${result.nextCursor ? html`<a href="/console/claims${query(result.nextCursor)}">${w.nextPage}</a>` : ''}</p>`,
  );
}

/** JSON for a chart, safe inside a <script type="application/json"> element. */
const chartData = (id: string, spec: unknown) =>
  html`<script type="application/json" id="${id}">${new SafeHtml(JSON.stringify(spec).replace(/</g, '\\u003c'))}</script>`;

/** A refused dashboard period: the message of each date at fault, in the page's language. */
export type PeriodErrors = { from?: string; to?: string };

/** One date of the dashboard's period, its error next to it and tied to it; the first at fault takes the focus. */
function periodInput(name: 'from' | 'to', text: string, value: string, error: string | undefined, focus: boolean) {
  const id = `d-${name}`;
  const invalid = fieldError(id, error, focus);
  return html`<div><label for="${id}">${text}</label><input id="${id}" type="date" name="${name}" value="${value}"${invalid.attributes}>${invalid.message}</div>`;
}

/**
 * The dashboard; `refused` is a refused period (one day only, reversed, too long): its dates as typed, each
 * error next to its field, over the last 30 days the figures show.
 */
export function dashboardPage(
  ctx: PageContext,
  environment: Environment,
  d: Dashboard,
  refused?: { from: string; to: string; errors: PeriodErrors },
): string {
  const w = t(ctx.lang);
  const errors = refused?.errors ?? {};
  const period = d.chosen ? `${formatDay(d.days[0], ctx.lang)} – ${formatDay(d.days.at(-1), ctx.lang)}` : w.last30;
  const lineSpec = {
    type: 'line',
    data: {
      // the category axis shows the labels as they are: the days as the page's language writes them
      labels: d.days.map((day) => formatDay(day, ctx.lang)),
      datasets: [
        { label: w.quotesSeries, data: d.series.quotes, borderColor: '#6b7280', backgroundColor: '#6b7280' },
        {
          label: w.subscriptionsSeries,
          data: d.series.subscriptions,
          borderColor: '#1d4ed8',
          backgroundColor: '#1d4ed8',
        },
        {
          label: w.cancellationsSeries,
          data: d.series.cancellations,
          borderColor: '#b45309',
          backgroundColor: '#b45309',
        },
        { label: w.claimsSeries, data: d.series.claims, borderColor: '#b42318', backgroundColor: '#b42318' },
      ],
    },
    options: {
      maintainAspectRatio: false,
      animation: false,
      scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
    },
  };
  const statusSpec = {
    type: 'bar',
    data: {
      labels: d.claimsByStatus.map((s) => w.claimStatus[s.status as keyof typeof w.claimStatus] ?? s.status),
      datasets: [{ label: w.claimsByStatus, data: d.claimsByStatus.map((s) => s.count), backgroundColor: '#1d4ed8' }],
    },
    options: {
      maintainAspectRatio: false,
      animation: false,
      plugins: { legend: { display: false } },
      scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
    },
  };
  const moneySpec = {
    type: 'bar',
    data: {
      labels: d.money.map((m) => m.currency),
      datasets: [
        {
          label: w.premiumWritten,
          data: d.money.map((m) => Number(toDecimalString(m.premium, m.currency))),
          backgroundColor: '#067647',
        },
        {
          label: w.compensationPaid,
          data: d.money.map((m) => Number(toDecimalString(m.paid, m.currency))),
          backgroundColor: '#b42318',
        },
      ],
    },
    options: { maintainAspectRatio: false, animation: false, scales: { y: { beginAtZero: true } } },
  };
  const fmt = (minor: number, currency: string) => formatMoney(minor, currency, ctx.lang);
  return page(
    ctx,
    w.dashboardTitle,
    html`<h1>${w.dashboardTitle}</h1>
${refused ? html`<p class="alert" role="alert">${w.periodRefused}</p>` : ''}
<form method="get" action="/console/dashboard" class="row"><div><label for="d-env">${w.environment}</label><select id="d-env" name="env">${ENVIRONMENTS.map((e) => html`<option${e === environment ? html` selected` : ''}>${e}</option>`)}</select></div>${periodInput('from', w.reports.from, refused ? refused.from : d.days[0]!, errors.from, true)}${periodInput('to', w.reports.to, refused ? refused.to : d.days.at(-1)!, errors.to, errors.from === undefined)}<div><button type="submit">${w.filter}</button></div></form>
<p class="downloads"><a href="/console/reports/export?env=${environment}&from=${d.days[0]}&to=${d.days.at(-1)}&kind=contracts">${w.reports.contractsCsv}</a> · <a href="/console/reports/export?env=${environment}&from=${d.days[0]}&to=${d.days.at(-1)}&kind=claims">${w.reports.claimsCsv}</a></p>
<p class="notice">${w.quotesCounted}</p>
<div class="stats">
<div class="card stat"><span>${w.quotesSeries}</span><strong id="total-quotes">${d.totals.quotes}</strong><span class="muted">${period}</span></div>
<div class="card stat"><span>${w.conversionRate}</span><strong id="conversion-rate">${d.conversionRate === null ? w.notMeasurable : percentIn(ctx.lang, d.conversionRate, 1)}</strong></div>
<div class="card stat"><span>${w.subscriptionsSeries}</span><strong id="total-subscriptions">${d.totals.subscriptions}</strong><span class="muted">${period}</span></div>
<div class="card stat"><span>${w.cancellationsSeries}</span><strong>${d.totals.cancellations}</strong><span class="muted">${period}</span></div>
<div class="card stat"><span>${w.claimsSeries}</span><strong>${d.totals.claims}</strong><span class="muted">${period}</span></div>
<div class="card stat"><span>${w.cancellationRate}</span><strong>${d.cancellationRate === null ? w.notMeasurable : percentIn(ctx.lang, d.cancellationRate, 1)}</strong></div>
</div>
<section class="card"><h2>${period}</h2><div class="chart"><canvas data-chart="chart-activity" role="img" aria-label="${w.quotesSeries}, ${w.subscriptionsSeries}, ${w.cancellationsSeries}, ${w.claimsSeries}"></canvas></div>${chartData('chart-activity', lineSpec)}
<details><summary>${w.day} / ${w.count}</summary>${tableRegion(`${w.day} / ${w.count}`, html`<table><thead><tr><th scope="col">${w.day}</th><th scope="col">${w.quotesSeries}</th><th scope="col">${w.subscriptionsSeries}</th><th scope="col">${w.cancellationsSeries}</th><th scope="col">${w.claimsSeries}</th></tr></thead><tbody>${d.days.map((day, i) => html`<tr><td>${dayTime(day, ctx.lang)}</td><td>${d.series.quotes[i]}</td><td>${d.series.subscriptions[i]}</td><td>${d.series.cancellations[i]}</td><td>${d.series.claims[i]}</td></tr>`)}</tbody></table>`)}</details></section>
<div class="split">
<section class="card"><h2>${w.claimsByStatus}</h2><div class="chart"><canvas data-chart="chart-status" role="img" aria-label="${w.claimsByStatus}"></canvas></div>${chartData('chart-status', statusSpec)}
${tableRegion(w.claimsByStatus, html`<table id="claims-by-status"><thead><tr><th scope="col">${w.status}</th><th scope="col">${w.count}</th><th scope="col">${w.amount}</th></tr></thead><tbody>${d.claimsByStatus.map((s) => html`<tr><td>${w.claimStatus[s.status as keyof typeof w.claimStatus] ?? s.status}</td><td>${s.count}</td><td>${s.amounts.map((a, i) => html`${i ? html`<br>` : ''}${fmt(a.amount, a.currency)}`)}</td></tr>`)}</tbody></table>`)}</section>
<section class="card"><h2>${w.premiumVsPaid}</h2><div class="chart"><canvas data-chart="chart-money" role="img" aria-label="${w.premiumVsPaid}"></canvas></div>${chartData('chart-money', moneySpec)}
${tableRegion(w.premiumVsPaid, html`<table><thead><tr><th scope="col">${w.currency}</th><th scope="col">${w.premiumWritten}</th><th scope="col">${w.commissionAmount}</th><th scope="col">${w.refunds}</th><th scope="col">${w.compensationPaid}</th></tr></thead><tbody>${d.money.map((m) => html`<tr><td>${m.currency}</td><td>${fmt(m.premium, m.currency)}</td><td>${fmt(m.commission, m.currency)}</td><td>${fmt(m.refunded, m.currency)}</td><td>${fmt(m.paid, m.currency)}</td></tr>`)}</tbody></table>`)}</section>
</div>
<p><a href="/console/claims?env=${environment}">${w.claimsTitle}</a></p>`,
    { scripts: ['chart.umd.min.js'] },
  );
}

/**
 * What the agreement rejects of the current configuration: now (the version in force: quotes are
 * refused) and from the effective date of each signed amendment not yet effective.
 */
function configurationWarnings(ctx: PageContext, view: ConfigurationView): SafeHtml[] {
  const current = view.history[0];
  if (!current || !view.agreement) return [];
  const v = t(ctx.lang).agreementVersions;
  const now = view.agreement.status === 'signed' ? checkTerms(view.agreement, current) : [];
  return [
    ...(now.length
      ? [
          html`<div class="alert" role="alert" id="outside-agreement"><p>${v.outsideWarning(view.agreement.version)}</p>${violationList(ctx, now)}</div>`,
        ]
      : []),
    ...futureViolations(view.versions, current, view.now).map(
      (f) =>
        html`<div class="alert" role="status" data-warning-version="${f.version}"><p>${v.futureWarning(f.version, formatDate(f.effectiveAt, ctx.lang, ''))}</p>${violationList(ctx, f.errors)}</div>`,
    ),
  ];
}
