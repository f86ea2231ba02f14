import {
  agreementRevision,
  APIS,
  ENVIRONMENTS,
  FORMULAS,
  futureViolations,
  USER_ROLES,
  type Agreement,
  type Configuration,
  type ApiKeyInfo,
  type ApiName,
  type DocumentSet,
  type Insurer,
  type Partner,
  type UserRole,
} from '../partners/index.ts';
import { html, type SafeHtml } from '../platform/html.ts';
import { currencyExponent, isIsoCurrency } from '../platform/money.ts';
import { label, t } from '../i18n/index.ts';
import { agreementFormValues, type AgreementFormState, type AgreementFormValues } from './agreement-form.ts';
import { agreementHistory, violationList } from './agreement-history-view.ts';
import { CATALOG } from './catalog.ts';
import {
  csrfField,
  errorSummary,
  fieldError,
  formatDate,
  formatMoney,
  page,
  problemList,
  rateIn,
  tableRegion,
  type PageContext,
} from './layout.ts';

/** The operator console's partner pages (admin-routes.ts): the list, and one partner with its agreement, documents, keys and users. */

export function partnersPage(ctx: PageContext, partners: Partner[], problems?: string[]): string {
  const w = t(ctx.lang);
  return page(
    ctx,
    w.partnersTitle,
    html`<h1>${w.partnersTitle}</h1>
${problemList(problems)}
${tableRegion(
  w.partnersTitle,
  html`<table><caption class="visually-hidden">${w.partnersTitle}</caption><thead><tr><th scope="col">${w.slug}</th><th scope="col">${w.name}</th><th scope="col">${w.created}</th></tr></thead>
<tbody>${partners.map((p) => html`<tr><td><a href="/admin/partners/${p.slug}">${p.slug}</a></td><td>${p.name}</td><td>${formatDate(p.createdAt, ctx.lang, '')}</td></tr>`)}</tbody></table>`,
)}
<section class="card"><h2>${w.createPartner}</h2>
<form method="post" action="/admin/partners" class="row">${csrfField(ctx.session!.csrfToken)}
<div><label for="p-slug">${w.slug}</label><input id="p-slug" name="slug" required pattern="[a-z0-9][a-z0-9-]{1,62}"></div>
<div><label for="p-name">${w.name}</label><input id="p-name" name="name" required maxlength="200"></div>
<div><button type="submit">${w.createPartner}</button></div></form></section>`,
  );
}

/** What the partner page shows, read by the route (`loadPartnerView`). */
export interface PartnerView {
  partner: Partner;
  agreement: Agreement | undefined;
  subscriptions: readonly ApiName[];
  keys: ApiKeyInfo[];
  users: { email: string; role: UserRole }[];
  documents: DocumentSet | undefined;
  /** The platform's insurer (PARASOL_INSURER_*): what the documents form offers before any set exists. */
  platformInsurer: Insurer;
  /** Every version of the agreement, oldest first (or the draft alone). */
  versions: Agreement[];
  configuration: Configuration | undefined;
  now: Date;
}

/** The key creation form sent back refused: what was chosen and typed, each field's error in the page's language. */
export interface KeyFormState {
  environment: string;
  label: string;
  errors: { environment?: string; label?: string };
}

/** What the partner page says of the action just made: its refusal's lines, the key created, a form sent back refused. */
export interface PartnerOutcome {
  problems?: string[];
  created?: string;
  form?: AgreementFormState;
  keyForm?: KeyFormState;
}

export function partnerPage(
  ctx: PageContext,
  {
    partner,
    agreement,
    subscriptions,
    keys,
    users,
    documents,
    versions,
    configuration,
    platformInsurer,
    now,
  }: PartnerView,
  outcome: PartnerOutcome = {},
): string {
  const w = t(ctx.lang);
  const keyForm = outcome.keyForm;
  const keyErrors = keyForm?.errors ?? {};
  // the error summary above the form takes the focus (errorSummary's autofocus): the fields do not
  const envError = fieldError('k-env', keyErrors.environment);
  const keyLabelError = fieldError('k-label', keyErrors.label);
  const pct = (rate: string) => rateIn(ctx.lang, rate);
  const csrf = csrfField(ctx.session!.csrfToken);
  const base = `/admin/partners/${partner.slug}`;
  const draft = !agreement || agreement.status === 'draft';
  const a = agreement;
  // the terms fields of the draft's form and of the amendment's (prefilled with the latest version's terms,
  // or with what the operator typed when the save was refused); the compensation bounds in major units
  const termFields = (prefix: string, f: AgreementFormValues, fixedCurrency: boolean) => {
    // the draft's currency is typed in the same form (the bounds are in whichever it says); an amendment keeps it
    // the labels name the currency the bounds shown are in (sent back: a currency switched alone is refused)
    const currency = f.boundsCurrency || f.currency || 'EUR';
    const decimals = isIsoCurrency(currency) ? currencyExponent(currency) : 2;
    return html`<input type="hidden" name="revision" value="${f.revision}"><input type="hidden" name="boundsCurrency" value="${currency}">
<fieldset><legend>${w.allowedFormulas}</legend>${FORMULAS.map(
      (formula) =>
        html`<label><input type="checkbox" name="allowedFormulas" value="${formula}"${f.allowedFormulas.includes(formula) ? html` checked` : ''}> ${w.formulas[formula]}</label>`,
    )}</fieldset>
<div class="row">
<div><label for="${prefix}-currency">${w.currency}</label><input id="${prefix}-currency" name="currency" value="${f.currency}" size="4"${fixedCurrency ? html` readonly` : ''}></div>
<div><label for="${prefix}-tax">${w.taxRate}</label><input id="${prefix}-tax" name="taxRate" value="${f.taxRate}" size="8"></div>
<div><label for="${prefix}-cmin">${w.commissionMin}</label><input id="${prefix}-cmin" name="commissionMin" value="${f.commissionMin}" size="8"></div>
<div><label for="${prefix}-cmax">${w.commissionMax}</label><input id="${prefix}-cmax" name="commissionMax" value="${f.commissionMax}" size="8"></div>
<div><label for="${prefix}-pmin">${w.compensationMin(currency, decimals)}</label><input id="${prefix}-pmin" name="compensationMin" value="${f.compensationMin}" inputmode="decimal" size="10"></div>
<div><label for="${prefix}-pmax">${w.compensationMax(currency, decimals)}</label><input id="${prefix}-pmax" name="compensationMax" value="${f.compensationMax}" inputmode="decimal" size="10"></div>
</div>`;
  };
  const typed = (kind: AgreementFormState['kind']) => (outcome.form?.kind === kind ? outcome.form.values : undefined);
  const agreementForm = html`<form method="post" action="${base}/agreement">${csrf}
${termFields('a', typed('agreement') ?? agreementFormValues(a, now), false)}<p><button type="submit">${w.setAgreement}</button></p></form>`;
  const v = w.agreementVersions;
  const latest = versions.at(-1);
  const amendValues = typed('amend') ?? agreementFormValues(latest, now);
  const amendForm =
    latest?.status === 'signed'
      ? html`<h3>${v.amendTitle}</h3><p class="muted">${v.amendIntro}</p>
<form method="post" action="${base}/amend" id="amend-form" data-confirm="${v.amendConfirm}">${csrf}
${termFields('m', amendValues, true)}
<div class="row">
<div><label for="m-effective">${v.effectiveLabel}</label><input id="m-effective" name="effectiveAt" type="date" required value="${amendValues.effectiveAt}" min="${now.toISOString().slice(0, 10)}"><p class="muted">${v.effectiveHint}</p></div>
<div><label for="m-reason">${v.reasonLabel}</label><input id="m-reason" name="reason" required size="40" value="${amendValues.reason}"></div>
</div><p><button type="submit">${v.amend}</button></p></form>`
      : '';
  const warnings = configuration ? futureViolations(versions, configuration, now) : [];
  const warningList = warnings.map(
    (f) =>
      html`<div class="alert" role="status" data-warning-version="${f.version}"><p>${v.futureWarning(f.version, formatDate(f.effectiveAt, ctx.lang, ''))}</p>${violationList(ctx, f.errors)}</div>`,
  );
  const agreementView = a
    ? html`<p>${label(ctx.lang, w.status)} <strong id="agreement-status">${a.status === 'signed' ? w.signed : w.draft}</strong>${a.signedAt ? html` — ${w.signedBy} ${a.signedBy ?? ''}, ${formatDate(a.signedAt, ctx.lang, '')}` : ''}</p>
<p id="agreement-summary">${a.status === 'signed' ? html`${w.agreementVersions.version} <span id="agreement-version">${a.version}</span> · ` : ''}${w.agreementSummary(
        {
          formulas: a.allowedFormulas.map((f) => w.formulas[f]).join(', '),
          currency: a.currency,
          tax: pct(a.taxRate),
          commission: `${pct(a.commissionMin)}–${pct(a.commissionMax)}`,
          compensation: `${formatMoney(a.compensationMin, a.currency, ctx.lang)}–${formatMoney(a.compensationMax, a.currency, ctx.lang)}`,
        },
      )}</p>`
    : html`<p id="agreement-status">${w.none}</p>`;
  const d = documents;
  // a first set starts from the platform's insurer, the one customers' messages already name
  const insurer = d?.insurer ?? platformInsurer;
  const input = (id: string, name: string, label: string, value: string | undefined, extra: SafeHtml | string = '') =>
    html`<div><label for="${id}">${label}</label><input id="${id}" name="${name}" value="${value ?? ''}"${extra}></div>`;
  const documentsSection = html`<section class="card" id="documents"><h2>${w.documentsTitle}</h2>
${
  d
    ? html`<dl class="pairs">
<dt>${w.documentsVersion}</dt><dd id="documents-version">${d.version}</dd>
<dt>${w.documentsIpid}</dt><dd><a href="${d.ipid.url}" rel="noopener">${d.ipid.version}</a> <code>${d.ipid.sha256}</code></dd>
<dt>${w.documentsTerms}</dt><dd><a href="${d.terms.url}" rel="noopener">${d.terms.version}</a> <code>${d.terms.sha256}</code></dd>
<dt>${w.insurerName}</dt><dd id="documents-insurer">${d.insurer.name} — ${d.insurer.registration}</dd>
<dt>${w.insurerAddress}</dt><dd>${d.insurer.address}</dd>
<dt>${w.insurerRegulator}</dt><dd>${d.insurer.regulator}</dd>
<dt>${w.complaintsEmail}</dt><dd>${d.insurer.complaints.email}${d.insurer.complaints.url ? html` · ${d.insurer.complaints.url}` : ''}</dd>
</dl>`
    : html`<p id="documents-version">${w.documentsNone}</p>`
}
<form method="post" action="${base}/documents">${csrf}
<fieldset><legend>${w.documentsIpid}</legend><div class="row">
${input('d-ipid-url', 'ipidUrl', w.documentsUrl, d?.ipid.url, html` type="url" required maxlength="2000"`)}
${input('d-ipid-version', 'ipidVersion', w.documentsLabel, d?.ipid.version, html` required maxlength="40"`)}
${input('d-ipid-sha', 'ipidSha256', w.documentsSha256, d?.ipid.sha256, html` required pattern="[0-9a-fA-F]{64}" size="64"`)}
</div></fieldset>
<fieldset><legend>${w.documentsTerms}</legend><div class="row">
${input('d-terms-url', 'termsUrl', w.documentsUrl, d?.terms.url, html` type="url" required maxlength="2000"`)}
${input('d-terms-version', 'termsVersion', w.documentsLabel, d?.terms.version, html` required maxlength="40"`)}
${input('d-terms-sha', 'termsSha256', w.documentsSha256, d?.terms.sha256, html` required pattern="[0-9a-fA-F]{64}" size="64"`)}
</div></fieldset>
<div class="row">
${input('d-insurer-name', 'insurerName', w.insurerName, insurer.name, html` required maxlength="200"`)}
${input('d-insurer-reg', 'insurerRegistration', w.insurerRegistration, insurer.registration, html` required maxlength="200"`)}
${input('d-insurer-address', 'insurerAddress', w.insurerAddress, insurer.address, html` required maxlength="500"`)}
${input('d-insurer-regulator', 'insurerRegulator', w.insurerRegulator, insurer.regulator, html` required maxlength="200"`)}
${input('d-complaints-email', 'complaintsEmail', w.complaintsEmail, insurer.complaints.email, html` type="email" required maxlength="254"`)}
${input('d-complaints-url', 'complaintsUrl', w.complaintsUrl, insurer.complaints.url ?? undefined, html` type="url" maxlength="2000"`)}
</div><p><button type="submit">${w.setDocuments}</button></p></form></section>`;
  return page(
    ctx,
    partner.name,
    html`<h1>${partner.name} <span class="muted">(${partner.slug})</span></h1>
${problemList(outcome.problems)}
${outcome.created ? html`<section class="card"><h2>${w.newKeyTitle}</h2><p role="alert">${w.newKeyWarning}</p><p><code class="key" id="new-key">${outcome.created}</code></p><p><button type="button" data-copy="new-key" data-copied="${w.copied}">${w.copy}</button> <span id="new-key-status" role="status"></span></p></section>` : ''}
<section class="card"><h2>${w.agreement}</h2>${agreementView}
${draft ? agreementForm : ''}
<h3>${v.historyTitle}</h3>
${agreementHistory(ctx, versions, now)}
${warningList}
${amendForm}
${a && draft ? html`<form method="post" action="${base}/sign" data-confirm="${w.signConfirm}">${csrf}<input type="hidden" name="revision" value="${agreementRevision(a)}"><button type="submit">${w.sign}</button></form>` : ''}
</section>
${a ? documentsSection : ''}
<section class="card"><h2>${w.subscriptions}</h2><ul>${APIS.map((api) => {
      const on = subscriptions.includes(api);
      return html`<li>${CATALOG[api].name} — <form method="post" action="${base}/subscriptions" style="display:inline">${csrf}<input type="hidden" name="api" value="${api}"><input type="hidden" name="subscribed" value="${on ? 'false' : 'true'}"><button type="submit" class="${on ? 'secondary' : ''}" aria-label="${on ? w.unsubscribe : w.subscribe} ${CATALOG[api].name}">${on ? w.unsubscribe : w.subscribe}</button></form></li>`;
    })}</ul></section>
<section class="card"><h2>${w.keysTitle}</h2>
${tableRegion(
  w.keysTitle,
  html`<table><thead><tr><th scope="col">${w.environment}</th><th scope="col">${w.key}</th><th scope="col">${w.label}</th><th scope="col">${w.status}</th><th scope="col"><span class="visually-hidden">${w.revoke}</span></th></tr></thead><tbody>${keys.map(
    (k) =>
      html`<tr><td>${k.environment}</td><td><code>${k.display}</code></td><td>${k.label ?? ''}</td><td>${k.revokedAt ? w.revoked : w.active}</td><td>${k.revokedAt ? '' : html`<form method="post" action="${base}/keys/${k.id}/revoke" data-confirm="${w.revokeConfirm}">${csrf}<button type="submit" class="danger">${w.revoke}</button></form>`}</td></tr>`,
  )}</tbody></table>`,
)}
${errorSummary(
  w.fixErrors,
  (
    [
      ['environment', 'k-env', w.environment],
      ['label', 'k-label', w.label],
    ] as const
  )
    .filter(([name]) => keyErrors[name] !== undefined)
    .map(([name, id, text]) => ({ field: id, text: `${label(ctx.lang, text)} ${keyErrors[name]}` })),
)}
<form method="post" action="${base}/keys" class="row">${csrf}
<div><label for="k-env">${w.environment}</label><select id="k-env" name="environment"${envError.attributes}>${ENVIRONMENTS.map((e) => html`<option${keyForm?.environment === e ? html` selected` : ''}>${e}</option>`)}</select>${envError.message}</div>
<div><label for="k-label">${w.label}</label><input id="k-label" name="label" maxlength="100" value="${keyForm?.label ?? ''}"${keyLabelError.attributes}>${keyLabelError.message}</div>
<div><button type="submit">${w.createKey}</button></div></form></section>
<section class="card" id="webhooks"><h2>${w.adminWebhooks.section}</h2><p><a href="${base}/webhooks">${w.adminWebhooks.link}</a></p></section>
<section class="card"><h2>${w.users}</h2><ul>${users.map((u) => html`<li>${u.email} (${w.partnerUsers.roles[u.role]})</li>`)}</ul>
<form method="post" action="${base}/users" class="row">${csrf}
<div><label for="u-email">${w.email}</label><input id="u-email" name="email" type="email" required></div>
<div><label for="u-password">${w.password}</label><input id="u-password" name="password" type="password" minlength="10" required autocomplete="new-password"></div>
<div><label for="u-role">${w.partnerUsers.role}</label><select id="u-role" name="role">${USER_ROLES.map((r) => html`<option value="${r}">${w.partnerUsers.roles[r]}</option>`)}</select></div>
<div><button type="submit">${w.createUser}</button></div></form></section>`,
  );
}
