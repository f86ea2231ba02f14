import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JOBS, type JobRuntime } from '../../src/jobs/registry.ts';
import { EmailRetryableError, type EmailProvider } from '../../src/notify/email/email.ts';
import { OutboxEmailProvider } from '../../src/notify/email/outbox.ts';
import { classifySmtpError } from '../../src/notify/email/smtp.ts';
import {
  buildTestApp,
  cancelledFlightClaim,
  createTestPartner,
  eventually,
  FLIGHT,
  operatorToken,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * A production claim's email refused by the customer's mail server for the address (550 5.1.1): the
 * partner is told once (`claim.customer_unreachable`, channel `email`), as for a refused SMS. A refusal
 * of our own server (530 authentication required) tells nobody: the message stays queued, retried.
 * The app has neither Twilio nor SMTP: the messages stay queued; SMTP "comes back" as the fake below,
 * given to the registry's own `email_send` handler (its wiring of the partner's hook is under test).
 */
describe("claims: a customer's email address refused", () => {
  let t: TestApp;
  let production: TestPartner;
  let other: TestPartner;
  let auth: Record<string, string>;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on' } });
    production = await createTestPartner(t.db, { environment: 'production' });
    ({ auth } = await operatorToken(t, 'email rejected test'));
    const endpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...production.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/hooks' },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    // another production partner with its own endpoint: it hears nothing of the first one's customers
    other = await createTestPartner(t.db, { environment: 'production' });
    const otherEndpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...other.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/other-hooks' },
    });
    assert.equal(otherEndpoint.statusCode, 201, otherEndpoint.body);
  });
  after(() => t.close());

  let seq = 7900 + (process.pid % 500);

  const smtpAnswering = (answer: () => Error): EmailProvider => ({
    name: 'smtp',
    send: async () => {
      throw answer();
    },
  });
  /** The worker's `email_send` handler, as the registry builds it, with this SMTP provider. */
  const send = (smtp: EmailProvider, emailId: string) => {
    const quiet = () => {};
    const rt = {
      db: t.db,
      keys: t.app.parasol.keys,
      jobs: t.app.parasol.jobs,
      config: t.app.parasol.config,
      now: () => new Date(),
      log: { info: quiet, warn: quiet, error: quiet },
      email: { outbox: new OutboxEmailProvider(), smtp },
    } as unknown as JobRuntime;
    return JOBS.email_send.handler(rt)({ id: 'test', data: { emailId } });
  };
  const statusOf = async (emailId: string) =>
    (await t.db.selectFrom('emails').select('status').where('id', '=', emailId).executeTakeFirstOrThrow()).status;
  const bounce = () =>
    smtpAnswering(() =>
      Object.assign(new Error("Can't send mail - all recipients were rejected: 550 5.1.1 No such user"), {
        code: 'EENVELOPE',
        responseCode: 550,
        response: '550 5.1.1 No such user',
        command: 'RCPT TO',
      }),
    );
  const eventsOf = async (contractNumber: string) =>
    (
      await t.db
        .selectFrom('webhook_events')
        .select('payload')
        .where('type', '=', 'claim.customer_unreachable')
        .execute()
    )
      .map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).data)
      .filter((d: { contractNumber: string }) => d.contractNumber === contractNumber);

  async function productionClaim() {
    const { claimNumber, c } = await cancelledFlightClaim(t, production, auth, { flightNumber: `AF${seq++}` });
    const claim = await t.db
      .selectFrom('claims')
      .select('id')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    const email = await eventually(() =>
      t.db
        .selectFrom('emails')
        .select(['id', 'status'])
        .where('dedupe_key', 'like', `claim:${claim.id}:bank-details%`)
        .executeTakeFirst(),
    );
    return { contractNumber: c.contractNumber, claimId: claim.id, emailId: email.id };
  }

  it('550 5.1.1: the email is rejected and the partner told once, channel email', async () => {
    const { contractNumber, emailId } = await productionClaim();
    await send(wrap(bounce()), emailId);
    assert.equal(await statusOf(emailId), 'rejected');
    await send(wrap(bounce()), emailId); // a retry of the job: already rejected, skipped
    const told = await eventsOf(contractNumber);
    assert.equal(told.length, 1, 'told once');
    assert.equal(told[0].channel, 'email');
    assert.equal(told[0].deliveryStatus, 'rejected');
    assert.equal(told[0].errorCode, 550);
    assert.equal(told[0].message, 'opened');
    assert.equal(told[0].status, 'awaiting_bank_details');
    // the first partner's event only: the other partner has none, and its endpoint no delivery
    const others = await t.db
      .selectFrom('webhook_events')
      .select('id')
      .where('partner_id', '=', other.id)
      .where('type', '=', 'claim.customer_unreachable')
      .execute();
    assert.deepEqual(others, []);
    const otherDeliveries = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('partner_id', '=', other.id)
      .execute();
    assert.deepEqual(otherDeliveries, []);
    const mine = await t.db
      .selectFrom('webhook_events')
      .select('partner_id')
      .where('type', '=', 'claim.customer_unreachable')
      .execute();
    assert.ok(mine.length >= 1 && mine.every((e) => e.partner_id === production.id));
  });

  for (const status of ['payment_pending', 'paid'] as const)
    it(`a claim ${status} by the time its email is refused: rejected, the partner not told`, async () => {
      const { contractNumber, claimId, emailId } = await productionClaim();
      // the customer gave their details (and was paid) while the send was under way: the link check
      // before the send passed, the refusal comes after
      let calls = 0;
      const late: EmailProvider = {
        name: 'smtp',
        send: async (msg) => {
          calls++;
          await t.db
            .updateTable('claims')
            .set({ status, ...(status === 'paid' ? { paid_at: new Date() } : {}) })
            .where('id', '=', claimId)
            .execute();
          return bounce().send(msg);
        },
      };
      await send(wrap(late), emailId);
      assert.equal(calls, 1, 'the server was asked');
      assert.equal(await statusOf(emailId), 'rejected');
      assert.equal((await eventsOf(contractNumber)).length, 0);
    });

  it('530 authentication required (our server): the email stays queued, retried; the partner is not told', async () => {
    const { contractNumber, emailId } = await productionClaim();
    const refused = smtpAnswering(() =>
      Object.assign(new Error('Mail command failed: 530 5.7.0 Authentication required'), {
        code: 'EENVELOPE',
        responseCode: 530,
        response: '530 5.7.0 Authentication required',
        command: 'MAIL FROM',
      }),
    );
    await assert.rejects(
      send(wrap(refused), emailId),
      (e) => e instanceof EmailRetryableError && e.reason === 'refused',
    );
    const row = await t.db
      .selectFrom('emails')
      .select(['status', 'attempts'])
      .where('id', '=', emailId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'queued', attempts: 0 });
    assert.equal((await eventsOf(contractNumber)).length, 0);
  });
});

/** nodemailer's error through the SMTP provider's own classification (`SmtpEmailProvider`'s). */
function wrap(inner: EmailProvider): EmailProvider {
  return {
    name: 'smtp',
    send: async (msg) => {
      try {
        return await inner.send(msg);
      } catch (error) {
        throw classifySmtpError('smtp', error);
      }
    },
  };
}
