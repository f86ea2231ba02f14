import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { notifyClaim, remindClaims } from '../../src/claims/index.ts';
import { DEMO_INSURER } from '../../src/platform/config.ts';
import { decrypt } from '../../src/platform/crypto.ts';
import { approveManualPayout, reviewClaim } from '../../src/payouts/index.ts';
import { settlePayout } from '../../src/payouts/payouts.ts';
import {
  buildTestApp,
  CUSTOMER,
  createTestPartner,
  eventually,
  runCliOn,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { openCancelledFlightClaim, sandboxMessages } from './claim-setup.ts';

/**
 * Issue 14 §3: a claim still waiting for bank details is reminded once a few days before its due date,
 * with a new link (the old one takes no more details); a paid claim gets one receipt. Each message once, by SMS
 * and by email, whatever the retries or concurrent runs; the sandbox messages endpoint shows the SMS,
 * the `emails` table (the sandbox's email outbox) the emails. The reminder job is run with an injected
 * clock.
 */
describe('claim reminders and receipts, each sent once', () => {
  let t: TestApp;
  let a: TestPartner;
  let base: string;
  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
    a = await createTestPartner(t.db);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await t.close();
  });

  const deps = (now: Date) => ({
    db: t.db,
    jobs: t.app.parasol.jobs,
    keys: t.app.parasol.keys,
    publicUrl: 'https://claims.parasol.test',
    bankDetailsDays: 30,
    insurer: DEMO_INSURER,
    reminderDays: 3,
    now: () => now,
  });
  const messagesOf = (contractNumber: string) => sandboxMessages(t.app, a, contractNumber);
  const pathOf = (link: string) => `${base}${new URL(link).pathname}`;
  /** The claim's emails, opened, once the email job has sent each (to the sandbox outbox). */
  const emailsOf = async (claimId: string, count: number) =>
    eventually(async () => {
      const rows = await t.db
        .selectFrom('emails')
        .select(['kind', 'status', 'to_enc', 'subject_enc', 'text_enc', 'html_enc'])
        .where('dedupe_key', 'like', `claim:${claimId}:%`)
        .orderBy('created_at')
        .execute();
      if (rows.length < count || rows.some((r) => r.status !== 'sent')) return undefined;
      const open = (sealed: string) => decrypt(t.app.parasol.keys.encryption, sealed);
      return rows.map((r) => ({
        kind: r.kind,
        to: open(r.to_enc),
        subject: open(r.subject_enc),
        text: open(r.text_enc),
        html: r.html_enc ? open(r.html_enc) : null,
      }));
    });
  let seq = 8700;
  /** A cancelled flight's claim, its first SMS delivered; answers the contract, the claim and its due date. */
  const openClaim = async () => {
    const { c, first } = await openCancelledFlightClaim(t.app, a, `AF${seq++}`);
    const claim = await t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select(['cl.id', 'cl.bank_details_due_at', 'cl.status'])
      .where('c.contract_number', '=', c.contractNumber)
      .executeTakeFirstOrThrow();
    return { c, claim, dueAt: claim.bank_details_due_at!, firstLink: first.link! };
  };

  it('a claim near its due date is reminded once, even by concurrent and repeated runs: a new link, the old one closed', async () => {
    const { c, claim, dueAt, firstLink } = await openClaim();
    const near = new Date(dueAt.getTime() - 2 * 86_400_000);

    // three runs at once, then one more: one reminder in all
    const counts = await Promise.all([remindClaims(deps(near)), remindClaims(deps(near)), remindClaims(deps(near))]);
    assert.equal(
      counts.reduce((n, x) => n + x, 0),
      1,
      `one reminder sent, got ${counts.join(', ')}`,
    );
    assert.equal(await remindClaims(deps(new Date(near.getTime() + 3_600_000))), 0, 'a later run sends nothing');
    assert.equal(
      await notifyClaim(deps(near), { claimId: claim.id, kind: 'reminder' }),
      'skipped',
      'nor a retried job',
    );

    const messages = await messagesOf(c.contractNumber);
    assert.equal(messages.length, 2, 'the first message and one reminder');
    const reminder = messages.find((m) => m.body.includes('still waits for your bank details'));
    assert.ok(reminder, JSON.stringify(messages));
    assert.match(reminder.body, new RegExp(c.flightNumber));
    assert.ok(reminder.link && reminder.link !== firstLink, 'a new link');
    const old = await fetch(pathOf(firstLink));
    assert.equal(old.status, 410, 'the old link takes no more details, and is not unknown');
    assert.match(await old.text(), /id="newest-message"/, 'its page sends the customer to the newest message');
    assert.equal((await fetch(pathOf(reminder.link))).status, 200, 'the new one works');

    const after = await t.db
      .selectFrom('claims')
      .select(['status', 'bank_details_due_at', 'reminded_due_at'])
      .where('id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.equal(after.status, 'awaiting_bank_details');
    assert.equal(after.bank_details_due_at!.getTime(), dueAt.getTime(), 'the due date stays');
    assert.equal(after.reminded_due_at!.getTime(), dueAt.getTime());

    // the same two messages by email, each once, in the customer's language (French), with the same links
    const emails = await emailsOf(claim.id, 2);
    assert.deepEqual(
      emails.map((e) => e.kind),
      ['claim_opened', 'claim_reminder'],
    );
    for (const e of emails) {
      assert.equal(e.to, CUSTOMER.email);
      assert.match(e.text, new RegExp(c.flightNumber));
      assert.match(e.text, /Camille/, 'greets the customer by first name');
      assert.ok(e.html?.includes(c.flightNumber));
    }
    assert.ok(emails[0]!.text.includes(firstLink), 'the claim email carries the first link');
    assert.ok(emails[1]!.text.includes(reminder.link), 'the reminder email carries the new link');
    assert.notEqual(emails[0]!.subject, emails[1]!.subject);
  });

  it('a claim far from its due date, or past it, gets no reminder', async () => {
    const { c, dueAt } = await openClaim();
    assert.equal(await remindClaims(deps(new Date(dueAt.getTime() - 10 * 86_400_000))), 0);
    assert.equal(
      await remindClaims(deps(new Date(dueAt.getTime() + 60_000))),
      0,
      'past its due date: expiry, not a reminder',
    );
    assert.equal(
      await remindClaims({ ...deps(new Date(dueAt.getTime() - 86_400_000)), reminderDays: 0 }),
      0,
      '0 turns reminders off',
    );
    assert.equal((await messagesOf(c.contractNumber)).length, 1);
  });

  it("a claim under the desk's manual review is not reminded; once approved, of its moved due date", async () => {
    const { c, claim, dueAt } = await openClaim();
    const reviewStarted = new Date(dueAt.getTime() - 10 * 86_400_000);
    const desk = (now: Date) => ({ db: t.db, jobs: t.app.parasol.jobs, keys: t.app.parasol.keys, now: () => now });
    const { claim_number: claimNumber } = await t.db
      .selectFrom('claims')
      .select('claim_number')
      .where('id', '=', claim.id)
      .executeTakeFirstOrThrow();
    await reviewClaim(desk(reviewStarted), {
      claimNumber,
      actor: 'operator:desk@insurer.test',
      reason: 'identity check',
      actionToken: `review-${claim.id}`,
    });
    const near = new Date(dueAt.getTime() - 2 * 86_400_000);
    await remindClaims(deps(near)); // (the other tests' claims may be reminded: this one's messages are counted)
    assert.equal(
      (await messagesOf(c.contractNumber)).length,
      1,
      'under review: no reminder of a due date that stands still',
    );
    assert.equal(await notifyClaim(deps(near), { claimId: claim.id, kind: 'reminder' }), 'skipped', 'nor a job');

    // approved 8 days into the review, the claim still waiting for bank details: its due date moves 8 days later
    const approvedAt = new Date(reviewStarted.getTime() + 8 * 86_400_000);
    await approveManualPayout(desk(approvedAt), {
      claimNumber,
      actor: 'operator:desk@insurer.test',
      reason: 'identity confirmed',
      actionToken: `approve-${claim.id}`,
    });
    const moved = (
      await t.db.selectFrom('claims').select('bank_details_due_at').where('id', '=', claim.id).executeTakeFirstOrThrow()
    ).bank_details_due_at!;
    assert.equal(moved.getTime(), dueAt.getTime() + 8 * 86_400_000);
    await remindClaims(deps(near));
    assert.equal((await messagesOf(c.contractNumber)).length, 1, 'the old window is no longer near the due date');
    await remindClaims(deps(new Date(moved.getTime() - 2 * 86_400_000)));
    const messages = await messagesOf(c.contractNumber);
    assert.equal(messages.length, 2, 'the first message and one reminder, of the moved due date');
    assert.ok(
      messages.some((m) => m.body.includes('still waits for your bank details')),
      JSON.stringify(messages),
    );
  });

  it('a paid claim gets exactly one receipt, even when the bank report is settled again', async () => {
    const { c, claim, firstLink } = await openClaim();
    const url = pathOf(firstLink);
    assert.equal((await fetch(url)).status, 200);
    const sent = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams({ accountHolder: 'Camille Martin', iban: 'DE89 3704 0044 0532 0130 00', bic: '' }),
      redirect: 'manual',
    });
    assert.equal(sent.status, 200);
    const messages = await eventually(async () => {
      const m = await messagesOf(c.contractNumber);
      return m.length >= 2 ? m : undefined;
    });
    const receipt = messages.find((m) => m.body.includes('we have paid'));
    assert.ok(receipt, JSON.stringify(messages));
    assert.match(receipt.body, /account ending 3000/);
    assert.match(receipt.body, new RegExp(c.flightNumber));
    assert.equal(receipt.link, null, 'a receipt carries no link');

    // the bank's report settled again, and the receipt job retried (twice at once): nothing more
    const payout = await t.db
      .selectFrom('payouts')
      .select('end_to_end_id')
      .where('claim_id', '=', claim.id)
      .executeTakeFirstOrThrow();
    const again = await t.db.transaction().execute((trx) =>
      settlePayout(
        trx,
        {
          jobs: t.app.parasol.jobs,
          now: () => new Date(),
          bankDetailsDays: 30,
          encryption: t.app.parasol.keys.encryption,
        },
        {
          endToEndId: payout.end_to_end_id,
          outcome: 'paid',
          actor: 'test',
          rails: ['simulated_bank'],
          sentInFile: false,
        },
      ),
    );
    assert.equal(again, 'unchanged');
    const retried = await Promise.all([
      notifyClaim(deps(new Date()), { claimId: claim.id, kind: 'paid' }),
      notifyClaim(deps(new Date()), { claimId: claim.id, kind: 'paid' }),
    ]);
    assert.deepEqual(retried, ['skipped', 'skipped']);
    assert.equal(await remindClaims(deps(new Date())), 0);
    const final = await messagesOf(c.contractNumber);
    assert.equal(final.length, 2, 'the first message and one receipt');
    const receipts = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('entity', '=', 'claim')
      .where('action', '=', 'payment_receipt_sent')
      .where(
        'entity_id',
        '=',
        (await t.db.selectFrom('claims').select('claim_number').where('id', '=', claim.id).executeTakeFirstOrThrow())
          .claim_number,
      )
      .execute();
    assert.equal(receipts.length, 1);
    const emails = await emailsOf(claim.id, 2);
    assert.deepEqual(
      emails.map((e) => e.kind),
      ['claim_opened', 'claim_paid'],
      'one receipt by email too',
    );
    assert.match(emails[1]!.text, /3000/);
    assert.ok(!emails[1]!.text.includes('/c/'), 'a receipt carries no link');
  });

  it('the job’s reminder is audited as `system`; `parasol claims remind`’s as the operator who ran it', async () => {
    const remindedBy = async (claimId: string) =>
      (
        await t.db
          .selectFrom('audit_log as l')
          .innerJoin('claims as cl', 'cl.claim_number', 'l.entity_id')
          .select('l.actor')
          .where('l.entity', '=', 'claim')
          .where('l.action', '=', 'bank_details_reminded')
          .where('cl.id', '=', claimId)
          .execute()
      ).map((r) => r.actor);
    const byJob = await openClaim();
    await remindClaims(deps(new Date(byJob.dueAt.getTime() - 2 * 86_400_000)));
    assert.deepEqual(await remindedBy(byJob.claim.id), ['system'], 'the scheduled job (no actor given)');

    // the command reads the clock: a claim due in two days from now
    const byOperator = await openClaim();
    const due = new Date(Date.now() + 2 * 86_400_000);
    await t.db.updateTable('claims').set({ bank_details_due_at: due }).where('id', '=', byOperator.claim.id).execute();
    const run = await runCliOn(t, ['claims', 'remind'], { actor: 'operator:camille' });
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /Reminded \d+ customer\(s\)\./);
    assert.deepEqual(await remindedBy(byOperator.claim.id), ['operator:camille'], 'named as the operator, as expire');
    const again = await runCliOn(t, ['claims', 'remind'], { actor: 'operator:camille' });
    assert.equal(again.code, 0, again.err);
    assert.deepEqual(await remindedBy(byOperator.claim.id), ['operator:camille'], 'run again: nothing more sent');
  });
});
