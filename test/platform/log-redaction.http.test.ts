import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger, redactUrl, scrubSecrets } from '../../src/platform/logging.ts';
import { maskIbansIn } from '../../src/platform/personal-text.ts';
import {
  buildTestApp,
  createTestPartner,
  CUSTOMER,
  eventually,
  FLIGHT,
  insureFlight,
  openTestDatabase,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';

/**
 * Issue 9, security defect 3: no log line carries a bank-details token (a live link that pays out),
 * an API key, an IBAN, a phone number, an e-mail address or a name (the customer's, the account
 * holder's: the log scrubber cannot recognise names, so none may be logged at all).
 */

/** Every line the logger writes, as text, in order. */
class Capture {
  readonly lines: string[] = [];
  write(line: string): void {
    this.lines.push(line);
  }
  get text(): string {
    return this.lines.join('');
  }
}

describe('log redaction, pure', () => {
  it('logs the URL of a bank-details page without its token, and credential-like query values without their value', () => {
    assert.equal(redactUrl('/c/AbCdEf0123456789_-xyzXYZ0123456789abcdefghi'), '/c/[redacted]');
    assert.equal(redactUrl('/C/AbCdEf0123456789?lang=fr'), '/c/[redacted]?lang=fr');
    assert.equal(
      redactUrl('/portal/password/AbCdEf0123456789_-xyzXYZ0123456789abcdefghi'),
      '/portal/password/[redacted]',
    );
    assert.equal(
      redactUrl('/portal/login?next=%2Fconsole&token=abc&api_key=psl_sbx_x&Email=a%40b.c'),
      '/portal/login?next=%2Fconsole&token=[redacted]&api_key=[redacted]&Email=[redacted]',
    );
    assert.equal(
      redactUrl('/flight-delay/v1/sandbox/messages?contractNumber=FD-AAAA-BBBB'),
      '/flight-delay/v1/sandbox/messages?contractNumber=FD-AAAA-BBBB',
    );
    assert.equal(redactUrl('/healthz'), '/healthz');
    assert.equal(redactUrl('/x?%E0%A4%A=1&flag'), '/x?%E0%A4%A=1&flag', 'a malformed name is kept as written');
  });

  it('scrubs links, keys, tokens, IBANs, e-mails and phone numbers from any text, and leaves the rest', () => {
    const text = [
      'see https://claims.parasol.test/c/Q2xhaW0tdG9rZW4tMTIzNDU2Nzg5MGFiY2RlZg',
      'key psl_sbx_AbCdEfGhIjKlMnOpQrStUvWxYz012345 live psl_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345',
      'operator pso_AbCdEfGhIjKlMnOpQrStUv secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw stripe sk_live_abcdefgh1234',
      'iban DE89 3704 0044 0532 0130 00 and FR7630006000011234567890189',
      'mail camille.martin+test@example.co.uk phone +33612345678 or +33 6 12 34 56 78',
    ].join('\n');
    const scrubbed = scrubSecrets(text);
    for (const secret of [
      'Q2xhaW0tdG9rZW4',
      'AbCdEfGhIj',
      'MfKQ9r8G',
      'abcdefgh1234',
      '3704 0044',
      'FR76300060',
      'camille.martin',
      'example.co.uk',
      '612345678',
      '6 12 34 56 78',
    ]) {
      assert.ok(!scrubbed.includes(secret), `${secret} left in: ${scrubbed}`);
    }
    assert.match(scrubbed, /\/c\/\[redacted\]/);
    assert.match(scrubbed, /psl_sbx_\[redacted\]/);
    const plain =
      '{"level":30,"reqId":"5f0c1f1e-8a9b-4c2d-9e3f-0a1b2c3d4e5f","contractNumber":"FD-7K3M-9QXT","claimNumber":"CLM-00000042","msg":"request completed","responseTime":1.25,"at":"2026-11-23T16:00:00.000+01:00"}';
    assert.equal(scrubSecrets(plain), plain, 'identifiers, numbers and times are not personal data');
    assert.equal(scrubSecrets('/c/[redacted]'), '/c/[redacted]');
  });

  it('masks every IBAN free text is masked of (maskIbansIn): any case, grouped by spaces or dashes or not', () => {
    const cases: [string, string][] = [
      ['refused: fr76 3000 6000 0112 3456 7890 189 closed', 'refused: •••• 0189 closed'],
      ['"iban":"de89370400440532013000"', '"iban":"•••• 3000"'],
      ['account Nl91-Abna-0417-1643-00.', 'account •••• 4300.'],
      ['FR76 3000 6000 0112 3456 7890 189', '•••• 0189'],
    ];
    for (const [text, scrubbed] of cases) assert.equal(scrubSecrets(text), scrubbed);
    // a mistyped upper-case account (its check digits wrong) is still replaced
    assert.equal(scrubSecrets('typed DE88370400440532013000'), 'typed [redacted]');
    // right after a JSON-escaped line break or tab (a multi-line text logged), as maskIbansIn masks it in a reason
    assert.equal(
      scrubSecrets(String.raw`{"msg":"line\nde89370400440532013000\tFR7630006000011234567890189\rnl91abna0417164300"}`),
      String.raw`{"msg":"line\n•••• 3000\t•••• 0189\r•••• 4300"}`,
    );
    assert.equal(maskIbansIn(String.raw`reason\nde89370400440532013000`), String.raw`reason\n•••• 3000`);
    assert.equal(scrubSecrets(String.raw`"a\npsl_sbx_AbCdEfGhIjKl"`), String.raw`"a\npsl_sbx_[redacted]"`);
    // a key whose tail looks like an IBAN keeps its whole redaction
    assert.equal(scrubSecrets('key psl_sbx_AbCd-DE89370400440532013000 used'), 'key psl_sbx_[redacted] used');
    // reason codes and identifiers stay as written
    const plain = 'AC04 MS03 reqId 5f0c1f1e-8a9b-de45-9e3f-0a1b2c3d4e5f';
    assert.equal(scrubSecrets(plain), plain);
  });

  it('the worker process logger scrubs its lines too', () => {
    const capture = new Capture();
    const log = createLogger({ logLevel: 'info' }, { name: 'worker', stream: capture });
    log.info(
      { err: new Error('could not send to +33612345678: https://x.test/c/AbCdEf0123456789abcdef') },
      'sms failed for camille@example.com',
    );
    assert.equal(capture.lines.length, 1);
    assert.doesNotMatch(capture.text, /612345678|AbCdEf0123456789|camille@/);
    assert.match(capture.text, /"name":"worker"/);
    const failed = Object.assign(new Error('duplicate key'), {
      code: '23505',
      query: 'insert into sms_outbox …',
      params: ['Camille', 'encrypted-blob'],
    });
    log.error({ err: failed }, 'job failed');
    const line = JSON.parse(capture.lines[1]!) as { err: Record<string, unknown> };
    assert.equal(line.err.code, '23505');
    assert.equal(line.err.params, undefined, 'the statement parameters are not logged');
  });
});

describe('log redaction: the log of a full claim flow', () => {
  let t: TestApp;
  let partner: TestPartner;
  const capture = new Capture();
  let database: DatabaseHandle;
  before(async () => {
    // a database of its own: on a shared PostgreSQL another app's worker could take this flow's jobs,
    // and their lines would not be in this capture
    database = await openTestDatabase(undefined, { empty: true });
    t = await buildTestApp({
      database,
      env: { LOG_LEVEL: 'debug', PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
      logStream: capture,
    });
    partner = await createTestPartner(t.db);
  });
  after(async () => {
    await t.close();
    await database.close();
  });

  it('subscribe → claim → SMS → bank details (a wrong IBAN, then a right one) → paid: no token, key, IBAN, phone, e-mail or name in any line', async () => {
    const c = await insureFlight(t.app, partner, { flightNumber: `AF${7000 + (process.pid % 1000)}` });
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const message = await eventually(async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `${FLIGHT}/sandbox/messages?contractNumber=${c.contractNumber}`,
        headers: partner.auth,
      });
      return (res.json() as { messages: { link: string }[] }).messages[0];
    });
    const path = new URL(message.link).pathname;
    const token = path.slice('/c/'.length);
    assert.ok(token.length >= 32);

    // the customer opens the link (with a language parameter), mistypes the IBAN, then gets it right
    assert.equal((await t.app.inject({ method: 'GET', url: `${path}?lang=fr` })).statusCode, 200);
    const form = (iban: string) => ({
      method: 'POST' as const,
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ accountHolder: 'Camille Martin', iban, bic: '' }).toString(),
    });
    assert.equal((await t.app.inject(form('DE89 3704 0044 0532 0130 01'))).statusCode, 422);
    assert.equal((await t.app.inject(form('DE89 3704 0044 0532 0130 00'))).statusCode, 200);
    await eventually(async () => {
      const row = await t.db
        .selectFrom('claims as cl')
        .innerJoin('contracts as k', 'k.id', 'cl.contract_id')
        .select('cl.status')
        .where('k.contract_number', '=', c.contractNumber)
        .executeTakeFirst();
      return row?.status === 'paid' ? true : undefined;
    });
    // a spent link, a wrong key, and a key sent where it does not belong
    assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 410);
    assert.equal(
      (await post(t.app, `${FLIGHT}/getPrice`, {}, { authorization: `Bearer ${partner.key}x` })).status,
      401,
    );
    await t.app.inject({ method: 'GET', url: `/healthz?api_key=${partner.key}` });
    await new Promise((resolve) => setTimeout(resolve, 200)); // pino writes synchronously; let the last job lines land

    const log = capture.text;
    // one line per request (platform/request-log.ts), with the route pattern and never the raw URL
    assert.ok(capture.lines.length > 10, `the flow was logged (${capture.lines.length} lines)`);
    assert.match(log, /"route":"\/c\/:token"/, 'the bank-details requests are logged, without their token');
    assert.match(log, /claim notification/, 'the worker lines are captured');
    const secrets: Record<string, string> = {
      'bank-details token': token,
      'API key': partner.key,
      'API key body': partner.key.slice('psl_sbx_'.length),
      IBAN: 'DE89 3704 0044 0532 0130 0',
      'IBAN, compact': 'DE89370400440532013',
      'IBAN, encoded': 'DE89+3704',
      phone: CUSTOMER.phone,
      'phone digits': CUSTOMER.phone.slice(3),
      email: CUSTOMER.email,
      'email, encoded': encodeURIComponent(CUSTOMER.email),
      'first name': CUSTOMER.firstName,
      'last name': CUSTOMER.lastName,
      'account holder': 'Camille Martin',
    };
    for (const [what, secret] of Object.entries(secrets)) {
      const line = capture.lines.find((l) => l.includes(secret));
      assert.equal(line, undefined, `the ${what} appears in the log: ${line}`);
    }
  });
});
