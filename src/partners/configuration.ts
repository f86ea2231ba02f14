import { coverageFor, type DelayTier, type Formula } from './coverage.ts';
import { audit } from '../platform/audit.ts';
import type { Db } from '../platform/db.ts';
import { DomainError } from '../platform/errors.ts';
import { agreementAt, futureViolations, type FutureViolation } from './amendments.ts';
import type { Configuration } from './model.ts';
import * as repo from './partners-repo.ts';
import { checkTerms } from './terms.ts';
import { requireActingUser } from './users.ts';

export interface ConfigurationInput {
  formula: Formula;
  delayTiers: DelayTier[];
  cancellationAmount: number;
  commissionRate: string;
}

/**
 * What a form saves: the configuration, and the version the form was opened from (0: none yet). A save
 * whose version is no longer the current one is refused (`configuration_changed`), nothing written: two
 * tabs or two users opened on one version, the second save does not silently replace the first.
 * Without it (the CLI), the save applies to whatever is current. `userId`: the partner user saving it
 * from the console, its right (`configuration`) checked again in the transaction (`requireActingUser`).
 */
export type ConfigurationSave = ConfigurationInput & {
  expectedVersion?: number | undefined;
  userId?: string | undefined;
};

/** A saved configuration, and the signed amendments not yet effective that will reject it. */
export type SavedConfiguration = Configuration & { warnings: FutureViolation[] };

/**
 * Saves a new configuration version after checking it against the agreement in force at `now`.
 * Earlier versions are never modified: quotes and contracts keep pointing at the version they were
 * priced with. A configuration a signed amendment not yet effective will reject is saved, with a
 * warning per such version (what falls outside, from when): from then, quotes are refused.
 * Saves of one partner take their turn with each other and with its agreement's changes (its row
 * locked, `lockPartnerTerms`): concurrent ones each get their own version, and none misses an amendment;
 * the expected version is compared under that lock, so of two saves from one version exactly one is written.
 */
export async function setConfiguration(
  db: Db,
  actor: string,
  partnerId: string,
  save: ConfigurationSave,
  now: Date = new Date(),
): Promise<SavedConfiguration> {
  const { expectedVersion, userId, ...input } = save;
  return db.transaction().execute(async (trx) => {
    // the users' lock first, then the partner's row (the order of every path taking both)
    if (userId) await requireActingUser(trx, { userId, partnerId }, 'configuration');
    // concurrent saves (two console users, the console and the CLI) take their turn: without it both
    // would number the same next version and the second fail on the (partner, version) key; and an
    // amendment signed meanwhile is read here, as this save is read by the amendment's violations
    await repo.lockPartnerTerms(trx, partnerId);
    if (expectedVersion !== undefined) {
      const currentVersion = (await repo.findCurrentConfiguration(trx, partnerId))?.version ?? 0;
      if (currentVersion !== expectedVersion)
        throw new DomainError(
          'configuration_changed',
          `The configuration changed since the form was opened (version ${expectedVersion}; now version ${currentVersion}): nothing was saved. Reload to see the current version.`,
          { expectedVersion, currentVersion },
        );
    }
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
      // the terms as stored, what quotes will use: not the input's amounts the formula does not pay
      // (a cancellation amount typed for a delay-only formula was audited, never stored nor paid); with
      // their currency, without which the amounts in minor units say no sum (5000: €50.00, ¥5,000, 5 KWD)
      data: {
        version: configuration.version,
        formula: configuration.formula,
        delayTiers: configuration.delayTiers,
        cancellationAmount: configuration.cancellationAmount,
        commissionRate: configuration.commissionRate,
        currency: configuration.currency,
      },
    });
    return { ...configuration, warnings: futureViolations(versions, input, now) };
  });
}
