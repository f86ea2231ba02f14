import type { ClaimEvidence } from '../claims/index.ts';
import { t } from '../i18n/index.ts';
import { html, type SafeHtml } from '../platform/html.ts';
import { formatDate, formatMoney, type PageContext } from './layout.ts';

/**
 * A claim's evidence as the consoles show it (the partner's contract page, the operator's claim
 * page): where the facts came from, the gate times, the delay computed, the rule that pays and its
 * version, when it was decided. The same fields as the API's `evidence`.
 */
export function evidenceList(ctx: PageContext, e: ClaimEvidence, id?: string): SafeHtml {
  const w = t(ctx.lang);
  const at = (iso: string | null) => (iso ? formatDate(new Date(iso), ctx.lang, '—') : '—');
  const rule =
    e.rule.trigger === 'delay_tier'
      ? `≥ ${e.rule.minDelayMinutes ?? '?'} min`
      : e.rule.trigger === 'cancellation'
        ? w.formulas.cancellation
        : e.rule.trigger;
  return html`<dl class="premium"${id ? html` id="${id}"` : ''}>
<dt>${w.evidenceSource}</dt><dd>${e.source}</dd>
<dt>${w.evidenceProvider}</dt><dd>${e.provider ?? '—'}${e.providerFlightId ? html` <code>${e.providerFlightId}</code>` : ''}</dd>
<dt>${w.scheduledDeparture}</dt><dd>${at(e.scheduledDeparture)}</dd>
<dt>${w.actualDeparture}</dt><dd>${at(e.actualDeparture)}</dd>
<dt>${w.scheduledArrival}</dt><dd>${at(e.scheduledArrival)}</dd>
<dt>${w.actualArrival}</dt><dd>${at(e.actualArrival)}</dd>
${e.divertedTo ? html`<dt>${w.divertedTo}</dt><dd>${e.divertedTo}</dd>` : ''}
<dt>${w.delayComputed}</dt><dd>${e.delayMinutes === null ? '—' : `${e.delayMinutes} min`}</dd>
<dt>${w.evidenceRule}</dt><dd>${rule} → ${formatMoney(e.rule.amountPerPassenger.amount, e.rule.amountPerPassenger.currency, ctx.lang)} × ${e.rule.passengers}</dd>
<dt>${w.ruleVersion}</dt><dd>v${e.rule.configurationVersion}</dd>
<dt>${w.decidedAt}</dt><dd>${at(e.decidedAt)}</dd>
${e.replaces ? html`<dt>${w.evidenceReplaces}</dt><dd>${e.replaces}</dd>` : ''}
</dl>`;
}
