import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { tagClientAddress } from '../../src/platform/client-address.ts';
import { encrypt } from '../../src/platform/crypto.ts';
import { emailCounterKeyOf } from '../../src/platform/throttle-keys.ts';
import { scrubOldRows } from '../../src/platform/scrub-old-rows.ts';
import { emailCounterKey, signIn } from '../../src/web/sessions.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  insureFlight,
  post,
  runCliOn,
  uniqueSlug,
  type TestApp,
} from '../helper.ts';

/**
 * Upgrading: rows written by earlier versions with personal data in clear — sign-in counters keyed by
 * the typed email or the client address, client addresses in the audit trail, IBANs (and emails,
 * phone numbers) in the bank's and the operators' reasons — are rewritten once by `parasol db scrub`
 * (platform/scrub-old-rows.ts). The rows here are inserted in their old form.
 */

const IBAN = 'DE89 3704 0044 0532 0130 00';
const ADDRESS = `198.51.100.${1 + (process.pid % 250)}`;

describe('parasol db scrub: old rows rewritten without their personal data', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it('re-keys clear counters, tags clear addresses, masks reasons; a second run finds nothing', async () => {
    const lookup = t.app.parasol.keys.lookup;
    const partner = await createTestPartner(t.db);
    const typed = `${uniqueSlug('old')}@example.com`;
    const now = new Date();
    const later = new Date(now.getTime() + 10 * 60_000);

    // counters of an earlier version: the typed email and the client address in clear; one account
    // counter the new version started meanwhile under the hashed key
    const hashedAccount = emailCounterKey(t.app.parasol, 'partner:account', typed);
    await t.db
      .insertInto('login_throttle')
      .values([
        { key: `partner:account:${typed}`, attempts: 6, window_start: now, locked_until: later },
        { key: hashedAccount, attempts: 1, window_start: now, locked_until: null },
        { key: `reset:account:${typed.toUpperCase()}`, attempts: 2, window_start: now, locked_until: null },
        { key: `partner:address:${ADDRESS}`, attempts: 3, window_start: now, locked_until: null },
        { key: `reset:address:${ADDRESS}`, attempts: 1, window_start: now, locked_until: null },
      ])
      .execute();

    // audit rows of sign-ins and reset requests with the address, desk and bank reasons quoting an IBAN
    const entity = uniqueSlug('session');
    await t.db
      .insertInto('audit_log')
      .values([
        {
          actor: 'user:x',
          entity: 'session',
          entity_id: entity,
          action: 'signed_in',
          data: JSON.stringify({ address: ADDRESS }),
        },
        {
          actor: 'anonymous',
          entity: 'user',
          entity_id: entity,
          action: 'password_reset_requested',
          data: JSON.stringify({ address: `::ffff:${ADDRESS}` }),
        },
        {
          actor: 'system',
          entity: 'claim',
          entity_id: entity,
          action: 'payment_failed',
          data: JSON.stringify({ attempt: 1, reason: `AC04 account ${IBAN} closed` }),
        },
        {
          actor: 'operator:ops',
          entity: 'claim',
          entity_id: entity,
          action: 'manual_review_started',
          data: JSON.stringify({ reason: 'Suspicious booking', status: 'opened' }),
        },
      ])
      .execute();

    // a claim failed with the bank's reason in clear (payout, claim, webhook event), under review
    // with an operator's reason quoting the customer's contact
    const c = await insureFlight(t.app, partner, { flightNumber: `AF${7000 + (process.pid % 900)}` });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const claim = await t.db
      .selectFrom('claims')
      .select(['id', 'partner_id', 'environment', 'compensation_amount', 'currency'])
      .where('claim_number', '=', opened.body.claimsOpened[0].claimNumber as string)
      .executeTakeFirstOrThrow();
    const bankReason = `AC04 closed account ${IBAN.replace(/ /g, '')}`;
    await t.db
      .updateTable('claims')
      .set({ failure_reason: bankReason, manual_review_reason: 'customer jane@example.org, +33 6 12 34 56 78' })
      .where('id', '=', claim.id)
      .execute();
    const payout = await t.db
      .insertInto('payouts')
      .values({
        claim_id: claim.id,
        partner_id: claim.partner_id,
        environment: claim.environment,
        rail: 'sepa',
        status: 'failed',
        end_to_end_id: `E2E${crypto.randomBytes(8).toString('hex')}`,
        amount: claim.compensation_amount,
        currency: claim.currency,
        failure_reason: bankReason,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const eventId = `msg_${crypto.randomBytes(12).toString('hex')}`;
    await t.db
      .insertInto('webhook_events')
      .values({
        id: eventId,
        partner_id: partner.id,
        environment: 'sandbox',
        type: 'claim.payment_failed',
        payload: JSON.stringify({
          type: 'claim.payment_failed',
          timestamp: now.toISOString(),
          data: { claimNumber: 'CL-1', failureReason: bankReason, failedAt: now.toISOString() },
        }),
      })
      .execute();
    const stop = await t.db
      .insertInto('stop_sales')
      .values({
        environment: 'sandbox',
        airline: 'ZZ',
        starts_at: now,
        ends_at: later,
        reason: 'asked by ops@airline.example',
        created_by: 'operator:ops',
      })
      .returning('id')
      .executeTakeFirstOrThrow();

    // partner-written labels, kept as written by earlier versions
    await t.db
      .updateTable('api_keys')
      .set({ label: 'laptop of jane@example.org' })
      .where('partner_id', '=', partner.id)
      .execute();
    // and audited with it (api_key created), as earlier versions wrote it
    const keyAudit = await t.db
      .insertInto('audit_log')
      .values({
        actor: 'partner:x',
        partner_id: partner.id,
        environment: 'sandbox',
        entity: 'api_key',
        entity_id: entity,
        action: 'created',
        data: JSON.stringify({ display: 'psl_sbx_…abcd', label: 'laptop of jane@example.org' }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const endpoint = await t.db
      .insertInto('webhook_endpoints')
      .values({
        partner_id: partner.id,
        environment: 'sandbox',
        url: 'https://hooks.partner.example/parasol',
        description: 'on call: +33 6 12 34 56 78',
        secret_enc: encrypt(t.app.parasol.keys.encryption, 'whsec_scrubtest0000'),
        enabled: false,
      })
      .returning('id')
      .executeTakeFirstOrThrow();

    const run = await runCliOn(t, ['--json', 'db', 'scrub']);
    assert.equal(run.code, 0, run.err);
    const report = JSON.parse(run.out) as Record<string, number>;
    for (const [what, least] of Object.entries({
      throttleCounters: 4,
      auditAddresses: 2,
      auditReasons: 1,
      auditApiKeyLabels: 1,
      payoutReasons: 1,
      claimReasons: 2,
      webhookEvents: 1,
      stopSaleReasons: 1,
      apiKeyLabels: 1,
      webhookDescriptions: 1,
    }))
      assert.ok(report[what]! >= least, `${what}: ${report[what]}`);

    // counters: nothing in clear; the old account counter merged into the new one (its lock kept)
    const keys = await t.db.selectFrom('login_throttle').selectAll().execute();
    for (const clear of [typed, typed.toUpperCase(), ADDRESS])
      assert.deepEqual(
        keys.filter((k) => k.key.toLowerCase().includes(clear.toLowerCase())).map((k) => k.key),
        [],
      );
    const merged = keys.find((k) => k.key === hashedAccount)!;
    assert.equal(merged.attempts, 6);
    assert.equal(merged.locked_until?.getTime(), later.getTime());
    assert.ok(keys.some((k) => k.key === emailCounterKeyOf(lookup, 'reset:account', typed)));
    const tag = tagClientAddress(lookup, ADDRESS);
    assert.ok(keys.some((k) => k.key === `partner:address:${tag.addressHmac}`));
    assert.ok(keys.some((k) => k.key === `reset:address:${tag.addressHmac}`));

    // the signed-in account's counter is the one sign-in uses: the lock carried over holds
    const locked = await signIn(
      { db: t.db, now: () => new Date(), keys: t.app.parasol.keys },
      { kind: 'partner', email: typed, password: 'whatever password', address: '192.0.2.1' },
    );
    assert.equal(locked.kind, 'locked');

    const audits = await t.db
      .selectFrom('audit_log')
      .select(['action', 'data'])
      .where('entity_id', '=', entity)
      .where('id', '!=', keyAudit.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audits.map((a) => [a.action, a.data]),
      [
        ['signed_in', tag],
        ['password_reset_requested', tag],
        ['payment_failed', { attempt: 1, reason: 'AC04 account •••• 3000 closed' }],
        ['manual_review_started', { reason: 'Suspicious booking', status: 'opened' }],
      ],
    );
    const masked = 'AC04 closed account •••• 3000';
    const claimRow = await t.db
      .selectFrom('claims')
      .select(['failure_reason', 'manual_review_reason'])
      .where('id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(claimRow, { failure_reason: masked, manual_review_reason: 'customer [email], [phone]' });
    const payoutRow = await t.db
      .selectFrom('payouts')
      .select('failure_reason')
      .where('id', '=', payout.id)
      .executeTakeFirstOrThrow();
    assert.equal(payoutRow.failure_reason, masked);
    const event = await sql<{
      payload: string;
    }>`SELECT payload::text AS payload FROM webhook_events WHERE id = ${eventId}`.execute(t.db);
    assert.equal(
      (JSON.parse(event.rows[0]!.payload) as { data: { failureReason: string } }).data.failureReason,
      masked,
    );
    assert.match(event.rows[0]!.payload, /^\{"type":"claim\.payment_failed","timestamp"/, 'its keys in their order');
    const stopRow = await t.db
      .selectFrom('stop_sales')
      .select('reason')
      .where('id', '=', stop.id)
      .executeTakeFirstOrThrow();
    assert.equal(stopRow.reason, 'asked by [email]');
    const labels = await t.db.selectFrom('api_keys').select('label').where('partner_id', '=', partner.id).execute();
    assert.deepEqual([...new Set(labels.map((l) => l.label))], ['laptop of [email]']);
    const keyAudited = await t.db
      .selectFrom('audit_log')
      .select('data')
      .where('id', '=', keyAudit.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(keyAudited.data, { display: 'psl_sbx_…abcd', label: 'laptop of [email]' });
    const described = await t.db
      .selectFrom('webhook_endpoints')
      .select('description')
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    assert.equal(described.description, 'on call: [phone]');

    // nothing is left: a second run rewrites nothing, and each run is audited
    const again = await runCliOn(t, ['--json', 'db', 'scrub']);
    assert.equal(again.code, 0, again.err);
    const { holdersNotOpened: _notRewritten, ...second } = JSON.parse(again.out) as Record<string, number>;
    assert.deepEqual(
      Object.values(second).filter((n) => n !== 0),
      [],
      JSON.stringify(second),
    );
    const runs = await t.db
      .selectFrom('audit_log')
      .select('data')
      .where('entity', '=', 'database')
      .where('entity_id', '=', 'scrub')
      .execute();
    assert.ok(runs.length >= 2);
  });

  it("masks the account holder's name in old bank reasons with the server's keys; a holder no key opens is counted, not guessed", async () => {
    const partner = await createTestPartner(t.db);
    /** A claim opened on a cancelled flight, its bank details given by `holder` (sealed under `key`). */
    const claimOf = async (holder: string, key: Buffer | typeof t.app.parasol.keys.encryption) => {
      const c = await insureFlight(t.app, partner, { flightNumber: `AF${1000 + Math.floor(Math.random() * 8000)}` });
      const opened = await post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
        partner.auth,
      );
      assert.equal(opened.status, 200, JSON.stringify(opened.body));
      const claim = await t.db
        .selectFrom('claims')
        .select(['id', 'claim_number', 'partner_id', 'environment', 'compensation_amount', 'currency'])
        .where('claim_number', '=', opened.body.claimsOpened[0].claimNumber as string)
        .executeTakeFirstOrThrow();
      await t.db
        .insertInto('claim_bank_details')
        .values({
          claim_id: claim.id,
          account_holder_enc: encrypt(key, holder),
          iban_enc: encrypt(t.app.parasol.keys.encryption, IBAN.replace(/ /g, '')),
          iban_last4: '3000',
          country: 'DE',
        })
        .execute();
      return claim;
    };
    const known = await claimOf('Jean Dupont', t.app.parasol.keys.encryption);
    const lost = await claimOf('Anna Schmidt', crypto.randomBytes(32)); // sealed under a key no longer held
    // another such claim, whose reasons are the fixed text written when the bank gave none: no lookup
    const lostFixed = await claimOf('Otto Weber', crypto.randomBytes(32));
    // the bank's reasons as versions before the name's masking kept them: payout, claim, audit, webhook event
    const old = (claim: typeof known, name: string) => ({
      text: `AC04 account closed, holder ${name.toUpperCase()}`,
      claim,
    });
    const reasons = [
      old(known, 'Dupont Jean'),
      old(lost, 'Schmidt Anna'),
      { text: 'rejected by the bank', claim: lostFixed },
    ];
    const payouts: string[] = [];
    const events: string[] = [];
    for (const { text, claim } of reasons) {
      await t.db.updateTable('claims').set({ failure_reason: text }).where('id', '=', claim.id).execute();
      const payout = await t.db
        .insertInto('payouts')
        .values({
          claim_id: claim.id,
          partner_id: claim.partner_id,
          environment: claim.environment,
          rail: 'sepa',
          status: 'failed',
          end_to_end_id: `E2E${crypto.randomBytes(8).toString('hex')}`,
          amount: claim.compensation_amount,
          currency: claim.currency,
          failure_reason: text,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      payouts.push(payout.id);
      await t.db
        .insertInto('audit_log')
        .values({
          actor: 'system',
          partner_id: claim.partner_id,
          environment: claim.environment,
          entity: 'claim',
          entity_id: claim.claim_number,
          action: 'payment_returned',
          data: JSON.stringify({ attempt: 1, reason: text }),
        })
        .execute();
      const eventId = `msg_${crypto.randomBytes(12).toString('hex')}`;
      await t.db
        .insertInto('webhook_events')
        .values({
          id: eventId,
          partner_id: partner.id,
          environment: 'sandbox',
          type: 'claim.failed',
          payload: JSON.stringify({
            type: 'claim.failed',
            timestamp: new Date().toISOString(),
            data: { claimNumber: claim.claim_number, failureReason: text, paymentReturned: true },
          }),
        })
        .execute();
      events.push(eventId);
    }

    const run = await runCliOn(t, ['--json', 'db', 'scrub']);
    assert.equal(run.code, 0, run.err);
    const report = JSON.parse(run.out) as Record<string, number>;
    // the known holder's reason rewritten in each place; the lost one's claim counted once (its four
    // reasons left as they were), the fixed text's not at all
    assert.ok(report.payoutReasons! >= 1 && report.claimReasons! >= 1, run.out);
    assert.ok(report.auditReasons! >= 1 && report.webhookEvents! >= 1, run.out);
    assert.equal(report.holdersNotOpened, 1, run.out);

    const stored = async (claim: typeof known, payoutId: string, eventId: string) => {
      const c = await t.db
        .selectFrom('claims')
        .select('failure_reason')
        .where('id', '=', claim.id)
        .executeTakeFirstOrThrow();
      const p = await t.db
        .selectFrom('payouts')
        .select('failure_reason')
        .where('id', '=', payoutId)
        .executeTakeFirstOrThrow();
      const a = await t.db
        .selectFrom('audit_log')
        .select('data')
        .where('entity', '=', 'claim')
        .where('entity_id', '=', claim.claim_number)
        .where('action', '=', 'payment_returned')
        .executeTakeFirstOrThrow();
      const e = await sql<{
        payload: string;
      }>`SELECT payload::text AS payload FROM webhook_events WHERE id = ${eventId}`.execute(t.db);
      return [
        c.failure_reason,
        p.failure_reason,
        (a.data as { reason: string }).reason,
        (JSON.parse(e.rows[0]!.payload) as { data: { failureReason: string } }).data.failureReason,
      ];
    };
    const maskedText = 'AC04 account closed, holder [name] [name]';
    assert.deepEqual(await stored(known, payouts[0]!, events[0]!), Array(4).fill(maskedText));
    assert.deepEqual(await stored(lost, payouts[1]!, events[1]!), Array(4).fill(reasons[1]!.text));
    assert.deepEqual(await stored(lostFixed, payouts[2]!, events[2]!), Array(4).fill('rejected by the bank'));

    // printed: the rows rewritten, and what is left for want of the key
    const again = await runCliOn(t, ['db', 'scrub']);
    assert.equal(again.code, 0, again.err);
    assert.match(
      again.out,
      /bank reasons of 1 claim\(s\) could not be checked for the account holder's name: it opens with none of the keys held/,
    );
    assert.deepEqual(await stored(known, payouts[0]!, events[0]!), Array(4).fill(maskedText));
  });

  it("masks old desk reasons as the desk does now: the claim's own IBAN however typed, US accounts by their place", async () => {
    const partner = await createTestPartner(t.db);
    const c = await insureFlight(t.app, partner, { flightNumber: `AF${1000 + Math.floor(Math.random() * 8000)}` });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const claim = await t.db
      .selectFrom('claims')
      .select(['id', 'claim_number', 'partner_id'])
      .where('claim_number', '=', opened.body.claimsOpened[0].claimNumber as string)
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('claim_bank_details')
      .values({
        claim_id: claim.id,
        account_holder_enc: encrypt(t.app.parasol.keys.encryption, 'Camille Martin'),
        iban_enc: encrypt(t.app.parasol.keys.encryption, 'FR7630006000011234567890189'),
        iban_last4: '0189',
        country: 'FR',
      })
      .execute();
    // as versions before the desk masked the claim's own account and US accounts kept them
    const said = 'new details FR 76 3000 6000 0112 3456 7890 189, old konto 55554444';
    await t.db.updateTable('claims').set({ manual_review_reason: said }).where('id', '=', claim.id).execute();
    await t.db
      .insertInto('audit_log')
      .values({
        actor: 'operator:old@insurer.test',
        partner_id: claim.partner_id,
        entity: 'claim',
        entity_id: claim.claim_number,
        action: 'manual_review_started',
        data: JSON.stringify({ reason: said }),
      })
      .execute();
    const kept = 'new details •••• 0189, old konto •••• 4444';
    const stored = async () => [
      (
        await t.db
          .selectFrom('claims')
          .select('manual_review_reason')
          .where('id', '=', claim.id)
          .executeTakeFirstOrThrow()
      ).manual_review_reason,
      (
        (
          await t.db
            .selectFrom('audit_log')
            .select('data')
            .where('entity', '=', 'claim')
            .where('entity_id', '=', claim.claim_number)
            .where('action', '=', 'manual_review_started')
            .executeTakeFirstOrThrow()
        ).data as { reason: string }
      ).reason,
    ];
    const run = await runCliOn(t, ['db', 'scrub']);
    assert.equal(run.code, 0, run.err);
    assert.deepEqual(await stored(), [kept, kept]);
    // a second run changes nothing (a masked account is not masked again)
    const again = await runCliOn(t, ['db', 'scrub']);
    assert.equal(again.code, 0, again.err);
    assert.deepEqual(await stored(), [kept, kept]);
  });

  it('a run stopped half-way is resumed by running it again (small batches, each committed)', async () => {
    const lookup = t.app.parasol.keys.lookup;
    const now = new Date();
    const prefix = uniqueSlug('half');
    const typedOnes = Array.from({ length: 5 }, (_, i) => `${prefix}-${i}@example.com`);
    await t.db
      .insertInto('login_throttle')
      .values(
        typedOnes.map((typed) => ({
          key: `operator:account:${typed}`,
          attempts: 1,
          window_start: now,
          locked_until: null,
        })),
      )
      .execute();
    // the first run dies after its first batch of two
    let batches = 0;
    const dying = {
      ...t.db,
      transaction: () => {
        if (++batches > 1) throw new Error('killed');
        return t.db.transaction();
      },
    } as typeof t.db;
    await assert.rejects(scrubOldRows(dying, t.app.parasol.keys, 'operator:test', 2), /killed/);
    const afterFirst = await t.db
      .selectFrom('login_throttle')
      .select('key')
      .where('key', 'like', `operator:account:${prefix}%`)
      .execute();
    assert.ok(afterFirst.length < typedOnes.length && afterFirst.length > 0, `${afterFirst.length} left in clear`);
    await scrubOldRows(t.db, t.app.parasol.keys, 'operator:test', 2);
    const left = await t.db
      .selectFrom('login_throttle')
      .select('key')
      .where('key', 'like', `operator:account:${prefix}%`)
      .execute();
    assert.deepEqual(left, []);
    for (const typed of typedOnes) {
      const key = emailCounterKeyOf(lookup, 'operator:account', typed);
      assert.ok(await t.db.selectFrom('login_throttle').select('key').where('key', '=', key).executeTakeFirst(), typed);
    }
  });
});
