import { sql } from 'kysely';
import { audit } from './audit.ts';
import { tagClientAddress } from './client-address.ts';
import { openField, type Keyring } from './crypto.ts';
import type { Db, Executor } from './db.ts';
import { maskClaimReasonIn, maskPersonalDataIn } from './personal-text.ts';
import { addressCounterKeyOf, emailCounterKeyOf, HASHED_COUNTER } from './throttle-keys.ts';

/**
 * Rewrites, once, what rows written by earlier versions keep in clear that the current version never
 * writes (docs/OPERATIONS.md, "Upgrading: personal data in old rows"):
 *
 * - `login_throttle`: the sign-in and reset counters keyed by the typed email or the client address
 *   in clear are re-keyed by their HMAC (platform/throttle-keys.ts), merged with a counter the new
 *   version may have started under that key meanwhile (the larger count, the later lock);
 * - `audit_log`: the client address of sign-ins and password-reset requests becomes its keyed hash
 *   and network (platform/client-address.ts); free-text reasons (the claim desk's, the bank's refusals,
 *   stop-sales…) and the labels API keys were created with (entity `api_key`) are masked
 *   (platform/personal-text.ts). Webhook endpoint descriptions are never audited (only whether one
 *   changed);
 * - the bank's refusal reasons on `payouts` and `claims` and in the `webhook_events` kept for
 *   redelivery, the claims' manual-review reasons and the stop-sales' reasons are masked; so are API
 *   key labels and webhook endpoint descriptions (free text masked when written since 0054's release);
 * - the claim desk's reasons (the claims' `manual_review_reason`, the claims' other audit rows with a
 *   reason) are masked as the desk masks them now (`maskClaimReasonIn`): the claim's own IBAN and US
 *   account number, opened with the keyring, wherever quoted, and US account numbers by their place;
 * - the bank's reasons (payouts' and claims' `failure_reason`, the claims' `payment_failed` and
 *   `payment_returned` audit rows, `claim.failed` webhook events) are masked of the account holder's
 *   name too, as settlePayout masks a reason it stores now: the claim's sealed holder is opened with
 *   the keyring the command runs with (the server's: PARASOL_MASTER_KEY or the key file, and
 *   PARASOL_MASTER_KEYS_PREVIOUS), and so is the claim's US account number (migration 0061), masked to
 *   its last four where a reason quotes it (`maskAccountNumberIn`). A holder that opens with none of those keys is not guessed at: the
 *   reason keeps its other masks and the name if it quotes it, and its claim is counted, once, in
 *   `holdersNotOpened` (each run counts them again, until a run holds the key that sealed them). The
 *   holder is the claim's current one: a reason quoting the holder of details the customer replaced
 *   since keeps that earlier name.
 *
 * A migration cannot do it: the HMAC needs the key, the masking recognises IBANs by their check digits.
 * Batches of one transaction each, walking each table in key order; each row is rewritten by one
 * UPDATE guarded by its old value, so a run stopped half-way is resumed by running it again, two runs
 * at once never rewrite a row twice, and a run after the last finds nothing to do (each run is
 * audited: entity `database`, id `scrub`, with its counts). The agreements'
 * amendment reasons are left as written: `agreement_versions` is immutable (migration 0029).
 *
 * On PostgreSQL the old values stay in dead row versions until the table is rewritten: afterwards run
 * `VACUUM FULL login_throttle, audit_log, payouts, claims, webhook_events, stop_sales, api_keys,
 * webhook_endpoints`.
 */
export interface ScrubReport {
  throttleCounters: number;
  auditAddresses: number;
  auditReasons: number;
  auditApiKeyLabels: number;
  payoutReasons: number;
  claimReasons: number;
  webhookEvents: number;
  stopSaleReasons: number;
  apiKeyLabels: number;
  webhookDescriptions: number;
  /**
   * Not rows rewritten: the claims (each once) with a bank reason whose account holder opens with
   * none of the keys held, their reasons left without the name masked (a later run with the key masks
   * them). The fixed texts written when the bank gave no reason are not looked up: they quote no one.
   */
  holdersNotOpened: number;
}

/** The rows rewritten a report counts (every count but `holdersNotOpened`). */
export function rowsRewritten(report: ScrubReport): number {
  const { holdersNotOpened: _left, ...rewritten } = report;
  return Object.values(rewritten).reduce((a, b) => a + b, 0);
}

/** The audit rows of a claim that keep the bank's reason (payouts/payouts.ts, settlePayout). */
const BANK_REASON_ACTIONS = ['payment_failed', 'payment_returned'];

/**
 * The reasons written in place of a bank's, fixed texts that name no one: settlePayout's when the bank
 * gave none, the simulated bank's (payouts/payouts.ts), claim.failed's when the claim had none
 * (webhooks). A reason among them needs no account holder opened.
 */
const FIXED_BANK_REASONS = new Set([
  'rejected by the bank',
  'returned by the bank',
  'AC04 closed account number (simulated bank)',
  'AC04 closed account number (simulated bank: transfer returned)',
  'payment_failed',
]);

const COUNTER = /^(partner|operator|reset):(account|address):(.*)$/s;

export async function scrubOldRows(
  db: Db,
  keys: Pick<Keyring, 'lookup' | 'encryption'>,
  actor: string,
  batchSize = 200,
): Promise<ScrubReport> {
  const report: ScrubReport = {
    throttleCounters: 0,
    auditAddresses: 0,
    auditReasons: 0,
    auditApiKeyLabels: 0,
    payoutReasons: 0,
    claimReasons: 0,
    webhookEvents: 0,
    stopSaleReasons: 0,
    apiKeyLabels: 0,
    webhookDescriptions: 0,
    holdersNotOpened: 0,
  };

  /** The claims whose holder opened with none of the keys: `holdersNotOpened` counts each once. */
  const notOpened = new Set<string>();
  /**
   * The account holder of the claim (by id or number) whose bank `reason` this is, opened: undefined
   * for a fixed reason (FIXED_BANK_REASONS: no lookup), '' when the claim has no bank details;
   * undefined too, the claim counted in `holdersNotOpened`, when its sealed name opens with none of the keys.
   * With the name, a US account's number (migration 0061), which the reason may quote as well.
   */
  const holderOf = async (
    trx: Executor,
    claim: { id: string } | { number: string },
    reason: string,
  ): Promise<{ name: string; accountNumber?: string } | undefined> => {
    if (FIXED_BANK_REASONS.has(reason.trim())) return undefined;
    const row = await trx
      .selectFrom('claim_bank_details as d')
      .innerJoin('claims as c', 'c.id', 'd.claim_id')
      .select(['c.id', 'd.account_holder_enc', 'd.account_holder', 'd.us_account_enc'])
      .$if('id' in claim, (q) => q.where('c.id', '=', (claim as { id: string }).id))
      .$if('number' in claim, (q) => q.where('c.claim_number', '=', (claim as { number: string }).number))
      .executeTakeFirst();
    let accountNumber: string | undefined;
    if (row?.us_account_enc)
      try {
        accountNumber = openField(keys.encryption, row.us_account_enc, null);
      } catch {
        // masked without it, as without the name below (the same keys sealed both)
      }
    if (!row || (row.account_holder_enc === null && row.account_holder === null)) return { name: '', accountNumber };
    try {
      return { name: openField(keys.encryption, row.account_holder_enc, row.account_holder), accountNumber };
    } catch {
      notOpened.add(row.id);
      report.holdersNotOpened = notOpened.size;
      return undefined;
    }
  };
  /**
   * The claim's own account (IBAN, US account number), opened, for a desk reason about it: masked
   * wherever the reason quotes it, as the desk does now (`maskClaimReasonIn`); none it cannot open.
   */
  const ownAccountOf = async (
    trx: Executor,
    claim: { id: string } | { number: string },
  ): Promise<{ iban?: string; usAccount?: string }> => {
    const row = await trx
      .selectFrom('claim_bank_details as d')
      .innerJoin('claims as c', 'c.id', 'd.claim_id')
      .select(['d.iban_enc', 'd.us_account_enc'])
      .$if('id' in claim, (q) => q.where('c.id', '=', (claim as { id: string }).id))
      .$if('number' in claim, (q) => q.where('c.claim_number', '=', (claim as { number: string }).number))
      .executeTakeFirst();
    const open = (sealed: string | null | undefined) => {
      if (!sealed) return undefined;
      try {
        return openField(keys.encryption, sealed, null);
      } catch {
        return undefined; // masked without it: its other masks hold
      }
    };
    return { iban: open(row?.iban_enc), usAccount: open(row?.us_account_enc) };
  };

  /** Walks a table in key order, a batch per transaction; `step` answers the batch's last key and the rows rewritten. */
  const walk = async <K>(
    first: K,
    step: (trx: Executor, after: K) => Promise<{ last: K | undefined; rewritten: number }>,
  ): Promise<number> => {
    let after = first;
    let total = 0;
    for (;;) {
      const { last, rewritten } = await db.transaction().execute((trx) => step(trx, after));
      total += rewritten;
      if (last === undefined) return total;
      after = last;
    }
  };

  // login_throttle: counters keyed in clear, re-keyed by their HMAC
  report.throttleCounters = await walk('', async (trx, after) => {
    const rows = await trx
      .selectFrom('login_throttle')
      .select(['key', 'attempts', 'window_start', 'locked_until'])
      .where('key', '>', after)
      .where((eb) =>
        eb.or([eb('key', 'like', 'partner:%'), eb('key', 'like', 'operator:%'), eb('key', 'like', 'reset:%')]),
      )
      .orderBy('key')
      .limit(batchSize)
      .execute();
    let rewritten = 0;
    for (const row of rows) {
      const [, prefix, kind, held] = COUNTER.exec(row.key) ?? [];
      if (!prefix || !kind || held === undefined || HASHED_COUNTER.test(held)) continue;
      const key =
        kind === 'account'
          ? emailCounterKeyOf(keys.lookup, `${prefix}:account`, held)
          : addressCounterKeyOf(keys.lookup, prefix, held);
      const removed = await trx.deleteFrom('login_throttle').where('key', '=', row.key).returning('key').execute();
      if (removed.length === 0) continue; // another run took it
      await trx
        .insertInto('login_throttle')
        .values({ key, attempts: row.attempts, window_start: row.window_start, locked_until: row.locked_until })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            attempts: sql`greatest(login_throttle.attempts, excluded.attempts)`,
            window_start: sql`least(login_throttle.window_start, excluded.window_start)`,
            locked_until: sql`greatest(login_throttle.locked_until, excluded.locked_until)`,
          }),
        )
        .execute();
      rewritten += 1;
    }
    return { last: rows.length < batchSize ? undefined : rows.at(-1)!.key, rewritten };
  });

  // audit_log: client addresses in clear, and free-text reasons
  const auditWalk = (field: 'address' | 'reason' | 'label') =>
    walk(0, async (trx, after) => {
      const rows = await trx
        .selectFrom('audit_log')
        .select(['id', 'entity', 'entity_id', 'action', sql<string | null>`data->>${field}`.as('held')])
        .where('id', '>', after)
        .where(sql<boolean>`jsonb_typeof(data->${field}) = 'string'`)
        // the client address: only the rows that recorded one (sign-ins, reset requests)
        .$if(field === 'address', (q) => q.where('action', 'in', ['signed_in', 'password_reset_requested']))
        // the label an API key was created with (partners/api-keys.ts audits it)
        .$if(field === 'label', (q) => q.where('entity', '=', 'api_key'))
        .orderBy('id')
        .limit(batchSize)
        .execute();
      let rewritten = 0;
      for (const row of rows) {
        const held = row.held ?? '';
        if (field === 'address') {
          const tag = tagClientAddress(keys.lookup, held);
          const done = await trx
            .updateTable('audit_log')
            .set({
              data: sql`(data - 'address') || jsonb_build_object('addressHmac', ${tag.addressHmac}::text, 'network', ${tag.network}::text)`,
            })
            .where('id', '=', row.id)
            .where(sql<boolean>`data->>'address' = ${held}`)
            .executeTakeFirst();
          rewritten += Number(done.numUpdatedRows);
        } else {
          // the bank's reason a claim's payment failed or was returned with: its holder's name too
          const bank = field === 'reason' && row.entity === 'claim' && BANK_REASON_ACTIONS.includes(row.action);
          const known = bank ? await holderOf(trx, { number: row.entity_id }, held) : undefined;
          // a desk action's reason: the claim's own account, and US accounts by their place, as the desk masks now
          const desk = field === 'reason' && row.entity === 'claim' && !bank;
          const masked = desk
            ? maskClaimReasonIn(held, await ownAccountOf(trx, { number: row.entity_id }))
            : maskPersonalDataIn(held, known?.name, known?.accountNumber);
          if (masked === held) continue;
          const done = await trx
            .updateTable('audit_log')
            .set({ data: sql`jsonb_set(data, ${`{${field}}`}::text[], to_jsonb(${masked}::text))` })
            .where('id', '=', row.id)
            .where(sql<boolean>`data->>${field} = ${held}`)
            .executeTakeFirst();
          rewritten += Number(done.numUpdatedRows);
        }
      }
      return { last: rows.length < batchSize ? undefined : Number(rows.at(-1)!.id), rewritten };
    });
  report.auditAddresses = await auditWalk('address');
  report.auditReasons = await auditWalk('reason');
  report.auditApiKeyLabels = await auditWalk('label');

  // free-text columns: masked where they quote personal data
  const columnWalk = async (
    table: 'payouts' | 'claims' | 'stop_sales' | 'api_keys' | 'webhook_endpoints',
    column: 'failure_reason' | 'manual_review_reason' | 'reason' | 'label' | 'description',
    /** The bank's reason: the column naming the claim whose account holder is masked too. */
    claimColumn?: 'claim_id' | 'id',
    /** A desk reason on the claim row: masked as the desk masks now, its own account included. */
    deskReason = false,
  ): Promise<number> =>
    walk('', async (trx, after) => {
      const rows = (
        await sql<{ id: string; held: string; claim_id: string | null }>`
          SELECT id::text AS id, ${sql.ref(column)} AS held,
                 ${claimColumn ? sql`${sql.ref(claimColumn)}::text` : sql`NULL`} AS claim_id
          FROM ${sql.table(table)}
          WHERE id::text > ${after} AND ${sql.ref(column)} IS NOT NULL
          ORDER BY id::text LIMIT ${batchSize}`.execute(trx)
      ).rows;
      let rewritten = 0;
      for (const row of rows) {
        const known = row.claim_id === null ? undefined : await holderOf(trx, { id: row.claim_id }, row.held);
        const masked = deskReason
          ? maskClaimReasonIn(row.held, await ownAccountOf(trx, { id: row.id }))
          : maskPersonalDataIn(row.held, known?.name, known?.accountNumber);
        if (masked === row.held) continue;
        const done = await sql`
          UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${masked}
          WHERE id::text = ${row.id} AND ${sql.ref(column)} = ${row.held}`.execute(trx);
        rewritten += Number(done.numAffectedRows ?? 0);
      }
      return { last: rows.length < batchSize ? undefined : rows.at(-1)!.id, rewritten };
    });
  report.payoutReasons = await columnWalk('payouts', 'failure_reason', 'claim_id');
  report.claimReasons =
    (await columnWalk('claims', 'failure_reason', 'id')) +
    (await columnWalk('claims', 'manual_review_reason', undefined, true));
  report.stopSaleReasons = await columnWalk('stop_sales', 'reason');
  report.apiKeyLabels = await columnWalk('api_keys', 'label');
  report.webhookDescriptions = await columnWalk('webhook_endpoints', 'description');

  // webhook events kept for redelivery: the bank's reason of a failed payment (a json column: the
  // payload is rewritten from JavaScript, which keeps its keys in their order)
  report.webhookEvents = await walk('', async (trx, after) => {
    const rows = await trx
      .selectFrom('webhook_events')
      .select(['id', 'payload'])
      .where('id', '>', after)
      .where(sql<boolean>`json_typeof(payload->'data'->'failureReason') = 'string'`)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    let rewritten = 0;
    for (const row of rows) {
      const payload = row.payload as { data: { failureReason: string; claimNumber?: unknown } };
      const held = payload.data.failureReason;
      const claimNumber = payload.data.claimNumber;
      const known = typeof claimNumber === 'string' ? await holderOf(trx, { number: claimNumber }, held) : undefined;
      const masked = maskPersonalDataIn(held, known?.name, known?.accountNumber);
      if (masked === held) continue;
      const done = await trx
        .updateTable('webhook_events')
        .set({ payload: JSON.stringify({ ...payload, data: { ...payload.data, failureReason: masked } }) })
        .where('id', '=', row.id)
        .where(sql<boolean>`payload->'data'->>'failureReason' = ${held}`)
        .executeTakeFirst();
      rewritten += Number(done.numUpdatedRows);
    }
    return { last: rows.length < batchSize ? undefined : rows.at(-1)!.id, rewritten };
  });

  await audit(db, { actor, entity: 'database', entityId: 'scrub', action: 'scrubbed', data: report });
  return report;
}
