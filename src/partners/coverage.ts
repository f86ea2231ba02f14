/**
 * The coverage a partner sells: which events pay, and how much, per passenger and per leg.
 * Amounts are integer minor units of the agreement's currency (1250 EUR = €12.50).
 */
/** Passengers one policy covers at most (one booking): a claim pays the per-passenger amount times its passengers. */
export const MAX_POLICY_PASSENGERS = 9;

export const FORMULAS = ['delay', 'cancellation', 'delay_and_cancellation'] as const;
export type Formula = (typeof FORMULAS)[number];

export interface DelayTier {
  /** Arrival delay at the gate, in minutes, from which this tier pays. */
  minDelayMinutes: number;
  /** Lump sum paid per passenger for this leg when this is the highest tier reached. */
  amount: number;
}

export interface Coverage {
  formula: Formula;
  /** Sorted by strictly increasing minDelayMinutes, amounts non-decreasing; empty when the formula does not cover delay. */
  delayTiers: DelayTier[];
  /** Paid per passenger for a cancelled leg; 0 when the formula does not cover cancellation. */
  cancellationAmount: number;
}

export const coversDelay = (formula: Formula): boolean => formula !== 'cancellation';
export const coversCancellation = (formula: Formula): boolean => formula !== 'delay';

/** Keeps only what the formula covers, so a stored coverage never carries amounts it does not pay. */
export function coverageFor(formula: Formula, delayTiers: DelayTier[], cancellationAmount: number): Coverage {
  return {
    formula,
    delayTiers: coversDelay(formula) ? [...delayTiers].sort((a, b) => a.minDelayMinutes - b.minDelayMinutes) : [],
    cancellationAmount: coversCancellation(formula) ? cancellationAmount : 0,
  };
}
