import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ACH_SETTLE_ACTOR,
  achReturnWindowPassed,
  LEFT_OUT_PAYOUT,
  listPayouts,
  settleAchPayouts,
  unreportedDue,
} from '../../src/payouts/index.ts';
import { DatabaseGauges } from '../../src/platform/metrics.ts';
import { createAchBatch, exportSepaBatch } from '../../src/payouts/sepa-batch.ts';
import { buildTestApp, createTestPartner, operatorToken, type TestApp, type TestPartner } from '../helper.ts';
import { achBatchDeps, achBatchWithoutFile, achPayoutsEnv, usAccountClaim } from './ach-setup.ts';

/**
 * ACH never confirms a credit: a payout to a US account still instructed once its file's effective
 * entry date and the return window (2 Federal Reserve business days by default) have passed is
 * settled paid by the worker's job, once; inside the window it is neither settled nor unreported.
 */
describe('ACH payouts settled after their return window', () => {
  let t: TestApp;
  let partner: TestPartner;
  let dir: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-ach-settle-'));
    t = await buildTestApp({ env: achPayoutsEnv(dir) });
    partner = await createTestPartner(t.db, { environment: 'production', agreement: { currency: 'USD' } });
  });
  after(async () => {
    await t.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** The hourly job's run at `at`. */
  const settle = (at: string) =>
    settleAchPayouts({
      db: t.db,
      jobs: t.app.parasol.jobs,
      now: () => new Date(at),
      bankDetailsDays: 7,
      encryption: t.app.parasol.keys.encryption,
      returnWindowDays: t.app.parasol.config.achReturnWindowDays,
    });

  /** `parasol payouts list --unreported` at `at`: the statuses of the claim's payouts it lists. */
  const unreportedOf = async (claimNumber: string, at: string) =>
    (await listPayouts(t.db, { unreported: unreportedDue(new Date(at), 2), limit: 50 }))
      .filter((r) => r.claim_number === claimNumber)
      .map((r) => r.status);
  /** The unreported gauge at `at`, as app.ts wires it, on a clock of its own. */
  const gauge = async (at: string) => {
    const text = await new DatabaseGauges(t.db, {
      leftOutPayout: LEFT_OUT_PAYOUT,
      ttlMs: 0,
      clock: () => Date.parse(at),
      achUnreported: (now) => achReturnWindowPassed(unreportedDue(now, 2).ach),
    }).metrics();
    return Number(/^parasol_production_payouts_unreported (\S+)$/m.exec(text)?.[1]);
  };

  it('instructed → paid once the window has passed, exactly once; never unreported inside it', async () => {
    const operator = (await operatorToken(t, 'ach-settle')).auth;
    const claim = await usAccountClaim(t, partner, { flightNumber: `AF${6300 + (process.pid % 300)}`, operator });

    // made on Wednesday 7 May 2031: effective entry date Thursday 8 May; window Friday 9 and Monday 12
    const batch = await createAchBatch(achBatchDeps(t, dir, '2031-05-07T14:00:00Z'), { actor: 'operator:test' });
    assert.ok(batch && 'batchId' in batch, JSON.stringify(batch));
    assert.equal(batch.executionDate, '2031-05-08');

    const state = () =>
      t.db
        .selectFrom('payouts as p')
        .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
        .select(['p.status as payout', 'cl.status as claim'])
        .where('p.claim_id', '=', claim.id)
        .executeTakeFirstOrThrow();
    const unreported = async (at: string) =>
      (await listPayouts(t.db, { unreported: unreportedDue(new Date(at), 2), limit: 50 }))
        .filter((r) => r.claim_number === claim.claimNumber)
        .map((r) => r.status);

    // Monday 12 May, 4 p.m. in New York: still inside the window
    const monday = '2031-05-12T20:00:00Z';
    assert.deepEqual(await settle(monday), { paid: 0, unchanged: 0 });
    assert.deepEqual(await state(), { payout: 'instructed', claim: 'payment_pending' });
    assert.deepEqual(await unreported(monday), [], 'inside its return window: not unreported');
    // Wednesday 14 May, the settlement never ran: unreported
    assert.deepEqual(await unreported('2031-05-14T15:00:00Z'), ['instructed']);

    // Tuesday 13 May: the window has passed
    assert.deepEqual(await settle('2031-05-13T12:00:00Z'), { paid: 1, unchanged: 0 });
    assert.deepEqual(await state(), { payout: 'paid', claim: 'paid' });
    assert.deepEqual(await settle('2031-05-13T13:00:00Z'), { paid: 0, unchanged: 0 }, 'exactly once');
    assert.deepEqual(await unreported('2031-05-14T15:00:00Z'), []);
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'at'])
      .where('entity', '=', 'claim')
      .where('entity_id', '=', claim.claimNumber)
      .where('action', '=', 'paid')
      .execute();
    assert.deepEqual(
      audited.map((a) => [a.actor, a.at.toISOString()]),
      [[ACH_SETTLE_ACTOR, '2031-05-13T12:00:00.000Z']],
      'settled on the application clock',
    );
    const ledger = await t.db.selectFrom('ledger_entries').select('id').where('claim_id', '=', claim.id).execute();
    assert.ok(ledger.length > 0, 'the compensation paid is in the ledger');
  });

  it('a NACHA file committed but never written (the process stopped) is never settled paid: the customer is not told of money that did not leave', async () => {
    const operator = (await operatorToken(t, 'ach-settle-unwritten')).auth;
    const claim = await usAccountClaim(t, partner, { flightNumber: `AF${6700 + (process.pid % 300)}`, operator });
    // made on Wednesday 14 May 2031 (effective Thursday 15 May), its file cannot be written after the commit
    await achBatchWithoutFile(t, dir, '2031-05-14T14:00:00Z');
    const payout = () =>
      t.db
        .selectFrom('payouts as p')
        .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
        .select(['p.status as payout', 'cl.status as claim', 'p.batch_id'])
        .where('p.claim_id', '=', claim.id)
        .executeTakeFirstOrThrow();
    const { batch_id: batchId, ...instructed } = await payout();
    assert.deepEqual(instructed, { payout: 'instructed', claim: 'payment_pending' });
    // Tuesday 20 May: its window has passed, but no file was ever written
    assert.deepEqual(await settle('2031-05-20T12:00:00Z'), { paid: 0, unchanged: 0 });
    const { batch_id: _, ...still } = await payout();
    assert.deepEqual(still, { payout: 'instructed', claim: 'payment_pending' });
    const paidEntries = () =>
      t.db
        .selectFrom('ledger_entries')
        .select('id')
        .where('claim_id', '=', claim.id)
        .where('kind', '=', 'compensation_paid')
        .execute();
    assert.equal((await paidEntries()).length, 0, 'no compensation booked');
    // past its window, yet not unreported (list or gauge): no bank has its file; the batch-without-file alarm is the one
    assert.deepEqual(await unreportedOf(claim.claimNumber, '2031-05-20T12:00:00Z'), []);
    assert.equal(await gauge('2031-05-20T12:00:00Z'), 0);
    // the operator exports it (checked with the bank) on Tuesday 20 May: the bank has it from then, its
    // entries settle Wednesday 21 May at the earliest, whatever the stale effective entry date says
    await exportSepaBatch(
      { db: t.db, keys: t.app.parasol.keys, directory: dir, now: () => new Date('2031-05-20T12:30:00Z') },
      batchId!,
      'operator:test',
    );
    assert.deepEqual(await settle('2031-05-20T13:00:00Z'), { paid: 0, unchanged: 0 }, 'not paid at once');
    // a second export (the file written again, Friday 23 May) never restarts the window
    await fs.rm(
      path.join(
        dir,
        `${(await t.db.selectFrom('sepa_batches').select('message_id').where('id', '=', batchId!).executeTakeFirstOrThrow()).message_id}.ach`,
      ),
    );
    await exportSepaBatch(
      { db: t.db, keys: t.app.parasol.keys, directory: dir, now: () => new Date('2031-05-23T13:00:00Z') },
      batchId!,
      'operator:test',
    );
    // Friday 23 May, 4 p.m. in New York: Thursday 22 and Friday 23 are its window, not passed yet
    assert.deepEqual(await settle('2031-05-23T20:00:00Z'), { paid: 0, unchanged: 0 });
    assert.equal((await paidEntries()).length, 0);
    // Saturday 24 May, 1 a.m. in New York: the window has passed (a window ending a business day
    // late, or restarted by the second export, would still hold it)
    assert.deepEqual(await settle('2031-05-24T05:00:00Z'), { paid: 1, unchanged: 0 });
    assert.equal((await paidEntries()).length, 1);
    assert.deepEqual(await settle('2031-05-27T13:00:00Z'), { paid: 0, unchanged: 0 }, 'exactly once');
  });

  it('a NACHA file written late: its window counts from the write, for the settlement and for the unreported alarm alike (list and gauge)', async () => {
    const operator = (await operatorToken(t, 'ach-settle-late')).auth;
    const claim = await usAccountClaim(t, partner, { flightNumber: `AF${7100 + (process.pid % 300)}`, operator });
    // made on Monday 2 June 2031 (effective entry date Tuesday 3 June), its file not written then
    await achBatchWithoutFile(t, dir, '2031-06-02T14:00:00Z');
    const { batch_id: batchId } = await t.db
      .selectFrom('payouts')
      .select('batch_id')
      .where('claim_id', '=', claim.id)
      .executeTakeFirstOrThrow();
    // written a week late, Monday 9 June: its entries settle Tuesday 10 June at the earliest, the window
    // is Wednesday 11 and Thursday 12, settled paid from Friday 13, unreported from Monday 16 if not
    await exportSepaBatch(
      { db: t.db, keys: t.app.parasol.keys, directory: dir, now: () => new Date('2031-06-09T14:00:00Z') },
      batchId!,
      'operator:test',
    );
    const unreported = (at: string) => unreportedOf(claim.claimNumber, at);
    // Wednesday 11 June: a window counted from the effective entry date would have passed two days ago
    // (a false alarm); counted from the write it has not
    const wednesday = '2031-06-11T15:00:00Z';
    assert.deepEqual(await settle(wednesday), { paid: 0, unchanged: 0 });
    assert.deepEqual(await unreported(wednesday), [], 'inside its window from the write: not unreported');
    assert.equal(await gauge(wednesday), 0);
    // Friday 13 June: the settlement would settle it; not unreported before a business day more
    assert.deepEqual(await unreported('2031-06-13T15:00:00Z'), []);
    assert.equal(await gauge('2031-06-13T15:00:00Z'), 0);
    // Monday 16 June, the settlement never ran: unreported, in the list and the gauge alike
    const monday = '2031-06-16T15:00:00Z';
    assert.deepEqual(await unreported(monday), ['instructed']);
    assert.equal(await gauge(monday), 1);
    assert.deepEqual(await settle(monday), { paid: 1, unchanged: 0 });
    assert.deepEqual(await unreported(monday), []);
    assert.equal(await gauge(monday), 0);
  });
});
