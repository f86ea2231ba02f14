import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import { dayRange, partnerStatement, monthPeriod } from '../../src/ledger/index.ts';
import { createUser } from '../../src/partners/users.ts';
import { formatMoney, toMinorUnits } from '../../src/platform/money.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  post,
  subscribeTrip,
  trip,
  uniqueSlug,
  type TestApp,
} from '../helper.ts';
import { Browser } from './inject-browser.ts';

/** The money reports of both consoles: pages, downloads, and one partner never reading another's figures. */

const PASSWORD = 'reports test password';
const ADMIN = { email: 'ops-reports-tests@parasol.test', password: 'operator password 42' };

describe('money reports in the consoles', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password } });
  });
  after(() => t.close());

  const month = () => new Date().toISOString().slice(0, 7);
  const today = () => new Date().toISOString().slice(0, 10);
  const cents = (text: string) =>
    text.startsWith('-') ? -toMinorUnits(text.slice(1), 'EUR') : toMinorUnits(text, 'EUR');

  async function partnerWithMoney() {
    const partner = await createTestPartner(t.db);
    const sold = await subscribeTrip(t.app, partner, trip(20));
    const refunded = await subscribeTrip(t.app, partner, trip(21));
    assert.equal(sold.status, 201);
    const cancel = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: refunded.body.contractNumber, reason: 'customer_request' },
      partner.auth,
    );
    assert.equal(cancel.status, 200);
    return { partner, sold: sold.body.contractNumber as string, refunded: refunded.body.contractNumber as string };
  }

  test('the dashboard’s money is the ledger’s over its dates: every refund (partial ones too), as the statement', async () => {
    const { partner } = await partnerWithMoney();
    // two passengers, one leaves: a partial refund the contracts' refund_amount never holds
    const pair = await subscribeTrip(t.app, partner, { ...trip(22), additionalPassengers: 1 });
    assert.equal(pair.status, 201, JSON.stringify(pair.body));
    const partial = await post(
      t.app,
      `${FLIGHT}/contracts/${pair.body.contractNumber}/partial-cancellation`,
      { passengers: 1, reason: 'customer_request' },
      partner.auth,
    );
    assert.equal(partial.status, 200, JSON.stringify(partial.body));
    assert.ok(partial.body.refund.amount > 0);
    const email = `${uniqueSlug('dashboard')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
    // a range of days around today holds every movement of the test, whatever the time of day
    const dayAfter = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const page = await browser.get(`/console/dashboard?env=sandbox&from=${dayAfter(-1)}&to=${dayAfter(1)}`);
    assert.equal(page.statusCode, 200);
    const statement = await partnerStatement(
      t.db,
      { partnerId: partner.id, environment: 'sandbox' },
      dayRange(dayAfter(-1), dayAfter(1)),
    );
    const line = statement.lines[0]!;
    assert.ok(line.refunds > Number(partial.body.refund.amount), 'the whole cancellation and the partial one');
    const money = (minor: number) => formatMoney(minor, 'EUR', 'en');
    assert.ok(
      page.body.includes(
        `<tr><td>EUR</td><td>${money(line.premiumCollected)}</td><td>${money(line.commission)}</td><td>${money(line.refunds)}</td><td>${money(line.compensationPaid)}</td></tr>`,
      ),
      'premium written, commission, refunds and compensation paid of the statement over the same dates',
    );
    // a period without movement shows none
    const later = await browser.get(`/console/dashboard?env=sandbox&from=${dayAfter(2)}&to=${dayAfter(3)}`);
    assert.ok(!later.body.includes(`<td>${money(line.refunds)}</td>`));
  });

  test('the partner sees and downloads its own statement and exports, never another partner’s', async () => {
    const { partner, sold } = await partnerWithMoney();
    const other = await partnerWithMoney();
    const email = `${uniqueSlug('reports')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);

    const page = await browser.get(`/console/reports?env=sandbox&month=${month()}`);
    assert.equal(page.statusCode, 200);
    const statement = await partnerStatement(
      t.db,
      { partnerId: partner.id, environment: 'sandbox' },
      monthPeriod(month()),
    );
    assert.equal(statement.lines.length, 1);
    assert.ok(page.body.includes('Amount due to the insurer'));
    // the premium tax the insurer declares, net of the refund's tax part, as the CSV and PDF give it
    assert.ok(statement.lines[0]!.taxRefunded > 0);
    assert.ok(page.body.includes('Premium tax net of refunds'));
    assert.ok(page.body.includes(`<td>${formatMoney(statement.lines[0]!.taxNetOfRefunds, 'EUR', 'en')}</td>`));

    const csv = await browser.get(`/console/reports/statement?env=sandbox&month=${month()}&format=csv`);
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /text\/csv/);
    assert.match(String(csv.headers['content-disposition']), /attachment; filename="statement-sandbox-/);
    const [header, row] = csv.body.trimEnd().split('\r\n');
    const values = Object.fromEntries(row!.split(',').map((v, i) => [header!.split(',')[i], v]));
    assert.equal(cents(values.amount_due!), statement.lines[0]!.amountDue);

    const pdf = await browser.get(`/console/reports/statement?env=sandbox&month=${month()}&format=pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');

    // the export is the partner's own, whatever partner the query names
    const exported = await browser.get(
      `/console/reports/export?env=sandbox&from=${today()}&to=${today()}&kind=contracts&partner=${other.partner.slug}`,
    );
    assert.equal(exported.statusCode, 200);
    assert.ok(exported.body.includes(sold));
    assert.ok(!exported.body.includes(other.sold));
    assert.equal((await browser.get(`/console/reports?month=2026-13`)).statusCode, 400);
    // the dashboard over any dates: today's two sales in, a later period empty, a reversed one refused
    const dayAfter = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const inRange = await browser.get(`/console/dashboard?env=sandbox&from=${dayAfter(-2)}&to=${today()}`);
    assert.equal(inRange.statusCode, 200);
    assert.match(inRange.body, /<strong id="total-subscriptions">2<\/strong>/);
    // the period as a person reads it, the English way ('26 Nov 2026 – 28 Nov 2026')
    const written = (iso: string) =>
      new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });
    assert.ok(inRange.body.includes(`<h2>${written(dayAfter(-2))} – ${written(today())}</h2>`));
    const later = await browser.get(`/console/dashboard?env=sandbox&from=${dayAfter(1)}&to=${dayAfter(3)}`);
    assert.match(later.body, /<strong id="total-subscriptions">0<\/strong>/);
    const reversed = await browser.get(`/console/dashboard?env=sandbox&from=${today()}&to=${dayAfter(-3)}`);
    assert.equal(reversed.statusCode, 422);
    // refused on the dashboard itself, not a bare message page: the dates as typed, the error next to its
    // field and tied to it, the focus there, the figures those of the last 30 days
    assert.match(reversed.body, new RegExp(`<input id="d-from" type="date" name="from" value="${today()}">`));
    assert.match(
      reversed.body,
      new RegExp(
        `<input id="d-to" type="date" name="to" value="${dayAfter(-3)}" aria-invalid="true" aria-describedby="d-to-error" autofocus><p class="error" id="d-to-error">must not be before the first day</p>`,
      ),
    );
    assert.match(reversed.body, /role="alert">Check the period below: the figures are those of the last 30 days/);
    assert.match(reversed.body, /<strong id="total-subscriptions">2<\/strong>/);
    // one day only was read as the last 30 days, silently: now each missing day is told
    const fromOnly = await browser.get(`/console/dashboard?env=sandbox&from=${dayAfter(1)}&to=`);
    assert.equal(fromOnly.statusCode, 422);
    assert.match(
      fromOnly.body,
      /<input id="d-to" type="date" name="to" value="" aria-invalid="true" aria-describedby="d-to-error" autofocus><p class="error" id="d-to-error">give both days, or neither for the last 30 days<\/p>/,
    );
    assert.doesNotMatch(fromOnly.body, /id="d-from-error"/);
    const tooLong = await browser.get(`/console/dashboard?env=sandbox&from=2020-01-01&to=${today()}`);
    assert.equal(tooLong.statusCode, 422);
    // the exports' rule (ledger `dayRange`): 366 days both included, in the dashboard's words — a period,
    // not an export: no "a year at a time", and the form's first day, not the API's `from`
    assert.match(tooLong.body, /id="d-to-error">must be at most 366 days after the first day, both included<\/p>/);
    assert.doesNotMatch(tooLong.body, /year at a time|after from/);
    const year = await browser.get(`/console/dashboard?env=sandbox&from=${dayAfter(-365)}&to=${today()}`);
    assert.equal(year.statusCode, 200, '366 days, both included');
    assert.equal(
      (await browser.get(`/console/dashboard?env=sandbox&from=${dayAfter(-366)}&to=${today()}`)).statusCode,
      422,
      '367 days',
    );
    assert.equal((await browser.get('/console/dashboard?env=sandbox&from=&to=')).statusCode, 200, 'neither: 30 days');
    // the operator's downloads are not the partner's
    assert.notEqual((await browser.get(`/admin/reports?partner=${partner.slug}`)).statusCode, 200);
    // in French, the dashboard's refusal names its 366 days too
    await browser.get('/lang/fr?next=/console/dashboard');
    const tooLongFr = await browser.get(`/console/dashboard?env=sandbox&from=2020-01-01&to=${today()}`);
    assert.equal(tooLongFr.statusCode, 422);
    assert.ok(tooLongFr.body.includes('au plus 366\u00a0jours, les deux inclus'), 'the French refusal names it');
  });

  test('the operator downloads any partner’s bordereaux as CSV and XLSX, with the statement’s totals', async () => {
    const { partner, refunded } = await partnerWithMoney();
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const page = await operator.get(`/admin/reports?partner=${partner.slug}&env=sandbox&month=${month()}`);
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes('Premium bordereau'));
    assert.ok(page.body.includes('at most 366 days per file, both included'), 'the export form states its limit');

    const q = `partner=${partner.slug}&env=sandbox&month=${month()}`;
    const premium = await operator.get(`/admin/reports/download?${q}&report=premium&format=csv`);
    assert.equal(premium.statusCode, 200);
    const [header, ...rows] = premium.body.trimEnd().split('\r\n');
    const names = header!.split(',');
    const records = rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [names[i], v])));
    assert.equal(records.length, 3, 'two sales and one cancellation');
    assert.equal(records.filter((r) => r.contract_number === refunded).length, 2);
    const statement = await partnerStatement(
      t.db,
      { partnerId: partner.id, environment: 'sandbox' },
      monthPeriod(month()),
    );
    const sum = (column: string) => records.reduce((n, r) => n + cents(r[column]!), 0);
    assert.equal(sum('premium_net') + sum('premium_tax'), statement.lines[0]!.premiumCollected);
    assert.equal(sum('commission'), statement.lines[0]!.commission);
    assert.equal(sum('refund'), statement.lines[0]!.refunds);
    assert.equal(sum('tax_refunded'), statement.lines[0]!.taxRefunded);
    assert.ok(statement.lines[0]!.taxRefunded > 0, 'the cancellation’s tax part');

    const xlsx = await operator.get(`/admin/reports/download?${q}&report=claims&format=xlsx`);
    assert.equal(xlsx.statusCode, 200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ExcelJS.Buffer);
    assert.equal(book.worksheets[0]!.getRow(1).getCell(1).value, 'claim_number');

    const statementPdf = await operator.get(`/admin/reports/download?${q}&report=statement&format=pdf`);
    assert.equal(statementPdf.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
    const claims = await operator.get(
      `/admin/reports/export?partner=${partner.slug}&env=sandbox&from=${today()}&to=${today()}&kind=claims`,
    );
    assert.equal(claims.statusCode, 200);
    assert.match(claims.body, /^claim_number,contract_number,/);

    // an export is bounded: a leap year's 366 days are read, one day more is refused before any row is read, naming the maximum
    const range = (from: string, to: string) =>
      operator.get(`/admin/reports/export?partner=${partner.slug}&env=sandbox&from=${from}&to=${to}&kind=contracts`);
    assert.equal((await range('2028-01-01', '2028-12-31')).statusCode, 200);
    const tooLong = await range('2028-01-01', '2029-01-01');
    assert.equal(tooLong.statusCode, 422);
    assert.match(tooLong.body, /at most 366 days/);
    // the field told by the form's label, not the API's name
    assert.match(
      tooLong.body,
      /To: must be at most 366 days after from, both included \(export a longer range a year at a time\)/,
    );
    assert.doesNotMatch(tooLong.body, /\bto: /);

    // in French, the form states the limit and the refusal names it
    await operator.get('/lang/fr?next=/admin/reports');
    const fr = await operator.get(`/admin/reports?partner=${partner.slug}&env=sandbox&month=${month()}`);
    assert.ok(fr.body.includes('au plus 366\u00a0jours par fichier, les deux inclus'), 'the French form states it');
    const tooLongFr = await range('2028-01-01', '2029-01-01');
    assert.equal(tooLongFr.statusCode, 422);
    assert.ok(tooLongFr.body.includes('au plus 366\u00a0jours, les deux inclus'), 'the French refusal names it');
    assert.ok(tooLongFr.body.includes('Au\u202f: est hors des limites permises'), 'by the form’s label');
    assert.ok(!tooLongFr.body.includes('to\u202f:'), 'not the API’s name');
  });
});
