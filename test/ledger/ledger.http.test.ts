import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import ExcelJS from 'exceljs';
import { sql } from 'kysely';
import {
  backfillLedger,
  claimsBordereau,
  dayRange,
  entriesOfContract,
  partnerStatement,
  premiumBordereau,
  statementCsv,
  statementPdf,
  toCsv,
  toXlsx,
} from '../../src/ledger/index.ts';
import { expireClaims } from '../../src/claims/index.ts';
import { SIMULATED_BANK_REJECTED_IBAN } from '../../src/payouts/payouts.ts';
import { toMinorUnits } from '../../src/platform/money.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  runCliOn,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * The ledger filled by the real flows (subscribe, cancel, claim paid and payout failed through the
 * simulated bank), then the bordereaux and the partner statement reconciled to the cent, as rows and
 * as files; the backfill rebuilds the same ledger; entries cannot be changed.
 */
describe('ledger: real flows → bordereaux and statement reconcile', () => {
  let t: TestApp;
  let a: TestPartner;
  let base: string;
  const seq = 7300 + (process.pid % 500);
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  // any date range: yesterday to tomorrow holds every movement of the test whatever the time of day
  const period = () => dayRange(day(-1), day(1));
  const scope = () => ({ partnerId: a.id, environment: 'sandbox' as const });

  before(async () => {
    t = await buildTestApp({
      env: { PARASOL_JOB_POLL_SECONDS: '1', PARASOL_PUBLIC_URL: 'https://claims.parasol.test' },
    });
    a = await createTestPartner(t.db);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(() => t.close());

  const contractRow = (contractNumber: string) =>
    t.db.selectFrom('contracts').selectAll().where('contract_number', '=', contractNumber).executeTakeFirstOrThrow();
  const claimOf = (contractNumber: string) =>
    t.db
      .selectFrom('claims as cl')
      .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
      .select(['cl.status', 'cl.compensation_amount', 'cl.claim_number'])
      .where('c.contract_number', '=', contractNumber)
      .executeTakeFirst();
  const linkOf = async (contractNumber: string) => {
    const res = await fetch(`${base}${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`, { headers: a.auth });
    const { messages } = (await res.json()) as { messages: { link: string }[] };
    return messages[0]?.link;
  };
  const claimAndPay = async (
    flight: { contractNumber: string; flightNumber: string; departureDate: string },
    iban: string,
  ) => {
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: flight.flightNumber, departureDate: flight.departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const link = await eventually(() => linkOf(flight.contractNumber));
    const url = `${base}${new URL(link).pathname}`;
    assert.equal((await fetch(url)).status, 200);
    const sent = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams({ accountHolder: 'Camille Martin', iban, bic: '' }),
      redirect: 'manual',
    });
    assert.equal(sent.status, 200);
  };

  let sold: Awaited<ReturnType<typeof insureFlight>>;
  let cancelled: Awaited<ReturnType<typeof insureFlight>>;
  let paid: Awaited<ReturnType<typeof insureFlight>>;
  let failed: Awaited<ReturnType<typeof insureFlight>>;

  it('subscribe, cancel, claim paid and payout failed each write their entries in integer minor units', async () => {
    sold = await insureFlight(t.app, a, { flightNumber: `AF${seq}`, returnFlight: `AF${seq + 1}`, passengers: 2 });
    cancelled = await insureFlight(t.app, a, { flightNumber: `AF${seq + 2}` });
    paid = await insureFlight(t.app, a, { flightNumber: `AF${seq + 3}` });
    failed = await insureFlight(t.app, a, { flightNumber: `AF${seq + 4}` });

    const s = await contractRow(sold.contractNumber);
    assert.deepEqual(
      (await entriesOfContract(t.db, sold.contractNumber)).map((e) => [e.kind, e.amount, e.currency]),
      [
        ['premium_written', s.premium_net, 'EUR'],
        ['tax', s.premium_tax, 'EUR'],
        ['commission', s.premium_commission, 'EUR'],
      ],
    );
    assert.ok(s.premium_net > 0 && s.premium_commission > 0);

    const res = await post(
      t.app,
      `${FLIGHT}/cancel`,
      { contractNumber: cancelled.contractNumber, reason: 'ticket_cancelled' },
      a.auth,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // cancelling again answers the same and writes nothing more
    assert.equal(
      (
        await post(
          t.app,
          `${FLIGHT}/cancel`,
          { contractNumber: cancelled.contractNumber, reason: 'ticket_cancelled' },
          a.auth,
        )
      ).status,
      200,
    );
    const c = await contractRow(cancelled.contractNumber);
    assert.deepEqual(
      (await entriesOfContract(t.db, cancelled.contractNumber)).map((e) => [e.kind, e.amount]),
      [
        ['premium_written', c.premium_net],
        ['tax', c.premium_tax],
        ['commission', c.premium_commission],
        ['refund', c.premium_total],
        // the refund's tax part: a memorandum entry, the whole tax of the contract
        ['tax_refunded', c.premium_tax],
        ['commission', -c.premium_commission],
      ],
    );
    assert.ok(c.premium_tax > 0);

    await claimAndPay(paid, 'DE89 3704 0044 0532 0130 00');
    const paidClaim = await eventually(async () => {
      const claim = await claimOf(paid.contractNumber);
      return claim?.status === 'paid' ? claim : undefined;
    });
    const paidEntries = await entriesOfContract(t.db, paid.contractNumber);
    assert.deepEqual(
      paidEntries.filter((e) => e.kind === 'compensation_paid').map((e) => [e.amount, e.recorded_by]),
      [[paidClaim.compensation_amount, 'system:simulated-bank']],
    );

    await claimAndPay(failed, SIMULATED_BANK_REJECTED_IBAN);
    const failedClaim = await eventually(async () => {
      const claim = await claimOf(failed.contractNumber);
      return claim?.status === 'failed' ? claim : undefined;
    });
    const failedEntries = await entriesOfContract(t.db, failed.contractNumber);
    assert.deepEqual(
      failedEntries
        .filter((e) => e.kind === 'payout_failed' || e.kind === 'compensation_paid')
        .map((e) => [e.kind, e.amount]),
      [['payout_failed', failedClaim.compensation_amount]],
    );
  });

  it('the premium bordereau, the claims bordereau and the statement reconcile to the cent', async () => {
    const premium = await premiumBordereau(t.db, scope(), period());
    const claims = await claimsBordereau(t.db, scope(), period());
    const statement = await partnerStatement(t.db, scope(), period());
    const contracts = await Promise.all([sold, cancelled, paid, failed].map((x) => contractRow(x.contractNumber)));
    // one row per contract and movement: four sales, one cancellation
    assert.equal(premium.rows.length, 5);
    const cancelRow = premium.rows.find((r) => r.movement === 'cancelled')!;
    assert.equal(cancelRow.contract_number, cancelled.contractNumber);
    assert.equal(cancelRow.refund, contracts[1]!.premium_total);
    assert.equal(premium.rows.find((r) => r.contract_number === sold.contractNumber)!.passengers, 2);
    assert.match(
      premium.rows.find((r) => r.contract_number === sold.contractNumber)!.flights,
      new RegExp(`AF${seq + 1} JFK-CDG`),
    );

    assert.equal(statement.lines.length, 1);
    const line = statement.lines[0]!;
    const sum = (f: (r: (typeof premium.rows)[number]) => number) => premium.rows.reduce((n, r) => n + f(r), 0);
    const net = contracts.reduce((n, c) => n + c.premium_net, 0);
    const tax = contracts.reduce((n, c) => n + c.premium_tax, 0);
    const commission = contracts.reduce((n, c) => n + c.premium_commission, 0) - contracts[1]!.premium_commission;
    assert.equal(line.premiumNet, net);
    assert.equal(line.premiumTax, tax);
    assert.equal(
      line.premiumCollected,
      sum((r) => r.premium_net + r.premium_tax),
    );
    assert.equal(
      line.commission,
      sum((r) => r.commission),
    );
    assert.equal(line.commission, commission);
    assert.equal(
      line.refunds,
      sum((r) => r.refund),
    );
    assert.equal(line.refunds, contracts[1]!.premium_total);
    assert.equal(line.amountDue, net + tax - commission - contracts[1]!.premium_total);
    // the tax part of the refund: in the bordereau's rows, and the statement's tax net of refunds
    assert.equal(cancelRow.tax_refunded, contracts[1]!.premium_tax);
    assert.equal(
      line.taxRefunded,
      sum((r) => r.tax_refunded),
    );
    assert.equal(line.taxRefunded, contracts[1]!.premium_tax);
    assert.equal(line.taxNetOfRefunds, tax - contracts[1]!.premium_tax);

    // claims: one row per claim; what was paid equals the statement's compensation paid
    assert.equal(claims.rows.length, 2);
    const paidRow = claims.rows.find((r) => r.contract_number === paid.contractNumber)!;
    const failedRow = claims.rows.find((r) => r.contract_number === failed.contractNumber)!;
    assert.equal(paidRow.status, 'paid');
    assert.ok(paidRow.paid_at);
    assert.equal(failedRow.failed_attempts_in_period, 1);
    assert.equal(failedRow.paid_in_period, 0);
    assert.equal(line.compensationPaid, paidRow.paid_in_period);
    assert.equal(line.compensationPaid, paidRow.compensation_amount);

    // the files: the CSVs add up to the same cents
    const csvRows = (buffer: Buffer) => {
      const [header, ...lines] = buffer.toString('utf8').trimEnd().split('\r\n');
      const names = header!.split(',');
      return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i], v])));
    };
    const cents = (text: string) =>
      text.startsWith('-') ? -toMinorUnits(text.slice(1), 'EUR') : toMinorUnits(text, 'EUR');
    const premiumCsv = csvRows(toCsv(premium.columns, premium.rows));
    const statementRows = csvRows(statementCsv(statement));
    const csvSum = (rows: Record<string, string>[], column: string) => rows.reduce((n, r) => n + cents(r[column]!), 0);
    assert.equal(
      csvSum(premiumCsv, 'premium_net') + csvSum(premiumCsv, 'premium_tax'),
      cents(statementRows[0]!.premium_collected!),
    );
    assert.equal(csvSum(premiumCsv, 'commission'), cents(statementRows[0]!.commission!));
    assert.equal(csvSum(premiumCsv, 'refund'), cents(statementRows[0]!.refunds!));
    assert.equal(csvSum(premiumCsv, 'tax_refunded'), cents(statementRows[0]!.tax_refunded!));
    assert.equal(
      csvSum(premiumCsv, 'premium_tax') - csvSum(premiumCsv, 'tax_refunded'),
      cents(statementRows[0]!.tax_net_of_refunds!),
    );
    assert.equal(
      cents(statementRows[0]!.premium_collected!) -
        cents(statementRows[0]!.commission!) -
        cents(statementRows[0]!.refunds!),
      cents(statementRows[0]!.amount_due!),
    );
    // no personal data: neither the customer's name, email nor phone in any file
    const all = [toCsv(premium.columns, premium.rows), toCsv(claims.columns, claims.rows)].join('\n');
    for (const personal of ['Camille', 'Martin', 'example.com', '+336', 'PNR123', 'DE89'])
      assert.ok(!all.includes(personal), personal);

    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await toXlsx(premium)) as unknown as ExcelJS.Buffer);
    const sheet = book.worksheets[0]!;
    assert.equal(sheet.rowCount, 1 + premium.rows.length);
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const netColumn = header.indexOf('premium_net') + 1;
    let xlsxNet = 0;
    for (let i = 2; i <= sheet.rowCount; i++)
      xlsxNet += Math.round(Number(sheet.getRow(i).getCell(netColumn).value) * 100);
    assert.equal(xlsxNet, line.premiumNet);

    const pdf = await statementPdf(statement, { name: 'Test Partner', slug: 'test-partner' });
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  });

  it('the CLI writes the bordereaux and the statement', async () => {
    const files = new Map<string, Buffer>();
    const month = new Date().toISOString().slice(0, 7);
    // the database alone (the reports need no services); the files it writes kept here
    const run = (...argv: string[]) =>
      runCliOn({ db: t.db }, argv, { writeBytes: async (file, data) => void files.set(file, data) });
    const common = ['--partner', a.slug, '--env', 'sandbox', '--month', month];
    for (const argv of [
      ['bordereau', 'premium', ...common, '--format', 'csv', '--out', 'p.csv'],
      ['bordereau', 'claims', ...common, '--format', 'xlsx', '--out', 'c.xlsx'],
      ['statement', 'show', ...common, '--format', 'pdf', '--out', 's.pdf'],
    ]) {
      const written = await run(...argv);
      assert.equal(written.code, 0, written.err);
    }
    assert.match(files.get('p.csv')!.toString('utf8'), /^contract_number,movement,/);
    assert.equal(files.get('c.xlsx')!.subarray(0, 2).toString('latin1'), 'PK');
    assert.equal(files.get('s.pdf')!.subarray(0, 5).toString('latin1'), '%PDF-');
    const refused = await run('bordereau', 'premium', '--partner', a.slug, '--month', '2026-13', '--out', 'x.csv');
    assert.equal(refused.code, 1);
    assert.match(refused.err, /--month/);
  });

  it('entries cannot be changed or deleted; the backfill rebuilds the same ledger and never duplicates', async () => {
    await assert.rejects(
      sql`UPDATE ledger_entries SET amount = 0 WHERE partner_id = ${a.id}`.execute(t.db),
      /append-only/,
    );
    await assert.rejects(sql`DELETE FROM ledger_entries WHERE partner_id = ${a.id}`.execute(t.db), /append-only/);
    // nor emptied by TRUNCATE (migration 0083): test/ledger/ledger-truncate.db.test.ts, on a database no app uses

    const before = await partnerStatement(t.db, scope(), period());
    const beforeRows = (await premiumBordereau(t.db, scope(), period())).rows;
    // every flow already wrote its entries: the backfill finds nothing of this partner to write
    const count = () =>
      t.db
        .selectFrom('ledger_entries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('partner_id', '=', a.id)
        .executeTakeFirstOrThrow();
    const n = Number((await count()).n);
    await t.db.transaction().execute((trx) => backfillLedger(trx, 'operator:test'));
    assert.equal(Number((await count()).n), n);

    // a database from before the ledger: this partner's entries removed (the trigger off for the test)
    await t.db.transaction().execute(async (trx) => {
      await sql`ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_append_only`.execute(trx);
      await sql`DELETE FROM ledger_entries WHERE partner_id = ${a.id}`.execute(trx);
      await sql`ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_append_only`.execute(trx);
    });
    assert.equal(Number((await count()).n), 0);
    const written = await t.db.transaction().execute((trx) => backfillLedger(trx, 'operator:test'));
    assert.ok(written >= n, `${written} written`);
    // each run audited with what it wrote, the first (nothing written) and this one
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'action', 'data'])
      .where('entity', '=', 'ledger')
      .where('entity_id', '=', 'backfill')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audited.map((r) => ({ actor: r.actor, action: r.action, written: (r.data as { written: number }).written })),
      [
        { actor: 'operator:test', action: 'backfilled', written: 0 },
        { actor: 'operator:test', action: 'backfilled', written },
      ],
    );
    assert.equal(Number((await count()).n), n);
    assert.deepEqual(await partnerStatement(t.db, scope(), period()), before);
    assert.deepEqual(
      (await premiumBordereau(t.db, scope(), period())).rows.map((r) => ({ ...r })),
      beforeRows.map((r) => ({ ...r })),
    );
  });

  it('the claims bordereau gives each claim its status at the period’s end, not its status now', async () => {
    // the claims' status changes as the audit trail recorded them (entity claim: at, action)
    const trail = async (contractNumber: string) => {
      const { claim_number } = (await claimOf(contractNumber))!;
      const rows = await t.db
        .selectFrom('audit_log')
        .select(['at', 'action'])
        .where('entity', '=', 'claim')
        .where('entity_id', '=', claim_number)
        .orderBy('id')
        .execute();
      return { claimNumber: claim_number, at: (action: string) => rows.find((r) => r.action === action)!.at };
    };
    const asOf = async (to: Date) =>
      (await claimsBordereau(t.db, scope(), { from: period().from, to })).rows.map((r) => ({
        claim: r.claim_number,
        status: r.status,
        paidAt: r.paid_at,
        paidInPeriod: r.paid_in_period,
      }));
    const paidTrail = await trail(paid.contractNumber);
    const failedTrail = await trail(failed.contractNumber);
    const paidEntry = (await entriesOfContract(t.db, paid.contractNumber)).find((e) => e.kind === 'compensation_paid')!;
    const status = async (to: Date, claimNumber: string) => (await asOf(to)).find((r) => r.claim === claimNumber);

    // a period ending before the bank details came: awaiting them, not paid, whatever happened since
    assert.deepEqual(await status(paidTrail.at('bank_details_received'), paidTrail.claimNumber), {
      claim: paidTrail.claimNumber,
      status: 'awaiting_bank_details',
      paidAt: null,
      paidInPeriod: 0,
    });
    // ending before the bank's answer: payment pending, for the one paid and the one rejected alike
    assert.equal((await status(paidTrail.at('paid'), paidTrail.claimNumber))!.status, 'payment_pending');
    assert.equal((await status(failedTrail.at('payment_failed'), failedTrail.claimNumber))!.status, 'payment_pending');
    // the period of today: as they stand, paid at the ledger's payment
    const today = await asOf(period().to);
    assert.deepEqual(
      today.map((r) => [r.claim, r.status]),
      [
        [paidTrail.claimNumber, 'paid'],
        [failedTrail.claimNumber, 'failed'],
      ],
    );
    assert.deepEqual(today[0]!.paidAt, paidEntry.occurred_at);

    // the rejected claim expires later (its due date passed; the expiry dated by its clock): a
    // bordereau ending after it says expired, one that ended before reads as it did — produced
    // again, it does not change
    const before = await asOf(period().to);
    const expiredAt = new Date(Date.now() + 400 * 86_400_000);
    await expireClaims({ db: t.db, jobs: t.app.parasol.jobs, now: () => expiredAt });
    assert.deepEqual(
      (
        await t.db
          .selectFrom('audit_log')
          .select('at')
          .where('entity', '=', 'claims')
          .where('entity_id', '=', 'expiry')
          .executeTakeFirstOrThrow()
      ).at,
      expiredAt,
    );
    assert.deepEqual(await asOf(period().to), before);
    assert.deepEqual(await asOf(expiredAt), before);
    assert.deepEqual(
      (await asOf(new Date(expiredAt.getTime() + 1))).map((r) => [r.claim, r.status]),
      [
        [paidTrail.claimNumber, 'paid'],
        [failedTrail.claimNumber, 'expired'],
      ],
    );
    assert.equal((await claimOf(failed.contractNumber))!.status, 'expired');
  });
});
