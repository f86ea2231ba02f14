import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordSmsDelivery } from '../../src/notify/sms/delivery.ts';
import { queueSms, sendQueuedSms } from '../../src/notify/sms/sms-queue.ts';
import { SmsRejectedError, type SmsProvider } from '../../src/notify/sms/sms.ts';
import { transaction } from '../../src/platform/db.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import { buildTestApp, cancelledFlightClaim, createTestPartner, runCliOn, type TestApp } from '../helper.ts';

/**
 * `parasol sms failures`: the SMS that failed on the platform's side (docs/OPERATOR.md, "The SMS
 * provider fails") — a carrier failure of the platform's, re-queued or not, a send refused for the
 * platform's sender — never a customer's number, and the phone masked.
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

    const listed = await runCliOn(t, ['--json', 'sms', 'failures']);
    assert.equal(listed.code, 0, listed.err);
    const { failures } = JSON.parse(listed.out) as { failures: Record<string, unknown>[] };
    const pick = (f: Record<string, unknown>) => [
      f.claimNumber,
      f.partner,
      f.event,
      f.providerCode,
      f.failureClass,
      f.outcome,
      f.attempts,
      f.now,
    ];
    assert.deepEqual(
      failures.map(pick).sort((a, b) => String(a[3]).localeCompare(String(b[3]))),
      [
        [null, other.slug, 'send', 21606, 'platform', 'given_up', 1, 'rejected: twilio: HTTP 400 (Twilio 21606)'],
        [
          claimNumber,
          partner.slug,
          'receipt',
          30001,
          'platform_temporary',
          'requeued',
          1,
          "queued: carrier failure 30001 of the platform's, passing: queued again",
        ],
        [claimNumber, partner.slug, 'receipt', 30007, 'platform', 'given_up', 1, 'sent → undelivered (30007)'],
      ],
    );
    assert.ok(
      failures.every((f) => f.to === '+33 •••• 78'),
      'the number masked',
    );
    assert.ok(!listed.out.includes(PHONE) && !listed.out.includes('612345678'), 'never the number in clear');

    // the table: the same rows, the phone masked
    const text = await runCliOn(t, ['sms', 'failures', '--partner', partner.slug]);
    assert.equal(text.code, 0, text.err);
    const lines = text.out.split('\n');
    assert.match(lines[0]!, /^AT\s+CLAIM\s+PARTNER\s+KIND\s+EVENT\s+CODE\s+CLASS\s+OUTCOME\s+ATTEMPTS\s+NOW\s+TO/);
    assert.equal(lines.length, 3, text.out);
    assert.ok(lines.some((l) => l.includes('30001') && l.includes('re-queued') && l.includes(claimNumber)));
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
});
