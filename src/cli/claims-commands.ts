import { ENVIRONMENTS } from '../partners/index.ts';
import { Option } from 'commander';
import { CLAIM_STATUSES, expireClaims, listClaimsForOperators, remindClaims } from '../claims/index.ts';
import type { ClaimStatus, Environment } from '../platform/db-schema.ts';
import { formatMoney } from '../platform/money.ts';
import { limitOf, table, when, type CommandKit } from './kit.ts';

/** Operator commands for claims: listing, reminders, expiry (payouts: payouts-commands.ts). */

export function claimsCommands(kit: CommandKit): void {
  const { group, leaf, run, db, services } = kit;
  const names = (pointer: string) => ({ '/limit': '--limit' })[pointer];

  const claims = group(
    'claims',
    'Watch claims: list them, expire the overdue ones',
    'parasol claims list --status awaiting_bank_details',
  );

  leaf(
    claims,
    'list',
    'List claims, newest first, across partners',
    'parasol claims list --env production --status failed',
  )
    .addOption(new Option('--status <status>', 'only claims in this status').choices(CLAIM_STATUSES))
    .addOption(new Option('--env <environment>', 'only this environment').choices(ENVIRONMENTS))
    .option('--partner <slug>', 'only this partner')
    .option('--limit <n>', 'at most this many (default 50)')
    .action(
      run(async (options: { status?: ClaimStatus; env?: Environment; partner?: string; limit?: string }) => {
        const rows = await listClaimsForOperators(db, {
          status: options.status,
          environment: options.env,
          partnerSlug: options.partner,
          limit: limitOf(options.limit, 50),
        });
        const data = rows.map((r) => ({
          claimNumber: r.claim_number,
          contractNumber: r.contract_number,
          partner: r.partner_slug,
          environment: r.environment,
          status: r.status,
          event: r.event,
          flightNumber: r.flight_number,
          departureDate: r.departure_date,
          compensation: { amount: Number(r.compensation_amount), currency: r.currency },
          openedAt: r.opened_at,
          bankDetailsDueAt: r.bank_details_due_at,
          paidAt: r.paid_at,
          failureReason: r.failure_reason,
        }));
        const lines = rows.length
          ? table(
              ['CLAIM', 'CONTRACT', 'PARTNER', 'ENV', 'STATUS', 'FLIGHT', 'DATE', 'AMOUNT', 'OPENED'],
              rows.map((r) => [
                r.claim_number,
                r.contract_number,
                r.partner_slug,
                r.environment,
                r.status,
                r.flight_number,
                r.departure_date,
                formatMoney(Number(r.compensation_amount), r.currency),
                when(r.opened_at),
              ]),
            )
          : ['No claims match.'];
        return { data: { claims: data }, lines };
      }, names),
    );

  leaf(
    claims,
    'expire',
    'Expire now the claims whose bank details are overdue (a job does it every 15 minutes)',
    'parasol claims expire',
  ).action(
    run(async () => {
      const { jobs } = services();
      const expired = await expireClaims({ db, jobs, now: () => new Date() });
      return { data: { expired }, lines: [expired ? `Expired ${expired} claim(s).` : 'No claim is overdue.'] };
    }),
  );

  leaf(
    claims,
    'remind',
    'Remind now the customers whose claim still waits for bank details within PARASOL_BANK_DETAILS_REMINDER_DAYS of its due date (a job does it every 15 minutes; once per due date)',
    'parasol claims remind',
  ).action(
    run(async () => {
      const { config, jobs, keys } = services();
      const reminded = await remindClaims({
        db,
        jobs,
        keys,
        publicUrl: config.publicUrl,
        bankDetailsDays: config.bankDetailsDays,
        insurer: config.insurer,
        reminderDays: config.bankDetailsReminderDays,
        now: () => new Date(),
      });
      return { data: { reminded }, lines: [reminded ? `Reminded ${reminded} customer(s).` : 'No claim to remind.'] };
    }),
  );
}
