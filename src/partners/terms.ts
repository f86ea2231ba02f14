import { Decimal } from 'decimal.js';
import { coversCancellation, coversDelay, type DelayTier, type Formula } from './coverage.ts';
import type { FieldError } from '../platform/errors.ts';
import { formatMoney } from '../platform/money.ts';
import type { Agreement } from './model.ts';

/** Bounds of a delay tier, whatever the agreement. */
export const TIER_LIMITS = { maxTiers: 5, minMinutes: 15, maxMinutes: 1440 } as const;

export interface Terms {
  formula: Formula;
  delayTiers: DelayTier[];
  cancellationAmount: number;
  commissionRate: Decimal.Value;
}

/**
 * Checks terms (a configuration, or the parameters of a simulation) against the agreement.
 * Pure: returns the field errors, empty when the terms are acceptable. `base` prefixes pointers
 * ("/compensation" for the simulate body, "" for a configuration).
 */
export function checkTerms(
  agreement: Agreement,
  terms: Terms,
  pointers: TermPointers = CONFIGURATION_POINTERS,
): FieldError[] {
  const errors: FieldError[] = [];
  const { compensationMin: min, compensationMax: max } = agreement;
  const money = (v: number) => formatMoney(v, agreement.currency);

  if (!agreement.allowedFormulas.includes(terms.formula)) {
    errors.push({
      field: pointers.formula,
      code: 'not_allowed',
      message: `formula "${terms.formula}" is not allowed by the agreement (allowed: ${agreement.allowedFormulas.join(', ')})`,
    });
  }

  const rate = parseRate(terms.commissionRate);
  if (!rate) {
    errors.push({
      field: pointers.commissionRate,
      code: 'invalid_format',
      message: 'must be a decimal number with at most 5 decimals, e.g. 0.2',
    });
  } else if (rate.lt(agreement.commissionMin) || rate.gt(agreement.commissionMax)) {
    errors.push({
      field: pointers.commissionRate,
      code: 'out_of_range',
      message: `commission rate must be between ${agreement.commissionMin} and ${agreement.commissionMax}`,
    });
  }

  if (coversDelay(terms.formula)) {
    const tiers = terms.delayTiers;
    if (tiers.length === 0 || tiers.length > TIER_LIMITS.maxTiers) {
      errors.push({
        field: pointers.delayTiers,
        code: 'out_of_range',
        message: `the formula covers delay: give 1 to ${TIER_LIMITS.maxTiers} delay tiers`,
      });
    }
    tiers.forEach((tier, i) => {
      const at = `${pointers.delayTiers}/${i}`;
      if (
        !Number.isInteger(tier.minDelayMinutes) ||
        tier.minDelayMinutes < TIER_LIMITS.minMinutes ||
        tier.minDelayMinutes > TIER_LIMITS.maxMinutes
      ) {
        errors.push({
          field: `${at}/minDelayMinutes`,
          code: 'out_of_range',
          message: `must be a whole number of minutes between ${TIER_LIMITS.minMinutes} and ${TIER_LIMITS.maxMinutes}`,
        });
      }
      if (!Number.isInteger(tier.amount) || tier.amount < min || tier.amount > max) {
        errors.push({
          field: `${at}/amount`,
          code: 'out_of_range',
          message: `must be between ${money(min)} and ${money(max)} (minor units ${min}–${max})`,
        });
      }
      const previous = tiers[i - 1];
      if (previous && tier.minDelayMinutes <= previous.minDelayMinutes) {
        errors.push({
          field: `${at}/minDelayMinutes`,
          code: 'not_increasing',
          message: 'tiers must be in strictly increasing order of minutes',
        });
      }
      if (previous && tier.amount < previous.amount) {
        errors.push({
          field: `${at}/amount`,
          code: 'not_increasing',
          message: 'a longer delay cannot pay less than a shorter one',
        });
      }
    });
  }

  if (coversCancellation(terms.formula)) {
    const amount = terms.cancellationAmount;
    if (!Number.isInteger(amount) || amount < min || amount > max) {
      errors.push({
        field: pointers.cancellationAmount,
        code: 'out_of_range',
        message: `the formula covers cancellation: amount must be between ${money(min)} and ${money(max)}`,
      });
    }
  }
  return errors;
}

export interface TermPointers {
  formula: string;
  commissionRate: string;
  delayTiers: string;
  cancellationAmount: string;
}

export const CONFIGURATION_POINTERS: TermPointers = {
  formula: '/formula',
  commissionRate: '/commissionRate',
  delayTiers: '/delayTiers',
  cancellationAmount: '/cancellationAmount',
};

/** A rate as stored (numeric(6,5)): a finite decimal with at most 5 decimals, else undefined. */
export function parseRate(value: Decimal.Value): Decimal | undefined {
  try {
    const rate = new Decimal(value);
    return rate.isFinite() && rate.decimalPlaces() <= 5 ? rate : undefined;
  } catch {
    return undefined;
  }
}
