import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, createTestPartner, eventually, post, usingPostgres, type TestApp } from '../helper.ts';

const POLICIES = '/policy-admin/v1/policies';

/**
 * A correction of the policyholder's name racing the renewal of the same policy (PostgreSQL: PGlite
 * runs one transaction at a time). Whichever locks the policy first, the renewal must not be left
 * with the name corrected away: renewed first, the correction finds the renewal and corrects it;
 * corrected first, the renewal copies the corrected name.
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

  for (const order of ['renewal first', 'correction first'] as const) {
    it(`leaves the renewal with the corrected name (${order})`, async (ctx) => {
      if (!usingPostgres) return ctx.skip('PGlite runs one transaction at a time: nothing races');
      const partner = await createTestPartner(t.db, { apis: ['policy-admin'] });
      const created = await post(
        t.app,
        POLICIES,
        {
          product: 'motor',
          externalReference: reference('MOTOR'),
          policyholder: {
            firstName: 'Camille',
            lastName: 'Martin',
            birthDate: '1990-04-12',
            email: 'camille@example.com',
            phone: '+33612345678',
            address: { line1: '12 rue Cler', postalCode: '75007', city: 'Paris', country: 'FR' },
          },
          effectiveDate: day(-100),
          expiryDate: day(265),
          premium: { amount: 4_500, currency: 'EUR', frequency: 'monthly' },
          risk: {
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
      const { policyNumber } = created.body as { policyNumber: string };
      const renew = () =>
        post(
          t.app,
          `${POLICIES}/${policyNumber}/renew`,
          {
            externalReference: reference('RENEWAL'),
            premium: { amount: 4_800, currency: 'EUR', frequency: 'monthly' },
          },
          partner.auth,
        );
      const correct = async () => {
        const r = await t.app.inject({
          method: 'PATCH',
          url: `${POLICIES}/${policyNumber}/policyholder`,
          headers: partner.auth,
          payload: { lastName: 'Martins', reason: 'typo' },
        });
        return { status: r.statusCode, body: r.json(), headers: r.headers };
      };
      const [renewed, corrected] =
        order === 'renewal first'
          ? await race(renew, correct, policyNumber)
          : (await race(correct, renew, policyNumber)).reverse();
      assert.equal(renewed!.status, 201, JSON.stringify(renewed!.body));
      assert.equal(corrected!.status, 200, JSON.stringify(corrected!.body));
      const renewal = await t.app.inject({
        method: 'GET',
        url: `${POLICIES}/${renewed!.body.policyNumber}`,
        headers: partner.auth,
      });
      assert.equal(renewal.json().policyholder.lastName, 'Martins');
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
});
