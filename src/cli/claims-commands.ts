import { ENVIRONMENTS, requirePartner } from '../partners/index.ts';
import { Option } from 'commander';
import {
  CLAIM_STATUSES,
  claimEvidence,
  claimTrail,
  correctClaimPhone,
  correctVoidCause,
  expireClaims,
  requeueNeverNotified,
  findClaimForDesk,
  operatorClaimsPage,
  heldReminders,
  remindClaims,
  resendClaimLink,
  type ClaimEvidence,
  type DeskAction,
  type DeskOutcome,
} from '../claims/index.ts';
import { claimMessages, maskPhone, messageStatusText } from '../notify/index.ts';
import {
  approveManualPayout,
  correctClaimCompensation,
  listClaimPayoutAttempts,
  reviewClaim,
  voidClaim,
} from '../payouts/index.ts';
import { decrypt } from '../platform/crypto.ts';
import { DomainError } from '../platform/errors.ts';
import type { ClaimStatus, Environment } from '../platform/db-schema.ts';
import { formatMoney } from '../platform/money.ts';
import { deskOptions, deskResult, limitOf, pairs, table, when, type CommandKit } from './kit.ts';
import { leftOutMark } from './payout-output.ts';

/** Operator commands for claims: listing, reminders, expiry, the claim desk (payouts: payouts-commands.ts). */

/** A claim's evidence as `claims show` prints it: the fields of the claim page's, times in UTC. */
function evidenceLines(e: ClaimEvidence): string[] {
  const at = (iso: string | null) => when(iso ? new Date(iso) : null);
  const rule =
    e.rule.trigger === 'delay_tier' ? `delay ≥ ${e.rule.minDelayMinutes ?? '?'} min` : (e.rule.trigger as string);
  return pairs([
    [
      'source',
      `${e.source}${e.provider ? ` (${e.provider}${e.providerFlightId ? ` ${e.providerFlightId}` : ''})` : ''}`,
    ],
    ['departure', `${at(e.scheduledDeparture)} scheduled, ${at(e.actualDeparture)} actual`],
    ['arrival', `${at(e.scheduledArrival)} scheduled, ${at(e.actualArrival)} actual (gate)`],
    ...(e.divertedTo ? [['diverted to', e.divertedTo] as [string, string]] : []),
    ['delay computed', e.delayMinutes === null ? '-' : `${e.delayMinutes} min`],
    [
      'rule',
      `${rule} → ${formatMoney(e.rule.amountPerPassenger.amount, e.rule.amountPerPassenger.currency)} × ${e.rule.passengers} (configuration v${e.rule.configurationVersion})`,
    ],
    ['decided', at(e.decidedAt)],
    ...(e.replaces ? [['replaces', e.replaces] as [string, string]] : []),
  ]);
}

export function claimsCommands(kit: CommandKit): void {
  const { group, leaf, run, db, services, actor } = kit;
  const names = (pointer: string) => ({ '/limit': '--limit', '/cursor': '--cursor' })[pointer];
  const deskNames = (pointer: string) =>
    ({ '/reason': '--reason', '/phone': '--phone', '/cause': '--cause', '/actionToken': '--once' })[pointer];

  const claims = group(
    'claims',
    'Watch claims and act on one: list, show, expire, remind, resend-link, correct-phone, review, correct-amount, approve, void, void-cause',
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
    .option('--partner <slug-or-id>', 'only this partner (its slug or id; an unknown one is refused)')
    .option('--limit <n>', 'at most this many (default 50)')
    .option('--cursor <cursor>', 'the next page: the cursor the previous page printed (same filters)')
    .action(
      run(
        async (options: {
          status?: ClaimStatus;
          env?: Environment;
          partner?: string;
          limit?: string;
          cursor?: string;
        }) => {
          const { rows, nextCursor } = await operatorClaimsPage(db, services().keys, {
            status: options.status,
            environment: options.env,
            partnerSlug: options.partner === undefined ? undefined : (await requirePartner(db, options.partner)).slug,
            cursor: options.cursor,
            cursorField: '/cursor',
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
          if (nextCursor) lines.push(`More: the same command with --cursor ${nextCursor}`);
          return { data: { claims: data, nextCursor }, lines };
        },
        names,
      ),
    );

  leaf(
    claims,
    'expire',
    'Expire now the claims whose bank details are overdue, and queue again the first message of a claim still opened 8 hours on (at most 3 times, for a claim opened within 3 days; then it is left for the desk) — a job does both every 15 minutes',
    'parasol claims expire',
  ).action(
    run(async () => {
      const { jobs } = services();
      const now = () => new Date();
      // audited as the operator who ran it (the scheduled job's rows say `system`)
      const expired = await expireClaims({ db, jobs, now, actor });
      const { requeued, abandoned } = await requeueNeverNotified({ db, jobs, now, actor });
      const lines = [expired ? `Expired ${expired} claim(s).` : 'No claim is overdue.'];
      if (requeued) lines.push(`Queued again the first message of ${requeued} claim(s) never notified.`);
      if (abandoned.length)
        lines.push(
          `Left for the desk ${abandoned.length} claim(s) never notified (still opened): ${abandoned.join(', ')}.`,
        );
      return { data: { expired, requeued, abandoned }, lines };
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
      // audited as the operator who ran it (the scheduled job's rows say `system`), as `claims expire`
      const reminded = await remindClaims({
        db,
        jobs,
        keys,
        publicUrl: config.publicUrl,
        bankDetailsDays: config.bankDetailsDays,
        insurer: config.insurer,
        reminderDays: config.bankDetailsReminderDays,
        quietHours: config.smsQuietHours,
        now: () => new Date(),
        actor,
      });
      // at night, reminders held by the customers' quiet hours: said, not silently left out
      const held = await heldReminders(db, new Date());
      const lines = [reminded ? `Reminded ${reminded} customer(s).` : 'No claim to remind.'];
      if (held) lines.push(`${held} reminder(s) held until the customer's morning (quiet hours).`);
      return { data: { reminded, held }, lines };
    }),
  );

  // ---- the claim desk (docs/OPERATOR.md): the claim page's actions, through the same use cases

  leaf(
    claims,
    'show <claimNumber>',
    'Show one claim: its facts (personal data masked), messages sent, payout attempts and audit trail',
    'parasol claims show CLM-00000042',
  ).action(
    run(async (claimNumber: string) => {
      const { keys } = services();
      const claim = await findClaimForDesk(db, claimNumber.trim().toUpperCase());
      if (!claim) throw new DomainError('claim_not_found', `No claim ${claimNumber}.`);
      const [messages, attempts, trail] = await Promise.all([
        claimMessages(db, keys.encryption, claim.id),
        listClaimPayoutAttempts(db, claim.id),
        claimTrail(db, claim),
      ]);
      const now = new Date();
      const leftOut = (a: (typeof attempts)[number]) => leftOutMark(a, now);
      const phone = maskPhone(decrypt(keys.encryption, claim.customer_phone_enc));
      const review = claim.manual_review_at
        ? { at: claim.manual_review_at, by: claim.manual_review_by, reason: claim.manual_review_reason }
        : null;
      // the leg's cause is this claim's void's until a new claim replaced it (then the latest void's, if any)
      const voided =
        claim.status === 'voided'
          ? claim.replaced_by
            ? { cause: null, replacedBy: claim.replaced_by }
            : { cause: claim.claim_void_cause, replacedBy: null }
          : null;
      // the evidence the claim was decided on, as the claim page and the claims API show it
      const evidence = claimEvidence(claim);
      const data = {
        claimNumber: claim.claim_number,
        contractNumber: claim.contract_number,
        partner: claim.partner_slug,
        environment: claim.environment,
        status: claim.status,
        event: claim.event,
        reason: claim.reason,
        flightNumber: claim.flight_number,
        departureDate: claim.departure_date,
        compensation: { amount: Number(claim.compensation_amount), currency: claim.currency },
        customerLanguage: claim.customer_language,
        phone,
        ibanLast4: claim.iban_last4,
        bankDetailsDueAt: claim.bank_details_due_at,
        failureReason: claim.failure_reason,
        evidence,
        void: voided,
        manualReview: review,
        messages,
        payoutAttempts: attempts.map((a) => ({
          attempt: a.attempt,
          endToEndId: a.end_to_end_id,
          rail: a.rail,
          status: a.status,
          amount: { amount: a.amount, currency: a.currency },
          failureReason: a.failure_reason,
          bankFile: a.message_id,
          settledAt: a.settled_at,
          leftOut:
            a.status === 'pending' && a.left_out_at
              ? { since: a.left_out_at, code: a.left_out_code, reason: a.left_out_reason }
              : null,
        })),
        audit: trail,
      };
      const lines = [
        `${claim.claim_number} (${claim.partner_slug}, ${claim.environment}) — contract ${claim.contract_number}`,
        `status ${claim.status}, ${claim.reason} (${claim.event}), ${claim.flight_number} ${claim.departure_date}, ${formatMoney(Number(claim.compensation_amount), claim.currency)}`,
        `customer: ${claim.customer_language}, phone ${phone}, account ${claim.iban_last4 ? `•••• ${claim.iban_last4}` : '—'}`,
        `bank details due ${when(claim.bank_details_due_at)}`,
        ...(voided
          ? [
              voided.replacedBy
                ? `voided, replaced by ${voided.replacedBy}`
                : `voided for ${voided.cause ?? 'other'} (parasol claims void-cause corrects it)`,
            ]
          : []),
        review
          ? `manual review since ${when(review.at)} by ${review.by ?? ''}: ${review.reason ?? ''}`
          : 'manual review: no (paid automatically)',
        '',
        'Evidence:',
        ...evidenceLines(evidence).map((line) => `  ${line}`),
        '',
        'Messages:',
        ...(messages.length
          ? table(
              ['KIND', 'CHANNEL', 'STATUS', 'PROVIDER ID', 'ATTEMPTS', 'TO', 'SENT'],
              messages.map((m) => [
                m.kind,
                m.channel,
                messageStatusText(m),
                m.providerMessageId ?? '—',
                String(m.attempts),
                m.to,
                when(m.sentAt),
              ]),
            )
          : ['  none']),
        '',
        'Payout attempts:',
        ...(attempts.length
          ? table(
              ['ATTEMPT', 'END-TO-END ID', 'RAIL', 'AMOUNT', 'STATUS', 'REASON', 'BANK FILE'],
              attempts.map((a) => [
                String(a.attempt),
                a.end_to_end_id,
                a.rail,
                formatMoney(Number(a.amount), a.currency),
                a.status,
                a.failure_reason ?? (leftOut(a) ? `left out: ${leftOut(a)}` : ''),
                a.message_id ?? '',
              ]),
            )
          : ['  none']),
        '',
        'Audit trail:',
        ...table(
          ['AT', 'ACTOR', 'ENTITY', 'ACTION'],
          trail.map((a) => [when(a.at), a.actor, a.entity, a.action]),
        ),
      ];
      return { data, lines };
    }),
  );

  /** A desk action on a claim: the operator as actor, `--reason`, `--once` (kit.ts `deskResult`). */
  const desk = <D extends DeskOutcome>(
    nameAndArgs: string,
    description: string,
    example: string,
    act: (input: DeskAction, options: Record<string, string>) => Promise<D>,
    said: (claimNumber: string, done: D) => string,
  ) =>
    deskOptions(leaf(claims, nameAndArgs, description, example)).action(
      run(
        async (claimNumber: string, options: Record<string, string>) =>
          deskResult(
            actor,
            options,
            (action) => act({ ...action, claimNumber }, options),
            (done) => said(done.claimNumber, done),
          ),
        deskNames,
      ),
    );

  const notifyDeps = () => {
    const { config, jobs, keys } = services();
    return {
      db,
      jobs,
      keys,
      publicUrl: config.publicUrl,
      bankDetailsDays: config.bankDetailsDays,
      insurer: config.insurer,
      now: () => new Date(),
    };
  };

  desk(
    'resend-link <claimNumber>',
    'Text the customer a new bank-details link now (the previous link takes no more details and shows none; the due date stays); for a claim still opened (its first message never sent), queue its first message again',
    'parasol claims resend-link CLM-00000042 --reason "customer lost the SMS"',
    (input) => resendClaimLink(notifyDeps(), input),
    (n, done) =>
      done.firstMessageQueued
        ? `${n}: its first message was queued again (the worker texts it; the claim then waits for bank details).`
        : `${n}: a new link was texted to the customer.`,
  );

  desk(
    'correct-phone <claimNumber>',
    "Correct the customer's phone number on the claim's contract (E.164); the next messages go to it",
    'parasol claims correct-phone CLM-00000042 --phone +33612345678 --reason "customer called"',
    (input, options) => correctClaimPhone(notifyDeps(), { ...input, phone: options.phone ?? '' }),
    (n) => `${n}: the phone number is corrected.`,
  ).requiredOption('--phone <e164>', 'the new number, e.g. +33612345678');

  desk(
    'review <claimNumber>',
    'Mark a claim for manual review: it is not paid automatically (even a payout already queued) until approved',
    'parasol claims review CLM-00000042 --reason "suspicious booking"',
    (input) => reviewClaim({ db, keys: services().keys, now: () => new Date() }, input),
    (n) => `${n} is under manual review: it is not paid until approved (parasol claims approve).`,
  );

  desk(
    'correct-amount <claimNumber>',
    "Correct a claim's compensation (under manual review, before payment; at most what the contract's terms pay for the leg)",
    'parasol claims correct-amount CLM-00000042 --amount 100.00 --reason "delay was 190 min, not 170 (airline record)"',
    (input, options) =>
      correctClaimCompensation(
        { db, keys: services().keys, now: () => new Date() },
        { ...input, amount: options.amount ?? '' },
      ),
    (n) => `${n}: the compensation is corrected; approve the claim to pay it (parasol claims approve).`,
  ).requiredOption('--amount <decimal>', "the new compensation in the claim's currency, e.g. 100.00");

  desk(
    'approve <claimNumber>',
    'End the manual review of a claim: with bank details, paid through the normal path; without, the due date moves by the review',
    'parasol claims approve CLM-00000042 --reason "booking checked with the partner"',
    (input) => approveManualPayout({ db, jobs: services().jobs, keys: services().keys, now: () => new Date() }, input),
    (n) => `${n}: the review is over; the payout is released (or paid once the customer gives bank details).`,
  );

  desk(
    'void <claimNumber>',
    'Void a claim before any money left (opened, waiting for bank details, failed, or its payout still pending): never paid, its pending payout cancelled, its link closed, the customer texted, partners told (claim.voided). Final',
    'parasol claims void CLM-00000042 --cause flight_data --reason "opened on wrong flight data: the flight landed on time (airline record)"',
    (input, options) =>
      voidClaim(
        { db, jobs: services().jobs, keys: services().keys, now: () => new Date() },
        { ...input, cause: options.cause },
      ),
    (n) => `${n} is voided: it will not be paid.`,
  ).option(
    '--cause <cause>',
    'why, for what follows (parasol claims void-cause corrects it): flight_data (the flight data that opened it was wrong: recording the flight’s true outcome, parasol flights event, may open the leg a new claim) or other (fraud, sanctions, duplicate…: the leg never gets another claim); default other',
  );

  desk(
    'void-cause <claimNumber>',
    "Correct a voided claim's cause: flight_data (an operator's flight event, parasol flights event, may open the leg a new claim) or other (never replaced). Refused once a new claim replaced it (claim_replaced)",
    'parasol claims void-cause CLM-00000042 --cause flight_data --reason "voided as other by mistake: the airline record shows the flight landed on time"',
    (input, options) =>
      correctVoidCause({ db, keys: services().keys, now: () => new Date() }, { ...input, cause: options.cause }),
    (n) => `${n}: the void's cause is corrected.`,
  ).requiredOption('--cause <cause>', 'the right cause: flight_data or other');
}
