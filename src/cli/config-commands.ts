import { requirePartner, setConfiguration, type DelayTier, type Formula } from '../partners/index.ts';
import * as repo from '../partners/index.ts';
import { DomainError, type FieldError } from '../platform/errors.ts';
import { formatMoney } from '../platform/money.ts';
import { amountOrError, collect, table, when, type CommandKit, type FieldNames } from './kit.ts';
import { configurationJson, configurationLines, violationJson, violationLines } from './partner-output.ts';

/** A partner's coverage configuration, versioned. */
export function configCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor } = kit;

  const config = group(
    'config',
    "Set and show a partner's coverage configuration (versioned)",
    'parasol config show acme-air --history',
  );

  leaf(
    config,
    'set <partner>',
    'Save a new configuration version, checked against the agreement',
    'parasol config set acme-air --formula delay_and_cancellation --tier 120=50.00 --tier 180=100.00 --cancellation 150.00 --commission 0.2',
  )
    .requiredOption('--formula <formula>', 'delay, cancellation or delay_and_cancellation')
    .option(
      '--tier <minutes=amount>',
      'delay tier: minutes of arrival delay = amount paid, in major units (repeatable)',
      collect,
      [],
    )
    .option('--cancellation <amount>', 'amount paid for a cancelled leg, in major units')
    .requiredOption('--commission <rate>', "partner's commission rate, within the agreement's bounds (0.2 = 20 %)")
    .action(
      async (ref: string, options: { formula: string; tier: string[]; cancellation?: string; commission: string }) => {
        const tierNames: FieldNames = (pointer) => {
          const tier = /^\/delayTiers\/(\d+)(\/|$)/.exec(pointer);
          if (tier) return `--tier ${options.tier[Number(tier[1])] ?? `#${Number(tier[1]) + 1}`}`;
          return {
            '/formula': '--formula',
            '/commissionRate': '--commission',
            '/delayTiers': '--tier',
            '/cancellationAmount': '--cancellation',
          }[pointer];
        };
        await run(async () => {
          const partner = await requirePartner(db, ref);
          const terms = await repo.findAgreement(db, partner.id);
          if (!terms)
            throw new DomainError(
              'agreement_missing',
              `${partner.slug} has no agreement; set it first with: parasol agreement set ${partner.slug} …`,
            );
          const errors: FieldError[] = [];
          const delayTiers: DelayTier[] = options.tier.map((text, i) => {
            const match = /^\s*(\d+)\s*=\s*(\S+)\s*$/.exec(text);
            if (!match) {
              errors.push({
                field: `/delayTiers/${i}`,
                code: 'invalid_format',
                message: 'must be <minutes>=<amount>, e.g. 120=50.00',
              });
              return { minDelayMinutes: 0, amount: 0 };
            }
            return {
              minDelayMinutes: Number(match[1]),
              amount: amountOrError(match[2] ?? '', terms.currency, `/delayTiers/${i}/amount`, errors),
            };
          });
          const cancellationAmount =
            options.cancellation === undefined
              ? 0
              : amountOrError(options.cancellation, terms.currency, '/cancellationAmount', errors);
          const commissionRate = options.commission.trim();
          if (!/^\d+(\.\d{1,5})?$/.test(commissionRate)) {
            errors.push({
              field: '/commissionRate',
              code: 'invalid_format',
              message: 'must be a decimal rate with at most 5 decimals, e.g. 0.2',
            });
          }
          if (errors.length) throw new DomainError('validation_failed', 'The configuration is not valid.', { errors });
          const saved = await setConfiguration(
            db,
            actor,
            partner.id,
            { formula: options.formula as Formula, delayTiers, cancellationAmount, commissionRate },
            kit.io.now?.() ?? new Date(),
          );
          return {
            data: {
              partner: partner.slug,
              configuration: configurationJson(saved),
              warnings: saved.warnings.map(violationJson),
            },
            lines: [
              `Saved configuration version ${saved.version} of ${partner.slug}.`,
              ...violationLines(saved.warnings),
              '',
              ...configurationLines(saved),
            ],
          };
        }, tierNames)();
      },
    );

  leaf(
    config,
    'show <partner>',
    'Show the current configuration (or every version with --history)',
    'parasol config show acme-air --history',
  )
    .option('--history', 'list every version, newest first')
    .action(
      run(async (ref: string, options: { history?: boolean }) => {
        const partner = await requirePartner(db, ref);
        if (!options.history) {
          const current = await repo.findCurrentConfiguration(db, partner.id);
          return {
            data: { partner: partner.slug, configuration: current ? configurationJson(current) : null },
            lines: configurationLines(current),
          };
        }
        const versions = await repo.listConfigurations(db, partner.id);
        const lines = versions.length
          ? table(
              ['VERSION', 'FORMULA', 'DELAY TIERS', 'CANCELLATION', 'COMMISSION', 'CREATED', 'BY'],
              versions.map((c) => [
                String(c.version),
                c.formula,
                c.delayTiers.length
                  ? c.delayTiers.map((t) => `${t.minDelayMinutes}=${formatMoney(t.amount, c.currency)}`).join(', ')
                  : '-',
                c.cancellationAmount ? formatMoney(c.cancellationAmount, c.currency) : '-',
                c.commissionRate,
                when(c.createdAt),
                c.createdBy,
              ]),
            )
          : [`${partner.slug} has no configuration yet.`];
        return { data: { partner: partner.slug, configurations: versions.map(configurationJson) }, lines };
      }),
    );
}
