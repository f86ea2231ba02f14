import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { claimTrail, expireClaims, findClaimForDesk, notifyClaim } from '../../src/claims/index.ts';
import { buildTestApp, createTestPartner, eventually, runCliOn, type TestApp, type TestPartner } from '../helper.ts';
import { openCancelledFlightClaim, sandboxMessages } from './claim-setup.ts';

/**
 * A claim whose customer never gave bank details expires: its link's page says so from the due instant
 * (before the expiry job, every 15 minutes, has recorded it), and its trail on the claim desk (`parasol claims
 * show`, the claim page) says so under its own number, as each other status change of the claim: when,
 * by whom, and the due date it passed — with the claim's partner and environment, like its other rows.
 */
describe('an expired claim: what its customer reads, and its own audit trail', () => {
  let t: TestApp;
  let a: TestPartner;
  let b: TestPartner;
  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
    a = await createTestPartner(t.db);
    b = await createTestPartner(t.db);
  });
  after(async () => {
    await t.close();
  });

  let seq = 7300 + (process.pid % 500);
  /** A cancelled flight's claim, waiting for bank details (its first message written). */
  async function waitingClaim(partner: TestPartner) {
    const { claimNumber, first } = await openCancelledFlightClaim(t.app, partner, `AF${seq++}`);
    const link = new URL(first.link!).pathname;
    return eventually(async () => {
      const row = await t.db
        .selectFrom('claims')
        .select(['id', 'status', 'bank_details_due_at'])
        .where('claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
      return row.status === 'awaiting_bank_details' ? { claimNumber, link, ...row } : undefined;
    });
  }

  it('names the expiry under the claim number, dated by the expiry, with the due date passed', async () => {
    const mine = await waitingClaim(a);
    const theirs = await waitingClaim(b);
    const due = new Date(Math.max(mine.bank_details_due_at!.getTime(), theirs.bank_details_due_at!.getTime()));
    const now = new Date(due.getTime() + 60_000);
    // both in one batch: one statement writes both rows
    const expired = await expireClaims({ db: t.db, jobs: t.app.parasol.jobs, now: () => now });
    assert.ok(expired >= 2);

    for (const [claim, partner] of [
      [mine, a],
      [theirs, b],
    ] as const) {
      const desk = await findClaimForDesk(t.db, claim.claimNumber);
      assert.equal(desk?.status, 'expired');
      const rows = (await claimTrail(t.db, desk!)).filter((r) => r.action === 'claim_expired');
      assert.equal(rows.length, 1, `${claim.claimNumber}'s trail shows its expiry once`);
      assert.equal(rows[0]!.entityId, claim.claimNumber, 'its own row, not another claim of the batch');
      assert.equal(rows[0]!.actor, 'system');
      assert.equal(rows[0]!.at.getTime(), now.getTime(), "dated by the expiry's clock");
      assert.deepEqual(rows[0]!.data, { bankDetailsDueAt: claim.bank_details_due_at!.toISOString() });
      const scoped = await t.db
        .selectFrom('audit_log')
        .select(['partner_id', 'environment'])
        .where('entity', '=', 'claim')
        .where('entity_id', '=', claim.claimNumber)
        .where('action', '=', 'claim_expired')
        .executeTakeFirstOrThrow();
      assert.deepEqual(scoped, { partner_id: partner.id, environment: 'sandbox' }, "the claim's partner's row");
    }

    // run again: nothing more expires, nothing more is written
    await expireClaims({ db: t.db, jobs: t.app.parasol.jobs, now: () => now });
    const again = await t.db
      .selectFrom('audit_log')
      .select('id')
      .where('entity', '=', 'claim')
      .where('entity_id', '=', mine.claimNumber)
      .where('action', '=', 'claim_expired')
      .execute();
    assert.equal(again.length, 1);
  });

  it('run by an operator (`parasol claims expire`): its rows name the operator, not `system`', async () => {
    // the scheduled job's rows say `system` (above); an operator's command is audited as theirs, as any other
    const { c, claimNumber } = await openCancelledFlightClaim(t.app, a, `AF${seq++}`);
    const claim = await eventually(async () => {
      const row = await t.db
        .selectFrom('claims')
        .select(['id', 'status'])
        .where('claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
      return row.status === 'awaiting_bank_details' ? row : undefined;
    });
    const due = new Date(Date.now() - 60_000);
    await t.db.updateTable('claims').set({ bank_details_due_at: due }).where('id', '=', claim.id).execute();
    const run = await runCliOn(t, ['claims', 'expire'], { actor: 'operator:camille' });
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /Expired \d+ claim\(s\)\./);
    const actors = async (entity: string, entityId: string, action: string) =>
      (
        await t.db
          .selectFrom('audit_log')
          .select('actor')
          .where('entity', '=', entity)
          .where('entity_id', '=', entityId)
          .where('action', '=', action)
          .execute()
      ).map((r) => r.actor);
    assert.deepEqual(await actors('claim', claimNumber, 'claim_expired'), ['operator:camille']);
    assert.deepEqual(
      await actors('contract', c.contractNumber, 'completed'),
      ['operator:camille'],
      'its contract completed by it',
    );
    const batch = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'claims')
      .where('action', '=', 'claims_expired')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.equal(batch.actor, 'operator:camille');
    assert.ok(JSON.stringify(batch.data).includes(claimNumber), 'the batch row names the claim');
  });

  it('its page says the time ran out from the due instant, before the expiry job has run; the link takes nothing', async () => {
    const claim = await waitingClaim(a);
    const open = await t.app.inject({ method: 'GET', url: claim.link });
    assert.equal(open.statusCode, 200);
    assert.match(open.body, /name="iban"/);

    // the due date passed a minute ago; the expiry job has not run yet
    const due = new Date(Date.now() - 60_000);
    await t.db.updateTable('claims').set({ bank_details_due_at: due }).where('id', '=', claim.id).execute();
    await t.db.updateTable('claim_tokens').set({ expires_at: due }).where('claim_id', '=', claim.id).execute();
    const page = await t.app.inject({ method: 'GET', url: claim.link });
    assert.equal(page.statusCode, 410);
    assert.match(page.body, /data-status="expired"/, 'the page tells where the claim stands: expired');
    assert.match(page.body, /has run out/);
    assert.doesNotMatch(page.body, /being prepared/, 'not a compensation being prepared');
    assert.doesNotMatch(page.body, /name="iban"/);
    const posted = await t.app.inject({
      method: 'POST',
      url: claim.link,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        accountHolder: 'Camille Martin',
        iban: 'DE89 3704 0044 0532 0130 00',
        bic: '',
      }).toString(),
    });
    assert.equal(posted.statusCode, 410);
    assert.match(posted.body, /data-status="expired"/);
    const row = await t.db.selectFrom('claims').select('status').where('id', '=', claim.id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'awaiting_bank_details', 'the page records nothing: the expiry job does');

    await expireClaims({ db: t.db, jobs: t.app.parasol.jobs, now: () => new Date() });
    const after = await t.app.inject({ method: 'GET', url: claim.link });
    assert.equal(after.statusCode, 410);
    assert.match(after.body, /data-status="expired"/, 'the same page once recorded');
  });

  it('texts the customer once that the claim expired: not paid, whom to ask, no link', async () => {
    const { c, claimNumber } = await openCancelledFlightClaim(t.app, a, `AF${seq++}`);
    const claim = await eventually(async () => {
      const row = await t.db
        .selectFrom('claims')
        .select(['id', 'status', 'bank_details_due_at'])
        .where('claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
      return row.status === 'awaiting_bank_details' ? row : undefined;
    });
    const now = new Date(claim.bank_details_due_at!.getTime() + 60_000);
    await expireClaims({ db: t.db, jobs: t.app.parasol.jobs, now: () => now });
    const messages = await eventually(async () => {
      const m = await sandboxMessages(t.app, a, c.contractNumber);
      return m.length === 2 ? m : undefined;
    });
    const last = messages[1]!;
    assert.equal(last.link, null);
    assert.match(last.body, /has expired: no bank details were given by the due date, so it will not be paid/);
    assert.match(last.body, /contact the seller of your insurance/);
    assert.ok(!/http/.test(last.body), 'no link');

    // the job again (a retry), and the expiry again: nothing more
    const deps = {
      db: t.db,
      jobs: t.app.parasol.jobs,
      keys: t.app.parasol.keys,
      publicUrl: 'https://claims.parasol.test',
      bankDetailsDays: 30,
      insurer: t.app.parasol.config.insurer,
      now: () => now,
    };
    // the job run again finds its message written (claim:<id>:expired): no second SMS
    assert.equal(await notifyClaim(deps, { claimId: claim.id, kind: 'expired' }), 'skipped', 'the retry: nothing');
    // the expiry run again expires nothing, so queues no second notice
    assert.equal(await expireClaims({ db: t.db, jobs: t.app.parasol.jobs, now: () => now }), 0);
    assert.equal((await sandboxMessages(t.app, a, c.contractNumber)).length, 2, 'texted once');
    const sent = await t.db
      .selectFrom('audit_log')
      .select('id')
      .where('entity_id', '=', claimNumber)
      .where('action', '=', 'claim_expired_sent')
      .execute();
    assert.equal(sent.length, 1);
  });
});
