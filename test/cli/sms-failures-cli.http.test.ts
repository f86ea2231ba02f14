import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordSmsDelivery } from '../../src/notify/sms/delivery.ts';
import { giveUpStaleSms, queueSms, sendQueuedSms, SMS_GIVEN_UP } from '../../src/notify/sms/sms-queue.ts';
import { SmsPlatformTemporaryError, SmsRejectedError, type SmsProvider } from '../../src/notify/sms/sms.ts';
import { transaction } from '../../src/platform/db.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import { buildTestApp, cancelledFlightClaim, createTestPartner, runCliOn, type TestApp } from '../helper.ts';

/**
 * `parasol sms failures`: the SMS that failed on the platform's side (docs/OPERATOR.md, "The SMS
 * provider fails") — a carrier failure of the platform's, re-queued or not, a send answered with
 * Twilio's queue overflow (re-queued), a send refused for the platform's sender — never a customer's
 * number, and the phone masked; each with the provider that answered.
 */

const PHONE = '+33612345678';
const jobs = { send: async () => 'job', sendMany: async () => undefined } as unknown as JobQueue;

describe('parasol sms failures', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it("lists the platform's failures with claim, partner, code, class, outcome and attempts; never a customer's number", async () => {
    const partner = await createTestPartner(t.db);
    const other = await createTestPartner(t.db);
    const { claimNumber } = await cancelledFlightClaim(t, partner, partner.auth, { flightNumber: 'AF7301' });
    const claim = await t.db
      .selectFrom('claims')
      .select('id')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    const keys = t.app.parasol.keys;
    /** A production message of the claim, sent once under `sid` (or of `other`, with no claim). */
    const sent = async (word: string, sid: string, of = partner, claimId: string | null = claim.id) => {
      const key = `claim:${claim.id}:${word}`;
      await transaction(t.db, (trx) =>
        queueSms(
          trx,
          { jobs, keys },
          { idempotencyKey: key, partnerId: of.id, environment: 'production', claimId, to: PHONE, body: 'A message' },
        ),
      );
      const { id } = await t.db
        .selectFrom('sms_messages')
        .select('id')
        .where('idempotency_key', '=', key)
        .executeTakeFirstOrThrow();
      await t.db
        .updateTable('sms_messages')
        .set({ status: 'sent', provider: 'twilio', provider_message_id: sid, attempts: 1 })
        .where('id', '=', id)
        .execute();
      return id;
    };
    const fail = (sid: string, errorCode: number, platformFailure?: 'temporary' | 'lasting') =>
      recordSmsDelivery(
        { db: t.db, jobs },
        'twilio',
        { messageSid: sid, status: 'undelivered', errorCode, platformFailure },
        new Date('2031-05-04T10:00:00.000Z'),
      );
    await sent('bank-details', `SM${'a'.repeat(32)}`);
    assert.equal(await fail(`SM${'a'.repeat(32)}`, 30001, 'temporary'), 'recorded');
    await sent('reminder:1', `SM${'b'.repeat(32)}`);
    assert.equal(await fail(`SM${'b'.repeat(32)}`, 30007, 'lasting'), 'recorded');
    // the customer's handset: the claim desk's, not listed
    await sent('resend:1', `SM${'c'.repeat(32)}`);
    assert.equal(await fail(`SM${'c'.repeat(32)}`, 30003), 'recorded');
    // another partner's message, refused at send for the platform's sender (21606)
    const refusedId = await sent('paid', `SM${'d'.repeat(32)}`, other, null);
    await t.db.updateTable('sms_messages').set({ status: 'queued', attempts: 0 }).where('id', '=', refusedId).execute();
    const refusing: SmsProvider = {
      name: 'twilio',
      send: async () => {
        throw new SmsRejectedError('twilio', 'rejected', 'HTTP 400 (Twilio 21606)', { providerCode: 21606 });
      },
    };
    assert.equal(
      await sendQueuedSms({ db: t.db, keys, provider: refusing, linkUselessClaimStatuses: [] }, refusedId),
      'rejected',
    );
    // a send of the claim Twilio answered with its queue overflow (30001): re-queued, as a receipt with it
    const overflowId = await sent('reminder:2', `SM${'e'.repeat(32)}`);
    await t.db
      .updateTable('sms_messages')
      .set({ status: 'queued', attempts: 0, provider_message_id: null })
      .where('id', '=', overflowId)
      .execute();
    const overflowing: SmsProvider = {
      name: 'twilio',
      send: async () => {
        throw new SmsPlatformTemporaryError('twilio', 'HTTP 400 (Twilio 30001): Queue overflow', {
          httpStatus: 400,
          providerCode: 30001,
        });
      },
    };
    assert.equal(
      await sendQueuedSms({ db: t.db, keys, provider: overflowing, linkUselessClaimStatuses: [] }, overflowId),
      'requeued',
    );
    // another partner's message given up still queued a day on, its two attempts tried at Twilio (which
    // never answered them): never sent, no provider shown (the message's is only the one it tried)
    const givenUpId = await sent('paid:1', `SM${'f'.repeat(32)}`, other, null);
    await t.db
      .updateTable('sms_messages')
      .set({
        status: 'queued',
        attempts: 2,
        provider_message_id: null,
        last_error: 'twilio: no answer within 10000 ms',
        created_at: new Date(Date.now() - 25 * 3_600_000),
      })
      .where('id', '=', givenUpId)
      .execute();
    assert.equal(await giveUpStaleSms({ db: t.db }), 1);

    const listed = await runCliOn(t, ['--json', 'sms', 'failures']);
    assert.equal(listed.code, 0, listed.err);
    const { failures } = JSON.parse(listed.out) as { failures: Record<string, unknown>[] };
    const pick = (f: Record<string, unknown>) => [
      f.claimNumber,
      f.partner,
      f.event,
      f.provider,
      f.providerCode,
      f.failureClass,
      f.outcome,
      f.attempts,
      f.now,
    ];
    // the database may hold other tests' failures: this test's partners' only
    const ours = failures.filter((f) => f.partner === partner.slug || f.partner === other.slug);
    assert.deepEqual(
      ours
        .map(pick)
        .sort((a, b) => String(a[4]).localeCompare(String(b[4])) || String(a[2]).localeCompare(String(b[2]))),
      [
        [
          null,
          other.slug,
          'send',
          'twilio',
          21606,
          'platform',
          'given_up',
          1,
          'rejected: twilio: HTTP 400 (Twilio 21606)',
        ],
        [
          claimNumber,
          partner.slug,
          'receipt',
          'twilio',
          30001,
          'platform_temporary',
          'requeued',
          1,
          "queued: carrier failure 30001 of the platform's, passing: queued again",
        ],
        [
          claimNumber,
          partner.slug,
          'send',
          'twilio',
          30001,
          'platform_temporary',
          'requeued',
          1,
          "queued: send failure 30001 of the platform's, passing: queued again",
        ],
        [
          claimNumber,
          partner.slug,
          'receipt',
          'twilio',
          30007,
          'platform',
          'given_up',
          1,
          'sent → undelivered (30007)',
        ],
        [null, other.slug, 'given_up', null, null, null, 'given_up', 2, `rejected: ${SMS_GIVEN_UP}`],
      ],
    );
    assert.ok(
      ours.every((f) => f.to === '+33 •••• 78'),
      'the number masked',
    );
    assert.ok(!listed.out.includes(PHONE) && !listed.out.includes('612345678'), 'never the number in clear');

    // the table: the same rows, the phone masked
    const text = await runCliOn(t, ['sms', 'failures', '--partner', partner.slug]);
    assert.equal(text.code, 0, text.err);
    const lines = text.out.split('\n');
    assert.match(
      lines[0]!,
      /^AT\s+CLAIM\s+PARTNER\s+KIND\s+EVENT\s+PROVIDER\s+CODE\s+CLASS\s+OUTCOME\s+ATTEMPTS\s+NOW\s+TO/,
    );
    assert.equal(lines.length, 4, text.out);
    assert.ok(
      lines.some((l) => /\breceipt\s+twilio\s+30001\b/.test(l) && l.includes('re-queued') && l.includes(claimNumber)),
    );
    assert.ok(lines.some((l) => /\bsend\s+twilio\s+30001\b/.test(l) && l.includes('re-queued')));
    assert.ok(lines.some((l) => l.includes('30007') && l.includes('given up')));
    assert.ok(!text.out.includes(PHONE));

    // --since after them: none; an unknown partner or a bad time refused
    const later = await runCliOn(t, ['--json', 'sms', 'failures', '--since', '2099-01-01T00:00:00Z']);
    assert.deepEqual(JSON.parse(later.out), { failures: [] });
    assert.equal((await runCliOn(t, ['sms', 'failures', '--partner', 'no-such-partner'])).code, 1);
    const bad = await runCliOn(t, ['sms', 'failures', '--since', 'yesterday']);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /--since/);
  });

  it('refuses a --since without its offset, or on a day that does not exist, with the problem code', async () => {
    // without an offset it would be read in the server's own zone; 30 February would be read as 2 March
    for (const since of ['2026-11-28T08:00:00', '2026-11-28', '2026-02-30T08:00:00Z', '2026-11-28T24:00Z']) {
      const refused = await runCliOn(t, ['--json', 'sms', 'failures', '--since', since]);
      assert.equal(refused.code, 1, since);
      assert.equal(refused.out, '', since);
      const { error } = JSON.parse(refused.err) as {
        error: { code: string; errors: { field: string; code: string; option: string }[] };
      };
      assert.equal(error.code, 'validation_failed', since);
      assert.deepEqual(
        error.errors.map((e) => [e.option, e.code]),
        [['--since', 'invalid_format']],
        since,
      );
    }
    // with its offset: taken, at that instant
    const offset = await runCliOn(t, ['--json', 'sms', 'failures', '--since', '2099-01-01T08:00:00+01:00']);
    assert.equal(offset.code, 0, offset.err);
    assert.deepEqual(JSON.parse(offset.out), { failures: [] });
  });

  it("classes a failure audited before receipts named its class by Twilio's code only for a Twilio message: the provider the row recorded, else the message's", async () => {
    const partner = await createTestPartner(t.db);
    const keys = t.app.parasol.keys;
    /** An old receipt's audit row (no failureClass) of a production message carried by `provider`. */
    const oldReceipt = async (word: string, provider: string, minute: number, data: Record<string, unknown>) => {
      const key = `test:${partner.id}:${word}`;
      await transaction(t.db, (trx) =>
        queueSms(
          trx,
          { jobs, keys },
          {
            idempotencyKey: key,
            partnerId: partner.id,
            environment: 'production',
            claimId: null,
            to: PHONE,
            body: 'A message',
          },
        ),
      );
      const { id } = await t.db
        .updateTable('sms_messages')
        .set({ status: 'sent', provider, provider_message_id: `${provider}-${word}`, attempts: 1 })
        .where('idempotency_key', '=', key)
        .returning('id')
        .executeTakeFirstOrThrow();
      await t.db
        .insertInto('audit_log')
        .values({
          at: new Date(Date.UTC(2031, 5, 1, 10, minute)),
          actor: 'system',
          partner_id: partner.id,
          environment: 'production',
          entity: 'sms',
          entity_id: id,
          action: 'sms_undelivered',
          data: JSON.stringify({ status: 'undelivered', providerCode: 30001, platformFailure: true, ...data }),
        })
        .execute();
    };
    // 30001 is Twilio's queue overflow (passing); another provider's 30001 means nothing to Parasol
    await oldReceipt('twilio', 'twilio', 1, {});
    await oldReceipt('other-lasting', 'acme-sms', 2, {});
    await oldReceipt('other-requeued', 'acme-sms', 3, { queuedAgain: true });
    // the row names the provider that answered (Twilio); the message went by another since
    await oldReceipt('recorded-twilio', 'acme-sms', 4, { provider: 'twilio' });

    const listed = await runCliOn(t, ['--json', 'sms', 'failures', '--partner', partner.slug]);
    assert.equal(listed.code, 0, listed.err);
    const { failures } = JSON.parse(listed.out) as { failures: Record<string, unknown>[] };
    // newest first
    assert.deepEqual(
      failures.map((f) => [f.at, f.provider, f.failureClass, f.outcome]),
      [
        ['2031-06-01T10:04:00.000Z', 'twilio', 'platform_temporary', 'given_up'],
        ['2031-06-01T10:03:00.000Z', 'acme-sms', 'platform_temporary', 'requeued'],
        ['2031-06-01T10:02:00.000Z', 'acme-sms', 'platform', 'given_up'],
        ['2031-06-01T10:01:00.000Z', 'twilio', 'platform_temporary', 'given_up'],
      ],
    );
  });
});
