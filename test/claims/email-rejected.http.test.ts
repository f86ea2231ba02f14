import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tellPartnerEmailRejected } from '../../src/claims/customer-unreachable.ts';
import { LINK_USELESS_CLAIM_STATUSES } from '../../src/claims/model.ts';
import { sendQueuedEmail } from '../../src/notify/email/email-queue.ts';
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
 * called the way the send job calls it.
 */
describe("claims: a customer's email address refused", () => {
  let t: TestApp;
  let production: TestPartner;
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
  });
  after(() => t.close());

  let seq = 7900 + (process.pid % 500);

  const smtpAnswering = (answer: () => Error): EmailProvider => ({
    name: 'smtp',
    send: async () => {
      throw answer();
    },
  });
  const send = (smtp: EmailProvider, emailId: string) =>
    sendQueuedEmail(
      {
        db: t.db,
        keys: t.app.parasol.keys,
        linkUselessClaimStatuses: LINK_USELESS_CLAIM_STATUSES,
        providers: { outbox: new OutboxEmailProvider(), smtp },
        onRejected: tellPartnerEmailRejected(t.app.parasol.jobs),
      },
      emailId,
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
    return { contractNumber: c.contractNumber, emailId: email.id };
  }

  it('550 5.1.1: the email is rejected and the partner told once, channel email', async () => {
    const { contractNumber, emailId } = await productionClaim();
    const bounce = smtpAnswering(() =>
      Object.assign(new Error("Can't send mail - all recipients were rejected: 550 5.1.1 No such user"), {
        code: 'EENVELOPE',
        responseCode: 550,
        response: '550 5.1.1 No such user',
        command: 'RCPT TO',
      }),
    );
    assert.equal(await send(wrap(bounce), emailId), 'rejected');
    assert.equal(await send(wrap(bounce), emailId), 'skipped');
    const told = await eventsOf(contractNumber);
    assert.equal(told.length, 1, 'told once');
    assert.equal(told[0].channel, 'email');
    assert.equal(told[0].deliveryStatus, 'rejected');
    assert.equal(told[0].errorCode, 550);
    assert.equal(told[0].message, 'opened');
    assert.equal(told[0].status, 'awaiting_bank_details');
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
