import { ENVIRONMENTS } from '../partners/model.ts';
import { Option } from 'commander';
import { listClaimsForOperators } from '../claims/claims-repo.ts';
import { expireClaims } from '../claims/expire-claims.ts';
import { listPayouts } from '../payouts/payouts-repo.ts';
import { createSepaBatch, exportSepaBatch, reconcilePayouts } from '../payouts/sepa-batch.ts';
import type { ClaimStatus, Environment, PayoutStatus } from '../platform/db-schema.ts';
import { DomainError } from '../platform/errors.ts';
import { createOperatorToken, listOperatorTokens, revokeOperatorToken } from '../platform/operator-tokens.ts';
import { formatMoney } from '../platform/money.ts';
import { table, when, type CommandKit } from './program.ts';

/** Operator commands for claims and payouts: listings, expiry, SEPA batches and reconciliation. */

const CLAIM_STATUSES = ['opened', 'awaiting_bank_details', 'payment_pending', 'paid', 'expired', 'failed'] as const;
const PAYOUT_STATUSES = ['pending', 'instructed', 'paid', 'failed'] as const;

function limitOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 10_000) {
    throw new DomainError('validation_failed', 'The limit must be a whole number from 1 to 10000.', { errors: [{ field: '/limit', message: 'from 1 to 10000' }] });
  }
  return Number(text);
}

export function claimsCommands(kit: CommandKit): void {
  const { group, leaf, run, db, actor, services } = kit;
  const names = (pointer: string) => ({ '/limit': '--limit', '/executionDate': '--execution-date' })[pointer];

  const claims = group('claims', 'Watch claims: list them, expire the overdue ones', 'parasol claims list --status awaiting_bank_details');

  leaf(claims, 'list', 'List claims, newest first, across partners', 'parasol claims list --env production --status failed')
    .addOption(new Option('--status <status>', 'only claims in this status').choices(CLAIM_STATUSES))
    .addOption(new Option('--env <environment>', 'only this environment').choices(ENVIRONMENTS))
    .option('--partner <slug>', 'only this partner')
    .option('--limit <n>', 'at most this many (default 50)')
    .action(
      run(async (options: { status?: ClaimStatus; env?: Environment; partner?: string; limit?: string }) => {
        const rows = await listClaimsForOperators(db, { status: options.status, environment: options.env, partnerSlug: options.partner, limit: limitOf(options.limit, 50) });
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
              rows.map((r) => [r.claim_number, r.contract_number, r.partner_slug, r.environment, r.status, r.flight_number, r.departure_date, formatMoney(Number(r.compensation_amount), r.currency), when(r.opened_at)]),
            )
          : ['No claims match.'];
        return { data: { claims: data }, lines };
      }, names),
    );

  leaf(claims, 'expire', 'Expire now the claims whose bank details are overdue (a job does it every 15 minutes)', 'parasol claims expire').action(
    run(async () => {
      const { jobs } = services();
      const expired = await expireClaims({ db, jobs, now: () => new Date() });
      return { data: { expired }, lines: [expired ? `Expired ${expired} claim(s).` : 'No claim is overdue.'] };
    }),
  );

  const payouts = group('payouts', 'Pay claims: SEPA credit transfer batches and the bank report', 'parasol payouts batch');

  leaf(payouts, 'list', 'List payouts, newest first', 'parasol payouts list --status instructed')
    .addOption(new Option('--status <status>', 'only payouts in this status').choices(PAYOUT_STATUSES))
    .addOption(new Option('--env <environment>', 'only this environment').choices(ENVIRONMENTS))
    .option('--limit <n>', 'at most this many (default 50)')
    .action(
      run(async (options: { status?: PayoutStatus; env?: Environment; limit?: string }) => {
        const rows = await listPayouts(db, { status: options.status, environment: options.env, limit: limitOf(options.limit, 50) });
        const data = rows.map((r) => ({
          claimNumber: r.claim_number,
          partner: r.partner_slug,
          environment: r.environment,
          rail: r.rail,
          status: r.status,
          attempt: r.attempt,
          endToEndId: r.end_to_end_id,
          amount: { amount: Number(r.amount), currency: r.currency },
          batch: r.message_id,
          createdAt: r.created_at,
          settledAt: r.settled_at,
          failureReason: r.failure_reason,
        }));
        const lines = rows.length
          ? table(
              ['CLAIM', 'PARTNER', 'ENV', 'RAIL', 'STATUS', 'TRY', 'END-TO-END ID', 'AMOUNT', 'BATCH', 'SETTLED'],
              rows.map((r) => [r.claim_number, r.partner_slug, r.environment, r.rail, r.status, String(r.attempt), r.end_to_end_id, formatMoney(Number(r.amount), r.currency), r.message_id ?? '-', when(r.settled_at)]),
            )
          : ['No payouts match.'];
        return { data: { payouts: data }, lines };
      }, names),
    );

  leaf(payouts, 'batch', 'Gather pending production payouts into a SEPA credit transfer file (pain.001.001.09)', 'parasol payouts batch --execution-date 2026-12-01')
    .option('--execution-date <date>', 'requested execution date, YYYY-MM-DD (default: next weekday)')
    .option('--limit <n>', `at most this many transfers in the file (default and maximum 5000)`)
    .action(
      run(async (options: { executionDate?: string; limit?: string }) => {
        const { config, keys } = services();
        if (options.executionDate !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(options.executionDate)) {
          throw new DomainError('validation_failed', 'The execution date must be YYYY-MM-DD.', { errors: [{ field: '/executionDate', message: 'YYYY-MM-DD' }] });
        }
        const result = await createSepaBatch(
          { db, keys, now: () => new Date(), debtor: config.sepaDebtor, directory: config.payoutsDir },
          { actor, executionDate: options.executionDate, limit: limitOf(options.limit, 5_000) },
        );
        if (!result) return { data: { batch: null }, lines: ['No payout is waiting for a SEPA transfer.'] };
        return {
          data: { batch: result },
          lines: [
            `Batch ${result.messageId}: ${result.payouts} transfer(s), ${result.controlSum} EUR, execution ${result.executionDate}.`,
            `File: ${result.path}`,
            'Send it to the bank; import its report with: parasol payouts reconcile <report.csv>',
          ],
        };
      }, names),
    );

  leaf(payouts, 'export <batch>', 'Write a batch file again from the database (by batch id or message id)', 'parasol payouts export PSL-20261201-0A1B2C3D4E5F6071').action(
    run(async (batch: string) => {
      const { config, keys } = services();
      const path = await exportSepaBatch({ db, keys, directory: config.payoutsDir }, batch);
      return { data: { path }, lines: [`File: ${path}`] };
    }),
  );

  leaf(payouts, 'reconcile <file>', "Import the bank's report: CSV endToEndId,status[,reason] with status paid or failed", 'parasol payouts reconcile report.csv').action(
    run(async (file: string) => {
      const { config, jobs } = services();
      let text: string;
      try {
        text = await kit.readFile(file);
      } catch (error) {
        throw new DomainError('not_found', `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`);
      }
      const report = await reconcilePayouts({ db, jobs, now: () => new Date(), bankDetailsDays: config.bankDetailsDays }, text, actor);
      const o = report.outcomes;
      return {
        data: report,
        lines: [
          `${report.rows} row(s): ${o.paid} paid, ${o.failed} failed, ${o.unchanged} already known, ${o.unknown} unknown, ${o.superseded} superseded, ${o.conflict} in conflict.`,
          ...report.issues.map((i) => `  line ${i.line}: ${i.endToEndId} ${i.outcome}`),
        ],
      };
    }),
  );

  const operators = group('operators', "The insurer's API credentials (POST /flight-delay/v1/claims in any environment)", 'parasol operators token-create --name night-shift');

  leaf(operators, 'token-create', 'Create an operator token (shown once)', 'parasol operators token-create --name night-shift')
    .requiredOption('--name <name>', 'who or what uses it')
    .action(
      run(async (options: { name: string }) => {
        const { token, plaintext } = await createOperatorToken(db, actor, options.name);
        return {
          data: { token, plaintext },
          lines: [`Created operator token ${token.name} (${token.id}).`, '', `  ${plaintext}`, '', 'It is shown only now: store it in your secrets manager.'],
        };
      }, (pointer) => ({ '/name': '--name' })[pointer]),
    );

  leaf(operators, 'token-list', 'List operator tokens', 'parasol operators token-list').action(
    run(async () => {
      const tokens = await listOperatorTokens(db);
      const lines = tokens.length
        ? table(['NAME', 'ID', 'CREATED', 'LAST USED', 'REVOKED'], tokens.map((t) => [t.name, t.id, when(t.createdAt), when(t.lastUsedAt), when(t.revokedAt)]))
        : ['No operator tokens.'];
      return { data: { tokens }, lines };
    }),
  );

  leaf(operators, 'token-revoke <id>', 'Revoke an operator token', 'parasol operators token-revoke 0b9f…').action(
    run(async (id: string) => {
      const token = await revokeOperatorToken(db, actor, id);
      return { data: { token }, lines: [`Revoked operator token ${token.name} (${token.id}).`] };
    }),
  );
}
