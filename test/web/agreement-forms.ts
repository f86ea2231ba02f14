import { csrfOf } from './inject-browser.ts';

/** The revision (`v1`, or a draft's token) the first agreement form of a page was opened on. */
export const revisionOf = (body: string) => /name="revision" value="([^"]+)"/.exec(body)?.[1];

/**
 * The operator's amendment form (`POST /admin/partners/:slug/amend`) as the partner page `body` sends it: its
 * CSRF token and the revision it was opened on, the terms of the test partners' agreement (compensation in major
 * units, as typed), effective in ten days; `fields` replaces any of them (`compensationMax`, `reason`…).
 */
export const amendmentForm = (body: string, fields: Record<string, string> = {}): Record<string, string> => ({
  _csrf: csrfOf(body)!,
  revision: revisionOf(body)!,
  allowedFormulas: 'delay_and_cancellation',
  currency: 'EUR',
  taxRate: '0.09',
  commissionMin: '0',
  commissionMax: '0.3',
  compensationMin: '10.00',
  compensationMax: '500.00',
  effectiveAt: new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10),
  reason: 'amendment',
  ...fields,
});
