import { coverageFor, type DelayTier, type Formula } from './coverage.ts';
import { audit } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { agreementAt, futureViolations, type FutureViolation } from './amendments.ts';
import type { Configuration } from './model.ts';
import * as repo from './partners-repo.ts';
import { checkTerms } from './terms.ts';

export interface ConfigurationInput {
  formula: Formula;
  delayTiers: DelayTier[];
  cancellationAmount: number;
  commissionRate: string;
}

/** A saved configuration, and the signed amendments not yet effective that will reject it. */
export type SavedConfiguration = Configuration & { warnings: FutureViolation[] };

/**
 * Saves a new configuration version after checking it against the agreement in force at `now`.
 * Earlier versions are never modified: quotes and contracts keep pointing at the version they were
 * priced with. A configuration a signed amendment not yet effective will reject is saved, with a
 * warning per such version (what falls outside, from when): from then, quotes are refused.
 * Saves of one partner take their turn with each other and with its agreement's changes (its row
 * locked, `lockPartnerTerms`): concurrent ones each get their own version, and none misses an amendment.
 */
export async function setConfiguration(
  db: Db,
  actor: string,
  partnerId: string,
  input: ConfigurationInput,
  now: Date = new Date(),
): Promise<SavedConfiguration> {
  return db.transaction().execute(async (trx) => {
    // concurrent saves (two console users, the console and the CLI) take their turn: without it both
    // would number the same next version and the second fail on the (partner, version) key; and an
    // amendment signed meanwhile is read here, as this save is read by the amendment's violations
    await repo.lockPartnerTerms(trx, partnerId);
    const versions = await repo.listAgreementVersions(trx, partnerId);
    const agreement = agreementAt(versions, now);
    if (!agreement)
      throw new DomainError('agreement_missing', 'The partner has no agreement; the insurer sets it first.');
    const errors = checkTerms(agreement, input);
    if (errors.length)
      throw new DomainError('configuration_out_of_bounds', 'The configuration is outside what the agreement allows.', {
        errors,
      });
    const coverage = coverageFor(input.formula, input.delayTiers, input.cancellationAmount);
    const configuration = await repo.insertConfiguration(trx, {
      partnerId,
      formula: coverage.formula,
      delayTiers: coverage.delayTiers,
      cancellationAmount: coverage.cancellationAmount,
      commissionRate: input.commissionRate,
      currency: agreement.currency,
      createdBy: actor,
    });
    await audit(trx, {
      actor,
      partnerId,
      entity: 'configuration',
      entityId: configuration.id,
      action: 'created',
      data: { version: configuration.version, ...input },
    });
    return { ...configuration, warnings: futureViolations(versions, input, now) };
  });
}
