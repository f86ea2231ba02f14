import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { submitBankDetails } from '../../src/payouts/bank-details.ts';
import { openClaimsForFlightEvent } from '../../src/claims/open-claims.ts';
import { payWithSimulatedBank } from '../../src/payouts/payouts.ts';
import { decrypt } from '../../src/platform/crypto.ts';
import { JobQueue } from '../../src/platform/jobs.ts';
import { registerQueues, startWorkers } from '../../src/worker.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  insureFlight,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * Exactly once, whatever the duplicates: the same flight event delivered 10 times at once through
 * two worker processes' queues opens one claim per leg, texts each customer once, and — with bank
 * details submitted twice at once and the bank job run again — pays one payout per claim, once.
 */
describe('exactly once: 10 concurrent deliveries of one flight event, two workers', () => {
  let t: TestApp;
  let a: TestPartner;
  const workers: JobQueue[] = [];
  before(async () => {
    // the app runs no worker: two separate queues on the same database play the two worker processes
    t = await buildTestApp({ env: { PARASOL_WORKERS: 'off', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' } });
    a = await createTestPartner(t.db);
    const { config, keys } = t.app.parasol;
    for (let i = 0; i < 2; i++) {
      const jobs = await new JobQueue(t.db, { pollingIntervalSeconds: 0.5, schedules: false }).start();
      await registerQueues(jobs);
      await startWorkers(jobs, {
        db: t.db,
        keys,
        config,
        now: () => new Date(),
        log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      });
      workers.push(jobs);
    }
  });
  after(async () => {
    for (const w of workers) await w.stop({ timeoutMs: 2_000 });
    await t.close();
  });

  it('one claim per leg, one SMS per claim, one payout per claim, paid once', async () => {
    const flightNumber = `AF${5000 + (process.pid % 4000)}`;
    const contracts: string[] = [];
    let departureDate = '';
    for (let i = 0; i < 4; i++) {
      const insured = await insureFlight(t.app, a, { flightNumber, days: 15, customer: { lastName: `Martin${i}` } });
      contracts.push(insured.contractNumber);
      departureDate = insured.departureDate;
    }

    // the event, 10 times at once, half through each worker's queue
    const event = {
      environment: 'sandbox' as const,
      partnerId: a.id,
      flightNumber,
      departureDate,
      status: 'cancelled' as const,
      source: 'test',
    };
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        openClaimsForFlightEvent({ db: t.db, jobs: workers[i % 2]!, now: () => new Date() }, event),
      ),
    );
    assert.equal(
      results.reduce((n, r) => n + r.length, 0),
      4,
      'four claims opened in all, whatever the interleaving',
    );

    const claims = await t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select(['cl.id', 'cl.status'])
      .where('c.contract_number', 'in', contracts)
      .execute();
    assert.equal(claims.length, 4, 'one claim per leg');

    // each customer is texted once, by whichever worker took the job
    const messages = await eventually(async () => {
      const rows = await t.db
        .selectFrom('sms_outbox')
        .select(['claim_id', 'link_enc'])
        .where(
          'claim_id',
          'in',
          claims.map((c) => c.id),
        )
        .execute();
      return rows.length === 4 ? rows : undefined;
    });
    // settled: no notification job of these claims is left to run (queued, retrying or running)
    await eventually(async () => {
      const ids = claims.map((c) => c.id);
      const pending = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pgboss.job
        WHERE name = ${'claims_notify'} AND state IN ('created', 'retry', 'active') AND data->>'claimId' = ANY(${ids}::text[])`.execute(
        t.db,
      );
      return pending.rows[0]!.n === 0 ? true : undefined;
    });
    assert.equal(
      (
        await t.db
          .selectFrom('sms_outbox')
          .select('id')
          .where(
            'claim_id',
            'in',
            claims.map((c) => c.id),
          )
          .execute()
      ).length,
      4,
      'one SMS per claim',
    );

    // bank details submitted twice at once for each claim: one accepted, one payout
    const deps = { db: t.db, jobs: workers[0]!, keys: t.app.parasol.keys, now: () => new Date() };
    const submissions = await Promise.all(
      messages.flatMap((m) => {
        // the link is sealed at rest (migration 0042)
        const token = decrypt(t.app.parasol.keys.encryption, m.link_enc!).split('/c/')[1]!;
        return [0, 1].map(() =>
          submitBankDetails(deps, token, { accountHolder: 'Camille Martin', iban: 'DE89370400440532013000' }),
        );
      }),
    );
    assert.equal(submissions.filter((s) => s.kind === 'accepted').length, 4);
    assert.equal(submissions.filter((s) => s.kind === 'closed').length, 4);

    await eventually(async () => {
      const rows = await t.db
        .selectFrom('claims')
        .select('status')
        .where(
          'id',
          'in',
          claims.map((c) => c.id),
        )
        .execute();
      return rows.every((r) => r.status === 'paid') ? true : undefined;
    });
    const payouts = await t.db
      .selectFrom('payouts')
      .select(['id', 'status', 'claim_id'])
      .where(
        'claim_id',
        'in',
        claims.map((c) => c.id),
      )
      .execute();
    assert.equal(payouts.length, 4, 'one payout per claim');
    assert.ok(payouts.every((p) => p.status === 'paid'));

    // the bank job delivered again (a retry after a crash) settles nothing twice
    const settle = {
      db: t.db,
      jobs: workers[1]!,
      now: () => new Date(),
      bankDetailsDays: 30,
      encryption: t.app.parasol.keys.encryption,
    };
    const again = await Promise.all(payouts.map((p) => payWithSimulatedBank(settle, p.id)));
    assert.deepEqual(again, ['skipped', 'skipped', 'skipped', 'skipped']);
    const paidAudit = await t.db
      .selectFrom('audit_log')
      .select('entity_id')
      .where('action', '=', 'paid')
      .where('entity', '=', 'claim')
      .where('partner_id', '=', a.id)
      .execute();
    assert.equal(paidAudit.length, 4, 'each claim paid once');
  });
});
