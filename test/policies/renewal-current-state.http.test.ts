import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  buildTestApp,
  createTestPartner,
  post,
  type Reply,
  type TestApp,
  type TestPartner,
  POLICY_ADMIN,
  HOLDER,
} from '../helper.ts';

const POLICIES = `${POLICY_ADMIN}/policies`;

/**
 * A renewal is the next term of the same policyholder and risk: it copies the policy as it is when
 * renewed (after its contact changes, corrections and vehicle registration), and a contact change or a
 * vehicle registration made on the policy after its renewal reaches the renewals still holding the
 * value copied, up to the first cancelled one, never the term renewed. Every business time the
 * policies write is the use case's clock — here years away from real time — but `createdAt`, the
 * listing's key, which is the database's (docs/ARCHITECTURE.md, "Clocks").
 */
describe('a renewal carries the current policy', () => {
  let t: TestApp;
  let partner: TestPartner;
  let clock = new Date('2034-07-01T08:00:00.000Z');
  before(async () => {
    t = await buildTestApp({ now: () => clock, env: { PARASOL_WORKERS: 'off' } });
    partner = await createTestPartner(t.db, { apis: ['policy-admin'] });
  });
  after(() => t.close());

  let counter = 0;
  const ref = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;
  const day = (days: number) => new Date(clock.getTime() + days * 86_400_000).toISOString().slice(0, 10);
  const LYON = { line1: '3 place Bellecour', postalCode: '69002', city: 'Lyon', country: 'FR' };
  const NEW_CAR = { vin: 'VF1RJA00168123456', make: 'Renault', model: 'Clio', usage: 'private' };
  const PLATE = { vehicleRegistration: 'GH-456-JK', firstRegistrationDate: day(-3) };

  async function motorPolicy(overrides: Record<string, unknown> = {}): Promise<Reply['body']> {
    const res = await post(
      t.app,
      POLICIES,
      {
        product: 'motor',
        externalReference: ref('MOTOR'),
        policyholder: HOLDER,
        effectiveDate: day(-100),
        expiryDate: day(90),
        premium: { amount: 4_500, currency: 'EUR', frequency: 'monthly' },
        risk: NEW_CAR,
        ...overrides,
      },
      partner.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }
  async function renew(policyNumber: string): Promise<Reply['body']> {
    const res = await post(
      t.app,
      `${POLICIES}/${policyNumber}/renew`,
      { externalReference: ref('RENEWAL'), premium: { amount: 4_800, currency: 'EUR', frequency: 'monthly' } },
      partner.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }
  const patch = async (policyNumber: string, what: 'policyholder' | 'vehicle', body: object) => {
    const r = await t.app.inject({
      method: 'PATCH',
      url: `${POLICIES}/${policyNumber}/${what}`,
      headers: partner.auth,
      payload: body,
    });
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  };
  const read = async (policyNumber: string) =>
    (await t.app.inject({ method: 'GET', url: `${POLICIES}/${policyNumber}`, headers: partner.auth })).json();
  const auditOf = async (policyNumber: string) =>
    (await t.db
      .selectFrom('audit_log')
      .select(['action', 'data', 'at'])
      .where('entity', '=', 'policy')
      .where('entity_id', '=', policyNumber)
      .orderBy('id')
      .execute()) as { action: string; data: Record<string, unknown>; at: Date }[];
  const cancelFrom = (policyNumber: string, effectiveDate: string) =>
    post(t.app, `${POLICIES}/${policyNumber}/cancel`, { reason: 'customer_request', effectiveDate }, partner.auth);

  describe('what a renewal copies: the previous term as it is when renewed', () => {
    it('carries the contact changed since creation: email, phone and address', async () => {
      const a = await motorPolicy();
      await patch(a.policyNumber, 'policyholder', { email: 'Camille.M@Example.com' });
      await patch(a.policyNumber, 'policyholder', { phone: '+33698765432', address: LYON });
      const b = await renew(a.policyNumber);
      assert.deepEqual(
        b.policyholder,
        { ...HOLDER, email: 'camille.m@example.com', phone: '+33698765432', address: LYON },
        'the renewal is reached at the current contact',
      );
      assert.deepEqual(b.policyholder, (await read(a.policyNumber)).policyholder, 'the same as the term renewed');
    });

    it('carries a vehicle registered since creation', async () => {
      const a = await motorPolicy();
      await patch(a.policyNumber, 'vehicle', PLATE);
      const b = await renew(a.policyNumber);
      assert.deepEqual(b.risk, { ...NEW_CAR, ...PLATE }, 'the registered car');
      assert.deepEqual(b.risk, (await read(a.policyNumber)).risk, 'the same as the term renewed');
    });

    it('a home policy: the renewal insures the same home, at the policyholder’s address as changed before and after', async () => {
      const HOME = {
        postalCode: '75007',
        city: 'Paris',
        housingType: 'apartment',
        occupancy: 'tenant',
        rooms: 3,
        livingArea: 62,
      };
      const a = await motorPolicy({
        product: 'home',
        premium: { amount: 2_100, currency: 'EUR', frequency: 'monthly' },
        risk: HOME,
      });
      await patch(a.policyNumber, 'policyholder', { address: LYON });
      const b = await renew(a.policyNumber);
      const insured = (await read(a.policyNumber)).risk;
      assert.deepEqual(b.risk, insured, 'the home as stored on the term renewed');
      assert.deepEqual([b.risk.postalCode, b.risk.zipCode, b.risk.city], ['75007', '75007', 'PARIS'], 'its address');
      assert.deepEqual(b.policyholder.address, LYON, 'the policyholder’s address as changed before the renewal');
      const moved = { ...LYON, line1: '5 place Bellecour' };
      await patch(a.policyNumber, 'policyholder', { address: moved });
      const renewal = await read(b.policyNumber);
      assert.deepEqual([renewal.policyholder.address, renewal.risk], [moved, insured], 'and as changed after it');
    });

    it('carries a name and a birth date corrected since creation', async () => {
      const a = await motorPolicy();
      await patch(a.policyNumber, 'policyholder', { lastName: 'Martins', birthDate: '1990-04-21', reason: 'typo' });
      const b = await renew(a.policyNumber);
      assert.deepEqual(b.policyholder, { ...HOLDER, lastName: 'Martins', birthDate: '1990-04-21' }, 'as corrected');
    });
  });

  describe('a change made on a renewed term', () => {
    it('carries a new contact to each renewal term after term, audited on each, never back to the term renewed', async () => {
      const a = await motorPolicy();
      const b = await renew(a.policyNumber);
      const c = await renew(b.policyNumber);
      const res = await patch(a.policyNumber, 'policyholder', { phone: '+33698765432', address: LYON });
      assert.deepEqual(res.policyholder, { ...HOLDER, phone: '+33698765432', address: LYON }, 'the policy changed');
      for (const renewal of [b, c]) {
        const view = await read(renewal.policyNumber);
        assert.deepEqual(view.policyholder, res.policyholder, renewal.policyNumber);
        assert.equal(view.updatedAt, clock.toISOString(), `${renewal.policyNumber} updated at the clock`);
        assert.deepEqual(
          (await auditOf(renewal.policyNumber)).at(-1)!.data,
          { fields: ['phone', 'address'], withPolicy: a.policyNumber },
          renewal.policyNumber,
        );
      }
      const own = (await auditOf(a.policyNumber)).at(-1)!;
      assert.deepEqual(
        own.data,
        { fields: ['phone', 'address'], renewalsChanged: [b.policyNumber, c.policyNumber] },
        'the policy changed lists the renewals reached',
      );
      assert.doesNotMatch(JSON.stringify(await auditOf(b.policyNumber)), /698765432|Bellecour/, 'no contact in clear');

      await patch(c.policyNumber, 'policyholder', { email: 'late@example.com' });
      for (const earlier of [a, b])
        assert.equal((await read(earlier.policyNumber)).policyholder.email, HOLDER.email, 'never back');
    });

    it('leaves a renewal holding another value, and its renewals, alone; carries the other fields', async () => {
      const a = await motorPolicy();
      const b = await renew(a.policyNumber);
      const c = await renew(b.policyNumber);
      const moved = { ...LYON, line1: '5 place Bellecour' };
      await patch(b.policyNumber, 'policyholder', { address: moved }); // the move recorded on the new term
      await patch(a.policyNumber, 'policyholder', { address: LYON, email: 'new@example.com' });
      for (const renewal of [b, c]) {
        const holder = (await read(renewal.policyNumber)).policyholder;
        assert.deepEqual(
          [holder.address, holder.email],
          [moved, 'new@example.com'],
          `${renewal.policyNumber}: its own address kept, the email carried`,
        );
      }
      assert.deepEqual(
        (await auditOf(b.policyNumber)).at(-1)!.data,
        { fields: ['email'], withPolicy: a.policyNumber },
        'the renewal audited for the email alone',
      );

      const same = await patch(a.policyNumber, 'policyholder', { email: 'new@example.com' });
      assert.equal(same.policyholder.email, 'new@example.com', 'the email set again');
      assert.deepEqual(
        (await auditOf(a.policyNumber)).at(-1)!.data,
        { fields: ['email'] },
        'the value it holds again: nothing carried',
      );
    });

    it('carries a correction and a contact change together: a correction row only for the identity', async () => {
      const a = await motorPolicy();
      const b = await renew(a.policyNumber);
      await patch(a.policyNumber, 'policyholder', { lastName: 'Martins', reason: 'typo', phone: '+33698765432' });
      const holder = (await read(b.policyNumber)).policyholder;
      assert.deepEqual([holder.lastName, holder.phone], ['Martins', '+33698765432'], 'both carried');
      const row = (await auditOf(b.policyNumber)).at(-1)!.data;
      assert.deepEqual(
        [row.fields, row.reason, typeof row.correction, row.withPolicy],
        [['lastName', 'phone'], 'typo', 'string', a.policyNumber],
        JSON.stringify(row),
      );
      const own = (await auditOf(a.policyNumber)).at(-1)!.data;
      assert.deepEqual(
        [own.renewalsCorrected, own.renewalsChanged],
        [[b.policyNumber], [b.policyNumber]],
        JSON.stringify(own),
      );
    });

    it('stops at a cancelled renewal', async () => {
      const a = await motorPolicy({ expiryDate: day(30), risk: NEW_CAR });
      const b = await renew(a.policyNumber);
      const c = await renew(b.policyNumber);
      const cancelled = await cancelFrom(b.policyNumber, day(45)); // after its start on day 30: linked still
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      // b is in force until day 45 (c, cancelled with it from its inception, at once): changes made from then on stop at b
      const today = clock;
      clock = new Date(`${day(45)}T08:00:00.000Z`);
      try {
        await patch(a.policyNumber, 'policyholder', { phone: '+33698765432' });
        await patch(a.policyNumber, 'vehicle', PLATE);
        for (const renewal of [b, c]) {
          const view = await read(renewal.policyNumber);
          assert.deepEqual(
            [view.status, view.policyholder.phone, view.risk],
            ['cancelled', HOLDER.phone, NEW_CAR],
            `${renewal.policyNumber}: cancelled, left as it was`,
          );
        }
      } finally {
        clock = today;
      }
      const own = (await auditOf(a.policyNumber)).slice(-2);
      assert.deepEqual(
        own.map((r) => r.data),
        [{ fields: ['phone'] }, { fields: ['vehicleRegistration', 'firstRegistrationDate'] }],
        'no renewal reached',
      );
    });

    it('registers the car on each renewal insuring it unregistered, audited on each, never back', async () => {
      const a = await motorPolicy();
      const b = await renew(a.policyNumber);
      const c = await renew(b.policyNumber);
      const res = await patch(a.policyNumber, 'vehicle', PLATE);
      assert.deepEqual(res.risk, { ...NEW_CAR, ...PLATE }, 'the policy registered');
      for (const renewal of [b, c]) {
        assert.deepEqual((await read(renewal.policyNumber)).risk, res.risk, renewal.policyNumber);
        assert.deepEqual(
          (await auditOf(renewal.policyNumber)).at(-1)!.data,
          { fields: ['vehicleRegistration', 'firstRegistrationDate'], withPolicy: a.policyNumber },
          `${renewal.policyNumber} audited with the policy registered`,
        );
      }
      assert.deepEqual(
        (await auditOf(a.policyNumber)).at(-1)!.data,
        {
          fields: ['vehicleRegistration', 'firstRegistrationDate'],
          renewalsRegistered: [b.policyNumber, c.policyNumber],
        },
        'the policy registered lists the renewals reached',
      );
      assert.doesNotMatch(JSON.stringify(await auditOf(b.policyNumber)), /GH-456-JK|VF1RJA/, 'no vehicle in clear');
      const again = await patch(a.policyNumber, 'vehicle', PLATE);
      assert.deepEqual(again, await read(a.policyNumber), 'a retry');
      assert.deepEqual(
        (await auditOf(b.policyNumber)).map((r) => r.action),
        ['created', 'renewed', 'vehicle_registered'],
        'the retry wrote nothing',
      );

      const d = await motorPolicy();
      const e = await renew(d.policyNumber);
      await patch(e.policyNumber, 'vehicle', PLATE);
      assert.deepEqual((await read(d.policyNumber)).risk, NEW_CAR, 'a registration on a renewal stays there');
    });

    it('leaves a renewal registered on its own, and its renewals, with their registration', async () => {
      const a = await motorPolicy();
      const b = await renew(a.policyNumber);
      const own = { vehicleRegistration: 'KL-789-MN', firstRegistrationDate: day(-1) };
      await patch(b.policyNumber, 'vehicle', own);
      const c = await renew(b.policyNumber); // copies b's registration
      await patch(a.policyNumber, 'vehicle', PLATE);
      assert.deepEqual((await read(a.policyNumber)).risk, { ...NEW_CAR, ...PLATE }, 'the policy registered');
      for (const renewal of [b, c])
        assert.deepEqual((await read(renewal.policyNumber)).risk, { ...NEW_CAR, ...own }, renewal.policyNumber);
      assert.deepEqual(
        (await auditOf(a.policyNumber)).at(-1)!.data,
        { fields: ['vehicleRegistration', 'firstRegistrationDate'] },
        'no renewal reached',
      );
    });
  });

  describe('a retry of a change that reached a renewal', () => {
    const patchWithKey = (policyNumber: string, what: 'policyholder' | 'vehicle', body: object, key: string) =>
      t.app.inject({
        method: 'PATCH',
        url: `${POLICIES}/${policyNumber}/${what}`,
        headers: { ...partner.auth, 'idempotency-key': key },
        payload: body,
      });
    const renewalRows = async (policyNumber: string) => ({
      audit: await auditOf(policyNumber),
      row: await t.db
        .selectFrom('policies')
        .select(['holder_phone_enc', 'holder_address_enc', 'risk_enc', 'updated_at'])
        .where('policy_number', '=', policyNumber)
        .executeTakeFirstOrThrow(),
    });

    for (const [kind, what, body, seen] of [
      [
        'a contact change',
        'policyholder',
        { phone: '+33698765432', address: LYON },
        (v: { policyholder: { phone: string } }) => v.policyholder.phone,
      ],
      [
        'a vehicle registration',
        'vehicle',
        PLATE,
        (v: { risk: { vehicleRegistration?: string } }) => v.risk.vehicleRegistration,
      ],
    ] as const)
      it(`replays ${kind} under its Idempotency-Key: 200, the same answer, nothing written again on the renewal`, async () => {
        const a = await motorPolicy();
        const b = await renew(a.policyNumber);
        const key = crypto.randomUUID();
        const first = await patchWithKey(a.policyNumber, what, body, key);
        assert.equal(first.statusCode, 200, first.body);
        const reached = await renewalRows(b.policyNumber);
        assert.equal(
          seen(await read(b.policyNumber)),
          seen(first.json()),
          `${kind} reached the renewal ${b.policyNumber}`,
        );
        assert.deepEqual(
          reached.audit.map((r) => r.data),
          [reached.audit[0]!.data, { fields: Object.keys(body), withPolicy: a.policyNumber }],
          `the renewal: created, then one row for ${kind}`,
        );

        const retry = await patchWithKey(a.policyNumber, what, body, key);
        assert.equal(retry.statusCode, 200, retry.body);
        assert.equal(retry.headers['idempotent-replayed'], 'true', 'the answer replayed');
        assert.deepEqual(retry.json(), first.json(), 'the same answer as the first time');
        assert.deepEqual(await renewalRows(b.policyNumber), reached, 'no second audit row, no write on the renewal');
        assert.equal(
          (await auditOf(a.policyNumber)).length,
          3,
          'the policy itself: created, renewed, one change (no second row)',
        );
      });
  });

  describe('dates on the clock', () => {
    it("writes every audit row and update of a policy's life at the use case's clock; createdAt is the database's", async () => {
      const from = Date.now();
      const a = await motorPolicy({ status: 'pending', effectiveDate: day(0), expiryDate: day(60) });
      const until = Date.now();
      assert.equal(a.updatedAt, a.createdAt, 'the first updatedAt is createdAt: never earlier');
      const createdAt = Date.parse(a.createdAt);
      assert.ok(
        createdAt >= from - 1_000 && createdAt <= until + 1_000,
        `createdAt ${a.createdAt} is the database's time of the insert, not the clock's ${clock.toISOString()}`,
      );
      const activated = await post(t.app, `${POLICIES}/${a.policyNumber}/activate`, { reason: 'other' }, partner.auth);
      assert.equal(activated.status, 200, JSON.stringify(activated.body));
      await patch(a.policyNumber, 'policyholder', { phone: '+33698765432' });
      await patch(a.policyNumber, 'policyholder', { lastName: 'Martins', reason: 'typo' });
      await patch(a.policyNumber, 'vehicle', PLATE);
      const b = await renew(a.policyNumber);
      const c = await renew(b.policyNumber);
      await patch(a.policyNumber, 'policyholder', { email: 'new@example.com' });
      const wrong = await cancelFrom(c.policyNumber, c.effectiveDate); // from inception: releases b
      assert.equal(wrong.status, 200, JSON.stringify(wrong.body));
      const cancelled = await cancelFrom(a.policyNumber, day(10)); // cancels b with it
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));

      const rows = [
        ...(await auditOf(a.policyNumber)),
        ...(await auditOf(b.policyNumber)),
        ...(await auditOf(c.policyNumber)),
      ];
      assert.deepEqual(
        [...new Set(rows.map((r) => r.action))].sort(),
        [
          'activated',
          'cancelled',
          'created',
          'policyholder_changed',
          'renewal_cancelled',
          'renewed',
          'vehicle_registered',
        ],
        'every kind of change is seen',
      );
      for (const row of rows)
        assert.equal(row.at.toISOString(), clock.toISOString(), `${row.action} ${JSON.stringify(row.data)}`);
      const corrections = await t.db
        .selectFrom('policy_corrections')
        .innerJoin('policies', 'policies.id', 'policy_corrections.policy_id')
        .select('policy_corrections.created_at')
        .where('policy_number', '=', a.policyNumber)
        .execute();
      assert.deepEqual(
        corrections.map((r) => r.created_at.toISOString()),
        [clock.toISOString()],
        'the correction at the clock',
      );
      for (const policy of [a, b, c]) {
        const view = await read(policy.policyNumber);
        assert.deepEqual(
          [view.updatedAt, view.cancellation?.cancelledAt],
          [clock.toISOString(), clock.toISOString()],
          policy.policyNumber,
        );
      }
    });

    it('lists a policy recorded under a clock years from real time on the first page: its key is the database time', async () => {
      const a = await motorPolicy();
      const res = await t.app.inject({
        method: 'GET',
        url: `${POLICIES}?externalReference=${encodeURIComponent(a.externalReference)}`,
        headers: partner.auth,
      });
      const page = res.json();
      assert.deepEqual(
        [page.policies.map((p: { policyNumber: string }) => p.policyNumber), page.nextCursor],
        [[a.policyNumber], null],
        'a key at the clock (2034) would lie past the commit horizon: on no page',
      );
    });
  });
});
