import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LINK_USELESS_CLAIM_STATUSES } from '../../src/claims/model.ts';
import {
  EmailRejectedError,
  EmailRetryableError,
  type EmailMessage,
  type EmailProvider,
} from '../../src/notify/email/email.ts';
import {
  EMAIL_GIVE_UP_HOURS,
  EMAIL_QUEUE_POLICY,
  emailSendKey,
  EMAIL_GIVEN_UP,
  EmailProviderMissing,
  giveUpStaleEmails,
  MAX_EMAIL_ATTEMPTS,
  queueEmail,
  readEmails,
  requeueStaleEmails,
  sendQueuedEmail,
  SMTP_CIRCUIT,
  type RejectedEmail,
} from '../../src/notify/email/email-queue.ts';
import { SharedCircuitBreaker } from '../../src/platform/circuit-breaker.ts';
import { OutboxEmailProvider } from '../../src/notify/email/outbox.ts';
import { classifySmtpError } from '../../src/notify/email/smtp.ts';
import { deriveKeyring } from '../../src/platform/crypto.ts';
import { transaction, type Db } from '../../src/platform/db.ts';
import { sql } from 'kysely';
import { JobQueue } from '../../src/platform/jobs.ts';
import { openTestDatabase, testConfig } from '../helper.ts';

/** The email queue: one row per dedupe key, one send per message, outcomes recorded (notify/email/). */

const keys = deriveKeyring(testConfig().masterKey!);

function fakeJobs() {
  const sent: unknown[] = [];
  const jobs = {
    send: async (name: string, data: unknown) => {
      sent.push({ name, data });
      return 'job';
    },
    sendMany: async (name: string, data: unknown[]) => {
      for (const d of data) sent.push({ name, data: d });
    },
    liveSingletonKeys: async () => new Set<string>(),
  } as unknown as JobQueue;
  return { jobs, sent };
}

/** A provider that answers what `outcomes` says, in turn, and counts its calls. */
function scripted(...outcomes: ('ok' | 'retry' | 'down' | 'reject' | 'bounce' | 'refused' | 'local')[]) {
  const calls: EmailMessage[] = [];
  const provider: EmailProvider = {
    name: 'smtp',
    send: async (msg) => {
      calls.push(msg);
      const outcome = outcomes.shift() ?? 'ok';
      if (outcome === 'retry') throw new EmailRetryableError('smtp', 'SMTP 451', 451);
      // the server could not be reached, as SmtpEmailProvider reports it: nothing was sent
      if (outcome === 'down')
        throw new EmailRetryableError('smtp', 'connection failed (ESOCKET)', undefined, { notSent: true });
      if (outcome === 'reject') throw new EmailRejectedError('smtp', 'SMTP 550', 550);
      // as SmtpEmailProvider classes them: the recipient's address (550 5.1.1), our server (530 5.7.0)
      if (outcome === 'bounce')
        throw new EmailRejectedError('smtp', 'SMTP 550 5.1.1 to RCPT', 550, { recipient: true });
      // SmtpEmailProvider's own check, before any connection: not an address
      if (outcome === 'local')
        throw new EmailRejectedError('smtp', 'recipient is not an email address', undefined, {
          recipient: true,
          local: true,
        });
      if (outcome === 'refused')
        throw new EmailRetryableError('smtp', 'SMTP 530 5.7.0 to MAIL', 530, {
          notSent: true,
          reason: 'refused',
          atLogin: true,
        });
      return { providerMessageId: `<${calls.length}@test>` };
    },
  };
  return { provider, calls };
}

/** What the send job needs: the test database, the keyring, the outbox and this SMTP provider (or none). */
const sendDeps = (db: Parameters<typeof sendQueuedEmail>[0]['db'], smtp: EmailProvider | undefined) => ({
  db,
  keys,
  linkUselessClaimStatuses: LINK_USELESS_CLAIM_STATUSES,
  providers: { outbox: new OutboxEmailProvider(), smtp },
});

const email = (dedupeKey: string, extra: object = {}) => ({
  kind: 'test_message',
  dedupeKey,
  to: 'someone@example.com',
  subject: 'A subject',
  text: 'A text with a link https://parasol.example/portal/password/abc',
  html: '<p>A text</p>',
  ...extra,
});

test('the same dedupe key queued twice gives one email and one send job', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  const first = await transaction(handle.db, (trx) => queueEmail(trx, { jobs, keys }, email('k:1')));
  const second = await transaction(handle.db, (trx) => queueEmail(trx, { jobs, keys }, email('k:1')));
  assert.deepEqual([first, second], [true, false]);
  const rows = await handle.db.selectFrom('emails').selectAll().where('dedupe_key', '=', 'k:1').execute();
  assert.equal(rows.length, 1);
  assert.deepEqual(sent, [{ name: 'email_send', data: { emailId: rows[0]!.id } }]);
  // sealed at rest
  assert.doesNotMatch(JSON.stringify(rows[0]), /someone@example\.com|A subject|parasol\.example/);
});

test('a rolled back transaction leaves no email', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs } = fakeJobs();
  await assert.rejects(
    transaction(handle.db, async (trx) => {
      await queueEmail(trx, { jobs, keys }, email('k:rollback'));
      throw new Error('the change failed');
    }),
  );
  assert.equal((await handle.db.selectFrom('emails').select('id').execute()).length, 0);
});

test('a retryable failure keeps the message queued; a retried job sends it once; later jobs send nothing', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  await transaction(handle.db, (trx) => queueEmail(trx, { jobs, keys }, email('k:retry')));
  const emailId = (sent[0] as { data: { emailId: string } }).data.emailId;
  const smtp = scripted('retry', 'ok');
  const deps = sendDeps(handle.db, smtp.provider);

  await assert.rejects(sendQueuedEmail(deps, emailId), EmailRetryableError);
  let row = await handle.db.selectFrom('emails').selectAll().where('id', '=', emailId).executeTakeFirstOrThrow();
  assert.deepEqual([row.status, row.attempts, row.last_error, row.locked_until], ['queued', 1, 'smtp: SMTP 451', null]);

  assert.equal(await sendQueuedEmail(deps, emailId), 'sent');
  assert.equal(await sendQueuedEmail(deps, emailId), 'skipped');
  assert.equal(smtp.calls.length, 2);
  assert.deepEqual(
    {
      to: smtp.calls[1]!.to,
      subject: smtp.calls[1]!.subject,
      html: smtp.calls[1]!.html,
      key: smtp.calls[1]!.dedupeKey,
    },
    { to: 'someone@example.com', subject: 'A subject', html: '<p>A text</p>', key: 'k:retry' },
  );
  row = await handle.db.selectFrom('emails').selectAll().where('id', '=', emailId).executeTakeFirstOrThrow();
  assert.deepEqual([row.status, row.provider, row.provider_message_id], ['sent', 'smtp', '<2@test>']);
  // sent by SMTP: the operator sees recipient and subject, not the text
  const [view] = await readEmails(handle.db, keys);
  assert.deepEqual([view!.to, view!.subject, view!.text], ['someone@example.com', 'A subject', null]);
  assert.equal((await handle.db.selectFrom('emails').select('id').execute()).length, 1);
});

test('a message being sent is not sent by a second job meanwhile (the lease)', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  await transaction(handle.db, (trx) => queueEmail(trx, { jobs, keys }, email('k:lease')));
  const emailId = (sent[0] as { data: { emailId: string } }).data.emailId;
  let release!: () => void;
  let started!: () => void;
  const sending = new Promise<void>((resolve) => (started = resolve));
  const calls: string[] = [];
  const slow: EmailProvider = {
    name: 'smtp',
    send: async (msg) => {
      calls.push(msg.dedupeKey);
      started();
      await new Promise<void>((resolve) => (release = resolve));
      return { providerMessageId: '<slow@test>' };
    },
  };
  const deps = sendDeps(handle.db, slow);
  const first = sendQueuedEmail(deps, emailId);
  await sending;
  assert.equal(await sendQueuedEmail(deps, emailId), 'skipped');
  release();
  assert.equal(await first, 'sent');
  assert.deepEqual(calls, ['k:lease']);
});

test('a refused message is marked rejected and audited; sandbox messages go to the outbox even with SMTP', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  await transaction(handle.db, async (trx) => {
    await queueEmail(trx, { jobs, keys }, email('k:reject'));
    await queueEmail(trx, { jobs, keys }, email('k:sandbox', { environment: 'sandbox' }));
  });
  const [rejectId, sandboxId] = sent.map((s) => (s as { data: { emailId: string } }).data.emailId) as [string, string];
  const smtp = scripted('reject');
  const deps = sendDeps(handle.db, smtp.provider);
  assert.equal(await sendQueuedEmail(deps, rejectId), 'rejected');
  assert.equal(await sendQueuedEmail(deps, rejectId), 'skipped');
  const rejected = await handle.db
    .selectFrom('emails')
    .selectAll()
    .where('id', '=', rejectId)
    .executeTakeFirstOrThrow();
  assert.deepEqual([rejected.status, rejected.last_error], ['rejected', 'smtp: SMTP 550']);
  const audit = await handle.db.selectFrom('audit_log').select('action').where('entity_id', '=', rejectId).execute();
  assert.deepEqual(audit, [{ action: 'email_rejected' }]);

  assert.equal(await sendQueuedEmail(deps, sandboxId), 'sent');
  assert.equal(smtp.calls.length, 1, 'the sandbox message did not reach SMTP');
  const outbox = (await readEmails(handle.db, keys)).find((e) => e.id === sandboxId)!;
  assert.equal(outbox.provider, 'outbox');
  assert.match(outbox.text!, /portal\/password\/abc/);
});

test("without SMTP a production customer's email stays queued, not in the outbox, and is sent once SMTP is set", async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  await transaction(handle.db, async (trx) => {
    await queueEmail(trx, { jobs, keys }, email('k:prod', { environment: 'production' }));
    await queueEmail(trx, { jobs, keys }, email('k:platform')); // a partner user's invitation: no environment
    await queueEmail(trx, { jobs, keys }, email('k:sandbox-2', { environment: 'sandbox' }));
  });
  const [prodId, platformId, sandboxId] = sent.map((s) => (s as { data: { emailId: string } }).data.emailId) as [
    string,
    string,
    string,
  ];
  const noSmtp = sendDeps(handle.db, undefined);
  await assert.rejects(sendQueuedEmail(noSmtp, prodId), EmailProviderMissing);
  await assert.rejects(sendQueuedEmail(noSmtp, prodId), EmailProviderMissing, 'every retry of the job');
  assert.equal(await sendQueuedEmail(noSmtp, platformId), 'sent', 'the platform’s own messages: into the outbox');
  assert.equal(await sendQueuedEmail(noSmtp, sandboxId), 'sent');
  const row = await handle.db.selectFrom('emails').selectAll().where('id', '=', prodId).executeTakeFirstOrThrow();
  assert.deepEqual([row.status, row.provider, row.attempts, row.sent_at], ['queued', null, 0, null]);

  // the job gave up; SMTP is configured and the worker's sweep finds the message (older than an hour)
  sent.length = 0;
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 0, 'too recent');
  await handle.db
    .updateTable('emails')
    .set({ created_at: new Date(Date.now() - 2 * 3_600_000) })
    .execute();
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 1, 'production and queued only');
  assert.deepEqual(sent, [{ name: 'email_send', data: { emailId: prodId } }]);
  const smtp = scripted('ok');
  const withSmtp = sendDeps(handle.db, smtp.provider);
  assert.equal(await sendQueuedEmail(withSmtp, prodId), 'sent');
  assert.deepEqual(
    smtp.calls.map((c) => c.dedupeKey),
    ['k:prod'],
  );
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 0, 'nothing left to send');
  assert.equal(await sendQueuedEmail(noSmtp, prodId), 'skipped', 'a sent message: nothing to do, SMTP or not');
});

test('a key shaped like a claim message’s but naming no claim is sent as any message (the link rule finds no claim)', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  await transaction(handle.db, async (trx) => {
    await queueEmail(trx, { jobs, keys }, email('claim:not-a-uuid:bank-details'));
    await queueEmail(trx, { jobs, keys }, email(`claim:${crypto.randomUUID()}:reminder:1`));
  });
  const ids = sent.map((s) => (s as { data: { emailId: string } }).data.emailId);
  const smtp = scripted('ok', 'ok');
  const deps = sendDeps(handle.db, smtp.provider);
  for (const id of ids) assert.equal(await sendQueuedEmail(deps, id), 'sent');
  assert.equal(smtp.calls.length, 2);
});

test('an SMTP outage longer than the send job’s retries does not use the message up: the sweep sends it after', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  await transaction(handle.db, (trx) =>
    queueEmail(trx, { jobs, keys }, email('k:outage', { environment: 'production' })),
  );
  const emailId = (sent[0] as { data: { emailId: string } }).data.emailId;
  const smtp = scripted(...Array.from({ length: MAX_EMAIL_ATTEMPTS + 1 }, () => 'down' as const), 'ok');
  const deps = sendDeps(handle.db, smtp.provider);
  // every run of the job's chain, and more, while the server cannot be reached
  for (let run = 0; run <= MAX_EMAIL_ATTEMPTS; run += 1)
    await assert.rejects(sendQueuedEmail(deps, emailId), EmailRetryableError);

  // the server is back; the worker's sweep finds the message (older than an hour)
  await handle.db
    .updateTable('emails')
    .set({ created_at: new Date(Date.now() - 2 * 3_600_000) })
    .execute();
  sent.length = 0;
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 1);
  assert.deepEqual(sent, [{ name: 'email_send', data: { emailId } }]);
  assert.equal(await sendQueuedEmail(deps, emailId), 'sent');
  const row = await handle.db.selectFrom('emails').selectAll().where('id', '=', emailId).executeTakeFirstOrThrow();
  assert.deepEqual([row.status, row.attempts], ['sent', 1], 'one send that reached the server');
});

test('a production email still queued a day after it was written is given up: rejected, audited, no longer requeued', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  for (const key of ['k:old', 'k:recent', 'k:leased'])
    await transaction(handle.db, (trx) => queueEmail(trx, { jobs, keys }, email(key, { environment: 'production' })));
  const ids = (sent as { data: { emailId: string } }[]).map((s) => s.data.emailId);
  const [old, recent, leased] = ids as [string, string, string];
  const dayAgo = new Date(Date.now() - (EMAIL_GIVE_UP_HOURS + 1) * 3_600_000);
  await handle.db.updateTable('emails').set({ created_at: dayAgo }).where('id', 'in', [old, leased]).execute();
  await handle.db
    .updateTable('emails')
    .set({ created_at: new Date(Date.now() - 2 * 3_600_000) })
    .where('id', '=', recent)
    .execute();
  // one is being sent right now: not taken from under its job
  await handle.db
    .updateTable('emails')
    .set({ locked_until: new Date(Date.now() + 60_000) })
    .where('id', '=', leased)
    .execute();

  assert.equal(await giveUpStaleEmails({ db: handle.db }), 1);
  const rows = await handle.db.selectFrom('emails').select(['id', 'status', 'last_error']).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  assert.deepEqual([byId.get(old)?.status, byId.get(old)?.last_error], ['rejected', EMAIL_GIVEN_UP]);
  assert.equal(byId.get(recent)?.status, 'queued');
  assert.equal(byId.get(leased)?.status, 'queued');
  const audits = await handle.db
    .selectFrom('audit_log')
    .select(['action', 'entity_id'])
    .where('action', '=', 'email_rejected')
    .execute();
  assert.deepEqual(audits, [{ action: 'email_rejected', entity_id: old }]);
  sent.length = 0;
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 1, 'the recent one only');
  assert.deepEqual(sent, [{ name: 'email_send', data: { emailId: recent } }]);
  assert.equal(await giveUpStaleEmails({ db: handle.db }), 0, 'given up once');
});

test('an email with no environment (an invitation, a reset, a webhook pause notice) left queued by an SMTP outage is sent again by the sweep, and given up a day after', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  await transaction(handle.db, async (trx) => {
    await queueEmail(trx, { jobs, keys }, email('k:platform')); // no environment
    await queueEmail(trx, { jobs, keys }, email('k:sandbox', { environment: 'sandbox' }));
  });
  const [platformId] = sent.map((s) => (s as { data: { emailId: string } }).data.emailId) as [string, string];
  const smtp = scripted(...Array.from({ length: MAX_EMAIL_ATTEMPTS + 1 }, () => 'down' as const));
  const deps = sendDeps(handle.db, smtp.provider);
  // the job's whole chain while the server cannot be reached; the sandbox message went to the outbox
  for (let run = 0; run <= MAX_EMAIL_ATTEMPTS; run += 1)
    await assert.rejects(sendQueuedEmail(deps, platformId), EmailRetryableError);
  await handle.db
    .updateTable('emails')
    .set({ created_at: new Date(Date.now() - 2 * 3_600_000) })
    .execute();
  sent.length = 0;
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 1);
  assert.deepEqual(sent, [{ name: 'email_send', data: { emailId: platformId } }]);
  assert.equal(await giveUpStaleEmails({ db: handle.db }), 0, 'not a day old yet');

  await handle.db
    .updateTable('emails')
    .set({ created_at: new Date(Date.now() - (EMAIL_GIVE_UP_HOURS + 1) * 3_600_000) })
    .execute();
  assert.equal(await giveUpStaleEmails({ db: handle.db }), 1);
  const rows = await handle.db
    .selectFrom('emails')
    .select(['id', 'status', 'last_error'])
    .orderBy('dedupe_key')
    .execute();
  assert.deepEqual(
    rows.map((r) => [r.id === platformId ? 'platform' : 'other', r.status, r.last_error]),
    [
      ['platform', 'rejected', EMAIL_GIVEN_UP],
      ['other', 'queued', null],
    ],
  );
});

test("a claim's email refused for its address tells its owner once; refused for our server it stays queued, given back, nobody told", async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  const claimId = crypto.randomUUID();
  await transaction(handle.db, async (trx) => {
    await queueEmail(trx, { jobs, keys }, email(`claim:${claimId}:reminder:2026-12-01`, { environment: 'production' }));
    await queueEmail(trx, { jobs, keys }, email(`claim:${claimId}:bank-details`, { environment: 'production' }));
    await queueEmail(trx, { jobs, keys }, email('k:content', { environment: 'production' }));
  });
  const [reminderId, openedId, contentId] = sent.map((s) => (s as { data: { emailId: string } }).data.emailId) as [
    string,
    string,
    string,
  ];
  const told: RejectedEmail[] = [];
  const smtp = scripted('refused', 'refused', 'bounce', 'bounce', 'reject');
  const at = new Date('2026-11-27T10:00:00Z');
  const deps = {
    ...sendDeps(handle.db, smtp.provider),
    now: () => at,
    onRejected: async (_trx: unknown, e: RejectedEmail) => {
      told.push(e);
    },
  };

  // our server refused (530 5.7.0): an outage — retried, the attempt given back, the customer's message still queued
  for (let i = 0; i < 2; i++)
    await assert.rejects(sendQueuedEmail(deps, reminderId), (e) => e instanceof EmailRetryableError);
  const queued = await handle.db
    .selectFrom('emails')
    .select(['status', 'attempts', 'last_error'])
    .where('id', '=', reminderId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(queued, { status: 'queued', attempts: 0, last_error: 'smtp: SMTP 530 5.7.0 to MAIL' });
  assert.equal(told.length, 0, 'not the customer: nobody told');

  // the address refused (550 5.1.1): rejected, audited, the owner told once, whatever jobs follow
  assert.equal(await sendQueuedEmail(deps, reminderId), 'rejected');
  assert.equal(await sendQueuedEmail(deps, reminderId), 'skipped');
  assert.equal(await sendQueuedEmail(deps, openedId), 'rejected');
  assert.deepEqual(
    told.map((e) => [e.emailId, e.claimId, e.kind, e.errorCode, e.environment, e.at]),
    [
      [reminderId, claimId, 'reminder', 550, 'production', at],
      [openedId, claimId, 'opened', 550, 'production', at],
    ],
  );
  const audit = await handle.db
    .selectFrom('audit_log')
    .select('data')
    .where('entity_id', '=', reminderId)
    .where('action', '=', 'email_rejected')
    .execute();
  assert.equal(audit.length, 1);
  assert.equal((audit[0]!.data as { recipient: boolean }).recipient, true);

  // refused for the message itself (no recipient's code): rejected, nobody told
  assert.equal(await sendQueuedEmail(deps, contentId), 'rejected');
  assert.equal(told.length, 2);
});

test('the sweep starts no second chain of send jobs beside a live one: one per email (singletonKey)', async (t) => {
  const handle = await openTestDatabase(t);
  const jobs = await new JobQueue(handle.db, { schedules: false, supervise: false }).start();
  t.after(() => jobs.stop({ timeoutMs: 2000 }));
  await jobs.queue('email_send', EMAIL_QUEUE_POLICY);
  await transaction(handle.db, (trx) =>
    queueEmail(trx, { jobs, keys }, email('k:chain', { environment: 'production' })),
  );
  const { id } = await handle.db
    .selectFrom('emails')
    .select('id')
    .where('dedupe_key', '=', 'k:chain')
    .executeTakeFirstOrThrow();
  await handle.db
    .updateTable('emails')
    .set({ created_at: new Date(Date.now() - 2 * 3_600_000) })
    .execute();
  const chains = async () =>
    (
      await sql<{ state: string; singleton_key: string | null }>`
        select state, singleton_key from pgboss.job where name = 'email_send' order by created_on`.execute(handle.db)
    ).rows;
  const setState = (state: string) =>
    sql`update pgboss.job set state = ${state}::pgboss.job_state where name = 'email_send'`.execute(handle.db);

  assert.deepEqual(await chains(), [{ state: 'created', singleton_key: emailSendKey(id) }]);
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 0, 'its first job still waits');
  await setState('retry'); // a server refusing us: the job waits for its next retry
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 0, 'its first job still retries');
  await setState('active');
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 0, 'its first job is running');
  assert.equal((await chains()).length, 1);

  await setState('failed'); // the chain gave up: the sweep starts one, and only one
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 1);
  assert.equal(await requeueStaleEmails({ db: handle.db, jobs }), 0, 'the next sweep finds it alive');
  assert.deepEqual(
    (await chains()).map((c) => [c.state, c.singleton_key]),
    [
      ['failed', emailSendKey(id)],
      ['created', emailSendKey(id)],
    ],
  );
});

/** The SMTP circuit's cool-down over: its end moved into the database clock's past, as time would. */
async function coolDownOver(db: Db): Promise<void> {
  await db
    .updateTable('provider_circuits')
    .set({ opened_until: sql<Date>`now() - interval '1 second'` })
    .where('provider', '=', SMTP_CIRCUIT.key)
    .where('state', '=', 'open')
    .execute();
}

test('the SMTP circuit’s instants are the database clock’s: two workers whose clocks disagree see one probe, and the same cool-down', async (t) => {
  const handle = await openTestDatabase(t);
  const one = new SharedCircuitBreaker(handle.db, SMTP_CIRCUIT.key, SMTP_CIRCUIT.options);
  const fast = new SharedCircuitBreaker(handle.db, SMTP_CIRCUIT.key, SMTP_CIRCUIT.options);
  const slow = new SharedCircuitBreaker(handle.db, SMTP_CIRCUIT.key, SMTP_CIRCUIT.options);
  // three processes' clocks: one on time (the database's), one 3 minutes ahead (past the 2-minute probe
  // timeout), one 10 behind
  const { rows } = await sql<{ now: Date | string }>`SELECT now() AS now`.execute(handle.db);
  const onTime = new Date(rows[0]!.now);
  const ahead = new Date(onTime.getTime() + 3 * 60_000);
  const behind = new Date(onTime.getTime() - 10 * 60_000);
  const opened = await one.acquire(onTime);
  assert.ok(opened.allowed);
  await one.failure(onTime, opened);
  assert.equal(one.state, 'open');
  // the clock 3 minutes ahead is still within the cool-down (5 minutes of the database's clock)
  const early = await fast.acquire(ahead);
  assert.equal(early.allowed, false, 'no probe before the cool-down ends on the database clock');
  if (!early.allowed) {
    const wait = early.retryAt.getTime() - ahead.getTime();
    assert.ok(
      Math.abs(wait - SMTP_CIRCUIT.options.coolDownMs) < 60_000,
      `told to come back in its own clock (${wait} ms)`,
    );
  }
  await coolDownOver(handle.db);
  // the clock 10 minutes behind probes at the cool-down's end all the same
  const probe = await slow.acquire(behind);
  assert.ok(probe.allowed && probe.probe, JSON.stringify(probe));
  // the clock 3 minutes ahead would find that probe timed out by its own clock: one probe, not two
  const second = await fast.acquire(ahead);
  assert.equal(second.allowed, false, `one probe at a time across processes: ${JSON.stringify(second)}`);
  if (!second.allowed) {
    const wait = second.retryAt.getTime() - ahead.getTime();
    const turn = Math.min(SMTP_CIRCUIT.options.coolDownMs, SMTP_CIRCUIT.options.probeTimeoutMs);
    assert.ok(Math.abs(wait - turn) < 60_000, `the probe's turn, in its own clock (${wait} ms)`);
  }
  // the probe's answer finds its mark (the database's instant, as stored): it closes the circuit
  await slow.success(probe);
  assert.equal(slow.state, 'closed');
  assert.deepEqual(await one.acquire(onTime), { allowed: true, probe: false, generation: 1 });
});

test('after our server refuses our login, the other queued emails wait for the shared circuit’s probe instead of each logging in', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  await transaction(handle.db, async (trx) => {
    await queueEmail(trx, { jobs, keys }, email('k:first', { environment: 'production' }));
    await queueEmail(trx, { jobs, keys }, email('k:second', { environment: 'production' }));
    await queueEmail(trx, { jobs, keys }, email('k:sandbox', { environment: 'sandbox' }));
  });
  const [firstId, secondId, sandboxId] = sent.map((s) => (s as { data: { emailId: string } }).data.emailId) as [
    string,
    string,
    string,
  ];
  const smtp = scripted('refused', 'ok', 'ok');
  const later: { data: unknown; startAfter: Date | undefined }[] = [];
  const recording = {
    send: async (_name: string, data: unknown, o: { startAfter?: Date } = {}) => {
      later.push({ data, startAfter: o.startAfter });
      return 'job';
    },
  } as unknown as JobQueue;
  const at = new Date('2026-11-27T10:00:00Z');
  let now = at;
  // the worker's: a breaker shared through provider_circuits (every worker process sees it open)
  const smtpGate = new SharedCircuitBreaker(handle.db, SMTP_CIRCUIT.key, SMTP_CIRCUIT.options);
  const deps = { ...sendDeps(handle.db, smtp.provider), jobs: recording, smtpGate, now: () => now };

  await assert.rejects(
    sendQueuedEmail(deps, firstId),
    (e) => e instanceof EmailRetryableError && e.reason === 'refused',
  );
  assert.equal(smtp.calls.length, 1);
  // a second worker's breaker reads the same row: the circuit is open for every process
  const other = new SharedCircuitBreaker(handle.db, SMTP_CIRCUIT.key, SMTP_CIRCUIT.options);
  const started = Date.now();
  assert.equal(await sendQueuedEmail({ ...deps, smtpGate: other }, secondId), 'circuit_open');
  assert.equal(smtp.calls.length, 1, 'no second login while the circuit is open');
  assert.equal(later.length, 1);
  assert.deepEqual(later[0]!.data, { emailId: secondId });
  const wait = later[0]!.startAfter!.getTime() - started;
  assert.ok(Math.abs(wait - SMTP_CIRCUIT.options.coolDownMs) < 60_000, `sent again at the probe (${wait} ms)`);
  const waiting = await handle.db
    .selectFrom('emails')
    .select(['status', 'attempts', 'locked_until', 'last_error'])
    .where('id', '=', secondId)
    .executeTakeFirstOrThrow();
  assert.deepEqual([waiting.status, Number(waiting.attempts), waiting.last_error], ['queued', 0, null]);
  assert.equal(waiting.locked_until?.getTime(), later[0]!.startAfter!.getTime(), 'the sweep leaves it until then');
  // a sandbox message goes to the outbox: the SMTP circuit does not hold it
  assert.equal(await sendQueuedEmail(deps, sandboxId), 'sent');

  // the cool-down over (the hold and the circuit's end moved back, as time would — the circuit's
  // instants are the database's clock): one probe, which logs in and closes the circuit
  now = new Date(at.getTime() + SMTP_CIRCUIT.options.coolDownMs + 1_000);
  await coolDownOver(handle.db);
  await handle.db.updateTable('emails').set({ locked_until: null }).where('id', '=', secondId).execute();
  assert.equal(await sendQueuedEmail(deps, secondId), 'sent');
  const circuit = await handle.db
    .selectFrom('provider_circuits')
    .select('state')
    .where('provider', '=', SMTP_CIRCUIT.key)
    .executeTakeFirstOrThrow();
  assert.equal(circuit.state, 'closed');
  assert.equal(await sendQueuedEmail(deps, firstId), 'sent', 'the refused one too, once the login works');
  assert.equal(smtp.calls.length, 3);
});

test('the SMTP circuit opens for a refusal at our login, not for one recipient’s or one message’s refusal (5.1.1, 5.6.x, 554 5.7.1 at DATA)', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  await transaction(handle.db, async (trx) => {
    for (const key of ['k:bounce', 'k:content', 'k:spam', 'k:login'])
      await queueEmail(trx, { jobs, keys }, email(key, { environment: 'production' }));
  });
  const ids = sent.map((s) => (s as { data: { emailId: string } }).data.emailId);
  // nodemailer's errors as it raises them, classed by SmtpEmailProvider's own classifySmtpError
  const replies = [
    { responseCode: 550, response: '550 5.1.1 no such mailbox', command: 'RCPT TO' },
    { responseCode: 554, response: '554 5.6.0 message content refused', command: 'DATA' },
    { responseCode: 554, response: '554 5.7.1 message refused as spam', command: 'DATA' },
    { responseCode: 535, response: '535 5.7.8 authentication failed', command: 'AUTH PLAIN' },
  ];
  const provider: EmailProvider = {
    name: 'smtp',
    send: async () => {
      throw classifySmtpError('smtp', Object.assign(new Error('smtp'), replies.shift()));
    },
  };
  const smtpGate = new SharedCircuitBreaker(handle.db, SMTP_CIRCUIT.key, SMTP_CIRCUIT.options);
  const deps = { ...sendDeps(handle.db, provider), jobs, smtpGate, now: () => new Date('2026-11-27T10:00:00Z') };
  const circuit = async () =>
    (
      await handle.db
        .selectFrom('provider_circuits')
        .select('state')
        .where('provider', '=', SMTP_CIRCUIT.key)
        .executeTakeFirst()
    )?.state ?? 'closed';

  assert.equal(await sendQueuedEmail(deps, ids[0]!), 'rejected', '5.1.1: the address');
  assert.equal(await sendQueuedEmail(deps, ids[1]!), 'rejected', '5.6.0: the message');
  await assert.rejects(
    sendQueuedEmail(deps, ids[2]!),
    (e) => e instanceof EmailRetryableError && e.reason === 'refused' && !e.atLogin,
  );
  assert.equal(await circuit(), 'closed', 'one message refused at DATA: the others still go');
  await assert.rejects(
    sendQueuedEmail(deps, ids[3]!),
    (e) => e instanceof EmailRetryableError && e.reason === 'refused' && e.atLogin,
  );
  assert.equal(await circuit(), 'open', 'our login refused: every send would meet it');
});

test('the SMTP probe’s turn is given back when its send takes no lease, meets a network error or is refused by our own check: the next send probes at once; only a server’s answer closes the circuit', async (t) => {
  const handle = await openTestDatabase(t);
  const { jobs, sent } = fakeJobs();
  await transaction(handle.db, async (trx) => {
    for (const key of ['k:refused', 'k:leased', 'k:down', 'k:local', 'k:ok'])
      await queueEmail(trx, { jobs, keys }, email(key, { environment: 'production' }));
  });
  const [refusedId, leasedId, downId, localId, okId] = sent.map(
    (s) => (s as { data: { emailId: string } }).data.emailId,
  ) as [string, string, string, string, string];
  const smtp = scripted('refused', 'down', 'local', 'ok');
  const at = new Date('2026-11-27T10:00:00Z');
  let now = at;
  const smtpGate = new SharedCircuitBreaker(handle.db, SMTP_CIRCUIT.key, SMTP_CIRCUIT.options);
  const deps = { ...sendDeps(handle.db, smtp.provider), jobs, smtpGate, now: () => now };
  const circuit = async () =>
    handle.db
      .selectFrom('provider_circuits')
      .select(['state', 'probe_started_at'])
      .where('provider', '=', SMTP_CIRCUIT.key)
      .executeTakeFirstOrThrow();

  await assert.rejects(sendQueuedEmail(deps, refusedId), EmailRetryableError);
  assert.equal((await circuit()).state, 'open');
  now = new Date(at.getTime() + SMTP_CIRCUIT.options.coolDownMs + 1_000);
  await coolDownOver(handle.db);
  // another job holds this one's lease: the probe takes none, logs in nowhere, and gives its turn back
  await handle.db
    .updateTable('emails')
    .set({ locked_until: new Date(Date.now() + 60_000) })
    .where('id', '=', leasedId)
    .execute();
  assert.equal(await sendQueuedEmail(deps, leasedId), 'skipped');
  assert.deepEqual(await circuit(), { state: 'half_open', probe_started_at: null });
  // the next send probes at once (not held until the probe's timeout); a network error tells nothing
  await assert.rejects(sendQueuedEmail(deps, downId), (e) => e instanceof EmailRetryableError && !e.atLogin);
  assert.deepEqual(await circuit(), { state: 'half_open', probe_started_at: null });
  // refused by our own check before connecting: not the server's answer, the circuit stays half-open
  assert.equal(await sendQueuedEmail(deps, localId), 'rejected');
  assert.deepEqual(await circuit(), { state: 'half_open', probe_started_at: null });
  // the server takes the message: closed
  assert.equal(await sendQueuedEmail(deps, okId), 'sent');
  assert.equal((await circuit()).state, 'closed');
  assert.equal(smtp.calls.length, 4, 'the leased one was never sent');
});
