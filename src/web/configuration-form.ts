import {
  currencyExponent,
  MAJOR_AMOUNT_MAX_LENGTH,
  majorAmountRefusal,
  parseMajorAmount,
  toDecimalString,
} from '../platform/money.ts';
import { Decimal } from 'decimal.js';
import {
  FORMULAS,
  TIER_LIMITS,
  type Agreement,
  type Configuration,
  type ConfigurationInput,
  type Formula,
} from '../partners/index.ts';
import type { FieldError } from '../platform/errors.ts';
import { t, type Lang } from '../i18n/index.ts';
import { formatMoney } from './layout.ts';
import type { FormBody } from './web-kit.ts';
import { field, WHOLE } from './web-kit.ts';

/**
 * The console's configuration form: amounts in major units ("50" = €50.00), the commission in
 * percent ("20" = 0.2). Parsing only converts; the bounds are checked by partners/terms.ts, the same
 * check as setConfiguration and /getPrice/simulate, and its errors are put back next to the fields.
 */

export interface FormValues {
  formula: string;
  tiers: { minutes: string; amount: string }[];
  cancellation: string;
  commission: string;
}

/** Field name → message, shown next to the field. */
export type FormErrors = Record<string, string>;

/** The longest amount the form reads, in characters (longer: refused, never cut): `MAJOR_AMOUNT_MAX_LENGTH`. */
export const AMOUNT_MAX_LENGTH = MAJOR_AMOUNT_MAX_LENGTH;

export function valuesFrom(body: FormBody | undefined): FormValues {
  // every field read whole, as typed: parseForm refuses an amount past AMOUNT_MAX_LENGTH, minutes, a rate or
  // a formula its pattern does not match — and the refused form shows back what was typed, never a cut of it
  const tiers = Array.from({ length: TIER_LIMITS.maxTiers }, (_, i) => ({
    minutes: field(body, `tier_minutes_${i}`, WHOLE),
    amount: field(body, `tier_amount_${i}`, WHOLE),
  }));
  return {
    formula: field(body, 'formula', WHOLE),
    tiers,
    cancellation: field(body, 'cancellation', WHOLE),
    commission: field(body, 'commission', WHOLE),
  };
}

export function valuesOf(configuration: Configuration | undefined, agreement: Agreement): FormValues {
  const tiers = Array.from({ length: TIER_LIMITS.maxTiers }, (_, i) => {
    const tier = configuration?.delayTiers[i];
    return tier
      ? { minutes: String(tier.minDelayMinutes), amount: toDecimalString(tier.amount, agreement.currency) }
      : { minutes: '', amount: '' };
  });
  return {
    formula: configuration?.formula ?? agreement.allowedFormulas[0] ?? 'delay',
    tiers,
    cancellation:
      configuration && configuration.cancellationAmount > 0
        ? toDecimalString(configuration.cancellationAmount, agreement.currency)
        : '',
    commission: configuration
      ? new Decimal(configuration.commissionRate).mul(100).toString()
      : new Decimal(agreement.commissionMin).mul(100).toString(),
  };
}

/**
 * "50,00" or "50.00" in the agreement's currency → minor units (the currency's own decimals), or undefined.
 * As many digits as the field holds: the agreement's bounds, not the form, limit the amount — 15,000,000
 * VND or IDR (no or two decimals) are ordinary compensations; beyond a safe integer parseMajorAmount refuses.
 */
function minorUnits(text: string, currency: string): number | undefined {
  if (!/^\d+([.,]\d+)?$/.test(text)) return undefined;
  try {
    return parseMajorAmount(text, currency);
  } catch {
    return undefined;
  }
}

/** The commission's decimals in percent: "12.345" % is a rate of 0.12345. */
const COMMISSION_DECIMALS = 3;

/** A plain number ("50.505", "10,1234") with more decimals than `decimals`. */
function tooManyDecimals(text: string, decimals: number): boolean {
  const fraction = /^\d+[.,](\d+)$/.exec(text)?.[1];
  return fraction !== undefined && fraction.length > decimals;
}

/**
 * Converts the form to a configuration input, or the fields it cannot read as an amount, a rate or
 * minutes — each told the bounds to enter ("-1" or "100" % are numbers: "enter a number" said nothing),
 * and the decimals allowed when it has more ("50.505" EUR, "10.1234" %: within the bounds, yet refused).
 */
export function parseForm(
  values: FormValues,
  agreement: Agreement,
  lang: Lang,
): { input?: ConfigurationInput; errors: FormErrors } {
  const w = t(lang);
  const currency = agreement.currency;
  const bounds = boundsMessages(agreement, lang);
  const amountError = (text: string) => {
    const refusal = majorAmountRefusal(text, currency);
    if (refusal === 'too_long') return w.errors.amountTooLong(AMOUNT_MAX_LENGTH);
    if (refusal === 'ambiguous') return w.errors.amountAmbiguous(currency);
    return tooManyDecimals(text, currencyExponent(currency)) ? bounds.amountDecimals : bounds.amount;
  };
  const amountOf = (text: string) => (majorAmountRefusal(text, currency) ? undefined : minorUnits(text, currency));
  const errors: FormErrors = {};
  const formula = (FORMULAS as readonly string[]).includes(values.formula) ? (values.formula as Formula) : undefined;
  if (!formula) errors.formula = w.errors.formula;
  const delayTiers: { minDelayMinutes: number; amount: number }[] = [];
  values.tiers.forEach((tier, i) => {
    if (tier.minutes === '' && tier.amount === '') return;
    const minutes = /^\d{1,5}$/.test(tier.minutes) ? Number(tier.minutes) : undefined;
    const amount = amountOf(tier.amount);
    // a row half filled is told as such on the field left empty (never dropped: the partner meant a tier)
    if (tier.amount === '') errors[`tier_amount_${i}`] = w.errors.tierAmountMissing;
    else if (amount === undefined) errors[`tier_amount_${i}`] = amountError(tier.amount);
    if (tier.minutes === '') errors[`tier_minutes_${i}`] = w.errors.tierMinutesMissing;
    else if (minutes === undefined) errors[`tier_minutes_${i}`] = w.errors.minutes;
    if (minutes !== undefined && amount !== undefined) delayTiers.push({ minDelayMinutes: minutes, amount });
  });
  const cancellationAmount = values.cancellation === '' ? 0 : amountOf(values.cancellation);
  if (cancellationAmount === undefined) errors.cancellation = amountError(values.cancellation);
  const commission = values.commission.replace(',', '.');
  const commissionRate = new RegExp(`^\\d{1,2}(\\.\\d{1,${COMMISSION_DECIMALS}})?$`).test(commission)
    ? new Decimal(commission).div(100).toString()
    : undefined;
  if (commissionRate === undefined)
    errors.commission = tooManyDecimals(commission, COMMISSION_DECIMALS)
      ? bounds.commissionDecimals
      : bounds.commission;
  if (Object.keys(errors).length || !formula || cancellationAmount === undefined || commissionRate === undefined)
    return { errors };
  return { input: { formula, delayTiers, cancellationAmount, commissionRate }, errors };
}

/**
 * Puts the errors of checkTerms (JSON Pointers into a configuration) back on the form's fields, in
 * the page's language. Tier indexes are those of the filled rows, which the form keeps in order.
 */
export function formErrors(errors: FieldError[], values: FormValues, agreement: Agreement, lang: Lang): FormErrors {
  const w = t(lang);
  const out: FormErrors = {};
  const filled = values.tiers
    .map((tier, i) => ({ tier, i }))
    .filter(({ tier }) => tier.minutes !== '' || tier.amount !== '');
  const bounds = boundsMessages(agreement, lang);
  const amountMessage = bounds.amount;
  for (const error of errors) {
    const tier = /^\/delayTiers\/(\d+)\/(minDelayMinutes|amount)$/.exec(error.field);
    if (error.field === '/formula') out.formula ??= w.errors.formula;
    else if (error.field === '/commissionRate') out.commission ??= bounds.commission;
    else if (error.field === '/cancellationAmount') out.cancellation ??= amountMessage;
    else if (error.field === '/delayTiers') out.tier_minutes_0 ??= w.errors.tiers;
    else if (tier) {
      const row = filled[Number(tier[1])]?.i ?? 0;
      if (tier[2] === 'minDelayMinutes') out[`tier_minutes_${row}`] ??= w.errors.minutes;
      else out[`tier_amount_${row}`] ??= error.code === 'not_increasing' ? w.errors.order : amountMessage;
    }
  }
  return out;
}

/** What an amount and the commission must be, in the agreement's bounds and the page's language. */
function boundsMessages(
  agreement: Agreement,
  lang: Lang,
): { amount: string; amountDecimals: string; commission: string; commissionDecimals: string } {
  const w = t(lang);
  const money = (minor: number) => formatMoney(minor, agreement.currency, lang);
  const [minAmount, maxAmount] = [money(agreement.compensationMin), money(agreement.compensationMax)];
  const [minRate, maxRate] = [agreement.commissionMin, agreement.commissionMax].map((r) =>
    new Decimal(r).mul(100).toString(),
  ) as [string, string];
  return {
    amount: w.errors.amount(minAmount, maxAmount),
    amountDecimals: w.errors.amountDecimals(minAmount, maxAmount, currencyExponent(agreement.currency)),
    commission: w.errors.commission(minRate, maxRate),
    commissionDecimals: w.errors.commissionDecimals(minRate, maxRate, COMMISSION_DECIMALS),
  };
}
