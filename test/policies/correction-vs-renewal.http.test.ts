import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  post,
  usingPostgres,
  type TestApp,
  POLICY_ADMIN,
  HOLDER,
} from '../helper.ts';

const POLICIES = `${POLICY_ADMIN}/policies`;

/**
 * A correction of the policyholder's name racing the renewal of the same policy, or of its renewal,
 * or the cancellation of the policy with its renewal (PostgreSQL: PGlite runs one transaction at a
 * time). Whichever locks the policy first, no renewal is left with the name corrected away: renewed
 * first, the correction finds the renewal and corrects it; corrected first, the renewal copies the
 * corrected name. Cancel and correction lock the same policies in the same order: no deadlock. A new
 * phone or a vehicle registration racing the renewal ends the same way: on both terms.
 */
describe('a policyholder correction racing a renewal', () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp({ env: { PARASOL_WORKERS: 'off' } })));
  after(() => t.close());

  const blocked = async () =>
    (
      await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0`.execute(t.db)
    ).rows[0]!.n;

  let counter = 0;
  const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const reference = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

  /** Holds the policy locked while `first` then `second` queue behind the lock, in that order; their answers. */
  async function race(
    first: () => ReturnType<typeof post>,
    second: () => ReturnType<typeof post>,
    policyNumber: string,
  ): Promise<[Awaited<ReturnType<typeof post>>, Awaited<ReturnType<typeof post>>]> {
    let a: ReturnType<typeof post> | undefined;
    let b: ReturnType<typeof post> | undefined;
    await t.db.transaction().execute(async (trx) => {
      await sql`SELECT 1 FROM policies WHERE policy_number = ${policyNumber} FOR UPDATE`.execute(trx);
      a = first();
      await eventually(async () => ((await blocked()) >= 1 ? true : undefined));
      b = second();
      await eventually(async () => ((await blocked()) >= 2 ? true : undefined));
    });
    return [await a!, await b!];
  }

  type Partner = Awaited<ReturnType<typeof createTestPartner>>;

  const NEW_CAR = { vin: 'VF1RJA00168123456', make: 'Renault', model: 'Clio', usage: 'private' };
  const PLATE = { vehicleRegistration: 'GH-456-JK', firstRegistrationDate: day(-3) };

  /** A motor policy that started 100 days ago and ends in `days` days (its car registered, or by its VIN alone); its number. */
  async function motorPolicy(partner: Partner, days: number, risk?: object): Promise<string> {
    const created = await post(
      t.app,
      POLICIES,
      {
        product: 'motor',
        externalReference: reference('MOTOR'),
        policyholder: HOLDER,
        effectiveDate: day(-100),
        expiryDate: day(days),
        premium: { amount: 4_500, currency: 'EUR', frequency: 'monthly' },
        risk: risk ?? {
          vehicleRegistration: 'AB-123-CD',
          make: 'Renault',
          model: 'Clio',
          firstRegistrationDate: '2021-03-15',
          usage: 'private',
        },
      },
      partner.auth,
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return (created.body as { policyNumber: string }).policyNumber;
  }
  const renewOf = (partner: Partner, policyNumber: string) => () =>
    post(
      t.app,
      `${POLICIES}/${policyNumber}/renew`,
      { externalReference: reference('RENEWAL'), premium: { amount: 4_800, currency: 'EUR', frequency: 'monthly' } },
      partner.auth,
    );
  const correctionOf = (partner: Partner, policyNumber: string) => async () => {
    const r = await t.app.inject({
      method: 'PATCH',
      url: `${POLICIES}/${policyNumber}/policyholder`,
      headers: partner.auth,
      payload: { lastName: 'Martins', reason: 'typo' },
    });
    return { status: r.statusCode, body: r.json(), headers: r.headers };
  };
  const read = async (partner: Partner, policyNumber: string) =>
    (await t.app.inject({ method: 'GET', url: `${POLICIES}/${policyNumber}`, headers: partner.auth })).json();
  const patchOf =
    (partner: Partner, policyNumber: string, what: 'policyholder' | 'vehicle', payload: object) => async () => {
      const r = await t.app.inject({
        method: 'PATCH',
        url: `${POLICIES}/${policyNumber}/${what}`,
        headers: partner.auth,
        payload,
      });
      return { status: r.statusCode, body: r.json(), headers: r.headers };
    };

  for (const order of ['renewal first', 'change first'] as const)
    for (const [kind, what, payload, risk, seen] of [
      [
        'a new phone',
        'policyholder',
        { phone: '+33698765432' },
        undefined,
        (v: { policyholder: { phone: string } }) => v.policyholder.phone === '+33698765432',
      ],
      [
        'a vehicle registration',
        'vehicle',
        PLATE,
        NEW_CAR,
        (v: { risk: { vehicleRegistration?: string } }) => v.risk.vehicleRegistration === PLATE.vehicleRegistration,
      ],
    ] as const)
      it(`leaves the renewal with ${kind} made on the policy while it is renewed (${order})`, async (ctx) => {
        if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
        const partner = await createTestPartner(t.db, { apis: ['policy-admin'] });
        const policyNumber = await motorPolicy(partner, 265, risk);
        const renew = renewOf(partner, policyNumber);
        const change = patchOf(partner, policyNumber, what, payload);
        const [renewed, changed] =
          order === 'renewal first'
            ? await race(renew, change, policyNumber)
            : (await race(change, renew, policyNumber)).reverse();
        assert.equal(renewed!.status, 201, JSON.stringify(renewed!.body));
        assert.equal(changed!.status, 200, JSON.stringify(changed!.body));
        for (const policy of [policyNumber, renewed!.body.policyNumber as string]) {
          const view = await read(partner, policy);
          assert.equal(seen(view), true, `${policy}: ${JSON.stringify(view)}`);
        }
      });

  for (const order of ['cancel first', 'change first'] as const)
    it(`ends consistent when a new phone on the policy races the cancellation of its renewal (${order})`, async (ctx) => {
      if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
      const partner = await createTestPartner(t.db, { apis: ['policy-admin'] });
      const a = await motorPolicy(partner, 30);
      const renewal = (await renewOf(partner, a)()).body as { policyNumber: string; effectiveDate: string };
      const b = renewal.policyNumber;
      // both lock A, then B (the cancellation locks the term renewed first; the change walks to its renewal);
      // from its inception, so cancelled at once (from a later day it would stay in force, and changeable, until then)
      const cancel = () =>
        post(
          t.app,
          `${POLICIES}/${b}/cancel`,
          { reason: 'customer_request', effectiveDate: renewal.effectiveDate },
          partner.auth,
        );
      const change = patchOf(partner, a, 'policyholder', { phone: '+33698765432' });
      const [cancelled, changed] =
        order === 'cancel first' ? await race(cancel, change, a) : (await race(change, cancel, a)).reverse();
      assert.equal(cancelled!.status, 200, JSON.stringify(cancelled!.body));
      assert.equal(changed!.status, 200, JSON.stringify(changed!.body));
      const [viewA, viewB] = [await read(partner, a), await read(partner, b)];
      assert.equal(viewA.policyholder.phone, '+33698765432', `${a}: the policy changed`);
      // cancelled first: the change stops at the cancelled renewal; changed first: the renewal was changed, then cancelled
      assert.deepEqual(
        [viewB.status, viewB.policyholder.phone],
        ['cancelled', order === 'cancel first' ? HOLDER.phone : '+33698765432'],
        `${b}: ${JSON.stringify(viewB)}`,
      );
    });

  for (const order of ['renewal first', 'change first'] as const)
    it(`leaves every term with a new phone made on the policy while its renewal is renewed (${order})`, async (ctx) => {
      if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
      const partner = await createTestPartner(t.db, { apis: ['policy-admin'] });
      const a = await motorPolicy(partner, 30);
      const b = (await renewOf(partner, a)()).body.policyNumber as string;
      // B held: its renewal waits for B; the change locks A, then waits for B
      const renew = renewOf(partner, b);
      const change = patchOf(partner, a, 'policyholder', { phone: '+33698765432' });
      const [renewed, changed] =
        order === 'renewal first' ? await race(renew, change, b) : (await race(change, renew, b)).reverse();
      assert.equal(renewed!.status, 201, JSON.stringify(renewed!.body));
      assert.equal(changed!.status, 200, JSON.stringify(changed!.body));
      const c = renewed!.body.policyNumber as string;
      for (const policy of [a, b, c])
        assert.equal((await read(partner, policy)).policyholder.phone, '+33698765432', `${policy}: the new phone`);
    });

  for (const order of ['renewal first', 'correction first'] as const) {
    it(`leaves the renewal with the corrected name (${order})`, async (ctx) => {
      if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
      const partner = await createTestPartner(t.db, { apis: ['policy-admin'] });
      const policyNumber = await motorPolicy(partner, 265);
      const renew = renewOf(partner, policyNumber);
      const correct = correctionOf(partner, policyNumber);
      const [renewed, corrected] =
        order === 'renewal first'
          ? await race(renew, correct, policyNumber)
          : (await race(correct, renew, policyNumber)).reverse();
      assert.equal(renewed!.status, 201, JSON.stringify(renewed!.body));
      assert.equal(corrected!.status, 200, JSON.stringify(corrected!.body));
      assert.equal((await read(partner, renewed!.body.policyNumber)).policyholder.lastName, 'Martins');
      const corrections = await t.db
        .selectFrom('policy_corrections')
        .innerJoin('policies', 'policies.id', 'policy_corrections.policy_id')
        .select('policy_number')
        .where('policy_number', 'in', [policyNumber, renewed!.body.policyNumber])
        .execute();
      // renewed first: the renewal has a correction of its own; corrected first: it was recorded right
      assert.equal(corrections.length, order === 'renewal first' ? 2 : 1);
    });
  }

  for (const order of ['renewal first', 'correction first'] as const) {
    it(`leaves the renewal of the renewal with the corrected name when the renewal is renewed meanwhile (${order})`, async (ctx) => {
      if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
      const partner = await createTestPartner(t.db, { apis: ['policy-admin'] });
      const a = await motorPolicy(partner, 30);
      const b = (await renewOf(partner, a)()).body.policyNumber as string;
      // B held: its renewal waits for B; the correction of A locks A, then waits for B
      const renew = renewOf(partner, b);
      const correct = correctionOf(partner, a);
      const [renewed, corrected] =
        order === 'renewal first' ? await race(renew, correct, b) : (await race(correct, renew, b)).reverse();
      assert.equal(renewed!.status, 201, JSON.stringify(renewed!.body));
      assert.equal(corrected!.status, 200, JSON.stringify(corrected!.body));
      const c = renewed!.body.policyNumber as string;
      for (const policy of [a, b, c])
        assert.equal((await read(partner, policy)).policyholder.lastName, 'Martins', policy);
    });
  }

  for (const order of ['cancel first', 'correction first'] as const) {
    it(`ends consistent when a policy is corrected while cancelled with its renewal (${order})`, async (ctx) => {
      if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
      const partner = await createTestPartner(t.db, { apis: ['policy-admin'] });
      const a = await motorPolicy(partner, 30);
      const b = (await renewOf(partner, a)()).body.policyNumber as string;
      // both lock A, then B (the cascade, the correction's walk): one waits for the other, no deadlock;
      // from today, so cancelled at once (from a later day it would stay in force, and changeable, until then)
      const cancel = () =>
        post(t.app, `${POLICIES}/${a}/cancel`, { reason: 'customer_request', effectiveDate: day(0) }, partner.auth);
      const correct = correctionOf(partner, a);
      const [cancelled, corrected] =
        order === 'cancel first' ? await race(cancel, correct, a) : (await race(correct, cancel, a)).reverse();
      assert.equal(cancelled!.status, 200, JSON.stringify(cancelled!.body));
      assert.deepEqual(
        [corrected!.status, corrected!.body.code],
        order === 'cancel first' ? [409, 'policy_not_changeable'] : [200, undefined],
      );
      const lastName = order === 'cancel first' ? 'Martin' : 'Martins';
      for (const policy of [a, b]) {
        const view = await read(partner, policy);
        assert.deepEqual([view.status, view.policyholder.lastName], ['cancelled', lastName], policy);
      }
    });
  }
});
