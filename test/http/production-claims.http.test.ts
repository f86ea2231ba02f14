import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { requeueStaleSms } from '../../src/notify/sms/sms-queue.ts';
import { twilioSignature } from '../../src/notify/sms/twilio-signature.ts';
import { nextTargetBusinessDay, sepaExecutionDate } from '../../src/payouts/target-calendar.ts';
import { encrypt } from '../../src/platform/crypto.ts';
import {
  allClaims,
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  trip,
  type TestApp,
  type TestPartner,
  operatorToken,
  runCliOn,
  sepaPayoutsEnv,
} from '../helper.ts';
import { ACCOUNT_SID, AUTH_TOKEN, startFakeTwilio, type FakeTwilio } from '../notify/twilio-fake.ts';
import { crossBorderXsd, validateWithXmllint } from '../payouts/xmllint.ts';

/**
 * Production: operators report flight events with their own tokens; the SMS leaves through Twilio
 * (a local fake checked against Twilio's OpenAPI document) after commit; payouts go out in a SEPA
 * file (validated against the EPC schema) and are settled by the bank's report.
 */
describe('production claims: operator token, Twilio SMS, SEPA batch and reconciliation', () => {
  let t: TestApp;
  let twilio: FakeTwilio;
  let a: TestPartner;
  let b: TestPartner;
  let payoutsDir: string;
  let nightShift: string;
  const closers: (() => Promise<void>)[] = [];
  // the application's clock, moved past the flights' departure (12 days ahead) while an operator
  // states a delay: only a cancellation is stated before departure
  let clock: Date | undefined;
  const flown = <T>(run: () => Promise<T>): Promise<T> => {
    clock = new Date(Date.now() + 13 * 86_400_000);
    return run().finally(() => (clock = undefined));
  };

  const cli = (...argv: string[]) => runCliOn(t, argv);

  before(async () => {
    payoutsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parasol-payouts-'));
    twilio = await startFakeTwilio({ after: (fn) => void closers.push(fn as () => Promise<void>) });
    t = await buildTestApp({
      now: () => clock ?? new Date(),
      env: {
        PARASOL_JOB_POLL_SECONDS: '1',
        PARASOL_PUBLIC_URL: 'https://claims.parasol.test',
        LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent',
        PARASOL_TWILIO_ACCOUNT_SID: ACCOUNT_SID,
        PARASOL_TWILIO_AUTH_TOKEN: AUTH_TOKEN,
        PARASOL_TWILIO_FROM: '+15005550006',
        PARASOL_TWILIO_URL: twilio.baseUrl,
        ...sepaPayoutsEnv(payoutsDir),
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on',
      },
    });
    a = await createTestPartner(t.db, { environment: 'production' });
    b = await createTestPartner(t.db, { environment: 'production' });
    nightShift = (await operatorToken(t, 'night shift')).plaintext;
    assert.match(nightShift, /^pso_[A-Za-z0-9_-]{43}$/);
  });
  after(async () => {
    await t.close();
    for (const close of closers) await close();
    await fs.rm(payoutsDir, { recursive: true, force: true });
  });

  let seq = 4100;
  const departure = trip(12).departureDateTime;
  const contract = async (who: TestPartner, flightNumber: string) =>
    (
      await insureFlight(t.app, who, {
        flightNumber,
        language: 'fr',
        customer: { firstName: 'Élodie', lastName: 'Durand' },
      })
    ).contractNumber;
  const operator = { authorization: '' };

  it('a production partner key cannot report a flight event; an operator token can, for every partner on the flight', async () => {
    operator.authorization = `Bearer ${nightShift}`;
    const flightNumber = `AF${seq++}`;
    const ca = await contract(a, flightNumber);
    const cb = await contract(b, flightNumber);
    const event = { flightNumber, departureDate: departure.slice(0, 10), status: 'cancelled' };

    const refused = await post(t.app, `${FLIGHT}/claims`, event, a.auth);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'forbidden');

    const sandboxOnly = await post(t.app, `${FLIGHT}/claims`, { ...event, environment: 'sandbox' }, operator);
    assert.equal(sandboxOnly.status, 200);
    assert.equal(sandboxOnly.body.claimsOpened.length, 0, 'the sandbox has no contract on this flight');

    const opened = await post(t.app, `${FLIGHT}/claims`, event, operator);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.deepEqual(
      opened.body.claimsOpened.map((c: { contractNumber: string }) => c.contractNumber).sort(),
      [ca, cb].sort(),
    );
    const again = await post(t.app, `${FLIGHT}/claims`, event, operator);
    assert.equal(again.body.claimsOpened.length, 0, 'never two claims for a leg');
    assert.deepEqual([again.body.contractsReopened, again.body.claimsNotChanged], [[], []]);
    // another outcome stated afterwards changes no claim: the operator is told which, and what it would pay
    const other = await flown(() =>
      post(t.app, `${FLIGHT}/claims`, { ...event, status: 'delayed', delayMinutes: 200 }, operator),
    );
    assert.equal(other.status, 200, JSON.stringify(other.body));
    assert.equal(other.body.claimsOpened.length, 0);
    const told = other.body.claimsNotChanged as {
      claimNumber: string;
      compensation: { amount: number };
      eventWouldPay: { amount: number };
    }[];
    assert.deepEqual(
      told.map((c) => c.claimNumber).sort(),
      opened.body.claimsOpened.map((c: { claimNumber: string }) => c.claimNumber).sort(),
    );
    assert.ok(
      told.every((c) => c.compensation.amount !== c.eventWouldPay.amount),
      `each claim says what the event would have paid: ${JSON.stringify(told)}`,
    );

    // an operator token opens nothing else
    const quote = await post(t.app, `${FLIGHT}/getPrice`, trip(12), operator);
    assert.equal(quote.status, 401);
  });

  it('a revoked operator token is refused', async () => {
    const created = await cli('--json', 'operators', 'token-create', '--name', 'temp');
    const { token, plaintext } = JSON.parse(created.out);
    assert.equal((await cli('operators', 'token-revoke', token.id)).code, 0);
    const res = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: 'AF1', departureDate: departure.slice(0, 10), status: 'cancelled' },
      { authorization: `Bearer ${plaintext}` },
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'unauthenticated');
    // revoking it again changes nothing: no second audit row, the first revocation time stays
    const again = await cli('--json', 'operators', 'token-revoke', token.id);
    assert.equal(again.code, 0);
    const revocations = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('entity', '=', 'operator_token')
      .where('entity_id', '=', token.id)
      .where('action', '=', 'revoked')
      .execute();
    assert.equal(revocations.length, 1);
  });

  it('texts through Twilio after commit, then pays by SEPA transfer: batch file valid against the EPC schema, bank report → paid', async () => {
    const flightNumber = `AF${seq++}`;
    const contractNumber = await contract(a, flightNumber);
    const opened = await flown(() =>
      post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber, departureDate: departure.slice(0, 10), status: 'delayed', arrivalDelayMinutes: 190 },
        operator,
      ),
    );
    assert.equal(opened.body.claimsOpened.length, 1, JSON.stringify(opened.body));
    const claimNumber = opened.body.claimsOpened[0].claimNumber as string;

    // the SMS went to Twilio, with the link; stored encrypted, marked sent with Twilio's sid
    const request = await eventually(async () => twilio.requests.find((r) => r.form.Body?.includes(flightNumber)));
    assert.equal(request.form.To, '+33612345678');
    assert.equal(request.form.From, '+15005550006');
    assert.deepEqual(twilio.problems, []);
    const link = /https:\/\/claims\.parasol\.test\/c\/[A-Za-z0-9_-]{43}/.exec(request.form.Body!)?.[0];
    assert.ok(link, 'the body carries the link');
    const sms = await eventually(async () => {
      const row = await t.db
        .selectFrom('sms_messages as m')
        .innerJoin('claims as cl', 'cl.id', 'm.claim_id')
        .select(['m.status', 'm.provider_message_id', 'm.body_enc', 'm.to_enc'])
        .where('cl.claim_number', '=', claimNumber)
        .executeTakeFirst();
      return row?.status === 'sent' ? row : undefined;
    });
    assert.match(sms.provider_message_id!, /^SM[0-9a-f]{32}$/);
    assert.ok(!sms.body_enc.includes(flightNumber) && !sms.to_enc.includes('612345678'), 'encrypted at rest');

    // the customer gives bank details: the payout waits for the next SEPA batch
    const form = await t.app.inject({
      method: 'POST',
      url: new URL(link).pathname,
      payload: new URLSearchParams({
        accountHolder: 'Élodie Durand',
        iban: 'DE89 3704 0044 0532 0130 00',
        bic: '',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.statusCode, 200, form.body);
    const payout = await t.db
      .selectFrom('payouts as p')
      .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
      .select(['p.status', 'p.rail', 'p.end_to_end_id', 'p.amount'])
      .where('cl.claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    assert.deepEqual([payout.status, payout.rail], ['pending', 'sepa']);

    // a TARGET business day after today's (a past date, a weekend or a holiday is refused)
    const executionDate = nextTargetBusinessDay(sepaExecutionDate(new Date()));
    const batch = await cli('--json', 'payouts', 'batch', '--execution-date', executionDate);
    assert.equal(batch.code, 0, batch.err);
    const result = JSON.parse(batch.out).batches[0];
    const xml = await fs.readFile(result.path, 'utf8');
    const lint = validateWithXmllint(xml);
    assert.ok(lint.valid, lint.output);
    assert.ok(xml.includes(`<EndToEndId>${payout.end_to_end_id}</EndToEndId>`), 'the payout’s end-to-end id');
    assert.ok(xml.includes('<IBAN>DE89370400440532013000</IBAN>'), 'the customer’s IBAN');
    assert.ok(xml.includes('<Nm>Elodie Durand</Nm>'), 'the name in the SEPA character set');
    assert.ok(xml.includes(`${claimNumber} flight ${flightNumber}`), 'the remittance names the claim and the flight');
    // the batch's XML is stored encrypted (names, IBANs), and written again from the database byte for byte
    const stored = await t.db
      .selectFrom('sepa_batches')
      .select(['xml', 'xml_enc'])
      .where('message_id', '=', result.messageId)
      .executeTakeFirstOrThrow();
    assert.equal(stored.xml, null);
    assert.ok(
      stored.xml_enc && !stored.xml_enc.includes('Elodie') && !stored.xml_enc.includes('DE89370400440532013000'),
      'the stored XML is encrypted',
    );
    await fs.rm(result.path);
    const exported = await cli('--json', 'payouts', 'export', result.messageId);
    assert.equal(exported.code, 0, exported.err);
    assert.equal(await fs.readFile(JSON.parse(exported.out).path, 'utf8'), xml);
    // writing the customers' IBANs to a file again is an operator's act on record
    const exports = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'entity_id', 'data'])
      .where('entity', '=', 'sepa_batch')
      .where('action', '=', 'exported')
      .execute();
    assert.equal(exports.length, 1);
    assert.equal(exports[0]!.entity_id, result.messageId);
    assert.match(exports[0]!.actor, /\S/);
    assert.ok(!JSON.stringify(exports[0]!.data).includes('DE89370400440532013000'), 'no IBAN in the audit row');
    assert.equal(
      (
        await t.db
          .selectFrom('payouts')
          .select('status')
          .where('end_to_end_id', '=', payout.end_to_end_id)
          .executeTakeFirstOrThrow()
      ).status,
      'instructed',
    );
    // nothing is pending any more: a second batch has nothing to take
    const second = await cli('payouts', 'batch');
    assert.equal(second.code, 0, second.err);

    // the bank's report: an unknown id is reported, the known one settles; importing twice changes nothing
    const report = path.join(payoutsDir, 'report.csv');
    await fs.writeFile(
      report,
      `endToEndId,status,reason\n${payout.end_to_end_id},paid,\nPSLAAAAAAAAAAAAAAAAAAAAAAAAAA,paid,\n`,
    );
    const imported = await cli('--json', 'payouts', 'reconcile', report);
    assert.equal(imported.code, 0, imported.err);
    const summary = JSON.parse(imported.out);
    assert.equal(summary.outcomes.paid, 1);
    assert.equal(summary.outcomes.unknown, 1);
    const twice = JSON.parse((await cli('--json', 'payouts', 'reconcile', report)).out);
    assert.equal(twice.outcomes.unchanged, 1);
    // the customer's receipt goes through Twilio too, once (the second import settled nothing)
    const receipt = await eventually(async () =>
      twilio.requests.find((r) => r.form.Body?.includes(flightNumber) && r.form.Body.includes('3000')),
    );
    assert.doesNotMatch(receipt.form.Body!, /\/c\//, 'a receipt carries no link');
    const receipts = await t.db
      .selectFrom('sms_messages as m')
      .innerJoin('claims as cl', 'cl.id', 'm.claim_id')
      .select('m.idempotency_key')
      .where('cl.claim_number', '=', claimNumber)
      .where('m.idempotency_key', 'like', '%:paid')
      .execute();
    assert.equal(receipts.length, 1);
    assert.equal(twilio.requests.filter((r) => r.form.Body?.includes(flightNumber)).length, 2, 'the link, the receipt');

    // what operators see of it
    const claims = JSON.parse(
      (await cli('--json', 'claims', 'list', '--partner', a.slug, '--status', 'paid')).out,
    ).claims;
    assert.deepEqual(
      claims
        .filter((c: { claimNumber: string }) => c.claimNumber === claimNumber)
        .map((c: { partner: string; environment: string; contractNumber: string }) => [
          c.partner,
          c.environment,
          c.contractNumber,
        ]),
      [[a.slug, 'production', contractNumber]],
    );
    const payouts = JSON.parse(
      (await cli('--json', 'payouts', 'list', '--env', 'production', '--status', 'paid')).out,
    ).payouts;
    const mine = payouts.find((p: { claimNumber: string }) => p.claimNumber === claimNumber);
    assert.deepEqual(
      [mine.partner, mine.rail, mine.endToEndId, mine.batch],
      [a.slug, 'sepa', payout.end_to_end_id, result.messageId],
    );

    const today = new Date().toISOString().slice(0, 10);
    const listed = await allClaims(t.app, a, { fromDate: today, toDate: today, contractNumber });
    assert.deepEqual(
      listed.map((x) => x.status),
      ['paid'],
    );
    assert.ok(listed[0]!.paidAt, 'a paid claim says when');
  });

  it('a bank’s reason quoting the customer’s IBAN is kept and shown with the IBAN masked (last 4), wherever it goes', async () => {
    const flightNumber = `AF${seq++}`;
    const contractNumber = await contract(a, flightNumber);
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber, departureDate: departure.slice(0, 10), status: 'cancelled' },
      { authorization: `Bearer ${nightShift}` },
    );
    const claimNumber = opened.body.claimsOpened[0].claimNumber as string;
    const request = await eventually(async () => twilio.requests.find((r) => r.form.Body?.includes(flightNumber)));
    const link = /https:\/\/claims\.parasol\.test\/c\/[A-Za-z0-9_-]{43}/.exec(request.form.Body!)![0];
    const iban = 'DE75512108001245126199';
    const form = await t.app.inject({
      method: 'POST',
      url: new URL(link).pathname,
      payload: new URLSearchParams({ accountHolder: 'Élodie Durand', iban, bic: '' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.statusCode, 200, form.body);
    const batch = await cli('--json', 'payouts', 'batch');
    assert.equal(batch.code, 0, batch.err);
    const payout = await t.db
      .selectFrom('payouts as p')
      .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
      .select(['p.id', 'p.end_to_end_id'])
      .where('cl.claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    const report = path.join(payoutsDir, 'rejected.csv');
    await fs.writeFile(
      report,
      `endToEndId,status,reason\n${payout.end_to_end_id},failed,"AC04 account DE75 5121 0800 1245 1261 99 closed (was ${iban.toLowerCase()})"\n`,
    );
    const imported = await cli('--json', 'payouts', 'reconcile', report);
    assert.equal(imported.code, 0, imported.err);
    assert.equal(JSON.parse(imported.out).outcomes.failed, 1);

    const masked = 'AC04 account •••• 6199 closed (was •••• 6199)';
    const stored = await t.db
      .selectFrom('claims as cl')
      .innerJoin('payouts as p', 'p.claim_id', 'cl.id')
      .select(['cl.failure_reason as claim', 'p.failure_reason as payout'])
      .where('cl.claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { claim: masked, payout: masked });
    const audited = await t.db
      .selectFrom('audit_log')
      .select('data')
      .where('entity', '=', 'claim')
      .where('entity_id', '=', claimNumber)
      .where('action', '=', 'payment_failed')
      .executeTakeFirstOrThrow();
    assert.equal((audited.data as { reason: string }).reason, masked);
    const today = new Date().toISOString().slice(0, 10);
    const listed = await allClaims(t.app, a, { fromDate: today, toDate: today, contractNumber });
    assert.deepEqual(
      listed.map((x) => x.status),
      ['failed'],
    );
    const shown = [
      JSON.stringify(listed),
      (await cli('claims', 'show', claimNumber)).out,
      (await cli('--json', 'payouts', 'list', '--env', 'production')).out,
    ];
    for (const text of shown) {
      assert.ok(!text.replaceAll(' ', '').toUpperCase().includes(iban.slice(4)), `no IBAN in ${text.slice(0, 300)}`);
      assert.ok(!text.includes('1245 1261'), `no IBAN in ${text.slice(0, 300)}`);
    }
  });

  it('a malformed bank report is refused whole, naming its lines', async () => {
    const report = path.join(payoutsDir, 'bad.csv');
    await fs.writeFile(report, 'endToEndId,status\nPSLAAAAAAAAAAAAAAAAAAAAAAAAAA,lost\n');
    const run = await cli('payouts', 'reconcile', report);
    assert.equal(run.code, 1);
    assert.match(run.err, /nothing was imported/);
    assert.match(run.err, /line 2/);
  });

  it('a payout in another currency than EUR is paid by a cross-border file: one file per currency, by the same command', async () => {
    const pounds = await createTestPartner(t.db, { environment: 'production', agreement: { currency: 'GBP' } });
    const payoutOf = async (who: TestPartner) => {
      const flightNumber = `AF${seq++}`;
      const contractNumber = await contract(who, flightNumber);
      const opened = await post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber, departureDate: departure.slice(0, 10), status: 'cancelled' },
        operator,
      );
      assert.equal(opened.body.claimsOpened.length, 1, JSON.stringify(opened.body));
      const request = await eventually(async () => twilio.requests.find((r) => r.form.Body?.includes(flightNumber)));
      const link = /https:\/\/claims\.parasol\.test\/c\/[A-Za-z0-9_-]{43}/.exec(request.form.Body!)![0];
      const form = await t.app.inject({
        method: 'POST',
        url: new URL(link).pathname,
        payload: new URLSearchParams({
          accountHolder: 'Jane Smith',
          iban: 'DE89 3704 0044 0532 0130 00',
          // outside SEPA the file names the creditor's bank (a payout without its BIC is left out)
          bic: 'COBADEFFXXX',
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(form.statusCode, 200, form.body);
      return t.db
        .selectFrom('payouts as p')
        .innerJoin('claims as cl', 'cl.id', 'p.claim_id')
        .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
        .select(['p.id', 'p.currency', 'p.rail'])
        .where('c.contract_number', '=', contractNumber)
        .executeTakeFirstOrThrow();
    };
    const gbp = await payoutOf(pounds);
    const eur = await payoutOf(a);
    assert.deepEqual([gbp.currency, gbp.rail, eur.currency, eur.rail], ['GBP', 'sepa', 'EUR', 'sepa']);

    const batch = await cli('--json', 'payouts', 'batch');
    assert.equal(batch.code, 0, batch.err);
    const statusOf = async (id: string) =>
      (await t.db.selectFrom('payouts').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    assert.equal(await statusOf(eur.id), 'instructed', 'the EUR payout is in the SEPA file');
    assert.equal(await statusOf(gbp.id), 'instructed', 'the GBP payout is in a file of its own');
    const { batches, refused } = JSON.parse(batch.out) as {
      batches: { currency: string; scheme: string; path: string; messageId: string }[];
      refused: unknown[];
    };
    assert.deepEqual(refused, []);
    assert.deepEqual(
      batches.map((b) => [b.currency, b.scheme]),
      [
        ['EUR', 'sepa'],
        ['GBP', 'cross_border'],
      ],
    );
    const gbpFile = await fs.readFile(batches[1]!.path, 'utf8');
    const lint = validateWithXmllint(gbpFile, crossBorderXsd());
    assert.ok(lint.valid, lint.output);
    assert.match(gbpFile, /<ChrgBr>SHAR<\/ChrgBr>/);
    assert.match(gbpFile, /<InstdAmt Ccy="GBP">\d+\.\d{2}<\/InstdAmt>/);
    const stored = await t.db
      .selectFrom('sepa_batches')
      .select(['currency'])
      .where('message_id', '=', batches[1]!.messageId)
      .executeTakeFirstOrThrow();
    assert.equal(stored.currency, 'GBP');
    const text = await cli('payouts', 'batch');
    assert.equal(text.code, 0, text.err);
    assert.doesNotMatch(text.out, /REFUSED/);
  });

  it('a rejected SMS (invalid number at Twilio) is marked rejected, not retried', async () => {
    twilio.override = {
      status: 400,
      body: {
        code: 21211,
        message: "The 'To' number is not a valid phone number.",
        more_info: 'https://www.twilio.com/docs/errors/21211',
        status: 400,
      },
    };
    try {
      const flightNumber = `AF${seq++}`;
      await contract(a, flightNumber);
      const opened = await post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber, departureDate: departure.slice(0, 10), status: 'cancelled' },
        operator,
      );
      const claimNumber = opened.body.claimsOpened[0].claimNumber as string;
      const row = await eventually(async () => {
        const r = await t.db
          .selectFrom('sms_messages as m')
          .innerJoin('claims as cl', 'cl.id', 'm.claim_id')
          .select(['m.status', 'm.attempts', 'm.last_error'])
          .where('cl.claim_number', '=', claimNumber)
          .executeTakeFirst();
        return r?.status === 'rejected' ? r : undefined;
      });
      assert.equal(row.attempts, 1);
      assert.match(row.last_error!, /twilio/);
    } finally {
      twilio.override = null;
    }
  });

  it("Twilio's delivery receipts: an undelivered claim message is recorded, audited and told to the partner; forged or late receipts change nothing", async () => {
    const endpoint = await t.app.inject({
      method: 'POST',
      url: `${FLIGHT}/webhooks/endpoints`,
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['claim.customer_unreachable'] },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const callbackUrl = 'https://claims.parasol.test/providers/twilio/sms-status';
    const receipt = (form: Record<string, string>, options: { token?: string; url?: string } = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/providers/twilio/sms-status',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilioSignature(
            options.token ?? AUTH_TOKEN,
            options.url ?? callbackUrl,
            Object.entries(form),
          ),
        },
        payload: new URLSearchParams(form).toString(),
      });
    const openClaim = async () => {
      const flightNumber = `AF${seq++}`;
      await contract(a, flightNumber);
      const opened = await post(
        t.app,
        `${FLIGHT}/claims`,
        { flightNumber, departureDate: departure.slice(0, 10), status: 'cancelled' },
        operator,
      );
      return opened.body.claimsOpened[0].claimNumber as string;
    };
    const message = (claimNumber: string) =>
      t.db
        .selectFrom('sms_messages as m')
        .innerJoin('claims as cl', 'cl.id', 'm.claim_id')
        .select(['m.id', 'm.status', 'm.provider_message_id', 'm.delivery_status', 'm.delivery_error'])
        .where('cl.claim_number', '=', claimNumber)
        .executeTakeFirst()
        .then((row) => row ?? assert.fail(`no message of ${claimNumber} yet`));
    /** The partner corrects the phone of a claim's contract (PATCH /contracts/{n}/customer). */
    const correctPhone = async (claimNumber: string, phone: string) => {
      const { contract_number: contractNumber } = await t.db
        .selectFrom('claims as cl')
        .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
        .select('c.contract_number')
        .where('cl.claim_number', '=', claimNumber)
        .executeTakeFirstOrThrow();
      const patched = await t.app.inject({
        method: 'PATCH',
        url: `${FLIGHT}/contracts/${contractNumber}/customer`,
        headers: { ...a.auth, 'content-type': 'application/json' },
        payload: { phone },
      });
      assert.equal(patched.statusCode, 200, patched.body);
    };
    const unreachable = async (claimNumber: string) =>
      (
        await t.db
          .selectFrom('webhook_events')
          .select('payload')
          .where('partner_id', '=', a.id)
          .where('type', '=', 'claim.customer_unreachable')
          .execute()
      )
        .map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).data)
        .filter((d: { claimNumber: string }) => d.claimNumber === claimNumber);

    const claimNumber = await openClaim();
    const sent = await eventually(async () => {
      const row = await message(claimNumber).catch(() => undefined);
      return row?.status === 'sent' ? row : undefined;
    });
    assert.ok(twilio.requests.length > 0, 'the SMS went to Twilio');
    assert.deepEqual(
      [...new Set(twilio.requests.map((r) => r.form.StatusCallback))],
      [callbackUrl],
      'Twilio is told where to post the receipts',
    );
    const form = (status: string, extra: Record<string, string> = {}) => ({
      AccountSid: ACCOUNT_SID,
      ApiVersion: '2010-04-01',
      From: '+15005550006',
      MessageSid: sent.provider_message_id!,
      MessageStatus: status,
      SmsSid: sent.provider_message_id!,
      SmsStatus: status,
      To: '+33612345678',
      ...extra,
    });

    assert.equal((await receipt(form('sent'))).statusCode, 204);
    assert.equal((await message(claimNumber)).delivery_status, 'sent');

    // forged: another token, another URL, another account, or no signature — 403, nothing changes
    for (const forged of [
      receipt(form('undelivered', { ErrorCode: '30003' }), { token: 'not-the-auth-token' }),
      receipt(form('undelivered', { ErrorCode: '30003' }), { url: 'https://evil.example/providers/twilio/sms-status' }),
      receipt(form('undelivered', { ErrorCode: '30003', AccountSid: `AC${'f'.repeat(32)}` })),
      t.app.inject({
        method: 'POST',
        url: '/providers/twilio/sms-status',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form('undelivered')).toString(),
      }),
    ]) {
      const res = await forged;
      assert.equal(res.statusCode, 403, res.body);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
    }
    assert.equal((await message(claimNumber)).delivery_status, 'sent');
    assert.deepEqual(await unreachable(claimNumber), []);

    // undelivered: recorded with Twilio's code, audited, the partner told
    assert.equal((await receipt(form('undelivered', { ErrorCode: '30003' }))).statusCode, 204);
    const undelivered = await message(claimNumber);
    assert.deepEqual([undelivered.delivery_status, undelivered.delivery_error], ['undelivered', 30003]);
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['action', 'data'])
      .where('entity', '=', 'sms')
      .where('entity_id', '=', undelivered.id)
      .execute();
    assert.deepEqual(
      audited.map((r) => r.action),
      ['sms_undelivered'],
    );
    const told = await unreachable(claimNumber);
    assert.equal(told.length, 1);
    assert.equal(told[0].deliveryStatus, 'undelivered');
    assert.equal(told[0].errorCode, 30003);
    assert.equal(told[0].message, 'opened');
    assert.equal(told[0].status, 'awaiting_bank_details');
    assert.ok(!JSON.stringify(told[0]).includes('612345678'), 'no phone number in the event');

    // late or repeated receipts: the first final status stands, told once
    for (const late of ['sent', 'delivered', 'undelivered'])
      assert.equal((await receipt(form(late, late === 'undelivered' ? { ErrorCode: '30003' } : {}))).statusCode, 204);
    assert.equal((await message(claimNumber)).delivery_status, 'undelivered');
    assert.equal((await unreachable(claimNumber)).length, 1);
    // a message this platform never sent, or a status it does not track: acknowledged, ignored
    assert.equal((await receipt(form('delivered', { MessageSid: `SM${'0'.repeat(32)}` }))).statusCode, 204);
    assert.equal((await receipt(form('receiving'))).statusCode, 204);

    // the operator sees it on the claim
    const shown = await cli('claims', 'show', claimNumber);
    assert.equal(shown.code, 0, shown.err);
    assert.match(shown.out, /sent → undelivered \(30003\)/);

    // the partner corrects the phone: the link is texted again, to the new number
    await correctPhone(claimNumber, '+33698765432');
    const resent = await eventually(async () =>
      twilio.requests.find((r) => r.form.To === '+33698765432' && r.form.Body?.includes('/c/')),
    );
    const newLink = /\/c\/[A-Za-z0-9_-]{43}/.exec(resent.form.Body!)![0];
    assert.equal((await t.app.inject({ method: 'GET', url: newLink })).statusCode, 200, 'the new link works');
    const resentAudit = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'data'])
      .where('entity', '=', 'claim')
      .where('entity_id', '=', claimNumber)
      .where('action', '=', 'bank_details_link_resent')
      .execute();
    assert.equal(resentAudit.length, 1, 'texted once');
    assert.match(resentAudit[0]!.actor, /^key:/, "the partner's act");

    // a number Twilio refuses at send: the partner is told too, as rejected with Twilio's code
    twilio.override = {
      status: 400,
      body: {
        code: 21614,
        message: "'To' number is not a valid mobile number",
        more_info: 'https://www.twilio.com/docs/errors/21614',
        status: 400,
      },
    };
    try {
      const refused = await openClaim();
      const event = await eventually(async () => (await unreachable(refused))[0]);
      assert.equal(event.deliveryStatus, 'rejected');
      assert.equal(event.errorCode, 21614);
      // the platform's own sender refused (21606): no customer is said unreachable
      twilio.override = {
        status: 400,
        body: {
          code: 21606,
          message: "The 'From' phone number provided is not a valid message-capable Twilio phone number.",
          more_info: 'https://www.twilio.com/docs/errors/21606',
          status: 400,
        },
      };
      const ours = await openClaim();
      await eventually(async () =>
        (await message(ours).catch(() => undefined))?.status === 'rejected' ? true : undefined,
      );
      assert.deepEqual(await unreachable(ours), []);
    } finally {
      twilio.override = null;
    }

    // a receipt arriving after the link went to a corrected phone: recorded, the partner not told of the old number
    const later = await openClaim();
    const first = await eventually(async () => {
      const row = await message(later).catch(() => undefined);
      return row?.status === 'sent' ? row : undefined;
    });
    await correctPhone(later, '+33611119999');
    await eventually(async () => {
      const rows = await t.db
        .selectFrom('sms_messages as m')
        .innerJoin('claims as cl', 'cl.id', 'm.claim_id')
        .select('m.id')
        .where('cl.claim_number', '=', later)
        .execute();
      return rows.length === 2 ? rows : undefined;
    });
    const sid = first.provider_message_id!;
    assert.equal(
      (await receipt(form('undelivered', { MessageSid: sid, SmsSid: sid, ErrorCode: '30003' }))).statusCode,
      204,
    );
    const recorded = await t.db
      .selectFrom('sms_messages')
      .select('delivery_status')
      .where('id', '=', first.id)
      .executeTakeFirstOrThrow();
    assert.equal(recorded.delivery_status, 'undelivered');
    assert.deepEqual(await unreachable(later), []);

    // a code in none of twilioFailureClass's lists (39999): the one default, the platform's — audited
    // platformFailure, the partner not told; 30001 (queue overflow, passing): queued again as well
    for (const errorCode of ['39999', '30001']) {
      const claim = await openClaim();
      const mine = await eventually(async () => {
        const row = await message(claim).catch(() => undefined);
        return row?.status === 'sent' ? row : undefined;
      });
      const mineSid = mine.provider_message_id!;
      assert.equal(
        (await receipt(form('failed', { MessageSid: mineSid, SmsSid: mineSid, ErrorCode: errorCode }))).statusCode,
        204,
      );
      const audit = await t.db
        .selectFrom('audit_log')
        .select('data')
        .where('entity', '=', 'sms')
        .where('entity_id', '=', mine.id)
        .where('action', '=', 'sms_undelivered')
        .executeTakeFirstOrThrow();
      assert.equal((audit.data as { platformFailure?: boolean }).platformFailure, true, errorCode);
      assert.deepEqual(await unreachable(claim), [], errorCode);
      const after = await message(claim);
      assert.equal(after.status, errorCode === '30001' ? 'queued' : 'sent', errorCode);
    }
  });

  it('a message whose send jobs gave up is queued again by the sweep and sent once, however many jobs', async () => {
    const body = `Parasol test message ${Date.now()}`;
    const { encryption } = t.app.parasol.keys;
    const row = await t.db
      .insertInto('sms_messages')
      .values({
        idempotency_key: `test:${body}`,
        partner_id: a.id,
        environment: 'production',
        claim_id: null,
        to_enc: encrypt(encryption, '+33612345678'),
        body_enc: encrypt(encryption, body),
        status: 'queued',
        created_at: new Date(Date.now() - 3_600_000),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const deps = { db: t.db, jobs: t.app.parasol.jobs };
    const [first, second] = await Promise.all([requeueStaleSms(deps), requeueStaleSms(deps)]);
    assert.ok(first >= 1 && second >= 1, 'both sweeps queued it');
    await eventually(async () => {
      const r = await t.db
        .selectFrom('sms_messages')
        .select('status')
        .where('id', '=', row.id)
        .executeTakeFirstOrThrow();
      return r.status === 'sent' ? true : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal(twilio.requests.filter((r) => r.form.Body === body).length, 1, 'sent once');
  });
});
