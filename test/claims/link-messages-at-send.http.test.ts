import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LINK_USELESS_CLAIM_STATUSES } from '../../src/claims/model.ts';
import { notifyClaim } from '../../src/claims/notify-claim.ts';
import { sendQueuedEmail } from '../../src/notify/email/email-queue.ts';
import { LINK_SKIPPED } from '../../src/notify/link-messages-repo.ts';
import type { EmailProvider } from '../../src/notify/email/email.ts';
import { OutboxEmailProvider } from '../../src/notify/email/outbox.ts';
import { sendQueuedSms } from '../../src/notify/sms/sms-queue.ts';
import type { SmsProvider } from '../../src/notify/sms/sms.ts';
import { settlePayout } from '../../src/payouts/payouts.ts';
import { DEMO_INSURER } from '../../src/platform/config.ts';
import {
  buildTestApp,
  cancelledFlightClaim,
  createTestPartner,
  eventually,
  operatorToken,
  productionSmsLink,
  runCliOn,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * A message carrying the customer's bank-details link (the first message, a reminder, a rejected
 * payment's) is checked against its claim when it is sent, by SMS and by email alike: one still
 * queued after an outage is dropped once the claim no longer waits on its link — bank details given
 * (payment pending), paid, voided (`LINK_USELESS_CLAIM_STATUSES`) — marked `rejected` with
 * `skipped: …`, the job's outcome `skipped`, never a failed delivery. A failed payout's link messages
 * still go (they ask for new details), and so do the messages without a link (the receipt).
 *
 * Production claims in an app with neither Twilio nor SMTP: every message stays queued; the providers
 * "come back" as the fakes below, called the way the send jobs call them.
 */
describe('link messages are not sent once the claim no longer waits on the link, by SMS or by email', () => {
  let t: TestApp;
  let production: TestPartner;
  let auth: Record<string, string>;
  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
    production = await createTestPartner(t.db, { environment: 'production' });
    ({ auth } = await operatorToken(t, 'link messages test'));
  });
  after(async () => {
    await t.close();
  });

  let seq = 7300 + (process.pid % 500);

  /** The providers back after an outage: what each was asked to send, and the send jobs' deps. */
  const providersBack = () => {
    const texted: string[] = [];
    const emailed: string[] = [];
    const sms: SmsProvider = {
      name: 'twilio',
      send: async (m) => {
        texted.push(m.idempotencyKey);
        return { providerMessageId: `SM${String(texted.length).padStart(32, '0')}`, status: 'queued' };
      },
    };
    const smtp: EmailProvider = {
      name: 'smtp',
      send: async (m) => {
        emailed.push(m.dedupeKey);
        return { providerMessageId: `<${emailed.length}@link-messages.test>` };
      },
    };
    const common = { db: t.db, keys: t.app.parasol.keys, linkUselessClaimStatuses: LINK_USELESS_CLAIM_STATUSES };
    return {
      texted,
      emailed,
      sendSms: (id: string) => sendQueuedSms({ ...common, provider: sms }, id),
      sendEmail: (id: string) =>
        sendQueuedEmail({ ...common, providers: { outbox: new OutboxEmailProvider(), smtp } }, id),
    };
  };

  /** The claim's message of this kind (its key's word), once written. */
  const smsOf = (claimId: string, word: string) =>
    eventually(() =>
      t.db
        .selectFrom('sms_messages')
        .select(['id', 'idempotency_key', 'status', 'last_error'])
        .where('idempotency_key', 'like', `claim:${claimId}:${word}%`)
        .executeTakeFirst(),
    );
  const emailOf = (claimId: string, word: string) =>
    eventually(() =>
      t.db
        .selectFrom('emails')
        .select(['id', 'kind', 'dedupe_key', 'status', 'last_error'])
        .where('dedupe_key', 'like', `claim:${claimId}:${word}%`)
        .executeTakeFirst(),
    );
  const claimStatus = async (claimId: string) =>
    (await t.db.selectFrom('claims').select('status').where('id', '=', claimId).executeTakeFirstOrThrow()).status;

  /** A production claim whose first SMS and email are queued (no provider: they stay queued). */
  async function productionClaim() {
    const { claimNumber } = await cancelledFlightClaim(t, production, auth, { flightNumber: `AF${seq++}` });
    const claim = await t.db
      .selectFrom('claims')
      .select(['id', 'bank_details_due_at'])
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    const link = await productionSmsLink(t, claim.id);
    const sms = await smsOf(claim.id, 'bank-details');
    const email = await emailOf(claim.id, 'bank-details');
    assert.deepEqual([sms.status, email.status, email.kind], ['queued', 'queued', 'claim_opened']);
    return { claimNumber, claimId: claim.id, link, sms, email };
  }

  /** The customer gives bank details through the link: the claim is `payment_pending`. */
  async function giveBankDetails(link: string, claimId: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: new URL(link).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        accountHolder: 'Camille Martin',
        iban: 'DE89 3704 0044 0532 0130 00',
        bic: '',
      }).toString(),
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.equal(await claimStatus(claimId), 'payment_pending');
  }

  /** The bank's word on the claim's payout. */
  async function settle(claimId: string, outcome: 'paid' | 'failed') {
    const { end_to_end_id } = await t.db
      .selectFrom('payouts')
      .select('end_to_end_id')
      .where('claim_id', '=', claimId)
      .executeTakeFirstOrThrow();
    const deps = {
      jobs: t.app.parasol.jobs,
      now: () => new Date(),
      bankDetailsDays: 30,
      encryption: t.app.parasol.keys.encryption,
    };
    await t.db.transaction().execute((trx) =>
      settlePayout(trx, deps, {
        endToEndId: end_to_end_id,
        outcome,
        ...(outcome === 'failed' ? { reason: 'AC04 account closed' } : {}),
        actor: 'test',
        rails: ['sepa', 'ach'],
        sentInFile: false,
      }),
    );
    assert.equal(await claimStatus(claimId), outcome);
  }

  /** The message dropped at send: `rejected`, `skipped: …` (why), no sms/email_rejected audit. */
  async function assertDropped(table: 'sms_messages' | 'emails', id: string, why: string) {
    const row = await t.db
      .selectFrom(table)
      .select(['status', 'last_error'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'rejected');
    assert.equal(row.last_error, why);
    const audited = await t.db.selectFrom('audit_log').select('action').where('entity_id', '=', id).execute();
    assert.deepEqual(audited, [], 'no refusal audited: nothing was refused');
  }

  it('bank details given while the providers were down (payment pending): the queued link SMS and email are dropped at send', async () => {
    const { claimId, link, sms, email } = await productionClaim();
    await giveBankDetails(link, claimId);

    const back = providersBack();
    assert.equal(await back.sendSms(sms.id), 'skipped');
    assert.equal(await back.sendEmail(email.id), 'skipped');
    assert.deepEqual([back.texted, back.emailed], [[], []], 'no request for details already given');
    await assertDropped('sms_messages', sms.id, 'skipped: the claim is payment_pending, its link closed; not sent');
    await assertDropped('emails', email.id, LINK_SKIPPED.claimClosed('payment_pending'));
    // a later job for the same messages (a retry, the sweep): nothing sent either
    assert.equal(await back.sendSms(sms.id), 'skipped');
    assert.equal(await back.sendEmail(email.id), 'skipped');
    assert.deepEqual([back.texted, back.emailed], [[], []]);
  });

  it('paid: the link SMS and email are dropped; the receipt, by SMS and by email, is sent', async () => {
    const { claimId, link, sms, email } = await productionClaim();
    await giveBankDetails(link, claimId);
    await settle(claimId, 'paid');
    const receiptSms = await smsOf(claimId, 'paid');
    const receiptEmail = await emailOf(claimId, 'paid');

    const back = providersBack();
    assert.equal(await back.sendSms(sms.id), 'skipped');
    assert.equal(await back.sendEmail(email.id), 'skipped');
    await assertDropped('sms_messages', sms.id, LINK_SKIPPED.claimClosed('paid'));
    await assertDropped('emails', email.id, LINK_SKIPPED.claimClosed('paid'));
    assert.equal(await back.sendSms(receiptSms.id), 'sent');
    assert.equal(await back.sendEmail(receiptEmail.id), 'sent');
    assert.deepEqual(back.texted, [receiptSms.idempotency_key]);
    assert.deepEqual(back.emailed, [receiptEmail.dedupe_key]);
  });

  it('voided by the claim desk: the link email is dropped like the link SMS; the withdrawal SMS is sent', async () => {
    const { claimId, claimNumber, sms, email } = await productionClaim();
    const voided = await runCliOn(t, ['--json', 'claims', 'void', claimNumber, '--reason', 'wrong flight data'], {
      actor: 'operator:link-messages-test',
    });
    assert.equal(voided.code, 0, voided.err);
    const withdrawal = await smsOf(claimId, 'voided');

    const back = providersBack();
    assert.equal(await back.sendEmail(email.id), 'skipped');
    assert.equal(await back.sendSms(sms.id), 'skipped');
    await assertDropped('emails', email.id, LINK_SKIPPED.claimClosed('voided'));
    await assertDropped('sms_messages', sms.id, LINK_SKIPPED.claimClosed('voided'));
    assert.equal(await back.sendSms(withdrawal.id), 'sent');
    assert.deepEqual([back.texted, back.emailed], [[withdrawal.idempotency_key], []]);
  });

  /** A few days before the claim's due date, the customer is reminded (a new link, by SMS and email, both queued). */
  async function remind(claimId: string) {
    const { bank_details_due_at: dueAt } = await t.db
      .selectFrom('claims')
      .select('bank_details_due_at')
      .where('id', '=', claimId)
      .executeTakeFirstOrThrow();
    const near = new Date(dueAt!.getTime() - 2 * 86_400_000);
    const reminded = await notifyClaim(
      {
        db: t.db,
        jobs: t.app.parasol.jobs,
        keys: t.app.parasol.keys,
        publicUrl: 'https://claims.parasol.test',
        bankDetailsDays: 30,
        insurer: DEMO_INSURER,
        now: () => near,
      },
      { claimId, kind: 'reminder' },
    );
    assert.equal(reminded, 'sent');
    return { dueAt: dueAt!, sms: await smsOf(claimId, 'reminder'), email: await emailOf(claimId, 'reminder') };
  }

  it("a failed payout's link messages still go (the new link by SMS, then the reminder by SMS and email); the first link's, replaced, do not", async () => {
    const { claimId, link, sms, email } = await productionClaim();
    await giveBankDetails(link, claimId);
    await settle(claimId, 'failed');
    const newLink = await smsOf(claimId, 'payment-failed');

    const back = providersBack();
    // the first message's link was used, then replaced by the rejected payment's
    assert.equal(await back.sendSms(sms.id), 'skipped');
    assert.equal(await back.sendEmail(email.id), 'skipped');
    await assertDropped('sms_messages', sms.id, 'skipped: a newer link replaced this one; not sent');
    await assertDropped('emails', email.id, LINK_SKIPPED.replaced);
    assert.equal(await back.sendSms(newLink.id), 'sent');

    const reminder = await remind(claimId);
    assert.equal(await back.sendSms(reminder.sms.id), 'sent');
    assert.equal(await back.sendEmail(reminder.email.id), 'sent');
    assert.deepEqual(back.texted, [newLink.idempotency_key, reminder.sms.idempotency_key]);
    assert.deepEqual(back.emailed, [reminder.email.dedupe_key]);
    assert.equal(await claimStatus(claimId), 'failed');
  });

  it("a failed payout's new-link SMS still queued when the reminder replaced its link is dropped", async () => {
    const { claimId, link } = await productionClaim();
    await giveBankDetails(link, claimId);
    await settle(claimId, 'failed');
    const newLink = await smsOf(claimId, 'payment-failed');
    const reminder = await remind(claimId);

    const back = providersBack();
    assert.equal(await back.sendSms(newLink.id), 'skipped');
    await assertDropped('sms_messages', newLink.id, LINK_SKIPPED.replaced);
    assert.equal(await back.sendSms(reminder.sms.id), 'sent');
    assert.deepEqual(back.texted, [reminder.sms.idempotency_key]);
  });

  it('still waiting for bank details: the first SMS and email, replaced by the reminder, are dropped; the reminder goes', async () => {
    const { claimId, sms, email } = await productionClaim();
    const reminder = await remind(claimId);
    assert.equal(await claimStatus(claimId), 'awaiting_bank_details');

    const back = providersBack();
    assert.equal(await back.sendEmail(email.id), 'skipped');
    assert.equal(await back.sendSms(sms.id), 'skipped');
    await assertDropped('emails', email.id, LINK_SKIPPED.replaced);
    await assertDropped('sms_messages', sms.id, LINK_SKIPPED.replaced);
    assert.equal(await back.sendEmail(reminder.email.id), 'sent');
    assert.equal(await back.sendSms(reminder.sms.id), 'sent');
    assert.deepEqual([back.texted, back.emailed], [[reminder.sms.idempotency_key], [reminder.email.dedupe_key]]);
  });

  it("a link past its due date (the claim not expired yet) is not sent; under the desk's review it still is", async () => {
    const { claimId, sms, email } = await productionClaim();
    const reminder = await remind(claimId);
    const pastDue = () => new Date(reminder.dueAt.getTime() + 60_000);

    const back = providersBack();
    const common = { db: t.db, keys: t.app.parasol.keys, linkUselessClaimStatuses: LINK_USELESS_CLAIM_STATUSES };
    const noSms: SmsProvider = {
      name: 'twilio',
      send: async () => assert.fail('a link past its due date is not texted'),
    };
    assert.equal(await sendQueuedSms({ ...common, provider: noSms, now: pastDue }, reminder.sms.id), 'skipped');
    await assertDropped('sms_messages', reminder.sms.id, 'skipped: its link is past its due date; not sent');

    // under the desk's manual review the link keeps taking bank details past its due date
    await t.db.updateTable('claims').set({ manual_review_at: new Date() }).where('id', '=', claimId).execute();
    const smtp: EmailProvider = {
      name: 'smtp',
      send: async () => ({ providerMessageId: '<review@link-messages.test>' }),
    };
    assert.equal(
      await sendQueuedEmail(
        { ...common, providers: { outbox: new OutboxEmailProvider(), smtp }, now: pastDue },
        reminder.email.id,
      ),
      'sent',
    );
    // the first message's, replaced by the reminder's, whatever the review
    assert.equal(await back.sendSms(sms.id), 'skipped');
    assert.equal(await back.sendEmail(email.id), 'skipped');
  });

  it("a sandbox claim voided: its link email still goes to the email outbox (the rule is production's)", async () => {
    const sandbox = await createTestPartner(t.db, { environment: 'sandbox' });
    const { claimNumber } = await cancelledFlightClaim(t, sandbox, sandbox.auth, { flightNumber: `AF${seq++}` });
    const { id: claimId } = await t.db
      .selectFrom('claims')
      .select('id')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    const opened = await emailOf(claimId, 'bank-details');
    // the worker puts it in the outbox at once: once it has, the claim is voided and the message made
    // queued again, as if its send had waited for the void
    await eventually(async () => (await emailOf(claimId, 'bank-details')).status === 'sent' || undefined);
    const voided = await runCliOn(t, ['--json', 'claims', 'void', claimNumber, '--reason', 'wrong flight data'], {
      actor: 'operator:link-messages-test',
    });
    assert.equal(voided.code, 0, voided.err);
    await t.db
      .updateTable('emails')
      .set({ status: 'queued', provider: null, provider_message_id: null, sent_at: null })
      .where('id', '=', opened.id)
      .execute();

    const back = providersBack();
    assert.equal(await back.sendEmail(opened.id), 'sent');
    assert.deepEqual(back.emailed, [], 'kept in the outbox, never sent by SMTP');
    const row = await t.db
      .selectFrom('emails')
      .select(['status', 'provider', 'last_error'])
      .where('id', '=', opened.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'sent', provider: 'outbox', last_error: null });
  });
});
