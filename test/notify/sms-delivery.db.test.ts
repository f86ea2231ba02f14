import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import {
  applyEarlyReceipts,
  platformResendJobId,
  recordSmsDelivery,
  sweepEarlyReceipts,
  type UndeliveredSms,
} from '../../src/notify/sms/delivery.ts';
import { MAX_SMS_ATTEMPTS, SMS_QUEUE_POLICY, queueSms, sendQueuedSms } from '../../src/notify/sms/sms-queue.ts';
import { twilioFailureClass } from '../../src/notify/sms/twilio.ts';
import type { SmsProvider } from '../../src/notify/sms/sms.ts';
import { deriveKeyring } from '../../src/platform/crypto.ts';
import { transaction } from '../../src/platform/db.ts';
import { JobQueue } from '../../src/platform/jobs.ts';
import { createTestPartner, eventually, openTestDatabase, testConfig } from '../helper.ts';

/**
 * Delivery receipts that arrive before their message's provider id is recorded (a failure Twilio reports
 * at once, or a send whose worker stopped before its commit) are kept and applied when the id is recorded,
 * or by the sweep; never matched, they are forgotten after a day. Production receipts end to end:
 * test/http/production-claims.http.test.ts.
 */

const keys = deriveKeyring(testConfig().masterKey!);
const jobs = { send: async () => 'job', sendMany: async () => undefined } as unknown as JobQueue;

/** A provider that answers the message id it is given, as Twilio answers its sid. */
const provider = (sid: string): SmsProvider => ({
  name: 'twilio',
  send: async () => ({ providerMessageId: sid, status: 'queued' }),
});

async function queued(db: Parameters<typeof transaction>[0], key: string): Promise<string> {
  const partner = await createTestPartner(db, { environment: 'production' });
  await transaction(db, (trx) =>
    queueSms(
      trx,
      { jobs, keys },
      {
        idempotencyKey: key,
        partnerId: partner.id,
        environment: 'production',
        claimId: null,
        to: '+33612345678',
        body: 'A message',
      },
    ),
  );
  const row = await db
    .selectFrom('sms_messages')
    .select('id')
    .where('idempotency_key', '=', key)
    .executeTakeFirstOrThrow();
  return row.id;
}

test('a receipt that comes before the send records the id is kept, then applied by the send', async (t) => {
  const { db } = await openTestDatabase(t);
  const smsId = await queued(db, 'test:early:1');
  const sid = `SM${'1'.repeat(32)}`;
  const told: UndeliveredSms[] = [];
  // the send's clock, far from real time: the failure is learnt when the send applies the early receipt
  const SEND = new Date('2031-05-04T10:00:00.000Z');
  const onUndelivered = async (_trx: unknown, sms: UndeliveredSms) => void told.push(sms);

  assert.equal(
    await recordSmsDelivery(
      { db, jobs, onUndelivered },
      'twilio',
      { messageSid: sid, status: 'failed', errorCode: 30003 },
      new Date(),
    ),
    'early',
  );
  assert.equal(told.length, 0, 'nothing known yet');

  assert.equal(
    await sendQueuedSms(
      { db, keys, provider: provider(sid), onUndelivered, linkUselessClaimStatuses: [], now: () => SEND },
      smsId,
    ),
    'sent',
  );
  const row = await db
    .selectFrom('sms_messages')
    .select(['status', 'delivery_status', 'delivery_error'])
    .where('id', '=', smsId)
    .executeTakeFirstOrThrow();
  assert.deepEqual([row.status, row.delivery_status, row.delivery_error], ['sent', 'failed', 30003]);
  assert.deepEqual(
    told.map((s) => [s.smsId, s.status, s.errorCode, s.at.toISOString()]),
    [[smsId, 'failed', 30003, SEND.toISOString()]],
    'told once, at the clock of the send that applied the receipt',
  );
  const audited = await db
    .selectFrom('audit_log')
    .select(['action', 'at'])
    .where('entity', '=', 'sms')
    .where('entity_id', '=', smsId)
    .execute();
  assert.deepEqual(
    audited.map((r) => [r.action, r.at.toISOString()]),
    [['sms_undelivered', SEND.toISOString()]],
    'audited at the same clock, not the database’s',
  );
  assert.equal((await db.selectFrom('sms_delivery_early').select('id').execute()).length, 0, 'applied, forgotten');
});

test('the sweep applies what the send could not, and forgets receipts never matched after a day', async (t) => {
  const { db } = await openTestDatabase(t);
  const smsId = await queued(db, 'test:early:2');
  const sid = `SM${'2'.repeat(32)}`;
  const stranger = `SM${'3'.repeat(32)}`;
  assert.equal(
    await recordSmsDelivery(
      { db, jobs },
      'twilio',
      { messageSid: sid, status: 'delivered', errorCode: null },
      new Date(),
    ),
    'early',
  );
  assert.equal(
    await recordSmsDelivery(
      { db, jobs },
      'twilio',
      { messageSid: stranger, status: 'sent', errorCode: null },
      new Date(),
    ),
    'early',
  );
  // the send recorded the id but stopped before applying the receipts (its worker died)
  await db
    .updateTable('sms_messages')
    .set({ status: 'sent', provider: 'twilio', provider_message_id: sid })
    .where('id', '=', smsId)
    .execute();

  const now = new Date();
  assert.equal(await sweepEarlyReceipts({ db, jobs }, now), 1);
  const row = await db
    .selectFrom('sms_messages')
    .select('delivery_status')
    .where('id', '=', smsId)
    .executeTakeFirstOrThrow();
  assert.equal(row.delivery_status, 'delivered');
  const left = async () =>
    (await db.selectFrom('sms_delivery_early').select('message_sid').execute()).map((r) => r.message_sid);
  assert.deepEqual(await left(), [stranger], "another application's receipt waits");
  assert.equal(await sweepEarlyReceipts({ db, jobs }, new Date(now.getTime() + 25 * 3_600_000)), 0);
  assert.deepEqual(await left(), [], 'forgotten after a day');
});

test("a carrier failure the route read as the platform's own is audited, the partner not told; a temporary one queued again", async (t) => {
  const { db } = await openTestDatabase(t);
  const told: UndeliveredSms[] = [];
  const onUndelivered = async (_trx: unknown, sms: UndeliveredSms) => void told.push(sms);
  const at = new Date('2031-05-04T10:00:00.000Z');
  // what twilioFailureClass makes of each code (the route's reading; this layer only reads it)
  const cases: [string, 'failed' | 'undelivered', number | null, boolean][] = [
    ['a', 'undelivered', 30007, false],
    ['b', 'failed', 30001, false],
    ['c', 'failed', 30034, false],
    ['d', 'undelivered', 30003, true],
    ['e', 'undelivered', 30005, true],
    ['f', 'undelivered', 30006, true],
    ['g', 'failed', 39999, false],
    ['h', 'failed', null, false],
  ];
  for (const [n, status, errorCode, tell] of cases) {
    const smsId = await queued(db, `test:platform:${n}`);
    const sid = `SM${n.repeat(32)}`;
    await db
      .updateTable('sms_messages')
      .set({ status: 'sent', provider: 'twilio', provider_message_id: sid, attempts: 1 })
      .where('id', '=', smsId)
      .execute();
    const failure = twilioFailureClass(errorCode);
    const platformFailure =
      failure === 'platform' ? 'lasting' : failure === 'platform_temporary' ? 'temporary' : undefined;
    assert.equal(
      await recordSmsDelivery(
        { db, jobs, onUndelivered },
        'twilio',
        { messageSid: sid, status, errorCode, platformFailure },
        at,
      ),
      'recorded',
    );
    assert.equal(told.at(-1)?.smsId === smsId, tell, `${errorCode}: the partner ${tell ? '' : 'not '}told`);
    const audited = await db
      .selectFrom('audit_log')
      .select('data')
      .where('entity', '=', 'sms')
      .where('entity_id', '=', smsId)
      .where('action', '=', 'sms_undelivered')
      .executeTakeFirstOrThrow();
    assert.equal(
      (audited.data as { platformFailure?: boolean }).platformFailure,
      tell ? undefined : true,
      `${errorCode}`,
    );
    const row = await db
      .selectFrom('sms_messages')
      .select(['status', 'provider_message_id', 'delivery_status', 'locked_until'])
      .where('id', '=', smsId)
      .executeTakeFirstOrThrow();
    if (errorCode === 30001) {
      // queued again, held a minute (the back-off), the failed send's id and delivery forgotten
      assert.deepEqual(row, {
        status: 'queued',
        provider_message_id: null,
        delivery_status: null,
        locked_until: new Date(at.getTime() + 60_000),
      });
      assert.equal((audited.data as { queuedAgain?: boolean }).queuedAgain, true);
    } else assert.equal(row.status, 'sent', `${errorCode}`);
  }
  assert.equal(told.length, 3);
});

test('a temporary platform failure of a message out of sends is not queued again; an early one is applied as read', async (t) => {
  const { db } = await openTestDatabase(t);
  const at = new Date('2031-05-04T10:00:00.000Z');
  const used = await queued(db, 'test:platform:used');
  await db
    .updateTable('sms_messages')
    .set({ status: 'sent', provider: 'twilio', provider_message_id: `SM${'u'.repeat(32)}`, attempts: MAX_SMS_ATTEMPTS })
    .where('id', '=', used)
    .execute();
  await recordSmsDelivery(
    { db, jobs },
    'twilio',
    { messageSid: `SM${'u'.repeat(32)}`, status: 'failed', errorCode: 30001, platformFailure: 'temporary' },
    at,
  );
  const row = await db.selectFrom('sms_messages').select('status').where('id', '=', used).executeTakeFirstOrThrow();
  assert.equal(row.status, 'sent', 'out of sends: left as it is (the audit and the log tell the operator)');

  const told: UndeliveredSms[] = [];
  const early = `SM${'e'.repeat(32)}`;
  assert.equal(
    await recordSmsDelivery(
      { db, jobs },
      'twilio',
      { messageSid: early, status: 'failed', errorCode: 30001, platformFailure: 'temporary' },
      at,
    ),
    'early',
  );
  const smsId = await queued(db, 'test:platform:early');
  await db
    .updateTable('sms_messages')
    .set({ status: 'sent', provider: 'twilio', provider_message_id: early, attempts: 2 })
    .where('id', '=', smsId)
    .execute();
  assert.equal(
    await applyEarlyReceipts(
      { db, jobs, onUndelivered: async (_trx, sms) => void told.push(sms) },
      'twilio',
      early,
      at,
    ),
    1,
  );
  assert.deepEqual(told, [], 'the partner not told');
  const again = await db
    .selectFrom('sms_messages')
    .select(['status', 'locked_until'])
    .where('id', '=', smsId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(again, { status: 'queued', locked_until: new Date(at.getTime() + 120_000) });
});

test('a 30001 receipt queues the send job due at the end of the hold, once however often it comes; the job sends once', async (t) => {
  const handle = await openTestDatabase(t);
  const { db } = handle;
  const queue = await new JobQueue(db, { schedules: false, supervise: false, pollingIntervalSeconds: 0.5 }).start();
  t.after(() => queue.stop({ timeoutMs: 2000 }));
  await queue.queue('sms_send', SMS_QUEUE_POLICY);
  const smsJobs = async (smsId: string) =>
    (
      await sql<{ id: string; start_after: Date; state: string }>`
        SELECT id, start_after, state FROM pgboss.job WHERE name = 'sms_send' AND data->>'smsId' = ${smsId}`.execute(db)
    ).rows;

  // a message sent once (its first job done), then failed by the carrier for a queue overflow
  const smsId = await queued(db, 'test:platform:resend');
  const sid = `SM${'r'.repeat(32)}`;
  await db
    .updateTable('sms_messages')
    .set({ status: 'sent', provider: 'twilio', provider_message_id: sid, attempts: 1 })
    .where('id', '=', smsId)
    .execute();
  // the route's clock, ten minutes behind the database's: the hold (a minute) is over when the worker looks
  const at = new Date(Date.now() - 10 * 60_000);
  const report = {
    messageSid: sid,
    status: 'failed' as const,
    errorCode: 30001,
    platformFailure: 'temporary' as const,
  };
  assert.equal(await recordSmsDelivery({ db, jobs: queue }, 'twilio', report, at), 'recorded');
  const held = await db
    .selectFrom('sms_messages')
    .select(['status', 'locked_until'])
    .where('id', '=', smsId)
    .executeTakeFirstOrThrow();
  const holdEnd = new Date(at.getTime() + 60_000);
  assert.deepEqual(held, { status: 'queued', locked_until: holdEnd });
  const first = await smsJobs(smsId);
  assert.deepEqual(
    first.map((j) => [j.id, j.start_after.toISOString(), j.state]),
    [[platformResendJobId(smsId, 1), holdEnd.toISOString(), 'created']],
    'one send job, due when the hold ends',
  );

  // Twilio posts the receipt again: its message is forgotten (kept early), no second job
  assert.equal(await recordSmsDelivery({ db, jobs: queue }, 'twilio', report, at), 'early');
  // and a second requeue of the same failed send, were one to happen, would queue the same job id: nothing
  assert.equal(
    await queue.send('sms_send', { smsId }, { startAfter: holdEnd, id: platformResendJobId(smsId, 1) }),
    null,
  );
  assert.equal((await smsJobs(smsId)).length, 1, 'still one send');

  // the worker runs it: the message is texted once, a second job for it (the sweep's) sends nothing
  const texts: string[] = [];
  const counting: SmsProvider = {
    name: 'twilio',
    send: async (m) => {
      texts.push(m.body);
      return { providerMessageId: `SM${'s'.repeat(32)}`, status: 'queued' };
    },
  };
  const deps = { db, keys, provider: counting, linkUselessClaimStatuses: [], jobs: queue };
  const outcomes: string[] = [];
  await queue.work('sms_send', async (job) => void outcomes.push(await sendQueuedSms(deps, job.data.smsId)));
  await eventually(async () => (outcomes.length > 0 ? true : undefined));
  assert.deepEqual(outcomes, ['sent']);
  assert.equal(await sendQueuedSms(deps, smsId), 'skipped');
  assert.equal(texts.length, 1, 'texted once');
  const sent = await db
    .selectFrom('sms_messages')
    .select(['status', 'attempts', 'provider_message_id'])
    .where('id', '=', smsId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(sent, { status: 'sent', attempts: 2, provider_message_id: `SM${'s'.repeat(32)}` });
});

test('a 30001 receipt kept early, posted twice, queues one send job when the send applies it', async (t) => {
  const handle = await openTestDatabase(t);
  const { db } = handle;
  const queue = await new JobQueue(db, { schedules: false, supervise: false }).start();
  t.after(() => queue.stop({ timeoutMs: 2000 }));
  await queue.queue('sms_send', SMS_QUEUE_POLICY);
  const smsId = await queued(db, 'test:platform:early-twice');
  const sid = `SM${'t'.repeat(32)}`;
  const report = {
    messageSid: sid,
    status: 'failed' as const,
    errorCode: 30001,
    platformFailure: 'temporary' as const,
  };
  assert.equal(await recordSmsDelivery({ db, jobs: queue }, 'twilio', report, new Date()), 'early');
  assert.equal(await recordSmsDelivery({ db, jobs: queue }, 'twilio', report, new Date()), 'early');
  const SEND = new Date('2031-05-04T10:00:00.000Z');
  assert.equal(
    await sendQueuedSms(
      { db, keys, provider: provider(sid), linkUselessClaimStatuses: [], now: () => SEND, jobs: queue },
      smsId,
    ),
    'sent',
  );
  const jobsOf = await sql<{ id: string; start_after: Date }>`
    SELECT id, start_after FROM pgboss.job WHERE name = 'sms_send' AND data->>'smsId' = ${smsId}`.execute(db);
  assert.deepEqual(
    jobsOf.rows.map((j) => [j.id, j.start_after.toISOString()]),
    [[platformResendJobId(smsId, 1), new Date(SEND.getTime() + 60_000).toISOString()]],
    'one send job, due a minute after the send that applied the receipt',
  );
});
