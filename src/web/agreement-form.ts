import {
  FORMULAS,
  agreementRevision,
  agreementTermsFrom,
  type Agreement,
  type AgreementInput,
} from '../partners/index.ts';
import type { DomainError, FieldError } from '../platform/errors.ts';
import { currencyExponent, majorAmountRefusal, toDecimalString } from '../platform/money.ts';
import { label, t, type Lang } from '../i18n/index.ts';
import { field, fieldErrorText, fieldList, problemLines, WHOLE, type FormBody } from './web-kit.ts';

/**
 * The operator console's agreement forms (the draft's terms, an amendment): the compensation bounds in
 * major units of the agreement's currency ("10.00" = €10.00, never cents), read into minor units on
 * decimal text (`toMinorUnits`, no floating point), more decimals than the currency has refused; the
 * rates as decimals ("0.09"). Each form carries the agreement's revision it was opened on
 * (`agreementRevision`): a save from a revision another save replaced is refused, `agreement_changed`.
 */

/** The form's fields as typed (or as the agreement gives them), shown back when a save is refused. */
export interface AgreementFormValues {
  allowedFormulas: string[];
  currency: string;
  taxRate: string;
  commissionMin: string;
  commissionMax: string;
  compensationMin: string;
  compensationMax: string;
  /** The hidden field: `agreementRevision` of what the form was opened on. */
  revision: string;
  /**
   * The hidden field: the currency the bounds were shown in (their labels'). The draft's currency is typed
   * in the same form: switched without retyping the bounds, "1000" JPY would be read as €1,000.00.
   */
  boundsCurrency: string;
  /** The amendment's own fields. */
  effectiveAt: string;
  reason: string;
}

/** Which form a refused save came from, and what it held. */
export interface AgreementFormState {
  kind: 'agreement' | 'amend';
  values: AgreementFormValues;
}

/** The form opened on `agreement` (a new draft's defaults when there is none). */
export function agreementFormValues(agreement: Agreement | undefined, now: Date): AgreementFormValues {
  const currency = agreement?.currency ?? 'EUR';
  return {
    allowedFormulas: agreement ? [...agreement.allowedFormulas] : [...FORMULAS],
    currency,
    taxRate: agreement?.taxRate ?? '0.09',
    commissionMin: agreement?.commissionMin ?? '0',
    commissionMax: agreement?.commissionMax ?? '0.3',
    compensationMin: toDecimalString(agreement?.compensationMin ?? 1000, currency),
    compensationMax: toDecimalString(agreement?.compensationMax ?? 50000, currency),
    revision: agreementRevision(agreement),
    boundsCurrency: currency,
    effectiveAt: now.toISOString().slice(0, 10),
    reason: '',
  };
}

export function agreementValuesFrom(body: FormBody | undefined): AgreementFormValues {
  return {
    allowedFormulas: fieldList(body, 'allowedFormulas').slice(0, FORMULAS.length),
    currency: field(body, 'currency', WHOLE).toUpperCase(),
    taxRate: field(body, 'taxRate', WHOLE),
    commissionMin: field(body, 'commissionMin', WHOLE),
    commissionMax: field(body, 'commissionMax', WHOLE),
    compensationMin: field(body, 'compensationMin', WHOLE),
    compensationMax: field(body, 'compensationMax', WHOLE),
    revision: field(body, 'revision', WHOLE),
    boundsCurrency: field(body, 'boundsCurrency', WHOLE).toUpperCase(),
    effectiveAt: field(body, 'effectiveAt', WHOLE),
    reason: field(body, 'reason', WHOLE),
  };
}

/**
 * The terms of the form, or the errors of what cannot be read: an unknown currency (whose decimals are
 * unknown), a bound that is not an amount of it in major units ("50.505" EUR, "50.5" JPY). The terms'
 * own rules (bounds positive, rates in range, the currency transferable) are the use cases'.
 */
export function parseAgreementForm(
  values: AgreementFormValues,
  opened?: AgreementFormValues,
): { terms: AgreementInput; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const terms = agreementTermsFrom(values, errors);
  // the currency changed, the bounds typed in the former one left as they were: refused, not reread in the new one
  const from = values.boundsCurrency;
  if (opened && from && from !== terms.currency && !errors.length)
    for (const name of ['compensationMin', 'compensationMax'] as const)
      if (values[name].trim() === opened[name].trim())
        errors.push({
          field: `/${name}`,
          code: 'invalid',
          message: `the bounds were in ${from}; check them in ${terms.currency}`,
        });
  return { terms, errors };
}

/**
 * A refused save in the page's language, each field by its label: an amount not in the currency told
 * how to write it (its decimals, an example; the point where a comma is ambiguous), the others as
 * `problemLines` tells them.
 */
export function agreementProblemLines(error: DomainError, values: AgreementFormValues, lang: Lang): string[] {
  const w = t(lang);
  const v = w.agreementVersions;
  const fields = error.extra.errors ?? [];
  if (!fields.length)
    return [...problemLines(error, lang), ...(error.code === 'agreement_changed' ? [w.agreementFormKept] : [])];
  const labels: Record<string, string> = {
    ...v.fields,
    effectiveAt: v.effectiveLabel,
    reason: v.reasonLabel,
    currency: w.currency,
  };
  return fields.map((e) => {
    const name = e.field.replace(/^\//, '');
    const field = label(lang, labels[name] ?? name);
    const bound = name === 'compensationMin' || name === 'compensationMax';
    // an amount not in the currency (its decimals): told how to write one; "is too large" is out_of_range
    if (bound && e.code === 'invalid_format') {
      // "1,500" in a currency of three decimals: 1.5 or 1,500, said as such rather than as decimals
      if (majorAmountRefusal(values[name], values.currency) === 'ambiguous')
        return `${field} ${w.errors.amountAmbiguous(values.currency)}`;
      const decimals = currencyExponent(values.currency);
      const point = lang === 'fr' ? ',' : '.';
      return `${field} ${w.amountInCurrency(values.currency, decimals, decimals ? `10${point}${'0'.repeat(decimals)}` : '10')}`;
    }
    if (bound && e.code === 'invalid' && values.boundsCurrency)
      return `${field} ${w.boundsCurrencyChanged(values.boundsCurrency, values.currency)}`;
    return `${field} ${fieldErrorText(e, lang, labels)}`;
  });
}
