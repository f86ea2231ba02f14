import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { notifyClaim, type ResendRequest } from '../../src/claims/index.ts';
import { decrypt } from '../../src/platform/crypto.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * Sandbox: Twilio's test numbers of a refused recipient are refused by the outbox as Twilio would,
 * so a partner sees claim.customer_unreachable and its answer (a corrected phone gets the link
 * again) end to end. Production's delivery receipts: test/http/production-claims.http.test.ts.
 */
describe('claims: a customer the first message did not reach (sandbox simulation)', () => {
  let t: TestApp;
  let partner: TestPartner;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    partner = await createTestPartner(t.db);
    const endpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...partner.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/hooks' },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
  });
  after(() => t.close());

  let seq = 7300 + (process.pid % 500);
  const messagesOf = async (contractNumber: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
      headers: partner.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    return (JSON.parse(res.body) as { messages: { to: string; link: string | null }[] }).messages;
  };
  const eventsOf = async (type: string, contractNumber: string) =>
    (await t.db.selectFrom('webhook_events').select('payload').where('type', '=', type).execute())
      .map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).data)
      .filter((d: { contractNumber: string }) => d.contractNumber === contractNumber);

  /** A contract insured for this customer, then its flight cancelled: its claim opened. */
  const insuredThenCancelled = async (customer: { phone: string } | { email: string }) => {
    const insured = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}`, customer });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: insured.flightNumber, departureDate: insured.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    return insured;
  };

  for (const [phone, code] of [
    ['+15005550001', 21211],
    ['+15005550009', 21614],
  ] as const)
    it(`${phone}: refused, the partner told (${code}); the corrected phone gets the link`, async () => {
      const insured = await insuredThenCancelled({ phone });
      const [told] = await eventually(async () => {
        const events = await eventsOf('claim.customer_unreachable', insured.contractNumber);
        return events.length ? events : undefined;
      });
      assert.equal(told.deliveryStatus, 'rejected');
      assert.equal(told.errorCode, code);
      assert.equal(told.message, 'opened');
      assert.equal(told.status, 'awaiting_bank_details', 'the claim still waits for bank details');
      assert.deepEqual(await messagesOf(insured.contractNumber), [], 'nothing reached the outbox');
      // the refusal's audit row and the notification's: one time, the notifying use case's
      const audited = await t.db
        .selectFrom('audit_log')
        .select(['action', 'at'])
        .where('entity', '=', 'claim')
        .where('entity_id', '=', told.claimNumber)
        .where('action', 'in', ['sms_rejected', 'awaiting_bank_details'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audited.map((r) => r.action),
        ['sms_rejected', 'awaiting_bank_details'],
      );
      assert.deepEqual(audited[0]!.at, audited[1]!.at);

      const patched = await t.app.inject({
        method: 'PATCH',
        url: `${FLIGHT}/contracts/${insured.contractNumber}/customer`,
        headers: { ...partner.auth, 'content-type': 'application/json' },
        payload: { phone: '+33611223344' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      const resent = await eventually(async () => (await messagesOf(insured.contractNumber))[0]);
      assert.equal(resent.to, '+33611223344');
      assert.ok(resent.link, 'with a link');
      assert.equal((await t.app.inject({ method: 'GET', url: new URL(resent.link).pathname })).statusCode, 200);
      assert.equal((await eventsOf('claim.customer_unreachable', insured.contractNumber)).length, 1, 'told once');

      // the same number sent again (a client that PATCHes the whole contact) queues no resend
      const claimId = (
        await t.db
          .selectFrom('claims')
          .select('id')
          .where('claim_number', '=', told.claimNumber)
          .executeTakeFirstOrThrow()
      ).id;
      const queued = async () =>
        (
          await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job
            WHERE name = 'claims_notify' AND data->>'kind' = 'resend' AND data->>'claimId' = ${claimId}`.execute(t.db)
        ).rows[0]!.n;
      assert.equal(await queued(), 1);
      const again = await t.app.inject({
        method: 'PATCH',
        url: `${FLIGHT}/contracts/${insured.contractNumber}/customer`,
        headers: { ...partner.auth, 'content-type': 'application/json' },
        payload: { phone: '+33611223344', language: 'fr' },
      });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(await queued(), 1, 'no second resend');
    });

  // the sandbox's refused email addresses (REFUSED_TEST_ADDRESSES): answered as a mail server answers RCPT TO
  for (const [email, reply, responseCode, told] of [
    ['unknown-mailbox@sandbox.parasol.invalid', 'SMTP 550 5.1.1 to RCPT', 550, true],
    ['Disabled-Mailbox@sandbox.parasol.invalid', 'SMTP 550 5.2.1 to RCPT', 550, true],
    ['full-mailbox@sandbox.parasol.invalid', 'SMTP 552 5.2.2 to RCPT', 552, false],
  ] as const)
    it(`email ${email}: refused as a server would (${reply}); ${told ? 'the partner told, channel email' : 'the message blamed, nobody told'}`, async () => {
      const insured = await insuredThenCancelled({ email });
      const contract = await t.db
        .selectFrom('contracts')
        .select('id')
        .where('contract_number', '=', insured.contractNumber)
        .executeTakeFirstOrThrow();
      const claim = await eventually(() =>
        t.db.selectFrom('claims').select('id').where('contract_id', '=', contract.id).executeTakeFirst(),
      );
      // the claim's first email, through the queue and its send job (the sandbox's outbox provider)
      const refused = await eventually(() =>
        t.db
          .selectFrom('emails')
          .select(['id', 'status', 'provider', 'last_error'])
          .where('dedupe_key', '=', `claim:${claim.id}:bank-details`)
          .where('status', '=', 'rejected')
          .executeTakeFirst(),
      );
      const { id: emailId, ...rejected } = refused;
      assert.deepEqual(rejected, { status: 'rejected', provider: 'outbox', last_error: `outbox: ${reply}` });
      // audited as production's refusals are (written with the rejection, in one transaction)
      const audits = await t.db
        .selectFrom('audit_log')
        .select(['action', 'data'])
        .where('entity', '=', 'email')
        .where('entity_id', '=', emailId)
        .execute();
      assert.deepEqual(audits, [
        { action: 'email_rejected', data: { kind: 'claim_opened', responseCode, recipient: told } },
      ]);
      const events = (await eventsOf('claim.customer_unreachable', insured.contractNumber)) as {
        channel: string;
        deliveryStatus: string;
        errorCode: number | null;
        message: string;
      }[];
      assert.deepEqual(
        events.map((e) => [e.channel, e.deliveryStatus, e.errorCode, e.message]),
        told ? [['email', 'rejected', 550, 'opened']] : [],
        told ? 'the partner told once, channel email' : 'a full mailbox is not a wrong address',
      );
      // the SMS is its own channel: it still reaches the outbox
      await eventually(async () => ((await messagesOf(insured.contractNumber)).length === 1 ? true : undefined));
    });

  it('a new email with no new phone: one new link, texted and emailed to the new address; the job run again and the PATCH replayed send nothing twice', async () => {
    const insured = await insuredThenCancelled({ email: 'old@example.com' });
    const first = await eventually(async () => (await messagesOf(insured.contractNumber))[0]);
    const claimId = (
      await t.db
        .selectFrom('claims')
        .select('id')
        .where(
          'contract_id',
          '=',
          (
            await t.db
              .selectFrom('contracts')
              .select('id')
              .where('contract_number', '=', insured.contractNumber)
              .executeTakeFirstOrThrow()
          ).id,
        )
        .executeTakeFirstOrThrow()
    ).id;
    const resentEmails = async () =>
      (
        await t.db
          .selectFrom('emails')
          .select(['to_enc', 'text_enc'])
          .where('dedupe_key', 'like', `claim:${claimId}:resend:%`)
          .execute()
      ).map((e) => ({
        to: decrypt(t.app.parasol.keys.encryption, e.to_enc),
        text: decrypt(t.app.parasol.keys.encryption, e.text_enc),
      }));
    const patch = () =>
      t.app.inject({
        method: 'PATCH',
        url: `${FLIGHT}/contracts/${insured.contractNumber}/customer`,
        headers: { ...partner.auth, 'content-type': 'application/json', 'idempotency-key': `email-${claimId}` },
        payload: { email: 'New@Example.com' },
      });
    const patched = await patch();
    assert.equal(patched.statusCode, 200, patched.body);
    const [resent] = await eventually(async () => {
      const emails = await resentEmails();
      return emails.length ? emails : undefined;
    });
    assert.equal(resent!.to, 'new@example.com');
    const link = /https?:\/\/\S+\/c\/\S+/.exec(resent!.text)?.[0];
    assert.ok(link, 'with a link');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: new URL(link).pathname })).statusCode,
      200,
      'the new link works',
    );
    assert.equal(
      (await t.app.inject({ method: 'GET', url: new URL(first.link!).pathname })).statusCode,
      410,
      'the first one is replaced',
    );
    assert.deepEqual(
      (await messagesOf(insured.contractNumber)).map((m) => m.link),
      [first.link, link],
      'the same new link texted too: the phone keeps a live one',
    );

    // the claims_notify job run again with the same request (a retry): nothing sent, no link replaced
    const [resendJob] = (
      await sql<{ data: ResendRequest }>`SELECT data FROM pgboss.job
        WHERE name = 'claims_notify' AND data->>'kind' = 'resend' AND data->>'claimId' = ${claimId}`.execute(t.db)
    ).rows;
    assert.equal(resendJob!.data.alsoEmail, true);
    const { config, jobs, keys } = t.app.parasol;
    const deps = {
      db: t.db,
      jobs,
      keys,
      publicUrl: config.publicUrl,
      bankDetailsDays: config.bankDetailsDays,
      insurer: config.insurer,
      now: () => new Date(),
    };
    assert.equal(await notifyClaim(deps, resendJob!.data), 'skipped');
    assert.equal(await notifyClaim(deps, resendJob!.data), 'skipped');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: new URL(link).pathname })).statusCode,
      200,
      'the emailed link still works',
    );
    assert.equal((await messagesOf(insured.contractNumber)).length, 2, 'no third SMS');

    const replayed = await patch();
    assert.equal(replayed.statusCode, 200, replayed.body);
    const resends = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job
      WHERE name = 'claims_notify' AND data->>'kind' = 'resend' AND data->>'claimId' = ${claimId}`.execute(t.db);
    assert.equal(resends.rows[0]!.n, 1, 'the replay queued no second resend');
    assert.equal((await resentEmails()).length, 1);
  });
});
