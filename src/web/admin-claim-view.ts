import { html, type SafeHtml } from '../platform/html.ts';
import { label, t, type Lang } from '../i18n/index.ts';
import { claimEvidence, isSettledClaim, isVoidableClaim, maxCompensation, type DeskClaimRow } from '../claims/index.ts';
import { messageStatusText, type ClaimMessage } from '../notify/index.ts';
import type { PayoutAttemptRow } from '../payouts/index.ts';
import type { AuditRow } from '../platform/audit.ts';
import type { LeftOutCode } from '../platform/db-schema.ts';
import { evidenceList } from './claim-evidence.ts';
import {
  csrfField,
  dayTime,
  formatDate,
  formatMoney,
  instantTime,
  nowrap,
  page,
  problemList,
  tableRegion,
  type PageContext,
} from './layout.ts';

/**
 * The operator's claim desk (admin-claim-routes.ts, docs/OPERATOR.md): the claim (personal data
 * masked), the evidence it was decided on, the messages sent, the payout attempts, the audit trail
 * of the claim and its contract, and the actions, each a form with a required reason.
 */

/**
 * What the claim desk and the payouts page say of a pending payout a batch left out of its file: since
 * when (the instant in the page's language, with its zone, in a `<time datetime>`), and whether for want of a
 * BIC or of the insurer's address.
 */
export function leftOutNote(lang: Lang, since: Date, code: LeftOutCode | null): SafeHtml {
  const d = t(lang).claimDesk;
  const slot = '\u0000'; // where the sentence puts the instant, which is HTML (a <time>) in escaped words
  const sentence = code === 'no_debtor_address' ? d.leftOutNoAddress(slot) : d.leftOut(code === 'no_bic', slot);
  const [before, after] = sentence.split(slot);
  return html`${before}${instantTime(since, lang, { zone: true })}${after}`;
}

export interface ClaimDeskView {
  claim: DeskClaimRow;
  /** The customer's phone, masked (maskPhone). */
  phone: string;
  messages: ClaimMessage[];
  attempts: PayoutAttemptRow[];
  trail: AuditRow[];
  /** The one-time token of this page's forms: a double submit does an action once. */
  actionToken: string;
}

export type DeskNotice = { problems?: string[]; done?: 'done' | 'replayed' };

function table(label: string, headers: string[], rows: (string | SafeHtml)[][], id: string): SafeHtml {
  return tableRegion(
    label,
    html`<table id="${id}"><caption class="visually-hidden">${label}</caption><thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table>`,
  );
}

/** An audit row's data in one line, without what the page shows elsewhere. */
function details(data: unknown): string {
  if (!data || typeof data !== 'object') return '';
  const text = JSON.stringify(data);
  return text === '{}' ? '' : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * One claim desk action's form: a POST to /admin/claims/:claimNumber/:path with the session's CSRF
 * token, a one-time `actionToken` (a double submit does it once) and a required reason described by
 * the page's `#reason-hint`. The claim page's actions, and the Set the BIC form the payouts page's
 * left-out listing repeats per payout (admin-watch-routes.ts), each with a token of its own.
 */
export function deskActionForm(
  ctx: PageContext,
  claimNumber: string,
  actionToken: string,
  form: { path: string; id: string; label: string; hint?: string; extra?: SafeHtml | string },
): SafeHtml {
  const d = t(ctx.lang).claimDesk;
  return html`<form method="post" action="/admin/claims/${claimNumber}/${form.path}" class="card" id="${form.id}">${csrfField(ctx.session!.csrfToken)}<input type="hidden" name="actionToken" value="${actionToken}">
<h3>${form.label}</h3>${form.hint ? html`<p class="muted">${form.hint}</p>` : ''}${form.extra ?? ''}<div><label for="${form.id}-reason">${d.reasonLabel}</label><input id="${form.id}-reason" name="reason" required minlength="3" size="40" aria-describedby="reason-hint"></div>
<p><button type="submit">${form.label}</button></p></form>`;
}

/** The BIC field of the Set the BIC form (payouts' setPayoutBic), with the BIC the payout has, if any. */
export function bicField(id: string, ctx: PageContext, bic: string | null): SafeHtml {
  return html`<div><label for="${id}">${t(ctx.lang).claimDesk.newBic}</label><input id="${id}" name="bic" value="${bic ?? ''}" autocomplete="off" autocapitalize="characters" spellcheck="false" required size="14"></div>`;
}

export function claimDeskPage(ctx: PageContext, view: ClaimDeskView, notice: DeskNotice = {}): string {
  const w = t(ctx.lang);
  const d = w.claimDesk;
  const c = view.claim;
  const action = (path: string, id: string, label: string, hint: string, extra: SafeHtml | string = '') =>
    deskActionForm(ctx, c.claim_number, view.actionToken, { path, id, label, hint, extra });
  // the void's causes, `checked` chosen
  const causeChoice = (id: string, checked: 'other' | 'flight_data') =>
    html`<fieldset><legend>${d.voidCause}</legend><div><input type="radio" id="${id}-cause-other" name="cause" value="other"${checked === 'other' ? html` checked` : ''}> <label for="${id}-cause-other">${d.voidCauseOther}</label></div><div><input type="radio" id="${id}-cause-flight-data" name="cause" value="flight_data"${checked === 'flight_data' ? html` checked` : ''}> <label for="${id}-cause-flight-data">${d.voidCauseFlightData}</label></div></fieldset>`;
  const review = c.manual_review_at
    ? d.underReview(
        c.manual_review_by ?? '',
        formatDate(c.manual_review_at, ctx.lang, ''),
        c.manual_review_reason ?? '',
      )
    : d.notUnderReview;

  return page(
    ctx,
    `${w.nav.claims} ${c.claim_number}`,
    html`<h1><a href="/admin/claims">${w.nav.claims}</a> › <span id="claim-number">${c.claim_number}</span></h1>
${problemList(notice.problems)}
${notice.done ? html`<p role="status" id="desk-status">${notice.done === 'done' ? d.done : d.replayed}</p>` : ''}
<h2>${d.claimTitle}</h2>
<div class="card"><dl class="premium" id="claim">
<dt>${d.partner}</dt><dd><a href="/admin/partners/${c.partner_slug}">${c.partner_slug}</a> (${c.environment})</dd>
<dt>${w.contract}</dt><dd id="claim-contract">${c.contract_number}${c.contract_status !== 'active' ? ` (${c.contract_status})` : ''}</dd>
<dt>${w.agreementVersions.soldUnder}</dt><dd id="claim-agreement-version">${c.agreement_version ?? w.agreementVersions.unsignedDraft}</dd>
<dt>${w.status}</dt><dd id="claim-status">${w.claimStatus[c.status] ?? c.status}</dd>
<dt>${d.event}</dt><dd>${c.reason} (${c.event}${c.delay_minutes !== null ? `, ${c.delay_minutes} min` : ''})</dd>
<dt>${w.flight}</dt><dd>${c.flight_number}${c.operating_flight_number ? ` (${c.operating_flight_number})` : ''} ${dayTime(c.departure_date, ctx.lang)}</dd>
<dt>${d.compensation}</dt><dd>${formatMoney(Number(c.compensation_amount), c.currency, ctx.lang)}</dd>
<dt>${d.customerLanguage}</dt><dd>${c.customer_language}</dd>
<dt>${d.phone}</dt><dd id="claim-phone">${view.phone}</dd>
<dt>${d.account}</dt><dd>${c.iban_last4 ? `•••• ${c.iban_last4}` : '—'}</dd>
<dt>${w.opened}</dt><dd>${formatDate(c.opened_at, ctx.lang, '')}</dd>
<dt>${d.bankDetailsDue}</dt><dd>${formatDate(c.bank_details_due_at, ctx.lang, '—')}</dd>
${c.failure_reason ? html`<dt>${d.failureReason}</dt><dd>${c.failure_reason}</dd>` : ''}
<dt>${w.paid}</dt><dd>${formatDate(c.paid_at, ctx.lang, '—')}</dd>
<dt>${d.review}</dt><dd id="claim-review">${review}</dd>
${c.status === 'voided' ? html`<dt>${d.voided}</dt><dd id="claim-void">${c.replaced_by ? d.replacedBy(c.replaced_by) : d.voidedFor(c.claim_void_cause === 'flight_data')}</dd>` : ''}
</dl></div>
<h2>${w.evidenceTitle}</h2>
<div class="card">${evidenceList(ctx, claimEvidence(c), 'evidence')}</div>
<h2>${d.messagesTitle}</h2>
${
  view.messages.length === 0
    ? html`<p>${d.noMessages}</p>`
    : table(
        d.messagesTitle,
        [d.kind, d.channel, w.status, d.providerId, d.attempts, d.to, `${d.sentAt} (UTC)`],
        view.messages.map((m) => [
          m.kind,
          m.channel,
          messageStatusText(m),
          html`<code class="id">${m.providerMessageId ?? '—'}</code>`,
          String(m.attempts),
          nowrap(m.to),
          nowrap(instantTime(m.sentAt, ctx.lang, { never: '—' })),
        ]),
        'claim-messages',
      )
}
<h2>${d.payoutsTitle}</h2>
${
  view.attempts.length === 0
    ? html`<p>${d.noPayouts}</p>`
    : table(
        d.payoutsTitle,
        [d.attempt, d.endToEndId, d.rail, d.outcome, d.providerReference, w.amount, `${d.settledAt} (UTC)`],
        view.attempts.map((a) => [
          String(a.attempt),
          html`<code class="id">${a.end_to_end_id}</code>`,
          a.rail,
          a.failure_reason
            ? `${label(ctx.lang, a.status)} ${a.failure_reason}`
            : a.status === 'pending' && a.left_out_at
              ? html`${a.status}, ${leftOutNote(ctx.lang, a.left_out_at, a.left_out_code)}`
              : a.status,
          a.message_id ? html`<code class="id">${a.message_id}</code>` : '—',
          nowrap(formatMoney(Number(a.amount), a.currency, ctx.lang)),
          nowrap(instantTime(a.settled_at, ctx.lang, { never: '—' })),
        ]),
        'claim-payouts',
      )
}
<h2>${d.actionsTitle}</h2>
<p class="muted" id="reason-hint">${d.reasonHint}</p>
${action('resend-link', 'desk-resend', d.resendLink, d.resendHint)}
${action('phone', 'desk-phone', d.correctPhone, d.correctPhoneHint, html`<div><label for="desk-phone-number">${d.newPhone}</label><input id="desk-phone-number" name="phone" type="tel" inputmode="tel" autocomplete="off" required size="20"></div>`)}
${isSettledClaim(c.status) ? '' : c.manual_review_at ? action('approve', 'desk-approve', d.approve, d.approveHint) : action('review', 'desk-review', d.markReview, d.markReviewHint)}
${c.manual_review_at && !isSettledClaim(c.status) ? action('amount', 'desk-amount', d.correctAmount, d.correctAmountHint(formatMoney(maxCompensation(c), c.currency, ctx.lang)), html`<div><label for="desk-amount-value">${d.newAmount(c.currency)}</label><input id="desk-amount-value" name="amount" inputmode="decimal" autocomplete="off" required size="12" pattern="[0-9]+([.,][0-9]+)?"></div>`) : ''}
${view.attempts.at(-1)?.status === 'pending' && view.attempts.at(-1)?.rail === 'sepa' && !isSettledClaim(c.status) ? action('bic', 'desk-bic', d.setBic, d.setBicHint, bicField('desk-bic-value', ctx, c.bic)) : ''}
${isVoidableClaim(c.status, view.attempts.at(-1)?.status) ? action('void', 'desk-void', d.voidClaim, d.voidHint, causeChoice('desk-void', 'other')) : ''}
${c.status === 'voided' && !c.replaced_by ? action('void-cause', 'desk-void-cause', d.correctVoidCause, d.correctVoidCauseHint, causeChoice('desk-void-cause', c.claim_void_cause === 'flight_data' ? 'other' : 'flight_data')) : ''}
<h2>${d.auditTitle}</h2>
${table(
  d.auditTitle,
  [`${w.at} (UTC)`, d.actor, d.action, d.details],
  view.trail.map((a) => [
    nowrap(instantTime(a.at, ctx.lang)),
    a.actor,
    html`${a.action}<br><span class="muted">${a.entity}</span>`,
    html`<code class="id">${details(a.data)}</code>`,
  ]),
  'claim-audit',
)}`,
  );
}
