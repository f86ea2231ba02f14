import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expireClaims, heldReminders, notifyClaim, remindClaims } from '../../src/claims/index.ts';
import { queueEmail, queueSms, sendQueuedEmail, sendQueuedSms } from '../../src/notify/index.ts';
import { OutboxEmailProvider } from '../../src/notify/email/outbox.ts';
import { DEMO_INSURER } from '../../src/platform/config.ts';
import { decrypt, encrypt } from '../../src/platform/crypto.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import { buildTestApp, createTestPartner, eventually, type TestApp, type TestPartner } from '../helper.ts';
import { openCancelledFlightClaim, sandboxMessages } from './claim-setup.ts';

/**
 * Quiet hours (PARASOL_SMS_QUIET_HOURS, 21 to 8 in the customer's time zone: their phone's country):
 * a reminder due at night waits for the morning — no new link, no SMS, no email meanwhile — and is
 * sent by the first scan after it; the expiry notice's job runs again in the morning. Nothing is
 * dropped. The test customer's phone is French (Europe/Paris). Quiet hours hold production messages:
 * each claim is opened in the sandbox (its first message in the outbox) then made production, so its
 * reminder and expiry notice are queued for the SMS provider (`sms_messages`); a sandbox claim's go to
 * the outbox at any hour (the last tests).
 */
describe('quiet hours: a reminder or an expiry notice due at night waits for the customer’s morning', () => {
  let t: TestApp;
  let a: TestPartner;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_JOB_POLL_SECONDS: '1' } });
    a = await createTestPartner(t.db);
  });
  after(async () => {
    await t.close();
  });

  const QUIET = { from: 21, to: 8 };
  const deps = (now: Date) => ({
    db: t.db,
    jobs: t.app.parasol.jobs,
    keys: t.app.parasol.keys,
    publicUrl: 'https://claims.parasol.test',
    bankDetailsDays: 30,
    insurer: DEMO_INSURER,
    reminderDays: 3,
    quietHours: QUIET,
    now: () => now,
  });
  const parisHour = (at: Date) =>
    Number(
      new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone: 'Europe/Paris' }).format(at),
    );
  /** The first whole hour at or after `from` whose Paris hour is `hour`. */
  const atParisHour = (from: Date, hour: number) => {
    let at = new Date(Math.ceil(from.getTime() / 3_600_000) * 3_600_000);
    while (parisHour(at) !== hour) at = new Date(at.getTime() + 3_600_000);
    return at;
  };
  let seq = 8800 + (process.pid % 500);
  const openClaim = async (
    o: { environment?: 'production' | 'sandbox'; phone?: string; returnFlight?: boolean } = {},
  ) => {
    const { c, claimNumber } = await openCancelledFlightClaim(
      t.app,
      a,
      `AF${seq++}`,
      o.returnFlight ? { returnFlight: `AF${seq++}` } : {},
    );
    const claim = await t.db
      .selectFrom('claims')
      .select(['id', 'bank_details_due_at', 'contract_id'])
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    if ((o.environment ?? 'production') === 'production')
      await t.db.updateTable('claims').set({ environment: 'production' }).where('id', '=', claim.id).execute();
    if (o.phone)
      await t.db
        .updateTable('contracts')
        .set({ customer_phone_enc: encrypt(t.app.parasol.keys.encryption, o.phone) })
        .where('id', '=', claim.contract_id)
        .execute();
    return { c, claimNumber, id: claim.id, dueAt: claim.bank_details_due_at! };
  };
  /** The claim's production messages (queued for the provider), oldest first: their bodies. */
  const queuedBodies = async (claimId: string) =>
    (
      await t.db
        .selectFrom('sms_messages')
        .select('body_enc')
        .where('claim_id', '=', claimId)
        .orderBy('created_at')
        .execute()
    ).map((m) => decrypt(t.app.parasol.keys.encryption, m.body_enc));

  it('a reminder at 23:00 Paris time waits until 08:00: no link replaced, no SMS; then sent once', async () => {
    const { c, id, dueAt } = await openClaim();
    const night = atParisHour(new Date(dueAt.getTime() - 2.5 * 86_400_000), 23);
    const heldBefore = await heldReminders(t.db, night);
    assert.equal(await remindClaims(deps(night)), 0, 'held');
    assert.equal(await heldReminders(t.db, night), heldBefore + 1, 'counted as held (parasol claims remind says so)');
    const held = await t.db
      .selectFrom('claims')
      .select(['remind_not_before', 'reminded_due_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(held.reminded_due_at, null);
    assert.equal(parisHour(held.remind_not_before!), 8, 'until 08:00 in Paris');
    assert.ok(held.remind_not_before!.getTime() - night.getTime() === 9 * 3_600_000);
    assert.equal((await sandboxMessages(t.app, a, c.contractNumber)).length, 1, 'only the first message');
    assert.deepEqual(await queuedBodies(id), [], 'nothing queued');
    const tokens = await t.db
      .selectFrom('claim_tokens_replaced')
      .select('claim_id')
      .where('claim_id', '=', id)
      .execute();
    assert.equal(tokens.length, 0, 'the first link still works');

    // a later scan in the night: still held (the scan skips it); the morning's: reminded
    assert.equal(await remindClaims(deps(new Date(night.getTime() + 3 * 3_600_000))), 0);
    assert.equal(await remindClaims(deps(held.remind_not_before!)), 1);
    assert.equal(await remindClaims(deps(new Date(held.remind_not_before!.getTime() + 3_600_000))), 0, 'once');
    const messages = await queuedBodies(id);
    assert.equal(messages.length, 1);
    assert.match(messages[0]!, /still waits for your bank details|attendent votre RIB/);
  });

  it('a reminder whose morning would come too near its due date (an hour) is sent at night', async () => {
    const { id, dueAt } = await openClaim();
    // due at 02:30 in Paris: the reminder scan at 00:30 cannot wait for 08:00
    const due = new Date(atParisHour(new Date(dueAt.getTime() - 86_400_000), 2).getTime() + 30 * 60_000);
    await t.db.updateTable('claims').set({ bank_details_due_at: due }).where('id', '=', id).execute();
    const night = new Date(due.getTime() - 2 * 3_600_000);
    assert.equal(parisHour(night), 0);
    assert.equal(await remindClaims(deps(night)), 1, 'sent now');
    const row = await t.db
      .selectFrom('claims')
      .select(['remind_not_before', 'reminded_due_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.remind_not_before, null);
    assert.equal(row.reminded_due_at?.getTime(), due.getTime());
    assert.equal((await queuedBodies(id)).length, 1);
  });

  it('an expiry notice due at night is queued again for the morning, then sent', async () => {
    const { id, dueAt } = await openClaim();
    const night = atParisHour(dueAt, 2);
    await expireClaims({ db: t.db, jobs: t.app.parasol.jobs, now: () => night });
    // the worker's own job (quiet hours off in tests) queues it at once; this test's runs decide by theirs
    await eventually(async () => ((await queuedBodies(id)).length === 1 ? true : undefined));
    await t.db.deleteFrom('sms_messages').where('idempotency_key', '=', `claim:${id}:expired`).execute();

    const queued: { startAfter?: Date }[] = [];
    // the queue itself, its send recorded (a class instance: its methods are on its prototype)
    const jobs = Object.assign(Object.create(t.app.parasol.jobs) as typeof t.app.parasol.jobs, {
      send: async (_name: string, _data: unknown, o: { startAfter?: Date }) => void queued.push(o),
    });
    const started = Date.now();
    assert.equal(await notifyClaim({ ...deps(night), jobs }, { claimId: id, kind: 'expired' }), 'skipped');
    assert.equal(queued.length, 1, 'its job queued again');
    const wait = queued[0]!.startAfter!.getTime() - started;
    assert.ok(Math.abs(wait - 6 * 3_600_000) < 60_000, `six hours later, at 08:00 in Paris (${wait} ms)`);
    assert.deepEqual(await queuedBodies(id), [], 'nothing sent at night');

    const morning = atParisHour(night, 8);
    assert.equal(await notifyClaim({ ...deps(morning), jobs }, { claimId: id, kind: 'expired' }), 'sent');
    const messages = await queuedBodies(id);
    assert.equal(messages.length, 1);
    assert.match(messages[0]!, /expir/);
  });

  /** When the claim's reminder waits until (claims.remind_not_before), null if it does not wait. */
  const remindNotBefore = async (id: string) =>
    (await t.db.selectFrom('claims').select('remind_not_before').where('id', '=', id).executeTakeFirstOrThrow())
      .remind_not_before;

  it('a number of no country (+800) is quiet while it is night at either airport of the insured flight', async () => {
    // the test flights go from Paris (CDG) to New York (JFK): at 23:00 in Paris the reminder waits until
    // both are awake, 08:00 in New York (14:00 in Paris)
    const { id, dueAt } = await openClaim({ phone: '+80012345678' });
    const night = atParisHour(new Date(dueAt.getTime() - 2.5 * 86_400_000), 23);
    assert.equal(await remindClaims(deps(night)), 0, 'held');
    const held = await remindNotBefore(id);
    assert.equal(parisHour(held!), 14, '08:00 in New York');
    assert.equal(await remindClaims(deps(held!)), 1);
    assert.equal((await queuedBodies(id)).length, 1);
  });

  /** The claim's round trip made CDG→DXB then DXB→SYD, the claim on the second leg (a connection). */
  const onDxbSydOfCdgDxbSyd = async (id: string) => {
    const legs = await t.db
      .selectFrom('contract_legs')
      .innerJoin('claims', 'claims.contract_id', 'contract_legs.contract_id')
      .select(['contract_legs.id', 'contract_legs.leg_index'])
      .where('claims.id', '=', id)
      .orderBy('contract_legs.leg_index')
      .execute();
    assert.equal(legs.length, 2);
    const leg = (i: number, from: string, to: string) =>
      t.db
        .updateTable('contract_legs')
        .set({ departure_airport: from, arrival_airport: to })
        .where('id', '=', legs[i]!.id)
        .execute();
    await leg(0, 'CDG', 'DXB');
    await leg(1, 'DXB', 'SYD');
    await t.db.updateTable('claims').set({ leg_id: legs[1]!.id }).where('id', '=', id).execute();
  };

  it('a number of no country on the DXB→SYD leg of CDG→DXB→SYD goes by the trip’s ends: 06:00 in Paris is night', async () => {
    const { id, dueAt } = await openClaim({ phone: '+80012345678', returnFlight: true });
    await onDxbSydOfCdgDxbSyd(id);
    // 06:00 in Paris is 09:00 in Dubai and 16:00 in Sydney: the leg's own airports are awake
    const night = atParisHour(new Date(dueAt.getTime() - 2.5 * 86_400_000), 6);
    assert.equal(await remindClaims(deps(night)), 0, 'held');
    const held = await remindNotBefore(id);
    assert.equal(parisHour(held!), 8, '08:00 in Paris');
  });

  it('a sandbox claim’s reminder goes to the outbox at once, night or not: no one is texted', async () => {
    const { c, id, dueAt } = await openClaim({ environment: 'sandbox' });
    const night = atParisHour(new Date(dueAt.getTime() - 2.5 * 86_400_000), 23);
    assert.equal(await remindClaims(deps(night)), 1, 'sent at 23:00 in Paris');
    const row = await remindNotBefore(id);
    assert.equal(row, null);
    const messages = await sandboxMessages(t.app, a, c.contractNumber);
    assert.equal(messages.length, 2);
    assert.match(messages[1]!.body, /still waits for your bank details|attendent votre RIB/);
  });
  describe('the send job, after an outage, on a real claim (its due date, its contract’s airports)', () => {
    const noJobs = { send: async () => 'job', sendMany: async () => undefined } as unknown as JobQueue;
    /** Queues a production message of the claim (as claims_notify does, its send job not run); its id. */
    const queue = async (claimId: string, key: string, to: string) => {
      await t.db
        .transaction()
        .execute((trx) =>
          queueSms(
            trx,
            { jobs: noJobs, keys: t.app.parasol.keys },
            { idempotencyKey: key, partnerId: a.id, environment: 'production', claimId, to, body: 'Parasol: …' },
          ),
        );
      const row = await t.db
        .selectFrom('sms_messages')
        .select('id')
        .where('idempotency_key', '=', key)
        .executeTakeFirstOrThrow();
      return row.id;
    };
    const texted: string[] = [];
    const send = (smsId: string, now: Date) =>
      sendQueuedSms(
        {
          db: t.db,
          keys: t.app.parasol.keys,
          provider: {
            name: 'twilio',
            send: async (m) => {
              texted.push(m.idempotencyKey);
              return { providerMessageId: `SM${String(texted.length).padStart(32, '0')}`, status: 'queued' };
            },
          },
          linkUselessClaimStatuses: [],
          jobs: noJobs,
          quietHours: QUIET,
          now: () => now,
        },
        smsId,
      );

    it('a +800 number goes by the trip’s ends: on the DXB→SYD leg of CDG→DXB→SYD, 05:30 in Paris is night', async () => {
      const { id } = await openClaim({ returnFlight: true });
      await onDxbSydOfCdgDxbSyd(id);
      const key = `claim:${id}:reminder:1700000000000`;
      const smsId = await queue(id, key, '+80012345678');
      // 04:30 UTC: 05:30 in Paris, 08:30 in Dubai, 15:30 in Sydney — the leg's own airports are awake
      assert.equal(await send(smsId, new Date('2026-01-15T04:30:00Z')), 'held');
      assert.ok(!texted.includes(key));
      const row = await t.db
        .selectFrom('sms_messages')
        .select('status')
        .where('id', '=', smsId)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'queued');
    });

    it('a reminder due within the hour is sent at night; the expiry notice is held', async () => {
      const { id } = await openClaim();
      const night = new Date('2026-01-15T22:00:00Z'); // 23:00 in Paris (the French number)
      await t.db
        .updateTable('claims')
        .set({ bank_details_due_at: new Date(night.getTime() + 30 * 60_000) })
        .where('id', '=', id)
        .execute();
      const reminder = await queue(id, `claim:${id}:reminder:1700000000001`, '+33612345678');
      const expired = await queue(id, `claim:${id}:expired`, '+33612345678');
      assert.equal(await send(reminder, night), 'sent', 'its morning would come after its due date');
      assert.ok(texted.includes(`claim:${id}:reminder:1700000000001`));
      assert.equal(await send(expired, night), 'held');
      assert.ok(!texted.includes(`claim:${id}:expired`));
    });

    it('the email job holds a reminder email due at 03:00 (the claim’s French phone) until 08:00; a resent link is not held', async () => {
      const { id } = await openClaim();
      const startAfters: (Date | undefined)[] = [];
      const recording = {
        send: async (_name: string, _data: unknown, o: { startAfter?: Date } = {}) => {
          startAfters.push(o.startAfter);
          return 'job';
        },
      } as unknown as JobQueue;
      const queueMail = async (key: string) => {
        await t.db.transaction().execute((trx) =>
          queueEmail(
            trx,
            { jobs: noJobs, keys: t.app.parasol.keys },
            {
              kind: 'claim_test',
              dedupeKey: key,
              to: 'customer@example.com',
              subject: 'Parasol',
              text: 'Parasol: …',
              partnerId: a.id,
              environment: 'production',
            },
          ),
        );
        const row = await t.db
          .selectFrom('emails')
          .select('id')
          .where('dedupe_key', '=', key)
          .executeTakeFirstOrThrow();
        return row.id;
      };
      const mailed: string[] = [];
      const night = new Date('2026-01-15T02:00:00Z'); // 03:00 in Paris
      const sendMail = (emailId: string) =>
        sendQueuedEmail(
          {
            db: t.db,
            keys: t.app.parasol.keys,
            providers: {
              outbox: new OutboxEmailProvider(),
              smtp: {
                name: 'smtp',
                send: async (m) => {
                  mailed.push(m.dedupeKey);
                  return { providerMessageId: `<${mailed.length}@test>` };
                },
              },
            },
            linkUselessClaimStatuses: [],
            jobs: recording,
            quietHours: QUIET,
            now: () => night,
          },
          emailId,
        );
      const reminderKey = `claim:${id}:reminder:1700000000002`;
      const reminder = await queueMail(reminderKey);
      // an operator's resend, sent at any hour as the claim's first message is (its first email went with the claim)
      const resendKey = `claim:${id}:resend:${crypto.randomUUID()}`;
      const resend = await queueMail(resendKey);
      const started = Date.now();
      assert.equal(await sendMail(reminder), 'held');
      assert.deepEqual(mailed, [], 'not emailed at 03:00');
      assert.equal(startAfters.length, 1, 'its send job queued for the window’s end');
      const wait = startAfters[0]!.getTime() - started;
      assert.ok(Math.abs(wait - 5 * 3_600_000) < 60_000, `five hours later, at 08:00 in Paris (${wait} ms)`);
      const held = await t.db
        .selectFrom('emails')
        .select(['status', 'attempts', 'locked_until'])
        .where('id', '=', reminder)
        .executeTakeFirstOrThrow();
      assert.deepEqual([held.status, Number(held.attempts)], ['queued', 0], 'no send used');
      assert.equal(held.locked_until?.getTime(), startAfters[0]!.getTime());
      // a link the customer is waiting for (the first one, a resend) goes at any hour
      assert.equal(await sendMail(resend), 'sent');
      assert.deepEqual(mailed, [resendKey]);
      assert.equal(startAfters.length, 1);
    });
  });
});
