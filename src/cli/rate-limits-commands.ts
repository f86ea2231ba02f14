import { requirePartner } from '../partners/index.ts';
import {
  changePartnerRateLimits,
  listPartnerRateLimits,
  parseRateLimit,
  RATE_CLASSES,
  type ClassLimits,
  type RateClass,
} from '../platform/shared-rate-limit.ts';
import { DomainError } from '../platform/errors.ts';
import { table, type CommandKit } from './kit.ts';

/**
 * `parasol rate-limits`: a partner's rate limits per operation class (requests per minute per API
 * key; docs/OPERATIONS.md for the defaults). Stored in partner_rate_limits; every running process
 * applies a change within a second (change notifications), at worst within 30 s.
 */
export function rateLimitsCommands(kit: CommandKit, defaults: ClassLimits): void {
  const { group, leaf, run, db, actor } = kit;
  const limits = group(
    'rate-limits',
    'Rate limits per partner and operation class (quote, write, read), per API key',
    'parasol rate-limits set acme-air --quote 12000',
  );

  const effective = (
    row:
      { quote_per_minute: number | null; write_per_minute: number | null; read_per_minute: number | null } | undefined,
  ) =>
    Object.fromEntries(
      RATE_CLASSES.map((c) => {
        const set = row?.[`${c}_per_minute`] ?? null;
        return [c, { perMinute: set ?? defaults[c], default: set === null }];
      }),
    ) as Record<RateClass, { perMinute: number; default: boolean }>;
  const lines = (slug: string, e: Record<RateClass, { perMinute: number; default: boolean }>) =>
    table(
      ['PARTNER', 'CLASS', 'PER MINUTE', 'PER SECOND', 'SOURCE'],
      RATE_CLASSES.map((c) => [
        slug,
        c,
        String(e[c].perMinute),
        (e[c].perMinute / 60).toFixed(1),
        e[c].default ? '(default)' : 'set',
      ]),
    );

  leaf(
    limits,
    'show <partner>',
    "Show a partner's rate limits per class (set, or the default)",
    'parasol rate-limits show acme-air',
  ).action(
    run(async (ref: string) => {
      const partner = await requirePartner(db, ref);
      const row = (await listPartnerRateLimits(db)).find((r) => r.partner_id === partner.id);
      const e = effective(row);
      return { data: { partner: partner.slug, limits: e }, lines: lines(partner.slug, e) };
    }),
  );

  leaf(
    limits,
    'set <partner>',
    'Set requests per minute per key for one or more classes ("default" returns to the platform default)',
    'parasol rate-limits set acme-air --quote 12000 --write default',
  )
    .option('--quote <perMinute>', 'quotes (/getPrice): asked at every checkout')
    .option('--write <perMinute>', 'subscriptions, cancellations, policies recorded')
    .option('--read <perMinute>', 'reads and searches')
    .action(
      run(
        async (ref: string, options: { quote?: string; write?: string; read?: string }) => {
          const partner = await requirePartner(db, ref);
          const changes: Partial<Record<RateClass, number | null>> = {};
          for (const c of RATE_CLASSES) {
            const value = parseRateLimit(c, options[c]);
            if (value !== undefined) changes[c] = value;
          }
          if (Object.keys(changes).length === 0) {
            throw new DomainError('validation_failed', 'Give at least one limit.', {
              errors: [{ field: '/quote', code: 'required', message: 'give --quote, --write or --read' }],
            });
          }
          const row = await changePartnerRateLimits(db, actor, partner.id, changes);
          const e = effective(row);
          return {
            data: { partner: partner.slug, limits: e },
            lines: [
              `Rate limits of ${partner.slug} set (each API key; running processes apply them within a second):`,
              ...lines(partner.slug, e),
            ],
          };
        },
        (pointer) => ({ '/quote': '--quote', '/write': '--write', '/read': '--read' })[pointer],
      ),
    );
}
