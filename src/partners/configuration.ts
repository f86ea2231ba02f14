import { coverageFor, type DelayTier, type Formula } from './coverage.ts';
import { audit } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import type { Configuration } from './model.ts';
import * as repo from './partners-repo.ts';
import { checkTerms } from './terms.ts';

export interface ConfigurationInput {
  formula: Formula;
  delayTiers: DelayTier[];
  cancellationAmount: number;
  commissionRate: string;
}

/**
 * Saves a new configuration version after checking it against the agreement. Earlier versions are
 * never modified: quotes and contracts keep pointing at the version they were priced with.
 */
export async function setConfiguration(
  db: Db,
  actor: string,
  partnerId: string,
  input: ConfigurationInput,
): Promise<Configuration> {
  return db.transaction().execute(async (trx) => {
    const agreement = await repo.findAgreement(trx, partnerId);
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
    return configuration;
  });
}
