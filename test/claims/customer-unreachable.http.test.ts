import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
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

  for (const [phone, code] of [
    ['+15005550001', 21211],
    ['+15005550009', 21614],
  ] as const)
    it(`${phone}: refused, the partner told (${code}); the corrected phone gets the link`, async () => {
      const insured = await insureFlight(t.app, partner, { flightNumber: `AF${seq++}`, customer: { phone } });
      const opened = await post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber: insured.flightNumber, departureDate: insured.departureDate, status: 'cancelled' },
        partner.auth,
      );
      assert.equal(opened.status, 200, JSON.stringify(opened.body));
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
});
