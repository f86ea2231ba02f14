import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openClaimsForFlightEvent } from '../../src/claims/open-claims.ts';
import { buildTestApp, createTestPartner, insureFlight, type TestApp } from '../helper.ts';

/**
 * The fan-out of one flight event over several partners' contracts (set-wise: one statement for the
 * claims, read back column by column; one for their jobs), and the one key that ties each claim to
 * its leg, contract and partner (migration 0033).
 */
describe('a flight event fanned out over several contracts', () => {
  let t: TestApp;
  before(async () => (t = await buildTestApp({ env: { PARASOL_WORKERS: 'off' } })));
  after(() => t.close());

  const flightNumber = `AF${1000 + (process.pid % 8000)}`;

  it('answers each claim opened as it is stored, and queues one notification job per claim', async () => {
    const a = await createTestPartner(t.db);
    const b = await createTestPartner(t.db, { configuration: { cancellationAmount: 20_000 } });
    let departureDate = '';
    for (const [partner, passengers] of [
      [a, 1],
      [a, 3],
      [b, 2],
      [b, 1],
    ] as const) {
      departureDate = (await insureFlight(t.app, partner, { flightNumber, days: 20, passengers })).departureDate;
    }
    const opened = await openClaimsForFlightEvent(
      { db: t.app.parasol.db, jobs: t.app.parasol.jobs, now: () => new Date() },
      {
        environment: 'sandbox',
        flightNumber,
        departureDate,
        status: 'cancelled',
        source: 'test',
      },
    );
    assert.equal(opened.length, 4);
    const stored = await t.db
      .selectFrom('claims')
      .select([
        'id',
        'claim_number',
        'partner_id',
        'contract_id',
        'leg_id',
        'reason',
        'compensation_amount',
        'currency',
      ])
      .where(
        'id',
        'in',
        opened.map((c) => c.id),
      )
      .execute();
    for (const claim of opened) {
      const row = stored.find((r) => r.id === claim.id)!;
      assert.deepEqual(claim, {
        id: row.id,
        claimNumber: row.claim_number,
        partnerId: row.partner_id,
        contractId: row.contract_id,
        legId: row.leg_id,
        reason: row.reason,
        compensationAmount: Number(row.compensation_amount),
        currency: row.currency,
        replaces: null,
      });
    }
    // the amounts follow each contract's passengers and its partner's cover
    assert.deepEqual(opened.map((c) => `${c.partnerId === a.id ? 'a' : 'b'} ${c.compensationAmount}`).sort(), [
      'a 15000',
      'a 45000',
      'b 20000',
      'b 40000',
    ]);
    const jobs = await sql<{ id: string; claim_id: string }>`
      SELECT id, data->>'claimId' AS claim_id FROM pgboss.job
      WHERE name = 'claims_notify' AND data->>'claimId' = ANY(${opened.map((c) => c.id)}::text[])`.execute(t.db);
    assert.deepEqual(jobs.rows.map((j) => j.claim_id).sort(), opened.map((c) => c.id).sort());
    assert.equal(new Set(jobs.rows.map((j) => j.id)).size, 4);

    // the same event again opens nothing
    assert.deepEqual(
      await openClaimsForFlightEvent(
        { db: t.app.parasol.db, jobs: t.app.parasol.jobs, now: () => new Date() },
        {
          environment: 'sandbox',
          flightNumber,
          departureDate,
          status: 'cancelled',
          source: 'test',
        },
      ),
      [],
    );
  });

  it("keeps each claim's leg, contract and partner those of one leg, and the leg while it has a claim", async () => {
    const [claim] = await t.db
      .selectFrom('claims as cl')
      .innerJoin('contract_legs as l', 'l.id', 'cl.leg_id')
      .select(['cl.id', 'cl.leg_id', 'l.contract_id'])
      .where('l.monitored_flight_number', '=', flightNumber)
      .execute();
    const other = await createTestPartner(t.db);
    const violation = { code: '23503' };
    await assert.rejects(
      t.db.updateTable('claims').set({ partner_id: other.id }).where('id', '=', claim!.id).execute(),
      violation,
    );
    const [otherContract] = await t.db
      .selectFrom('contracts')
      .select('id')
      .where('id', '!=', claim!.contract_id)
      .limit(1)
      .execute();
    await assert.rejects(
      t.db.updateTable('claims').set({ contract_id: otherContract!.id }).where('id', '=', claim!.id).execute(),
      violation,
    );
    await assert.rejects(t.db.deleteFrom('contract_legs').where('id', '=', claim!.leg_id).execute(), violation);
  });
});
