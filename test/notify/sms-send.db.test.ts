import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { messageKind } from '../../src/notify/sms/claim-messages.ts';
import { platformResendJobId, recordSmsDelivery, sweepEarlyReceipts } from '../../src/notify/sms/delivery.ts';
import { messageRequeuedAtSend } from '../../src/notify/sms/sms-repo.ts';
import { twilioSignature } from '../../src/notify/sms/twilio-signature.ts';
import { twilioStatusRoutes } from '../../src/notify/sms/twilio-status-routes.ts';
import { JOBS, type JobRuntime } from '../../src/jobs/registry.ts';
import type { UndeliveredSms } from '../../src/notify/sms/delivery.ts';
import {
  giveUpStaleSms,
  MAX_SMS_ATTEMPTS,
  queueSms,
  requeueStaleSms,
  deferralDelayMs,
  sendQueuedSms,
  SMS_GIVE_UP_HOURS,
  SMS_MAX_DEFERRALS,
  SMS_RETRY_AFTER_MAX_MS,
  SMS_GIVEN_UP,
  SMS_QUEUE_POLICY,
} from '../../src/notify/sms/sms-queue.ts';
import { SmsRetryableError, type SmsProvider } from '../../src/notify/sms/sms.ts';
import { TwilioSmsProvider } from '../../src/notify/sms/twilio.ts';
import { deriveKeyring } from '../../src/platform/crypto.ts';
import { transaction, type Db } from '../../src/platform/db.ts';
import { smsTotal } from '../../src/platform/metrics.ts';
import { JobQueue } from '../../src/platform/jobs.ts';
import { createTestPartner, openTestDatabase, testConfig } from '../helper.ts';
import { ACCOUNT_SID, AUTH_TOKEN, startFakeTwilio } from './twilio-fake.ts';

/**
 * At least once, through an outage: attempts Twilio answered with an error (5xx, 429) or never received
 * do not use up the message's sends, so the sweep sends it once Twilio is back.
 *
 * Exactly once through Twilio, which has no idempotency key: the send job's retry after an attempt
 * Twilio accepted but whose answer was lost (the connection dropped; a timeout or a worker stopped
 * before its commit leave the row the same way) records that first message instead of texting again.
 */

const keys = deriveKeyring(testConfig().masterKey!);
const jobs = { send: async () => 'job', sendMany: async () => undefined } as unknown as JobQueue;
const TO = '+33612345678';
const BODY =
  'SkyFly (insured by Parasol): enter your bank details: https://parasol.example.com/c/q3Zk9Vb0T1xYw2cR8mN5pL';

/** A database with a production partner. */
async function productionPartner(t: TestContext) {
  const { db } = await openTestDatabase(t);
  return { db, partner: await createTestPartner(db, { environment: 'production' }) };
}

/** Queues a production message (no claim) to TO under `key`, as claims_notify does; its id. */
async function queued(db: Db, partnerId: string, key: string, body = BODY): Promise<string> {
  await transaction(db, (trx) =>
    queueSms(
      trx,
      { jobs, keys },
      { idempotencyKey: key, partnerId, environment: 'production', claimId: null, to: TO, body },
    ),
  );
  const row = await db
    .selectFrom('sms_messages')
    .select('id')
    .where('idempotency_key', '=', key)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The fake Twilio (its protocol problems checked when the test ends) and the real adapter on it. */
async function fakeTwilio(t: TestContext) {
  const fake = await startFakeTwilio(t);
  t.after(() => assert.deepEqual(fake.problems, []));
  const twilio = new TwilioSmsProvider({
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    from: '+14155552345',
    baseUrl: fake.baseUrl,
    timeoutMs: 60_000,
  });
  return { fake, twilio };
}

test('a retry after Twilio accepted the message but its answer was lost texts the customer once', async (t) => {
  const { db, partner } = await productionPartner(t);
  const { fake, twilio } = await fakeTwilio(t);
  const smsId = await queued(db, partner.id, 'test:lost-answer:1');
  const deps = { db, keys, provider: twilio, linkUselessClaimStatuses: [] };

  fake.override = 'drop';
  await assert.rejects(sendQueuedSms(deps, smsId), SmsRetryableError);
  assert.equal(fake.messages.length, 1, 'Twilio accepted it');
  const first = fake.messages[0]!;
  // its status callback comes before the platform knows the sid: kept
  assert.equal(
    await recordSmsDelivery(
      { db, jobs },
      'twilio',
      { messageSid: first.sid, status: 'delivered', errorCode: null },
      new Date(),
    ),
    'early',
  );

  fake.override = null;
  assert.equal(await sendQueuedSms(deps, smsId), 'sent');
  assert.equal(fake.messages.length, 1, 'not texted twice');
  const row = await db
    .selectFrom('sms_messages')
    .select(['status', 'provider_message_id', 'attempts', 'delivery_status'])
    .where('id', '=', smsId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(
    [row.status, row.provider_message_id, Number(row.attempts), row.delivery_status],
    ['sent', first.sid, 2, 'delivered'],
  );

  // the first attempt sent without a look-up; the retry looked up and found it
  assert.deepEqual(
    fake.requests.map((r) => r.method),
    ['POST', 'GET'],
  );
});

test('a Twilio outage longer than the send job’s retries does not use up the message: the sweep sends it after', async (t) => {
  const { db, partner } = await productionPartner(t);
  const smsId = await queued(db, partner.id, 'test:outage:1');
  let up = false;
  const texted: string[] = [];
  const twilio: SmsProvider = {
    name: 'twilio',
    send: async (msg) => {
      if (!up) throw new SmsRetryableError('twilio', 'server_error', 'HTTP 503 (Twilio 20500)', { httpStatus: 503 });
      texted.push(msg.body);
      return { providerMessageId: `SM${'4'.repeat(32)}`, status: 'queued' };
    },
  };
  const deps = { db, keys, provider: twilio, linkUselessClaimStatuses: [] };
  // every run of the job's chain (its retries), and more, while Twilio answers 503
  for (let run = 0; run <= MAX_SMS_ATTEMPTS; run += 1)
    await assert.rejects(sendQueuedSms(deps, smsId), SmsRetryableError);
  assert.deepEqual(texted, []);

  up = true;
  const requeued: unknown[] = [];
  const sweepJobs = { sendMany: async (_name: string, payloads: unknown[]) => void requeued.push(...payloads) };
  assert.equal(await requeueStaleSms({ db, jobs: sweepJobs as unknown as JobQueue }, 0), 1);
  assert.deepEqual(requeued, [{ smsId }]);
  assert.equal(await sendQueuedSms(deps, smsId), 'sent');
  assert.deepEqual(texted, [BODY], 'texted once, once Twilio is back');
});

test('a reminder an outage kept queued and that comes out at night is held until the customer’s morning; a claim’s first message is not', async (t) => {
  const { db, partner } = await productionPartner(t);
  // a claim's reminder and first message (their keys name the kind), to a French number, the provider
  // down until 23:00 in Paris
  const claim = '00000000-0000-4000-8000-00000000a001';
  const reminder = await queued(db, partner.id, `claim:${claim}:reminder:1700000000000`);
  const first = await queued(db, partner.id, `claim:${claim}:bank-details`);
  const texted: string[] = [];
  const twilio: SmsProvider = {
    name: 'twilio',
    send: async (msg) => {
      texted.push(msg.idempotencyKey);
      return { providerMessageId: `SM${String(texted.length).repeat(32)}`, status: 'queued' };
    },
  };
  const queuedJobs: { data: unknown; startAfter: Date | undefined }[] = [];
  const recording = {
    send: async (_name: string, data: unknown, o: { startAfter?: Date } = {}) => {
      queuedJobs.push({ data, startAfter: o.startAfter });
      return 'job';
    },
  } as unknown as JobQueue;
  const NIGHT = new Date('2026-01-15T22:00:00Z'); // 23:00 in Paris
  const deps = (now: Date) => ({
    db,
    keys,
    provider: twilio,
    linkUselessClaimStatuses: [],
    jobs: recording,
    quietHours: { from: 21, to: 8 },
    now: () => now,
  });

  const started = Date.now();
  assert.equal(await sendQueuedSms(deps(NIGHT), reminder), 'held');
  assert.deepEqual(texted, [], 'not texted at 23:00');
  assert.equal(queuedJobs.length, 1, 'its send job queued for the morning');
  assert.deepEqual(queuedJobs[0]!.data, { smsId: reminder });
  const wait = queuedJobs[0]!.startAfter!.getTime() - started;
  assert.ok(Math.abs(wait - 9 * 3_600_000) < 60_000, `nine hours later, at 08:00 in Paris (${wait} ms)`);
  const held = await db
    .selectFrom('sms_messages')
    .select(['status', 'attempts', 'locked_until', 'last_error'])
    .where('id', '=', reminder)
    .executeTakeFirstOrThrow();
  assert.deepEqual([held.status, Number(held.attempts), held.last_error], ['queued', 0, null], 'no send used');
  assert.equal(held.locked_until?.getTime(), queuedJobs[0]!.startAfter!.getTime(), 'the sweep leaves it until then');
  let swept: unknown[] = [];
  const sweep = { sendMany: async (_name: string, payloads: unknown[]) => void (swept = payloads) };
  await requeueStaleSms({ db, jobs: sweep as unknown as JobQueue }, 0);
  assert.ok(!swept.some((p) => (p as { smsId: string }).smsId === reminder), 'the sweep skips a held message');

  // the claim's first message is sent at any hour, after an outage as the first time
  assert.equal(await sendQueuedSms(deps(NIGHT), first), 'sent');
  assert.deepEqual(texted, [`claim:${claim}:bank-details`]);

  // the morning (its hold moved back, as time would): sent, once
  await db.updateTable('sms_messages').set({ locked_until: null }).where('id', '=', reminder).execute();
  assert.equal(await sendQueuedSms(deps(new Date('2026-01-16T07:00:00Z')), reminder), 'sent');
  assert.deepEqual(texted, [`claim:${claim}:bank-details`, `claim:${claim}:reminder:1700000000000`]);
  assert.equal(queuedJobs.length, 1);
});

test('a message written 23.5 hours ago is not held at night: its morning would come after its give-up; one written 2 hours ago is', async (t) => {
  const { db, partner } = await productionPartner(t);
  const claim = '00000000-0000-4000-8000-00000000a002';
  const NIGHT = new Date('2026-01-15T22:00:00Z'); // 23:00 in Paris: held until 08:00, 9 hours on
  const old = await queued(db, partner.id, `claim:${claim}:expired`);
  const recent = await queued(db, partner.id, `claim:${claim}:reminder:1700000000000`);
  // written by the application's clock, as the give-up sweep measures it (its `now`)
  const writtenAgo = async (id: string, hours: number) =>
    db
      .updateTable('sms_messages')
      .set({ created_at: new Date(NIGHT.getTime() - hours * 3_600_000) })
      .where('id', '=', id)
      .execute();
  await writtenAgo(old, 23.5);
  await writtenAgo(recent, 2);
  const texted: string[] = [];
  const twilio: SmsProvider = {
    name: 'twilio',
    send: async (msg) => {
      texted.push(msg.idempotencyKey);
      return { providerMessageId: `SM${String(texted.length).repeat(32)}`, status: 'queued' };
    },
  };
  const deps = {
    db,
    keys,
    provider: twilio,
    linkUselessClaimStatuses: [],
    jobs,
    quietHours: { from: 21, to: 8 },
    now: () => NIGHT,
  };
  // held until 08:00, it would reach the sweep's 24 hours with at most one try (a rejection, the
  // partner told the customer is unreachable): texted now, at night
  assert.equal(await sendQueuedSms(deps, old), 'sent');
  assert.deepEqual(texted, [`claim:${claim}:expired`]);
  assert.equal(await giveUpStaleSms({ db, now: () => new Date(NIGHT.getTime() + 9 * 3_600_000) }), 0);
  // 2 hours old: its morning comes 13 hours before its give-up, it waits
  assert.equal(await sendQueuedSms(deps, recent), 'held');
  assert.equal(texted.length, 1);
});

test('the sms_send handler holds at night by PARASOL_SMS_QUIET_HOURS (21-8): outcome held, counted', async (t) => {
  const { db, partner } = await productionPartner(t);
  const smsId = await queued(db, partner.id, 'claim:00000000-0000-4000-8000-00000000a003:expired');
  const texted: string[] = [];
  const twilio: SmsProvider = {
    name: 'twilio',
    send: async (msg) => {
      texted.push(msg.idempotencyKey);
      return { providerMessageId: `SM${'7'.repeat(32)}`, status: 'queued' };
    },
  };
  const count = async () =>
    (await smsTotal.get()).values
      .filter((v) => v.labels.outcome === 'held' && v.labels.channel === 'twilio')
      .reduce((sum, v) => sum + v.value, 0);
  const lines: unknown[] = [];
  const log = { info: (o: unknown) => void lines.push(o), warn: () => {}, error: () => {} };
  const config = testConfig({ PARASOL_SMS_QUIET_HOURS: '21-8' });
  const rt = {
    db,
    keys,
    jobs,
    sms: twilio,
    now: () => new Date('2026-01-15T23:30:00Z'), // 00:30 in Paris
    log,
    config,
  } as unknown as JobRuntime;
  const before = await count();
  await JOBS.sms_send.handler(rt)({ id: 'j1', data: { smsId } } as never);
  assert.deepEqual(texted, [], 'not texted at 00:30');
  assert.equal(await count(), before + 1, 'parasol_sms_total{outcome="held"}');
  assert.deepEqual(lines, [{ smsId, outcome: 'held' }]);
  const row = await db
    .selectFrom('sms_messages')
    .select(['status', 'locked_until'])
    .where('id', '=', smsId)
    .executeTakeFirstOrThrow();
  assert.equal(row.status, 'queued');
  assert.ok(row.locked_until && row.locked_until.getTime() > Date.now() + 6 * 3_600_000, 'held until the morning');
});

test('a sent message is stamped with the application’s clock, as the claim’s other times', async (t) => {
  const { db, partner } = await productionPartner(t);
  const smsId = await queued(db, partner.id, 'test:clock:1');
  const NOW = new Date('2031-05-04T10:00:00.000Z');
  const twilio: SmsProvider = {
    name: 'twilio',
    send: async () => ({ providerMessageId: `SM${'6'.repeat(32)}`, status: 'queued' }),
  };
  assert.equal(
    await sendQueuedSms({ db, keys, provider: twilio, linkUselessClaimStatuses: [], now: () => NOW }, smsId),
    'sent',
  );
  const row = await db.selectFrom('sms_messages').select('sent_at').where('id', '=', smsId).executeTakeFirstOrThrow();
  assert.equal(row.sent_at?.toISOString(), NOW.toISOString());
});

test('two messages with the same text to one customer (two claims’ receipts) are both sent, each its own sid', async (t) => {
  const { db, partner } = await productionPartner(t);
  const { fake, twilio } = await fakeTwilio(t);
  // a receipt carries no link: two claims' receipts of one customer can read word for word alike
  const receipt = 'SkyFly (insured by Parasol): your compensation for AF1234 of 04/05 (EUR 250.00) was paid.';
  const ids: string[] = [];
  for (const key of ['test:twin:A:paid', 'test:twin:B:paid']) {
    ids.push(await queued(db, partner.id, key, receipt));
  }
  const deps = { db, keys, provider: twilio, linkUselessClaimStatuses: [] };
  assert.equal(await sendQueuedSms(deps, ids[0]!), 'sent');
  // B's first attempt meets a Twilio error: its retry looks up first, and finds A's identical text
  fake.override = {
    status: 503,
    body: {
      code: 20500,
      message: 'Internal Server Error',
      more_info: 'https://www.twilio.com/docs/errors/20500',
      status: 503,
    },
  };
  await assert.rejects(sendQueuedSms(deps, ids[1]!), SmsRetryableError);
  fake.override = null;
  assert.equal(await sendQueuedSms(deps, ids[1]!), 'sent');

  assert.equal(fake.messages.length, 2, 'each receipt texted');
  const sids = await db
    .selectFrom('sms_messages')
    .select(['id', 'provider_message_id'])
    .where('id', 'in', ids)
    .execute();
  const byId = new Map(sids.map((r) => [r.id, r.provider_message_id]));
  assert.equal(byId.get(ids[0]!), fake.messages[0]?.sid);
  assert.equal(byId.get(ids[1]!), fake.messages[1]?.sid);
});

test('a look-up that fails before the send (dropped, unreadable) is retried without using up a send', async (t) => {
  const { db, partner } = await productionPartner(t);
  const { fake, twilio } = await fakeTwilio(t);
  const smsId = await queued(db, partner.id, 'test:lookup:1');
  const deps = { db, keys, provider: twilio, linkUselessClaimStatuses: [] };
  const attempts = async () =>
    Number(
      (await db.selectFrom('sms_messages').select('attempts').where('id', '=', smsId).executeTakeFirstOrThrow())
        .attempts,
    );

  // an error answer: given back, and the next send looks up first
  fake.override = {
    status: 503,
    body: {
      code: 20500,
      message: 'Internal Server Error',
      more_info: 'https://www.twilio.com/docs/errors/20500',
      status: 503,
    },
  };
  await assert.rejects(sendQueuedSms(deps, smsId), SmsRetryableError);
  assert.equal(await attempts(), 0);
  // the look-up's connection dropped, then its 200 unreadable: no POST, nothing counted
  fake.override = 'drop';
  await assert.rejects(
    sendQueuedSms(deps, smsId),
    (e: unknown) => e instanceof SmsRetryableError && e.reason === 'network',
  );
  fake.override = { status: 200, rawBody: '<html>maintenance</html>' };
  await assert.rejects(
    sendQueuedSms(deps, smsId),
    (e: unknown) => e instanceof SmsRetryableError && e.reason === 'invalid_response',
  );
  assert.equal(await attempts(), 0, 'no send was attempted');
  assert.equal(fake.messages.length, 0);
  assert.deepEqual(
    fake.requests.map((r) => r.method),
    ['POST', 'GET', 'GET'],
  );
  fake.override = null;
  assert.equal(await sendQueuedSms(deps, smsId), 'sent');
  assert.equal(fake.messages.length, 1);
});

test('a message still queued a day after it was written is given up: rejected, audited, handed to onUndelivered', async (t) => {
  const { db, partner } = await productionPartner(t);
  const old = await queued(db, partner.id, 'test:give-up:old');
  const recent = await queued(db, partner.id, 'test:give-up:recent');
  // its sends used up (timeouts each time): before, it stayed queued for ever, unseen
  await db
    .updateTable('sms_messages')
    .set({ created_at: new Date(Date.now() - (SMS_GIVE_UP_HOURS + 1) * 3_600_000), attempts: MAX_SMS_ATTEMPTS })
    .where('id', '=', old)
    .execute();
  await db
    .updateTable('sms_messages')
    .set({ created_at: new Date(Date.now() - 3_600_000) })
    .where('id', '=', recent)
    .execute();

  const told: UndeliveredSms[] = [];
  const onUndelivered = async (_trx: unknown, sms: UndeliveredSms) => void told.push(sms);
  assert.equal(await giveUpStaleSms({ db, onUndelivered }), 1);
  const rows = await db.selectFrom('sms_messages').select(['id', 'status', 'last_error']).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  assert.deepEqual([byId.get(old)?.status, byId.get(old)?.last_error], ['rejected', SMS_GIVEN_UP]);
  assert.equal(byId.get(recent)?.status, 'queued');
  assert.deepEqual(
    told.map((m) => [m.smsId, m.status, m.superseded]),
    [[old, 'rejected', false]],
  );
  const audits = await db
    .selectFrom('audit_log')
    .select(['action', 'entity_id', 'data'])
    .where('action', '=', 'sms_rejected')
    .execute();
  assert.deepEqual(
    audits.map((a) => [a.entity_id, (a.data as { reason?: string }).reason]),
    [[old, 'given_up']],
  );
  assert.equal(await giveUpStaleSms({ db, onUndelivered }), 0, 'given up once');
});

test('the send job counts retryable failures by reason, and the sweep the messages given up (parasol_sms_total)', async (t) => {
  const { db, partner } = await productionPartner(t);
  const smsId = await queued(db, partner.id, 'test:metrics:1');
  const count = async (labels: Record<string, string>) =>
    (await smsTotal.get()).values
      .filter((v) => Object.entries(labels).every(([k, value]) => (v.labels as Record<string, unknown>)[k] === value))
      .filter((v) => Object.keys(v.labels).length === Object.keys(labels).length)
      .reduce((sum, v) => sum + v.value, 0);
  const down: SmsProvider = {
    name: 'twilio',
    send: async () => {
      throw new SmsRetryableError('twilio', 'server_error', 'HTTP 503');
    },
  };
  const log = { info: () => {}, warn: () => {}, error: () => {} };
  const rt = { db, keys, jobs, sms: down, now: () => new Date(), log, config: testConfig() } as unknown as JobRuntime;
  const retries = { channel: 'twilio', outcome: 'retry', reason: 'server_error' };
  const before = await count(retries);
  await assert.rejects(JOBS.sms_send.handler(rt)({ id: 'j1', data: { smsId } } as never), SmsRetryableError);
  assert.equal(await count(retries), before + 1, 'an outage is visible');

  const givenUp = { channel: 'twilio', outcome: 'given_up' };
  const beforeGivenUp = await count(givenUp);
  await db
    .updateTable('sms_messages')
    .set({ created_at: new Date(Date.now() - (SMS_GIVE_UP_HOURS + 1) * 3_600_000) })
    .where('id', '=', smsId)
    .execute();
  await JOBS.sms_requeue.handler({ ...rt, sms: undefined } as JobRuntime)({ id: 'j2', data: {} } as never);
  assert.equal(await count(givenUp), beforeGivenUp + 1);
});

test('Twilio’s Retry-After (429) defers the next send by it: a job queued to start then, no back-off retry, no send used up', async (t) => {
  const { db, partner } = await productionPartner(t);
  const { fake, twilio } = await fakeTwilio(t);
  const smsId = await queued(db, partner.id, 'test:retry-after:1');
  const sent: { name: string; data: unknown; startAfter: Date | undefined }[] = [];
  const recording = {
    send: async (name: string, data: unknown, o: { startAfter?: Date } = {}) => {
      sent.push({ name, data, startAfter: o.startAfter });
      return 'job';
    },
  } as unknown as JobQueue;
  const log = { info: () => {}, warn: () => {}, error: () => {} };
  const rt = {
    db,
    keys,
    jobs: recording,
    sms: twilio,
    now: () => new Date(),
    log,
    config: testConfig(),
  } as unknown as JobRuntime;
  const tooMany = (retryAfter: string) => ({
    status: 429,
    headers: { 'Retry-After': retryAfter },
    body: {
      code: 20429,
      message: 'Too Many Requests',
      more_info: 'https://www.twilio.com/docs/errors/20429',
      status: 429,
    },
  });

  fake.override = tooMany('120');
  const started = Date.now();
  // the job ends (pg-boss would otherwise retry it after 3 s, before Twilio asked)
  await JOBS.sms_send.handler(rt)({ id: 'j1', data: { smsId } } as never);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.name, 'sms_send');
  assert.deepEqual(sent[0]!.data, { smsId, deferrals: 1 });
  const wait = sent[0]!.startAfter!.getTime() - started;
  assert.ok(wait >= 120_000 && wait < 125_000, `the next send starts after Twilio's 120 s (${wait} ms)`);
  const row = await db
    .selectFrom('sms_messages')
    .select(['status', 'attempts', 'locked_until'])
    .where('id', '=', smsId)
    .executeTakeFirstOrThrow();
  assert.deepEqual([row.status, Number(row.attempts)], ['queued', 0], 'given back, not used up');
  // held until the deferred job starts (one instant): the sms_requeue sweep does not start a second chain
  assert.equal(row.locked_until?.getTime(), sent[0]!.startAfter!.getTime(), 'held until the next send starts');
  let swept: unknown[] = [];
  const sweep = { sendMany: async (_name: string, payloads: unknown[]) => void (swept = payloads) };
  const sweepTakes = async () => {
    await requeueStaleSms({ db, jobs: sweep as unknown as JobQueue }, 0);
    return swept.some((p) => (p as { smsId: string }).smsId === smsId);
  };
  assert.equal(await sweepTakes(), false, 'the sweep skips a deferred message');
  // once its time has come (here: moved back), the sweep takes it again if its job did not
  const due = () =>
    db
      .updateTable('sms_messages')
      .set({ locked_until: new Date(Date.now() - 1_000) })
      .where('id', '=', smsId)
      .execute();
  await due();
  assert.equal(await sweepTakes(), true, 'and takes it after');

  // a Retry-After of a day is capped: the message is tried again within SMS_RETRY_AFTER_MAX_MS
  fake.override = tooMany('86400');
  await JOBS.sms_send.handler(rt)({ id: 'j2', data: { smsId, deferrals: 1 } } as never);
  const capped = sent[1]!.startAfter!.getTime() - Date.now();
  assert.ok(capped <= SMS_RETRY_AFTER_MAX_MS && capped > SMS_RETRY_AFTER_MAX_MS - 5_000, `capped (${capped} ms)`);
  assert.deepEqual(sent[1]!.data, { smsId, deferrals: 2 });

  // deferred too often in a row: the queue's back-off again (the job throws), no job queued
  await due();
  await assert.rejects(
    JOBS.sms_send.handler(rt)({ id: 'j3', data: { smsId, deferrals: SMS_MAX_DEFERRALS } } as never),
    SmsRetryableError,
  );
  assert.equal(sent.length, 2);

  fake.override = null;
  await due();
  await JOBS.sms_send.handler(rt)({ id: 'j4', data: { smsId, deferrals: 2 } } as never);
  assert.equal(fake.messages.length, 1, 'texted once Twilio takes it');
});

test('a deferral waits at least the back-off it replaces, at most SMS_RETRY_AFTER_MAX_MS', () => {
  assert.equal(deferralDelayMs(120_000, 0), 120_000);
  assert.equal(deferralDelayMs(1_000, 0), 3_000, 'Retry-After: 1 repeated does not call Twilio every second');
  assert.equal(deferralDelayMs(1_000, 4), 48_000);
  assert.equal(deferralDelayMs(86_400_000, 0), SMS_RETRY_AFTER_MAX_MS);
  assert.equal(deferralDelayMs(0, 30), SMS_RETRY_AFTER_MAX_MS);
});

/** The `sms_send` jobs of a message in pg-boss's table: id, due time. */
async function sendJobsOf(db: Db, smsId: string) {
  const { rows } = await sql<{ id: string; start_after: Date }>`
    SELECT id, start_after FROM pgboss.job WHERE name = 'sms_send' AND data->>'smsId' = ${smsId}`.execute(db);
  return rows.map((j) => [j.id, j.start_after.toISOString()]);
}

/** A running job queue (no worker) on the test database, its `sms_send` queue created. */
async function jobQueue(t: TestContext, db: Db): Promise<JobQueue> {
  const queue = await new JobQueue(db, { schedules: false, supervise: false }).start();
  t.after(() => queue.stop({ timeoutMs: 2000 }));
  await queue.queue('sms_send', SMS_QUEUE_POLICY);
  return queue;
}

for (const as of ['failed', 'error'] as const)
  test(`a send Twilio answers with its queue overflow (30001${as === 'error' ? ', an error answer' : ', a message created failed'}) is queued again as a receipt with 30001 is: held, its keyed job due at the hold's end, texted once after`, async (t) => {
    const { db, partner } = await productionPartner(t);
    const { fake, twilio } = await fakeTwilio(t);
    const queue = await jobQueue(t, db);
    const key = `test:overflow-at-send:${as}`;
    const smsId = await queued(db, partner.id, key);
    const told: UndeliveredSms[] = [];
    // the application's clock, ten minutes behind the database's: the hold (a minute) is over when the test looks
    const SEND = new Date(Date.now() - 10 * 60_000);
    const deps = {
      db,
      keys,
      provider: twilio,
      linkUselessClaimStatuses: [],
      jobs: queue,
      now: () => SEND,
      onUndelivered: async (_trx: unknown, sms: UndeliveredSms) => void told.push(sms),
    };

    fake.queueOverflow = { as, times: 1 };
    assert.equal(await sendQueuedSms(deps, smsId), 'requeued');
    const holdEnd = new Date(SEND.getTime() + 60_000);
    const held = await db
      .selectFrom('sms_messages')
      .select(['status', 'attempts', 'provider_message_id', 'delivery_status', 'locked_until', 'last_error'])
      .where('id', '=', smsId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { ...held, attempts: Number(held.attempts) },
      {
        status: 'queued',
        attempts: 1,
        provider_message_id: null,
        delivery_status: null,
        locked_until: holdEnd,
        last_error: "send failure 30001 of the platform's, passing: queued again",
      },
      'queued again, the send counted, held a minute (the back-off of a first send)',
    );
    assert.deepEqual(
      await sendJobsOf(db, smsId),
      [[platformResendJobId(smsId, 1), holdEnd.toISOString()]],
      'its send job, due when the hold ends, keyed by the message and the failed send',
    );
    const audits = await db
      .selectFrom('audit_log')
      .select(['action', 'data'])
      .where('entity', '=', 'sms')
      .where('entity_id', '=', smsId)
      .execute();
    assert.deepEqual(
      audits.map((a) => [a.action, a.data]),
      [
        [
          'sms_undelivered',
          {
            status: as === 'error' ? 'rejected' : 'failed',
            provider: 'twilio',
            providerCode: 30001,
            kind: messageKind(key),
            source: 'send',
            // the id of the message Twilio created failed: its receipt, later, is recognised
            ...(as === 'failed' ? { providerMessageId: fake.messages[0]!.sid } : {}),
            platformFailure: true,
            failureClass: 'temporary',
            queuedAgain: true,
          },
        ],
      ],
    );
    assert.deepEqual(told, [], "the platform's failure: the partner not told");

    const failedSid = fake.messages[0]?.sid;
    if (as === 'failed') {
      // Twilio's own receipt of the message it created failed, posted after the requeue forgot its sid:
      // kept early, the message and its job unchanged (one requeue, one job) — recognised as that send's
      const jobsBefore = await sendJobsOf(db, smsId);
      assert.equal(
        await recordSmsDelivery(
          { db, jobs: queue, onUndelivered: deps.onUndelivered },
          'twilio',
          { messageSid: failedSid!, status: 'failed', errorCode: 30001, platformFailure: 'temporary' },
          SEND,
        ),
        'early',
      );
      const after = await db
        .selectFrom('sms_messages')
        .select(['status', 'attempts', 'provider_message_id', 'delivery_status', 'locked_until', 'last_error'])
        .where('id', '=', smsId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(after, held, 'the message as the requeue left it');
      assert.deepEqual(await sendJobsOf(db, smsId), jobsBefore, 'no second job');
      assert.deepEqual(
        await messageRequeuedAtSend(db, 'twilio', failedSid!, new Date(SEND.getTime() - 86_400_000)),
        { smsId, claimId: null, claimNumber: null },
        "the receipt's message: the one its send queued again (the status callback logs no second error)",
      );
      assert.equal(await messageRequeuedAtSend(db, 'twilio', `SM${'0'.repeat(32)}`, new Date(0)), undefined);
      assert.deepEqual(told, [], 'the partner still not told');

      // the status callback itself: a second such receipt logged at info, naming the message — no second error line
      const lines: { level: number; msg: string; smsId?: string }[] = [];
      const app = Fastify({
        logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
      });
      t.after(() => app.close());
      const url = 'https://parasol.example/providers/twilio/sms-status';
      await app.register(
        twilioStatusRoutes({
          db,
          jobs: queue,
          twilio: {
            accountSid: ACCOUNT_SID,
            authToken: AUTH_TOKEN,
            from: undefined,
            messagingServiceSid: undefined,
            baseUrl: undefined,
            statusCallbackUrl: url,
          },
          now: () => SEND,
        }),
      );
      const form = {
        AccountSid: ACCOUNT_SID,
        MessageSid: failedSid!,
        MessageStatus: 'failed',
        ErrorCode: '30001',
      };
      const answer = await app.inject({
        method: 'POST',
        url: '/providers/twilio/sms-status',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilioSignature(AUTH_TOKEN, url, Object.entries(form)),
        },
        payload: new URLSearchParams(form).toString(),
      });
      assert.equal(answer.statusCode, 204);
      const receiptLines = lines.filter((l) => l.msg.startsWith('sms '));
      assert.deepEqual(
        receiptLines.map((l) => [l.level, l.msg, l.smsId]),
        [[30, 'sms delivery receipt of a send already queued again for that failure (answered at send)', smsId]],
      );
    }

    // the job (here called directly): looks up the failed attempt first, skips it (failed), texts once
    assert.equal(await sendQueuedSms(deps, smsId), 'sent');
    assert.deepEqual(
      fake.requests.map((r) => r.method),
      ['POST', 'GET', 'POST'],
    );
    const delivered = fake.messages.filter((m) => m.resource.status !== 'failed');
    assert.equal(delivered.length, 1, 'texted once');
    const sent = await db
      .selectFrom('sms_messages')
      .select(['status', 'attempts', 'provider_message_id'])
      .where('id', '=', smsId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { ...sent, attempts: Number(sent.attempts) },
      { status: 'sent', attempts: 2, provider_message_id: delivered[0]!.sid },
    );
    assert.equal(await sendQueuedSms(deps, smsId), 'skipped', 'a second job sends nothing');
    if (as === 'failed') {
      // after the resend, the early receipt of the failed message still matches none: the sweep applies none
      assert.equal(await sweepEarlyReceipts({ db, jobs: queue, onUndelivered: deps.onUndelivered }, new Date()), 0);
      const row = await db
        .selectFrom('sms_messages')
        .select(['status', 'provider_message_id', 'delivery_status'])
        .where('id', '=', smsId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { status: 'sent', provider_message_id: delivered[0]!.sid, delivery_status: null });
      assert.deepEqual(told, []);
    }
  });

test('a send answered with 30001 with no sends left is not queued again: a message created stays sent, failed; an error answer is rejected', async (t) => {
  const { db, partner } = await productionPartner(t);
  const { fake, twilio } = await fakeTwilio(t);
  const queue = await jobQueue(t, db);
  const told: UndeliveredSms[] = [];
  const deps = {
    db,
    keys,
    provider: twilio,
    linkUselessClaimStatuses: [],
    jobs: queue,
    onUndelivered: async (_trx: unknown, sms: UndeliveredSms) => void told.push(sms),
  };
  for (const as of ['failed', 'error'] as const) {
    const smsId = await queued(db, partner.id, `test:overflow-used-up:${as}`, `${BODY} ${as}`);
    // its last send left (the earlier ones timed out)
    await db
      .updateTable('sms_messages')
      .set({ attempts: MAX_SMS_ATTEMPTS - 1, last_error: 'twilio: no answer within 10000 ms' })
      .where('id', '=', smsId)
      .execute();
    fake.queueOverflow = { as, times: 1 };
    assert.equal(await sendQueuedSms(deps, smsId), 'rejected', as);
    const row = await db
      .selectFrom('sms_messages')
      .select(['status', 'attempts', 'provider_message_id', 'delivery_status', 'delivery_error', 'last_error'])
      .where('id', '=', smsId)
      .executeTakeFirstOrThrow();
    if (as === 'failed')
      assert.deepEqual(
        [row.status, row.provider_message_id, row.delivery_status, row.delivery_error],
        ['sent', fake.messages.at(-1)!.sid, 'failed', 30001],
        'as a receipt with 30001 leaves a message out of sends',
      );
    else
      assert.deepEqual(
        [row.status, row.provider_message_id, row.last_error],
        ['rejected', null, 'twilio: HTTP 400 (Twilio 30001): Queue overflow'],
      );
    assert.equal(Number(row.attempts), MAX_SMS_ATTEMPTS, as);
    assert.deepEqual(await sendJobsOf(db, smsId), [], `${as}: no job queued`);
    const audit = await db
      .selectFrom('audit_log')
      .select('data')
      .where('entity', '=', 'sms')
      .where('entity_id', '=', smsId)
      .where('action', '=', 'sms_undelivered')
      .executeTakeFirstOrThrow();
    const data = audit.data as Record<string, unknown>;
    assert.deepEqual(
      [data.source, data.provider, data.failureClass, data.queuedAgain],
      ['send', 'twilio', 'temporary', undefined],
      as,
    );
  }
  assert.deepEqual(told, [], 'the partner not told');
});
