import { money, type Money } from '../platform/money.ts';
import { CLAIM_NUMBER, type ClaimEventKind, type ClaimReason } from './model.ts';

/**
 * Why a claim was opened, as partners, operators and the customer see it (issue 13 §3): where the
 * flight facts came from, the gate times, the delay computed from them, the rule of the contract's
 * coverage that pays and its version, and when the decision was taken. Built from what the claim
 * stored when it opened (claims.evidence, the monitoring's status record or the reporter) and the
 * contract's coverage snapshot. Pure.
 */
export interface ClaimEvidence {
  /** `monitoring:<provider>` (flight-data provider), `partner_report` (POST /claims) or `operator`. */
  source: string;
  /** The flight-data provider, when the monitoring decided; null for reports. */
  provider: string | null;
  providerFlightId: string | null;
  scheduledDeparture: string | null;
  actualDeparture: string | null;
  /** Scheduled gate arrival: the reference of the delay. */
  scheduledArrival: string | null;
  /** Actual gate arrival (block-on); the runway time is never used. */
  actualArrival: string | null;
  divertedTo: string | null;
  /** Arrival delay at the gate in minutes, as computed (or reported); null unless delayed. */
  delayMinutes: number | null;
  rule: {
    /** What triggered the payout: a delay tier reached, a cancellation, a diversion. */
    trigger: 'delay_tier' | 'cancellation' | 'diversion';
    /** The tier's threshold, for a delay tier (or a diversion paid as the top tier). */
    minDelayMinutes: number | null;
    amountPerPassenger: Money;
    passengers: number;
    /** Version of the partner configuration whose coverage the contract snapshotted: the rule's version. */
    configurationVersion: number;
  };
  /** When Parasol opened the claim: the decision. */
  decidedAt: string;
  /**
   * The voided claim this one replaces, on the same leg: an operator recorded the flight's true
   * outcome after the insurer voided a claim opened on wrong flight data. Absent otherwise.
   */
  replaces?: string;
}

export interface EvidenceSource {
  reason: ClaimReason;
  event: ClaimEventKind;
  delay_minutes: number | null;
  compensation_amount: number;
  currency: string;
  opened_at: Date;
  evidence: unknown;
  coverage: { delayTiers: { minDelayMinutes: number; amount: number }[]; cancellationAmount: number };
  passengers: number;
  configuration_version: number;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

export function claimEvidence(r: EvidenceSource): ClaimEvidence {
  const e = (r.evidence && typeof r.evidence === 'object' ? r.evidence : {}) as Record<string, unknown>;
  const perPassenger = Math.round(Number(r.compensation_amount) / Math.max(1, r.passengers));
  let minDelayMinutes: number | null = null;
  if (r.reason === 'delay') {
    const tiers = r.coverage.delayTiers ?? [];
    const reached =
      r.delay_minutes === null
        ? tiers.filter((t) => t.amount === perPassenger) // a diversion paid as the top tier
        : tiers.filter((t) => t.minDelayMinutes <= r.delay_minutes!);
    const tier = reached.sort((a, b) => b.amount - a.amount || b.minDelayMinutes - a.minDelayMinutes)[0];
    minDelayMinutes = tier?.minDelayMinutes ?? null;
  }
  const source = str(e.source) ?? 'unknown';
  return {
    source,
    provider: str(e.provider) ?? (source.startsWith('monitoring:') ? source.slice('monitoring:'.length) : null),
    providerFlightId: str(e.providerFlightId),
    scheduledDeparture: str(e.scheduledDeparture),
    actualDeparture: str(e.actualDeparture),
    scheduledArrival: str(e.scheduledArrival),
    actualArrival: str(e.actualArrival),
    divertedTo: str(e.divertedTo),
    delayMinutes: r.delay_minutes,
    rule: {
      trigger: r.event === 'diverted' ? 'diversion' : r.reason === 'cancellation' ? 'cancellation' : 'delay_tier',
      minDelayMinutes,
      amountPerPassenger: money(perPassenger, r.currency),
      passengers: r.passengers,
      configurationVersion: r.configuration_version,
    },
    decidedAt: r.opened_at.toISOString(),
    ...(CLAIM_NUMBER.test(str(e.replaces) ?? '') ? { replaces: e.replaces as string } : {}),
  };
}
