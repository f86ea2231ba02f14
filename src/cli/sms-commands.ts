import { requirePartner } from '../partners/index.ts';
import { parseInstant } from '../reference/index.ts';
import { smsPlatformFailures } from '../notify/index.ts';
import { DomainError } from '../platform/errors.ts';
import { limitOf, table, when, type CommandKit } from './kit.ts';

/** Production SMS (notify/sms/): what failed on the platform's side — docs/OPERATOR.md, "The SMS provider fails". */
export function smsCommands(kit: CommandKit): void {
  const { group, leaf, run, db, services } = kit;
  const names = (pointer: string) => ({ '/limit': '--limit', '/since': '--since' })[pointer];

  const sms = group(
    'sms',
    "Read the production SMS that failed on the platform's side (Twilio's account, sender, content or throughput)",
    'parasol sms failures --since 2026-11-28T08:00:00Z',
  );

  leaf(
    sms,
    'failures',
    "List the SMS that failed on the platform's side, newest first: a carrier failure of the platform's or a send answered with one (re-queued when passing, 30001), a send the provider refused for the platform's credentials, sender or content, a message given up still queued a day on — never a customer's number (the claim desk's claim.customer_unreachable covers those)",
    'parasol sms failures --partner acme-air --since 2026-11-28T08:00:00Z',
  )
    .option(
      '--since <iso>',
      'only failures at or after this instant (ISO 8601 with its offset, e.g. 2026-11-28T08:00:00Z)',
    )
    .option('--partner <slug-or-id>', 'only this partner (its slug or id; an unknown one is refused)')
    .option('--limit <n>', 'at most this many (default 50)')
    .action(
      run(async (options: { since?: string; partner?: string; limit?: string }) => {
        // with its offset, read as the stop-sales' are: no server-local time, no 30 February read as 2 March
        const since = options.since === undefined ? undefined : parseInstant(options.since);
        if (options.since !== undefined && !since)
          throw new DomainError(
            'validation_failed',
            '--since must be an ISO 8601 instant with its offset, e.g. 2026-11-28T08:00:00Z.',
            {
              errors: [
                {
                  field: '/since',
                  code: 'invalid_format',
                  message: 'must be an ISO 8601 instant with its offset (-12:00 to +14:00), such as 2026-11-28T08:00Z',
                },
              ],
            },
          );
        const partnerId = options.partner === undefined ? undefined : (await requirePartner(db, options.partner)).id;
        const limit = limitOf(options.limit, 50);
        const failures = await smsPlatformFailures(db, services().keys.encryption, { since, partnerId, limit });
        const lines = failures.length
          ? table(
              [
                'AT',
                'CLAIM',
                'PARTNER',
                'KIND',
                'EVENT',
                'PROVIDER',
                'CODE',
                'CLASS',
                'OUTCOME',
                'ATTEMPTS',
                'NOW',
                'TO',
              ],
              failures.map((f) => [
                when(f.at),
                f.claimNumber ?? '—',
                f.partner,
                f.kind,
                f.event,
                f.provider ?? '—',
                f.providerCode === null ? '—' : String(f.providerCode),
                f.failureClass ?? '—',
                f.outcome === 'requeued' ? 're-queued' : 'given up',
                String(f.attempts),
                f.now,
                f.to,
              ]),
            )
          : ["No SMS failed on the platform's side."];
        if (failures.length === limit) lines.push(`At most ${limit} shown: narrow with --since, or raise --limit.`);
        return { data: { failures }, lines };
      }, names),
    );
}
