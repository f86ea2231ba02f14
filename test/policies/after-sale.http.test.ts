import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  allPolicies,
  buildTestApp,
  createTestPartner,
  HOLDER,
  post,
  POLICY_ADMIN,
  usingPostgres,
  type Reply,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

const POLICIES = `${POLICY_ADMIN}/policies`;

/**
 * The Policy Admin API after the sale, as two policy-administration systems of one partner use it:
 * each change answers the policy's ETag (its version) and honours If-Match, so one system's change
 * made on a policy the other changed since is refused (412) rather than silently overwriting it; a
 * cancellation from a later day leaves the policy in force, and changeable, until that day; a
 * pending policy cannot be recorded already ended.
 */
describe('the policy after the sale: ETag and If-Match, scheduled cancellations, impossible dates', () => {
  let t: TestApp;
  let partner: TestPartner;
  let clock = new Date('2026-03-10T09:00:00.000Z');
  before(async () => {
    t = await buildTestApp({ now: () => clock, env: { PARASOL_WORKERS: 'off' } });
    partner = await createTestPartner(t.db, { apis: ['policy-admin'] });
  });
  after(() => t.close());

  let counter = 0;
  const policy = (overrides: Record<string, unknown> = {}) => ({
    product: 'other',
    externalReference: `AFTER-SALE-${process.pid}-${++counter}`,
    policyholder: HOLDER,
    effectiveDate: '2026-03-01',
    expiryDate: '2027-03-01',
    premium: { amount: 2_600, currency: 'EUR', frequency: 'monthly' },
    risk: { building: 'flat' },
    ...overrides,
  });
  const send = async (
    method: 'GET' | 'PATCH' | 'POST',
    url: string,
    body?: object,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const res = await t.app.inject({
      method,
      url,
      headers: { ...partner.auth, ...headers },
      ...(body ? { payload: body } : {}),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
  };
  const created = async (overrides: Record<string, unknown> = {}) => {
    const res = await post(t.app, POLICIES, policy(overrides), partner.auth);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res;
  };
  const read = (policyNumber: string) => send('GET', `${POLICIES}/${policyNumber}`);
  const phone = (policyNumber: string, value: string, headers: Record<string, string> = {}) =>
    send('PATCH', `${POLICIES}/${policyNumber}/policyholder`, { phone: value }, headers);

  describe('ETag and If-Match', () => {
    it('answers the version as ETag on the record, the read and every change, a replay included', async () => {
      const recorded = await created();
      const number = recorded.body.policyNumber as string;
      assert.equal(recorded.headers.etag, '"1"');
      assert.equal(recorded.body.version, 1);
      assert.equal((await read(number)).headers.etag, '"1"');
      const changed = await phone(number, '+33698765432', { 'idempotency-key': `etag-${number}` });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.deepEqual([changed.headers.etag, changed.body.version], ['"2"', 2]);
      const replay = await phone(number, '+33698765432', { 'idempotency-key': `etag-${number}` });
      assert.deepEqual([replay.headers['idempotent-replayed'], replay.headers.etag], ['true', '"2"']);
      assert.equal((await read(number)).headers.etag, '"2"');
    });

    it('replays an answer stored before the version existed without an ETag, never "NaN"', async () => {
      const number = (await created()).body.policyNumber as string;
      const key = { 'idempotency-key': `old-shaped-${number}` };
      const first = await phone(number, '+33698765432', key);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      // as the code before the ETag stored it: the answer without its version (here as a legacy clear replay)
      const { version: _version, ...oldShaped } = first.body;
      await t.db
        .updateTable('idempotency_keys')
        .set({ response_body: JSON.stringify(oldShaped), response_enc: null })
        .where('partner_id', '=', partner.id)
        .where('key', '=', key['idempotency-key'])
        .execute();
      const replay = await phone(number, '+33698765432', key);
      assert.deepEqual([replay.status, replay.headers['idempotent-replayed']], [200, 'true']);
      assert.deepEqual(replay.body, oldShaped, 'the stored answer, as it was');
      assert.equal(replay.headers.etag, undefined, 'no ETag rather than one naming no version');
    });

    it('replays the first answer whatever the If-Match of the retry, a malformed one too', async () => {
      const number = (await created()).body.policyNumber as string;
      const key = { 'idempotency-key': `replay-if-match-${number}` };
      const first = await phone(number, '+33698765432', { ...key, 'if-match': '"1"' });
      assert.deepEqual([first.status, first.headers.etag], [200, '"2"'], JSON.stringify(first.body));
      for (const ifMatch of ['"1"', '"7"', 'not a tag']) {
        const replay = await phone(number, '+33698765432', { ...key, 'if-match': ifMatch });
        assert.deepEqual(
          [replay.status, replay.headers['idempotent-replayed'], replay.headers.etag],
          [200, 'true', '"2"'],
          `${ifMatch}: ${JSON.stringify(replay.body)}`,
        );
        assert.deepEqual(replay.body, first.body);
      }
      const malformed = await phone(number, '+33611111111', { 'idempotency-key': `fresh-${number}`, 'if-match': '4' });
      assert.deepEqual([malformed.status, malformed.body.code], [422, 'validation_failed'], 'a new key: checked');
      assert.equal((await read(number)).body.policyholder.phone, '+33698765432');
    });

    it('applies a change sent with the current ETag, and refuses one sent with an older ETag: 412, nothing changed', async () => {
      const number = (await created()).body.policyNumber as string;
      const first = await phone(number, '+33698765432', { 'if-match': '"1"' });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.headers.etag, '"2"');
      // the other system still holds version 1
      const lost = await phone(number, '+33611111111', { 'if-match': '"1"' });
      assert.equal(lost.status, 412, JSON.stringify(lost.body));
      assert.match(String(lost.headers['content-type']), /^application\/problem\+json/);
      assert.equal(lost.body.code, 'policy_changed');
      const now = await read(number);
      assert.deepEqual([now.body.policyholder.phone, now.headers.etag], ['+33698765432', '"2"']);
      for (const [what, url, body] of [
        ['cancel', `${POLICIES}/${number}/cancel`, { reason: 'customer_request', effectiveDate: '2026-03-10' }],
        ['activate', `${POLICIES}/${number}/activate`, { reason: 'payment_received' }],
        [
          'renew',
          `${POLICIES}/${number}/renew`,
          {
            externalReference: `AFTER-SALE-RENEWAL-${process.pid}-${++counter}`,
            premium: { amount: 2_700, currency: 'EUR', frequency: 'monthly' },
          },
        ],
      ] as const) {
        const refused = await send('POST', url, body, { 'if-match': '"1"' });
        assert.equal(refused.status, 412, `${what}: ${JSON.stringify(refused.body)}`);
        assert.equal(refused.body.code, 'policy_changed', what);
      }
      assert.deepEqual([(await read(number)).body.status, (await read(number)).body.renewedBy], ['active', null]);
    });

    it('refuses a vehicle registration sent with an older ETag', async () => {
      const number = (
        await created({
          product: 'motor',
          risk: { vin: 'VF1RJA00168123456', make: 'Renault', model: 'Clio', usage: 'private' },
        })
      ).body.policyNumber as string;
      assert.equal((await phone(number, '+33698765432')).status, 200);
      const plate = { vehicleRegistration: 'GH-456-JK', firstRegistrationDate: '2026-03-01' };
      const refused = await send('PATCH', `${POLICIES}/${number}/vehicle`, plate, { 'if-match': '"1"' });
      assert.equal(refused.status, 412, JSON.stringify(refused.body));
      const registered = await send('PATCH', `${POLICIES}/${number}/vehicle`, plate, { 'if-match': '"2"' });
      assert.deepEqual([registered.status, registered.headers.etag], [200, '"3"'], JSON.stringify(registered.body));
    });

    it('keeps If-Match optional, takes * and a list, never a weak tag, and refuses a value that is no entity tag', async () => {
      const number = (await created()).body.policyNumber as string;
      assert.equal((await phone(number, '+33600000001')).status, 200, 'without If-Match: as before');
      assert.equal((await phone(number, '+33600000002', { 'if-match': '*' })).status, 200);
      assert.equal((await phone(number, '+33600000003', { 'if-match': '"1", "3"' })).status, 200);
      // empty list elements are no elements (RFC 9110 §5.6.1.2)
      assert.equal((await phone(number, '+33600000005', { 'if-match': ', "4" ,, "9",' })).status, 200);
      assert.equal((await phone(number, '+33600000004', { 'if-match': 'W/"5"' })).status, 412, 'weak: no strong match');
      assert.equal((await phone(number, '+33600000004', { 'if-match': '"abc"' })).status, 412);
      for (const empty of [',', ' , '])
        assert.equal((await phone(number, '+33600000004', { 'if-match': empty })).status, 412, `${empty}: no tag`);
      const malformed = await phone(number, '+33600000004', { 'if-match': '4' });
      assert.equal(malformed.status, 422, JSON.stringify(malformed.body));
      assert.deepEqual(
        malformed.body.errors.map((e: { field: string; code: string }) => `${e.field} ${e.code}`),
        ['header:If-Match invalid_format'],
      );
      assert.equal((await read(number)).body.policyholder.phone, '+33600000005');
    });

    it('documents ETag on the read and the changes, If-Match on the changes, and 412 policy_changed', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: `${POLICY_ADMIN}/openapi.json` })).json();
      const op = (path: string, method: string) => doc.paths[path][method];
      assert.ok(op('/policies/{policyNumber}', 'get').responses['200'].headers.ETag);
      assert.ok(op('/policies', 'post').responses['201'].headers.ETag);
      for (const [path, method] of [
        ['/policies/{policyNumber}/policyholder', 'patch'],
        ['/policies/{policyNumber}/vehicle', 'patch'],
        ['/policies/{policyNumber}/activate', 'post'],
        ['/policies/{policyNumber}/cancel', 'post'],
        ['/policies/{policyNumber}/renew', 'post'],
      ] as const) {
        const operation = op(path, method);
        assert.ok(
          operation.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'if-match'),
          `${method} ${path}: If-Match`,
        );
        assert.deepEqual(operation.responses['412']['x-problem-codes'], ['policy_changed'], `${method} ${path}`);
        const success = operation.responses['200'] ?? operation.responses['201'];
        assert.ok(success.headers.ETag, `${method} ${path}: ETag`);
      }
      assert.equal(JSON.stringify(doc).includes('x-sends-etag'), false, 'the mark leaves the document');
    });

    it('applies exactly one of two changes sent at once with the same ETag: the other is a 412', async (ctx) => {
      if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
      const number = (await created()).body.policyNumber as string;
      const answers = await Promise.all([
        phone(number, '+33698765432', { 'if-match': '"1"' }),
        send(
          'PATCH',
          `${POLICIES}/${number}/policyholder`,
          { email: 'camille.martin@example.com' },
          { 'if-match': '"1"' },
        ),
      ]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 412], JSON.stringify(answers.map((a) => a.body)));
      const winner = answers.find((a) => a.status === 200)!;
      const now = await read(number);
      assert.equal(now.headers.etag, '"2"');
      assert.deepEqual(
        [now.body.policyholder.phone, now.body.policyholder.email],
        [winner.body.policyholder.phone, winner.body.policyholder.email],
        'only the change applied is on the policy',
      );
      assert.notDeepEqual(
        [now.body.policyholder.phone, now.body.policyholder.email],
        ['+33698765432', 'camille.martin@example.com'],
      );
    });
  });

  describe('a cancellation from a later day', () => {
    it('leaves the policy active and changeable until that day, listed as active; cancelled from it', async () => {
      clock = new Date('2026-03-10T09:00:00.000Z');
      const number = (await created()).body.policyNumber as string;
      const cancelled = await send('POST', `${POLICIES}/${number}/cancel`, {
        reason: 'customer_request',
        effectiveDate: '2026-04-01',
      });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal(cancelled.body.status, 'active');
      assert.deepEqual(
        [cancelled.body.cancellation.reason, cancelled.body.cancellation.effectiveDate],
        ['customer_request', '2026-04-01'],
      );
      const again = await send('POST', `${POLICIES}/${number}/cancel`, {
        reason: 'customer_request',
        effectiveDate: '2026-04-01',
      });
      assert.deepEqual([again.status, again.body.status], [200, 'active'], 'the same cancellation again: a retry');
      const moved = await phone(number, '+33698765432');
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      const listed = async (status: string) =>
        (await allPolicies(t.app, partner, { status, externalReference: moved.body.externalReference })).map(
          (p) => p.policyNumber,
        );
      assert.deepEqual(await listed('active'), [number]);
      assert.deepEqual(await listed('cancelled'), []);
      const renew = await send('POST', `${POLICIES}/${number}/renew`, {
        externalReference: `AFTER-SALE-RENEWAL-${process.pid}-${++counter}`,
        premium: { amount: 2_700, currency: 'EUR', frequency: 'monthly' },
      });
      assert.equal(renew.status, 409, 'a term ending on its cancellation is not renewed');
      assert.equal(renew.body.code, 'policy_not_renewable');

      clock = new Date('2026-04-01T00:00:00.000Z');
      try {
        assert.equal((await read(number)).body.status, 'cancelled');
        assert.deepEqual(await listed('cancelled'), [number]);
        assert.deepEqual(await listed('active'), []);
        assert.deepEqual(await listed('expired'), []);
        const refused = await phone(number, '+33611111111');
        assert.deepEqual([refused.status, refused.body.code], [409, 'policy_not_changeable']);
      } finally {
        clock = new Date('2026-03-10T09:00:00.000Z');
      }
    });

    it('moves a scheduled cancellation earlier when cancelled again from an earlier day; never later, never withdrawn', async () => {
      clock = new Date('2026-03-10T09:00:00.000Z');
      const number = (await created()).body.policyNumber as string;
      const cancel = (reason: string, effectiveDate: string, headers: Record<string, string> = {}) =>
        send('POST', `${POLICIES}/${number}/cancel`, { reason, effectiveDate }, headers);
      const scheduled = await cancel('customer_request', '2026-05-01');
      assert.deepEqual([scheduled.status, scheduled.body.status, scheduled.headers.etag], [200, 'active', '"2"']);
      for (const [reason, date] of [
        ['customer_request', '2026-06-01'],
        ['other', '2026-05-01'],
      ]) {
        const refused = await cancel(reason!, date!);
        assert.deepEqual([refused.status, refused.body.code], [409, 'policy_not_cancellable'], `${reason} ${date}`);
      }
      const earlier = await cancel('non_payment', '2026-04-01', { 'if-match': '"2"' });
      assert.equal(earlier.status, 200, JSON.stringify(earlier.body));
      assert.deepEqual(
        [
          earlier.body.status,
          earlier.body.cancellation.effectiveDate,
          earlier.body.cancellation.reason,
          earlier.headers.etag,
        ],
        ['active', '2026-04-01', 'non_payment', '"3"'],
      );
      const again = await cancel('non_payment', '2026-04-01');
      assert.deepEqual([again.status, again.headers.etag], [200, '"3"'], 'the moved cancellation again: a retry');
      assert.equal((await cancel('non_payment', '2026-04-15')).status, 409, 'not back later');
      const atOnce = await cancel('customer_request', '2026-03-10');
      assert.deepEqual([atOnce.status, atOnce.body.status], [200, 'cancelled'], JSON.stringify(atOnce.body));
      assert.equal(atOnce.body.cancellation.effectiveDate, '2026-03-10');
      const audit = await t.db
        .selectFrom('audit_log')
        .select('data')
        .where('entity', '=', 'policy')
        .where('entity_id', '=', number)
        .where('action', '=', 'cancelled')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((a) => {
          const data = (typeof a.data === 'string' ? JSON.parse(a.data) : a.data) as Record<string, unknown>;
          return [data.effectiveDate, data.movedFrom ?? null];
        }),
        [
          ['2026-05-01', null],
          ['2026-04-01', { effectiveDate: '2026-05-01', reason: 'customer_request' }],
          ['2026-03-10', { effectiveDate: '2026-04-01', reason: 'non_payment' }],
        ],
      );
      const cancelledNow = await cancel('customer_request', '2026-03-09');
      assert.deepEqual(
        [cancelledNow.status, cancelledNow.body.code],
        [409, 'policy_not_cancellable'],
        'cancelled: final',
      );
    });

    it("moves a renewal's scheduled cancellation to its inception: the policy it renews is released", async () => {
      clock = new Date('2026-03-10T09:00:00.000Z');
      const first = (await created({ effectiveDate: '2025-04-01', expiryDate: '2026-04-01' })).body
        .policyNumber as string;
      const renewal = await send('POST', `${POLICIES}/${first}/renew`, {
        externalReference: `AFTER-SALE-RENEWAL-${process.pid}-${++counter}`,
        premium: { amount: 2_700, currency: 'EUR', frequency: 'monthly' },
      });
      assert.equal(renewal.status, 201, JSON.stringify(renewal.body));
      const number = renewal.body.policyNumber as string;
      const later = await send('POST', `${POLICIES}/${number}/cancel`, {
        reason: 'other',
        effectiveDate: '2026-06-01',
      });
      assert.deepEqual([later.status, later.body.status], [200, 'active'], JSON.stringify(later.body));
      assert.equal((await read(first)).body.renewedBy, number, 'a cancellation during the term keeps the link');
      const inception = await send('POST', `${POLICIES}/${number}/cancel`, {
        reason: 'created_in_error',
        effectiveDate: '2026-04-01',
      });
      assert.deepEqual([inception.status, inception.body.status], [200, 'cancelled'], JSON.stringify(inception.body));
      assert.equal((await read(first)).body.renewedBy, null, 'released: it can be renewed again');
    });

    it('leaves a pending policy pending until that day, and cancels at once from today or from inception', async () => {
      const pending = (await created({ status: 'pending', effectiveDate: '2026-03-20' })).body.policyNumber as string;
      const scheduled = await send('POST', `${POLICIES}/${pending}/cancel`, {
        reason: 'non_payment',
        effectiveDate: '2026-05-01',
      });
      assert.deepEqual([scheduled.status, scheduled.body.status], [200, 'pending'], JSON.stringify(scheduled.body));
      const today = (await created()).body.policyNumber as string;
      const now = await send('POST', `${POLICIES}/${today}/cancel`, { reason: 'other', effectiveDate: '2026-03-10' });
      assert.equal(now.body.status, 'cancelled');
      const future = (await created({ effectiveDate: '2026-06-01', expiryDate: '2027-06-01' })).body
        .policyNumber as string;
      const inception = await send('POST', `${POLICIES}/${future}/cancel`, {
        reason: 'created_in_error',
        effectiveDate: '2026-06-01',
      });
      assert.equal(inception.body.status, 'cancelled', 'from its inception: it never covers anything');
    });
  });

  describe('migration 0069', () => {
    it('puts a policy cancelled before from a UTC day still to come back in force, whatever the session time zone', async () => {
      // the migration reads the database's clock: this test runs on today's, its days UTC as the app's (todayOf)
      const fixed = clock;
      clock = new Date();
      try {
        const at = (days: number) => new Date(clock.getTime() + days * 86_400_000).toISOString().slice(0, 10);
        const dates = { effectiveDate: at(-10), expiryDate: at(300) };
        const active = (await created(dates)).body.policyNumber as string;
        const pending = (await created({ ...dates, status: 'pending' })).body.policyNumber as string;
        const tomorrow = (await created(dates)).body.policyNumber as string;
        const today = (await created(dates)).body.policyNumber as string;
        const fromInception = (await created({ effectiveDate: at(20), expiryDate: at(300) })).body
          .policyNumber as string;
        for (const [number, effectiveDate] of [
          [active, at(30)],
          [pending, at(30)],
          [tomorrow, at(1)],
          [today, at(0)],
          [fromInception, at(20)],
        ] as const) {
          const res = await send('POST', `${POLICIES}/${number}/cancel`, { reason: 'other', effectiveDate });
          assert.equal(res.status, 200, JSON.stringify(res.body));
        }
        // as the code before 0069 stored them: cancelled at once
        await sql`UPDATE policies SET status = 'cancelled' WHERE policy_number IN (${active}, ${pending}, ${tomorrow})`.execute(
          t.db,
        );
        const migration = readFileSync(
          new URL('../../migrations/0069_policy_version_scheduled_cancellation.sql', import.meta.url),
          'utf8',
        );
        // a session whose local day is not the UTC day: ahead (UTC+14) from 10:00 UTC, behind (UTC-12) before
        const zone = clock.getUTCHours() >= 10 ? 'Pacific/Kiritimati' : 'Etc/GMT+12';
        await t.db.transaction().execute(async (trx) => {
          await sql.raw(`SET LOCAL TIME ZONE '${zone}'`).execute(trx);
          await sql.raw(migration.slice(migration.indexOf('UPDATE policies'))).execute(trx);
        });
        const statuses = await Promise.all(
          [active, pending, tomorrow, today, fromInception].map(async (n) => (await read(n)).body.status),
        );
        assert.deepEqual(statuses, ['active', 'pending', 'active', 'cancelled', 'cancelled'], zone);
        // and as stored (a read derives cancelled from a day reached: the stored status must agree)
        const stored = await t.db
          .selectFrom('policies')
          .select(['policy_number', 'status'])
          .where('policy_number', 'in', [tomorrow, today])
          .execute();
        assert.deepEqual(
          [tomorrow, today].map((n) => stored.find((r) => r.policy_number === n)?.status),
          ['active', 'cancelled'],
          zone,
        );
      } finally {
        clock = fixed;
      }
    });
  });

  describe('impossible dates', () => {
    it('refuses a pending policy already past its expiry date, on /expiryDate; an active one recorded late is history', async () => {
      for (const expiryDate of ['2026-03-09', '2026-03-10']) {
        const res = await post(
          t.app,
          POLICIES,
          policy({ status: 'pending', effectiveDate: '2025-03-01', expiryDate }),
          partner.auth,
        );
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.equal(res.body.code, 'validation_failed');
        assert.deepEqual(
          res.body.errors.map((e: { field: string; code: string }) => `${e.field} ${e.code}`),
          ['/expiryDate out_of_range'],
        );
      }
      const pending = await post(
        t.app,
        POLICIES,
        policy({ status: 'pending', effectiveDate: '2025-03-01', expiryDate: '2026-03-11' }),
        partner.auth,
      );
      assert.equal(pending.status, 201, JSON.stringify(pending.body));
      const history = await post(
        t.app,
        POLICIES,
        policy({ effectiveDate: '2025-03-01', expiryDate: '2026-03-01' }),
        partner.auth,
      );
      assert.deepEqual([history.status, history.body.status], [201, 'expired'], JSON.stringify(history.body));
    });

    it('refuses an expiry on or before the effective date, and a day no calendar has', async () => {
      for (const [dates, field] of [
        [{ effectiveDate: '2026-04-01', expiryDate: '2026-04-01' }, '/expiryDate'],
        [{ effectiveDate: '2026-04-01', expiryDate: '2026-03-31' }, '/expiryDate'],
        [{ effectiveDate: '2026-02-30', expiryDate: '2027-02-28' }, '/effectiveDate'],
        [{ effectiveDate: '2026-04-01', expiryDate: '2027-02-29' }, '/expiryDate'],
      ] as const) {
        const res = await post(t.app, POLICIES, policy(dates), partner.auth);
        assert.equal(res.status, 422, JSON.stringify(dates));
        assert.deepEqual(
          res.body.errors.map((e: { field: string }) => e.field),
          [field],
          JSON.stringify(res.body),
        );
      }
    });
  });
});
