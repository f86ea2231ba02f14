import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { settleAchPayouts } from '../../src/payouts/index.ts';
import { createPayoutBatches } from '../../src/payouts/sepa-batch.ts';
import { decrypt } from '../../src/platform/crypto.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  operatorToken,
  runCliOn,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { achBatchDeps, achBatchWithoutFile, achPayoutsEnv, submitUsAccount, usAccountClaim } from './ach-setup.ts';

/**
 * A USD claim paid to a US account, end to end in production: the form takes the account, `parasol
 * payouts batch` writes a NACHA file (not a pain.001) to the payouts directory, and the bank's return
 * file, imported by `parasol payouts reconcile`, sends the claim back to asking for bank details; the
 * desk's new link takes a corrected US account, which pays a second attempt (once) in a later file.
 */
describe('ACH payouts to US accounts', () => {
  let t: TestApp;
  let partner: TestPartner;
  let operator: { authorization: string };
  let dir: string;
  const cli = (...argv: string[]) => runCliOn(t, argv);

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-ach-'));
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', ...achPayoutsEnv(dir), PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on' },
    });
    partner = await createTestPartner(t.db, { environment: 'production', agreement: { currency: 'USD' } });
    operator = (await operatorToken(t, 'ach')).auth;
    // a live endpoint: claim events are written for partners that have one
    const endpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...partner.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['claim.failed'] },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
  });
  after(async () => {
    await t.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('form → NACHA file in the payouts directory → return file → the claim asks for bank details again', async () => {
    const claim = await usAccountClaim(t, partner, {
      flightNumber: `AF${6600 + (process.pid % 300)}`,
      operator,
      account: { accountHolder: 'Zoë Ångström-Smith', accountNumber: '4455-667788', accountType: 'savings' },
    });
    const payoutOf = () =>
      t.db
        .selectFrom('payouts')
        .select(['id', 'rail', 'status', 'end_to_end_id', 'amount', 'batch_id', 'failure_reason'])
        .where('claim_id', '=', claim.id)
        .executeTakeFirstOrThrow();
    const pending = await payoutOf();
    assert.deepEqual([pending.rail, pending.status], ['ach', 'pending']);

    const run = await cli('payouts', 'batch');
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /\(ACH, NACHA file\), effective entry date \d{4}-\d{2}-\d{2}\./);
    const instructed = await payoutOf();
    assert.equal(instructed.status, 'instructed');
    const batch = await t.db
      .selectFrom('sepa_batches')
      .select(['message_id', 'format', 'currency', 'payouts_count', 'control_sum', 'file_path', 'xml_enc'])
      .where('id', '=', instructed.batch_id!)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [batch.format, batch.currency, batch.payouts_count, batch.control_sum],
      ['nacha', 'USD', 1, claim.compensationAmount],
    );
    assert.ok(!batch.xml_enc!.includes('4455667788'), 'the file is sealed in the database');
    assert.equal(batch.file_path, path.join(dir, `${batch.message_id}.ach`));
    assert.equal((await fs.stat(batch.file_path!)).mode & 0o777, 0o600);
    assert.equal((await fs.readdir(dir)).filter((f) => f.endsWith('.xml')).length, 0, 'no pain.001 for a US account');

    const records = (await fs.readFile(batch.file_path!, 'utf8')).split('\n').filter((r) => r !== '');
    assert.equal(records.length % 10, 0);
    assert.ok(records.every((r) => r.length === 94));
    const entry = records.find((r) => r.startsWith('6'))!;
    const amount = String(claim.compensationAmount).padStart(10, '0');
    assert.equal(entry.slice(0, 3), '632', 'a savings credit');
    assert.equal(entry.slice(3, 12), '121000358');
    assert.equal(entry.slice(12, 29), '4455667788       ');
    assert.equal(entry.slice(29, 39), amount);
    assert.equal(entry.slice(39, 54), instructed.end_to_end_id);
    assert.equal(entry.slice(54, 76), 'ZOE ANGSTROM-SMITH    ');
    assert.equal(entry.slice(79, 94), '026009590000001', 'trace: the ODFI and the sequence');
    assert.equal(records[1]!.slice(0, 4), '5220');
    assert.equal(records[1]!.slice(50, 53), 'PPD');

    // the customer's bank returns the entry: R03, with the original trace number
    const returnFile = [
      `101 026009593 121000358${'2612011200A094101'}${'PARASOL'.padEnd(23)}${'WELLS FARGO'.padEnd(23)}${''.padEnd(8)}`,
      `5220${'PARASOL'.padEnd(16)}${''.padEnd(20)}1123456789PPD${'CLAIM PAY'.padEnd(10)}${''.padEnd(6)}261201${''.padEnd(3)}1121000350000001`,
      `631${entry.slice(3, 78)}1121000350000001`,
      `799R03${entry.slice(79, 94)}      12100035${'ACCOUNT 4455667788 ZOE ANGSTROM-SMITH'.padEnd(44)}121000350000001`,
      `8220000002${'0012100035'}${''.padStart(12, '0')}${amount.padStart(12, '0')}1123456789${''.padEnd(25)}121000350000001`,
      `9000001000001000000020012100035${''.padStart(12, '0')}${amount.padStart(12, '0')}${''.padEnd(39)}`,
    ].join('\n');
    const file = path.join(dir, 'returns.ach');
    await fs.writeFile(file, returnFile);
    const imported = await cli('--json', 'payouts', 'reconcile', file);
    assert.equal(imported.code, 0, imported.err);
    const report = JSON.parse(imported.out) as { format: string; rows: number; outcomes: Record<string, number> };
    assert.deepEqual([report.format, report.rows, report.outcomes.failed], ['nacha', 1, 1]);

    const failed = await payoutOf();
    assert.equal(failed.status, 'failed');
    assert.equal(
      failed.failure_reason,
      'R03 no account / unable to locate account ACCOUNT •••• 7788 [name] [name]-[name]',
      'the account number and the holder masked',
    );
    const after = await t.db
      .selectFrom('claims')
      .select(['status', 'failure_reason'])
      .where('id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.equal(after.status, 'failed', 'waiting for new bank details');
    const ledger = await t.db.selectFrom('ledger_entries').select('kind').where('claim_id', '=', claim.id).execute();
    assert.deepEqual(
      ledger.map((l) => l.kind),
      ['payout_failed'],
      'the failed attempt is in the ledger, no payment',
    );
    const events = await t.db
      .selectFrom('webhook_events')
      .select('type')
      .where('type', '=', 'claim.failed')
      .where('partner_id', '=', partner.id)
      .execute();
    assert.equal(events.length, 1);
    // importing it again changes nothing
    const again = await cli('--json', 'payouts', 'reconcile', file);
    assert.equal((JSON.parse(again.out) as { outcomes: Record<string, number> }).outcomes.unchanged, 1);
    // a new link is texted for new details (the claims_notify job of kind payment_failed)
    await eventually(async () => {
      const sms = await t.db
        .selectFrom('sms_messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('claim_id', '=', claim.id)
        .executeTakeFirstOrThrow();
      return Number(sms.n) >= 2 ? true : undefined;
    });

    // the desk sends a link too (the customer lost the SMS): one live link, the US account form again
    const linksSent = async () =>
      new Set(
        (await t.db.selectFrom('sms_messages').select('body_enc').where('claim_id', '=', claim.id).execute()).map(
          (m) => /https:\/\/\S+/.exec(decrypt(t.app.parasol.keys.encryption, m.body_enc))?.[0] ?? '',
        ),
      );
    const before = await linksSent();
    const resent = await cli(
      'claims',
      'resend-link',
      claim.claimNumber,
      '--reason',
      'R03: customer checks the account',
    );
    assert.equal(resent.code, 0, resent.err);
    const [link] = [...(await linksSent())].filter((l) => !before.has(l));
    assert.ok(link, 'a new link texted');
    const page = await t.app.inject({ method: 'GET', url: new URL(link).pathname });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /name="accountKind" value="us"/, 'the US account form');
    for (const old of before) {
      const closed = await submitUsAccount(t, old, { accountNumber: '1111222233' });
      assert.doesNotMatch(closed.body, /account ending 2233/, 'an older link takes no details');
    }

    // new details: the failed payout is issued again, once — a new attempt, a new end-to-end id
    const corrected = await submitUsAccount(t, link, { accountNumber: '99-8877-6655', accountType: 'checking' });
    assert.equal(corrected.statusCode, 200, corrected.body.slice(0, 400));
    const again2 = await submitUsAccount(t, link, { accountNumber: '5555666677' });
    assert.doesNotMatch(again2.body, /account ending 6677/, 'the link is used up');
    const reissued = await t.db
      .selectFrom('payouts')
      .select(['rail', 'status', 'attempt', 'end_to_end_id'])
      .where('claim_id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([reissued.rail, reissued.status, reissued.attempt], ['ach', 'pending', 2]);
    assert.equal(reissued.end_to_end_id.length, 15);
    assert.notEqual(reissued.end_to_end_id, failed.end_to_end_id);
    // the same return file imported once more: about the earlier attempt, nothing re-issued
    const thrice = await cli('--json', 'payouts', 'reconcile', file);
    assert.equal((JSON.parse(thrice.out) as { outcomes: Record<string, number> }).outcomes.superseded, 1);
    assert.deepEqual(
      await t.db
        .selectFrom('payouts')
        .select(['status', 'attempt'])
        .where('claim_id', '=', claim.id)
        .executeTakeFirstOrThrow(),
      { status: 'pending', attempt: 2 },
    );

    // the next NACHA file pays the new account
    const next = await cli('payouts', 'batch');
    assert.equal(next.code, 0, next.err);
    const paidAgain = await payoutOf();
    assert.equal(paidAgain.status, 'instructed');
    assert.notEqual(paidAgain.batch_id, instructed.batch_id, 'a later file');
    const nextFile = await t.db
      .selectFrom('sepa_batches')
      .select(['message_id', 'file_path'])
      .where('id', '=', paidAgain.batch_id!)
      .executeTakeFirstOrThrow();
    const newEntry = (await fs.readFile(nextFile.file_path!, 'utf8')).split('\n').find((r) => r.startsWith('6'))!;
    assert.equal(newEntry.slice(0, 3), '622', 'a checking credit');
    assert.equal(newEntry.slice(12, 29), '9988776655       ');
    assert.equal(newEntry.slice(39, 54), reissued.end_to_end_id);
    // in the bank's hands: the desk's refusals name the NACHA file
    const review = await cli('claims', 'review', claim.claimNumber, '--reason', 'late doubt about the account');
    assert.notEqual(review.code, 0);
    assert.match(review.err, /its payout is in a NACHA \(ACH\) file sent to the bank already/);
    // export names it too; an unknown id names neither format wrongly
    const exported = await cli('payouts', 'export', nextFile.message_id);
    assert.equal(exported.code, 0, exported.err);
    assert.match(exported.out, /^NACHA file: .*\.ach$/m);
    const unknown = await cli('payouts', 'export', 'PSL-NO-SUCH-FILE');
    assert.match(unknown.err, /No payout file PSL-NO-SUCH-FILE \(neither a pain\.001 nor a NACHA file\)/);
    assert.doesNotMatch(unknown.err, /SEPA/);
    // no return of the new entry within its window: paid, the claim with it
    const settled = await settleAchPayouts({
      db: t.db,
      jobs: t.app.parasol.jobs,
      now: () => new Date(Date.now() + 14 * 86_400_000),
      bankDetailsDays: 7,
      encryption: t.app.parasol.keys.encryption,
      returnWindowDays: t.app.parasol.config.achReturnWindowDays,
    });
    assert.ok(settled.paid >= 1, JSON.stringify(settled));
    const paid = await t.db
      .selectFrom('payouts as p')
      .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
      .select(['p.status as payout', 'p.attempt', 'cl.status as claim'])
      .where('p.claim_id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(paid, { payout: 'paid', attempt: 2, claim: 'paid' });
  });

  it('an execution date TARGET refuses dates the pain.001 files only: the NACHA file is made all the same', async () => {
    const claim = await usAccountClaim(t, partner, { flightNumber: `AF${6900 + (process.pid % 300)}`, operator });
    // Wednesday 24 December 2031: Christmas is refused for the pain.001 files, the Fed calendar dates the NACHA file
    const result = await createPayoutBatches(
      { ...achBatchDeps(t, dir, '2031-12-24T14:00:00Z'), debtor: t.app.parasol.config.sepaDebtor },
      { actor: 'operator:test', executionDate: '2031-12-25' },
    );
    assert.deepEqual(
      result.batches.map((b) => [b.scheme, b.executionDate]),
      [['ach', '2031-12-26']],
    );
    const payout = await t.db
      .selectFrom('payouts')
      .select('status')
      .where('claim_id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.equal(payout.status, 'instructed');
  });

  it('a return file naming an entry whose NACHA file was never written changes nothing (not_sent); once written, it applies', async () => {
    const claim = await usAccountClaim(t, partner, { flightNumber: `AF${7400 + (process.pid % 300)}`, operator });
    // the batch commits, then its file cannot be written (the process stopped in between)
    await achBatchWithoutFile(t, dir, '2031-06-02T14:00:00Z');
    const payoutOf = () =>
      t.db
        .selectFrom('payouts')
        .select(['status', 'batch_id'])
        .where('claim_id', '=', claim.id)
        .executeTakeFirstOrThrow();
    const { batch_id: batchId, status } = await payoutOf();
    assert.equal(status, 'instructed');
    const stored = await t.db
      .selectFrom('sepa_batches')
      .select('xml_enc')
      .where('id', '=', batchId!)
      .executeTakeFirstOrThrow();
    const entry = decrypt(t.app.parasol.keys.encryption, stored.xml_enc!)
      .split('\n')
      .find((r) => r.startsWith('6'))!;
    const amount = entry.slice(29, 39);
    const returnFile = [
      `101 026009593 121000358${'2606051200A094101'}${'PARASOL'.padEnd(23)}${'WELLS FARGO'.padEnd(23)}${''.padEnd(8)}`,
      `5220${'PARASOL'.padEnd(16)}${''.padEnd(20)}1123456789PPD${'CLAIM PAY'.padEnd(10)}${''.padEnd(6)}260605${''.padEnd(3)}1121000350000001`,
      `621${entry.slice(3, 78)}1121000350000001`,
      `799R03${entry.slice(79, 94)}      12100035${''.padEnd(44)}121000350000001`,
      `8220000002${'0012100035'}${''.padStart(12, '0')}${amount.padStart(12, '0')}1123456789${''.padEnd(25)}121000350000001`,
      `9000001000001000000020012100035${''.padStart(12, '0')}${amount.padStart(12, '0')}${''.padEnd(39)}`,
    ].join('\n');
    const file = path.join(dir, 'returns-unwritten.ach');
    await fs.writeFile(file, returnFile);
    const imported = await cli('--json', 'payouts', 'reconcile', file);
    assert.equal(imported.code, 0, imported.err);
    const report = JSON.parse(imported.out) as {
      format: string;
      outcomes: Record<string, number>;
      issues: { outcome: string; detail?: string }[];
    };
    assert.deepEqual([report.format, report.outcomes.not_sent, report.outcomes.failed], ['nacha', 1, 0]);
    assert.match(
      report.issues[0]?.detail ?? '',
      /reported returned, the payout is instructed: no written file is recorded for it: check with the bank whether its batch's file went/,
    );
    assert.equal((await payoutOf()).status, 'instructed');

    // the bank got the file outside Parasol: recorded as sent, no file written (none the channel could send again)
    const { message_id: messageId } = await t.db
      .selectFrom('sepa_batches')
      .select('message_id')
      .where('id', '=', batchId!)
      .executeTakeFirstOrThrow();
    // a file under the batch's name (not the batch's): refused, `export` is the command that reads it
    const foreign = path.join(dir, `${messageId}.ach`);
    await fs.writeFile(foreign, 'not this batch');
    const refused = await cli('--json', 'payouts', 'export', messageId, '--already-sent');
    await fs.rm(foreign);
    assert.notEqual(refused.code, 0);
    assert.match(refused.err + refused.out, /A file is at .* already: parasol payouts export/);
    const sent = await cli('--json', 'payouts', 'export', messageId, '--already-sent');
    assert.equal(sent.code, 0, sent.err);
    const recordedPath = (JSON.parse(sent.out) as { path: string }).path;
    await assert.rejects(fs.stat(recordedPath), { code: 'ENOENT' }, 'no file written');
    const batchRow = await t.db
      .selectFrom('sepa_batches')
      .select(['file_path', 'file_written_at'])
      .where('id', '=', batchId!)
      .executeTakeFirstOrThrow();
    assert.equal(batchRow.file_path, recordedPath);
    assert.ok(batchRow.file_written_at);
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity_id', '=', messageId)
      .where('action', '=', 'recorded_sent')
      .execute();
    assert.equal(audited.length, 1);
    assert.deepEqual(audited[0]!.data, { path: recordedPath });
    // a second time: refused, nothing more recorded
    const twice = await cli('--json', 'payouts', 'export', messageId, '--already-sent');
    assert.notEqual(twice.code, 0);
    assert.match(twice.err + twice.out, /has a written file recorded already/);
    const again = await cli('--json', 'payouts', 'reconcile', file);
    assert.equal(again.code, 0, again.err);
    assert.equal((JSON.parse(again.out) as { outcomes: Record<string, number> }).outcomes.failed, 1);
    assert.equal((await payoutOf()).status, 'failed');
  });
});
