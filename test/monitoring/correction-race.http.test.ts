import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordOperatorFlightEvent } from '../../src/monitoring/operator-flight-event.ts';
import { buildTestApp, createTestPartner, insureFlight, usingPostgres, type TestApp } from '../helper.ts';
import { flightNumber } from './watch-fixtures.ts';

/**
 * Two operator corrections (`parasol flights event`) of the two legs of one completed contract, at
 * the same time (PostgreSQL: PGlite runs one transaction at a time). Each may reopen the contract, so
 * each locks it FOR NO KEY UPDATE from the start (claims-repo.ts, insertClaimsForFlight): the second
 * waits for the first. With a share lock both would hold it and then both try to upgrade it to
 * reopen the contract — a deadlock, one correction failing with 40P01.
 */
describe(
  'two corrections of the two legs of one contract, concurrently',
  { skip: usingPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite runs one transaction at a time' },
  () => {
    let t: TestApp;
    before(async () => (t = await buildTestApp({ env: { PARASOL_WORKERS: 'off' } })));
    after(() => t.close());

    it('both succeed, each opening its leg’s claim, and the contract is reopened once (20 rounds)', async () => {
      const partner = await createTestPartner(t.db);
      const deps = { db: t.db, jobs: t.app.parasol.jobs, now: () => new Date() };
      for (let round = 0; round < 20; round++) {
        const insured = await insureFlight(t.app, partner, {
          flightNumber: flightNumber(),
          returnFlight: flightNumber(),
          days: 20,
        });
        // as the monitoring leaves it when both flights were decided on time: completed, nothing to pay
        await t.db
          .updateTable('contracts')
          .set({ status: 'completed' })
          .where('contract_number', '=', insured.contractNumber)
          .execute();

        const corrections = await Promise.allSettled([
          recordOperatorFlightEvent(
            deps,
            {
              environment: 'sandbox',
              flightNumber: insured.flightNumber,
              departureDate: insured.departureDate,
              status: 'cancelled',
            },
            'operator:test',
          ),
          recordOperatorFlightEvent(
            deps,
            {
              environment: 'sandbox',
              flightNumber: insured.returnFlight!,
              departureDate: insured.returnDate!,
              status: 'cancelled',
            },
            'operator:test',
          ),
        ]);
        const failed = corrections.filter((c) => c.status === 'rejected').map((c) => String(c.reason));
        assert.deepEqual(failed, [], `round ${round}: both corrections succeed`);
        const [outbound, inbound] = corrections.map((c) => (c.status === 'fulfilled' ? c.value : undefined));
        assert.equal(outbound!.claimsOpened.length, 1, `round ${round}: the outbound leg's claim`);
        assert.equal(inbound!.claimsOpened.length, 1, `round ${round}: the return leg's claim`);
        assert.deepEqual(
          [...outbound!.contractsReopened, ...inbound!.contractsReopened],
          [insured.contractNumber],
          `round ${round}: reopened by exactly one of the two`,
        );

        const contract = await t.db
          .selectFrom('contracts')
          .select(['id', 'status'])
          .where('contract_number', '=', insured.contractNumber)
          .executeTakeFirstOrThrow();
        assert.equal(contract.status, 'active', `round ${round}: active again until its claims settle`);
        const claims = await t.db
          .selectFrom('claims')
          .select(['reason', 'compensation_amount'])
          .where('contract_id', '=', contract.id)
          .execute();
        assert.deepEqual(
          claims.map((c) => [c.reason, Number(c.compensation_amount)]),
          [
            ['cancellation', 15_000],
            ['cancellation', 15_000],
          ],
          `round ${round}: one cancellation claim per leg`,
        );
        const reopened = await t.db
          .selectFrom('audit_log')
          .select('id')
          .where('entity', '=', 'contract')
          .where('entity_id', '=', insured.contractNumber)
          .where('action', '=', 'reopened')
          .execute();
        assert.equal(reopened.length, 1, `round ${round}: one audit row reopened`);
      }
    });
  },
);
