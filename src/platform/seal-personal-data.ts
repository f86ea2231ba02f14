import { sql, type UpdateResult } from 'kysely';
import {
  BOOKING_REFERENCE_LOOKUP,
  encrypt,
  lookupHash,
  SEALED_WEBHOOK_EVENT_TYPES,
  type EncryptionKeys,
} from './crypto.ts';
import type { Db, Executor } from './db.ts';

/**
 * Seals the personal data that rows written before migration 0010 hold in clear: names of customers,
 * policyholders and account holders, SEPA batch XML, idempotent replays; the bodies and links of
 * the sandbox and preproduction SMS outbox written before migration 0042 (they carry the customer's
 * bank-details link); and policies' insured risk written before migration 0051 (a registration plate,
 * a partner's free-form data); and contracts' booking references, which migration 0054 moved out of
 * `contracts` into contracts_booking_references_unsealed (sealed and hashed into their contract, the
 * moved row deleted); and the payloads of webhook events carrying personal data
 * (SEALED_WEBHOOK_EVENT_TYPES: contract.created and its booking reference) stored in clear before
 * migration 0056. A migration cannot do it (the key is not in the database), so every process that
 * opens the database for the API runs this once at start, in batches of one transaction each.
 * Each row is sealed by one UPDATE guarded by "plaintext still there", so processes starting together
 * never seal a row twice, and a second run finds nothing. Names are read FOR UPDATE: a correction of
 * a name committed meanwhile waits, or is read, never overwritten by the name read before it. Readers accept either form meanwhile
 * (crypto.openField).
 *
 * On PostgreSQL the old values stay in dead row versions until the table is rewritten: after the
 * upgrade, run `VACUUM FULL contracts, policies, claim_bank_details, sepa_batches, idempotency_keys,
 * sms_outbox, contracts_booking_references_unsealed, webhook_events` (docs/DECISIONS.md, "Personal
 * data at rest").
 */
export async function sealPersonalData(
  db: Db,
  encryptionKey: EncryptionKeys | Buffer,
  batchSize = 200,
): Promise<number> {
  const seal = (value: string) => encrypt(encryptionKey, value);
  let sealed = 0;
  // one table's rows, in batches of one transaction each: `read` selects a batch (a short one is the
  // last), `sealRow` seals one row and answers 1 if it did: its guarded UPDATE (or DELETE) changed it,
  // not merely read it — a process sealing the same rows meanwhile seals the others, and each counts
  // only its own
  const sealEach = async <R>(
    read: (trx: Executor) => Promise<R[]>,
    sealRow: (trx: Executor, row: R) => Promise<number>,
  ): Promise<void> => {
    for (;;) {
      const batch = await db.transaction().execute(async (trx) => {
        const rows = await read(trx);
        let n = 0;
        for (const r of rows) n += await sealRow(trx, r);
        return { selected: rows.length, sealed: n };
      });
      sealed += batch.sealed;
      if (batch.selected < batchSize) return;
    }
  };
  const changed = async (update: { executeTakeFirst(): Promise<UpdateResult> }) =>
    Number((await update.executeTakeFirst()).numUpdatedRows);

  await sealEach(
    (trx) =>
      trx
        .selectFrom('contracts')
        .select(['id', 'customer_first_name', 'customer_last_name'])
        .where((eb) => eb.or([eb('customer_first_name', 'is not', null), eb('customer_last_name', 'is not', null)]))
        .limit(batchSize)
        .forUpdate() // as policies' below: a value read is the value sealed
        .execute(),
    (trx, r) =>
      changed(
        trx
          .updateTable('contracts')
          .set((eb) => ({
            customer_first_name_enc:
              r.customer_first_name === null ? eb.ref('customer_first_name_enc') : seal(r.customer_first_name),
            customer_last_name_enc:
              r.customer_last_name === null ? eb.ref('customer_last_name_enc') : seal(r.customer_last_name),
            customer_first_name: null,
            customer_last_name: null,
          }))
          .where('id', '=', r.id)
          .where((eb) => eb.or([eb('customer_first_name', 'is not', null), eb('customer_last_name', 'is not', null)])),
      ),
  );

  // booking references moved out of contracts by migration 0054: sealed and hashed into their
  // contract, then the moved row deleted (the delete is the guard: a row another process sealed is gone)
  await sealEach(
    (trx) =>
      trx
        .selectFrom('contracts_booking_references_unsealed')
        .select(['contract_id', 'booking_reference'])
        // one order for every process starting together: their deletes lock the rows in the same order (no deadlock)
        .orderBy('contract_id')
        .limit(batchSize)
        .execute(),
    async (trx, r) => {
      const deleted = await trx
        .deleteFrom('contracts_booking_references_unsealed')
        .where('contract_id', '=', r.contract_id)
        .executeTakeFirst();
      if (deleted.numDeletedRows === 0n) return 0;
      await trx
        .updateTable('contracts')
        .set({
          booking_reference_enc: seal(r.booking_reference),
          booking_reference_hmac: lookupHash(encryptionKey, BOOKING_REFERENCE_LOOKUP, r.booking_reference),
        })
        .where('id', '=', r.contract_id)
        .execute();
      return 1;
    },
  );

  await sealEach(
    (trx) =>
      trx
        .selectFrom('policies')
        .select(['id', 'holder_first_name', 'holder_last_name'])
        .where((eb) => eb.or([eb('holder_first_name', 'is not', null), eb('holder_last_name', 'is not', null)]))
        .limit(batchSize)
        // locked until sealed: a correction committed between this read and the update would otherwise
        // get the old name (read here) sealed back over the corrected one
        .forUpdate()
        .execute(),
    (trx, r) =>
      changed(
        trx
          .updateTable('policies')
          .set((eb) => ({
            holder_first_name_enc:
              r.holder_first_name === null ? eb.ref('holder_first_name_enc') : seal(r.holder_first_name),
            holder_last_name_enc:
              r.holder_last_name === null ? eb.ref('holder_last_name_enc') : seal(r.holder_last_name),
            holder_first_name: null,
            holder_last_name: null,
          }))
          .where('id', '=', r.id)
          .where((eb) => eb.or([eb('holder_first_name', 'is not', null), eb('holder_last_name', 'is not', null)])),
      ),
  );

  // policies' insured risk, in clear before migration 0051 (a motor policy's registration plate…)
  await sealEach(
    (trx) =>
      trx
        .selectFrom('policies')
        .select(['id', sql<string>`risk::text`.as('risk')])
        .where('risk', 'is not', null)
        .limit(batchSize)
        .execute(),
    (trx, r) =>
      changed(
        trx
          .updateTable('policies')
          .set({ risk_enc: seal(r.risk), risk: null })
          .where('id', '=', r.id)
          .where('risk', 'is not', null),
      ),
  );

  await sealEach(
    (trx) =>
      trx
        .selectFrom('claim_bank_details')
        .select(['claim_id', 'account_holder'])
        .where('account_holder', 'is not', null)
        .limit(batchSize)
        .execute(),
    (trx, r) =>
      changed(
        trx
          .updateTable('claim_bank_details')
          .set({ account_holder_enc: seal(r.account_holder!), account_holder: null })
          .where('claim_id', '=', r.claim_id)
          .where('account_holder', 'is not', null),
      ),
  );

  await sealEach(
    (trx) =>
      trx.selectFrom('sepa_batches').select(['id', 'xml']).where('xml', 'is not', null).limit(batchSize).execute(),
    (trx, r) =>
      changed(
        trx
          .updateTable('sepa_batches')
          .set({ xml_enc: seal(r.xml!), xml: null })
          .where('id', '=', r.id)
          .where('xml', 'is not', null),
      ),
  );

  await sealEach(
    (trx) =>
      trx
        .selectFrom('sms_outbox')
        .select(['id', 'body', 'link'])
        .where('body', 'is not', null)
        .limit(batchSize)
        .execute(),
    (trx, r) =>
      changed(
        trx
          .updateTable('sms_outbox')
          .set({ body_enc: seal(r.body!), link_enc: r.link === null ? null : seal(r.link), body: null, link: null })
          .where('id', '=', r.id)
          .where('body', 'is not', null),
      ),
  );

  // webhook payloads carrying personal data, in clear before 0056: sealed as the delivery sent them
  // (JSON.stringify of the json the driver parsed, webhooks' payloadText), so every later attempt
  // sends the same bytes and signature as the earlier ones
  await sealEach(
    (trx) =>
      trx
        .selectFrom('webhook_events')
        .select(['id', 'payload'])
        .where('type', 'in', [...SEALED_WEBHOOK_EVENT_TYPES])
        .where('payload', 'is not', null)
        .limit(batchSize)
        .execute(),
    (trx, r) =>
      changed(
        trx
          .updateTable('webhook_events')
          .set({ payload_enc: seal(JSON.stringify(r.payload)), payload: null })
          .where('id', '=', r.id)
          .where('payload', 'is not', null),
      ),
  );

  // Replays stored as jsonb before 0010: their text is what jsonb kept (keys reordered), now sealed.
  await sealEach(
    (trx) =>
      trx
        .selectFrom('idempotency_keys')
        .select(['partner_id', 'environment', 'key', 'response_body'])
        .where('response_body', 'is not', null)
        .limit(batchSize)
        .execute(),
    (trx, r) =>
      changed(
        trx
          .updateTable('idempotency_keys')
          .set({ response_enc: seal(JSON.stringify(r.response_body)), response_body: null })
          .where('partner_id', '=', r.partner_id)
          .where('environment', '=', r.environment)
          .where('key', '=', r.key)
          .where('response_body', 'is not', null),
      ),
  );

  return sealed;
}
