import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { sql } from 'kysely';
import {
  backfillLedger,
  claimsBordereau,
  monthPeriod,
  partnerStatement,
  premiumBordereau,
  statementCsv,
  toCsv,
  toXlsx,
  type StatementLine,
} from '../../src/ledger/index.ts';
import { setConfiguration } from '../../src/partners/index.ts';
import { SIMULATED_BANK_REJECTED_IBAN } from '../../src/payouts/payouts.ts';
import { currencyExponent, toMinorUnits } from '../../src/platform/money.ts';
import {
  buildTestApp,
  consent,
  createTestPartner,
  CUSTOMER,
  DEFAULT_CONFIGURATION,
  eventually,
  FLIGHT,
  post,
  trip,
  type Reply,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * The books as the insurer's finance team and actuary read them, for ANY sequence (fast-check) of
 * sales, partial cancellations (a passenger, a leg), flight changes, whole cancellations, claims paid,
 * claims failed then paid on new details, commission changes between a quote and its subscription,
 * in EUR, JPY (no minor unit) and KWD (three decimals), with movements on both sides of a month
 * boundary — and every request sent twice (same Idempotency-Key), every flight event reported twice,
 * the backfill run again. Then, through the real routes and jobs only:
 * - per contract: premiums written − refunds = its premium (0 once cancelled), its commission and tax
 *   likewise, the refunds the API answered = the ledger's refunds, the commission and tax of the rates
 *   of the configuration and agreement versions it was sold under (not those set since);
 * - per claim: compensation paid in the ledger = the payouts paid = the paid claims' compensation;
 * - per partner and month: the statement = the premium bordereau's columns = the claims bordereau's
 *   payments, as rows, CSV and XLSX, in the currency's own decimals; the months add up to the ledger.
 */

const CURRENCIES = ['EUR', 'JPY', 'KWD'] as const;
type Currency = (typeof CURRENCIES)[number];
const RATES = ['0.1', '0.2', '0.3'] as const;

type Op =
  | { kind: 'cancel_passenger' }
  | { kind: 'cancel_return' }
  | { kind: 'change_outbound'; time: '06:15' | '21:40' }
  | { kind: 'change_both'; time: '06:15' | '21:40' }
  | { kind: 'cancel' }
  | { kind: 'claim'; rejectFirst: boolean };

interface Plan {
  currency: Currency;
  passengers: number;
  returnTrip: boolean;
  /** A commission set between the quote and the subscription (null: none). */
  rateChangeAfterQuote: (typeof RATES)[number] | null;
  /** When the contract's later movements happen: now, or just across the next month's start. */
  later: 'now' | 'month_end' | 'month_start' | 'next_month';
  ops: Op[];
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'cancel_passenger' }),
  fc.constant<Op>({ kind: 'cancel_return' }),
  fc.constantFrom<Op>({ kind: 'change_outbound', time: '06:15' }, { kind: 'change_outbound', time: '21:40' }),
  // both legs at once: one dearer, the other cheaper — the tax may move against the total
  fc.constantFrom<Op>({ kind: 'change_both', time: '06:15' }, { kind: 'change_both', time: '21:40' }),
  fc.constant<Op>({ kind: 'cancel' }),
  fc.boolean().map<Op>((rejectFirst) => ({ kind: 'claim', rejectFirst })),
);
const planArb: fc.Arbitrary<Plan> = fc.record({
  currency: fc.constantFrom(...CURRENCIES),
  passengers: fc.integer({ min: 1, max: 3 }),
  returnTrip: fc.boolean(),
  rateChangeAfterQuote: fc.option(fc.constantFrom(...RATES), { nil: null }),
  later: fc.constantFrom<Plan['later']>('now', 'month_end', 'month_start', 'next_month'),
  ops: fc.array(opArb, { maxLength: 4 }),
});

const halfUp = (n: number, rate: string) =>
  Number(new Decimal(n).times(rate).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toString());

describe('the books hold together for any sequence of sales, changes, cancellations and claims', () => {
  let t: TestApp;
  let clock = new Date();
  const partners = new Map<Currency, TestPartner>();
  /** The API's own figures, per contract number: what it said it charged and refunded. */
  const told = new Map<string, { charged: number; refunded: number; cancelled: boolean }>();
  const failedAttempts = new Map<string, number>();
  let seq = 4000 + (process.pid % 2000) * 3;
  const nextMonth = (() => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  })();

  before(async () => {
    t = await buildTestApp({ now: () => clock, env: { PARASOL_JOB_POLL_SECONDS: '1' } });
    for (const currency of CURRENCIES)
      partners.set(
        currency,
        await createTestPartner(t.db, {
          agreement: { currency, taxRate: currency === 'JPY' ? '0.1' : currency === 'KWD' ? '0.05' : '0.09' },
        }),
      );
  });
  after(() => t.close());

  /** Every write is sent twice with its Idempotency-Key: the second answers the same and writes nothing. */
  async function twice(url: string, body: object, who: TestPartner): Promise<Reply> {
    const key = `books-${seq++}-${Math.random().toString(36).slice(2)}`;
    const headers = { ...who.auth, 'idempotency-key': key };
    const entries = async () =>
      Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM ledger_entries`.execute(t.db)).rows[0]!.n);
    const first = await post(t.app, url, body, headers);
    const written = await entries();
    const again = await post(t.app, url, body, headers);
    assert.equal(again.status, first.status, `${url} replayed`);
    // a refusal is not stored (it runs again): the same problem, under its own request id
    const { requestId: _a, ...replayed } = again.body as Record<string, unknown>;
    const { requestId: _b, ...original } = first.body as Record<string, unknown>;
    assert.deepEqual(replayed, original, `${url} replayed`);
    assert.equal(await entries(), written, `${url} replayed wrote no entry`);
    return first;
  }

  async function sell(plan: Plan) {
    const partner = partners.get(plan.currency)!;
    clock = new Date();
    const outbound = `AF${seq++}`;
    const inbound = `AF${seq++}`;
    const quoted = trip(45, { returnTrip: plan.returnTrip, additionalPassengers: plan.passengers - 1 });
    const quote = await post(t.app, `${FLIGHT}/getPrice`, quoted, partner.auth);
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    if (plan.rateChangeAfterQuote)
      await setConfiguration(t.db, 'operator:test', partner.id, {
        ...DEFAULT_CONFIGURATION,
        commissionRate: plan.rateChangeAfterQuote,
      });
    const flights = [
      {
        flightNumber: outbound,
        departureAirport: 'CDG',
        arrivalAirport: 'JFK',
        departureDateTime: quoted.departureDateTime,
      },
    ];
    if (quoted.returnDepartureDateTime)
      flights.push({
        flightNumber: inbound,
        departureAirport: 'JFK',
        arrivalAirport: 'CDG',
        departureDateTime: quoted.returnDepartureDateTime,
      });
    const sold = await twice(
      `${FLIGHT}/subscribe`,
      {
        quoteReference: quote.body.quoteReference,
        customer: { ...CUSTOMER, language: 'en' },
        booking: { reference: 'PNR123' },
        flights,
        consent: consent(quote.body.documents.version),
      },
      partner,
    );
    assert.equal(sold.status, 201, JSON.stringify(sold.body));
    assert.equal(sold.body.premium.total.currency, plan.currency);
    assert.deepEqual(sold.body.premium, quote.body.premium, 'the quoted premium, whatever the commission set since');
    const contractNumber = sold.body.contractNumber as string;
    told.set(contractNumber, { charged: sold.body.premium.total.amount, refunded: 0, cancelled: false });
    return {
      partner,
      contractNumber,
      outbound,
      departureDate: quoted.departureDateTime.slice(0, 10),
      returnDate: (quoted.returnDepartureDateTime ?? quoted.departureDateTime).slice(0, 10),
    };
  }

  async function claim(
    partner: TestPartner,
    contractNumber: string,
    flightNumber: string,
    date: string,
    reject: boolean,
    currency: Currency,
  ) {
    const event = { flightNumber, departureDate: date, status: 'cancelled' };
    const opened = await post(t.app, `${FLIGHT}/claims`, event, partner.auth);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    // the same event again (a duplicate from the provider): no second claim
    const again = await post(t.app, `${FLIGHT}/claims`, event, partner.auth);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.claimsOpened, []);
    if (opened.body.claimsOpened.length === 0) return; // nothing left to claim (the leg or contract left)
    const links = async (n: number) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`,
        headers: partner.auth,
      });
      const messages = (JSON.parse(res.body) as { messages: { link: string | null }[] }).messages.filter((m) => m.link);
      return messages.length >= n ? messages.map((m) => m.link!) : undefined;
    };
    const give = async (link: string, iban: string) => {
      const { pathname, search } = new URL(link);
      const url = pathname + search;
      assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 200);
      const sent = await t.app.inject({
        method: 'POST',
        url,
        // the bank's BIC only for a claim in another currency than EUR (JPY, KWD…), which the form
        // requires for a cross-border transfer; a euro claim to an EEA IBAN goes without one
        payload: new URLSearchParams({
          accountHolder: 'Camille Martin',
          iban,
          bic: currency === 'EUR' ? '' : iban.startsWith('NL') ? 'ABNANL2A' : 'COBADEFFXXX',
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(sent.statusCode, 200, sent.body);
    };
    const status = async (wanted: string) =>
      eventually(async () => {
        const row = await t.db
          .selectFrom('claims as cl')
          .innerJoin('contracts as c', 'c.id', 'cl.contract_id')
          .select('cl.status')
          .where('c.contract_number', '=', contractNumber)
          .executeTakeFirst();
        return row?.status === wanted ? true : undefined;
      });
    const [first] = (await eventually(() => links(1)))!;
    if (reject) {
      await give(first!, SIMULATED_BANK_REJECTED_IBAN);
      await status('failed');
      failedAttempts.set(contractNumber, (failedAttempts.get(contractNumber) ?? 0) + 1);
      const all = (await eventually(() => links(2)))!;
      // the new link (the clock stands still: both messages may bear the same instant)
      await give(
        all.find((l) => l !== first)!,
        'DE89 3704 0044 0532 0130 00',
      );
    } else {
      await give(first!, 'DE89 3704 0044 0532 0130 00');
    }
    await status('paid');
  }

  async function play(plan: Plan) {
    const { partner, contractNumber, outbound, departureDate, returnDate } = await sell(plan);
    const base = `${FLIGHT}/contracts/${contractNumber}`;
    clock = {
      now: new Date(),
      month_end: new Date(Math.max(Date.now(), nextMonth.getTime() - 1)),
      month_start: new Date(Math.max(Date.now(), nextMonth.getTime())),
      next_month: new Date(Math.max(Date.now(), nextMonth.getTime() + 2 * 86_400_000)),
    }[plan.later];
    const money = told.get(contractNumber)!;
    for (const op of plan.ops) {
      if (op.kind === 'cancel_passenger' || op.kind === 'cancel_return') {
        const res = await twice(
          `${base}/partial-cancellation`,
          { ...(op.kind === 'cancel_passenger' ? { passengers: 1 } : { leg: 1 }), reason: 'customer_request' },
          partner,
        );
        if (res.status === 200) money.refunded += res.body.refund.amount;
        else assert.ok([409, 422].includes(res.status), JSON.stringify(res.body));
      } else if (op.kind === 'change_outbound' || op.kind === 'change_both') {
        const flights = [
          {
            leg: 0,
            flightNumber: `AF${seq++}`,
            departureAirport: 'CDG',
            arrivalAirport: 'JFK',
            departureDateTime: `${departureDate}T${op.time}`,
          },
        ];
        if (op.kind === 'change_both')
          flights.push({
            leg: 1,
            flightNumber: `AF${seq++}`,
            departureAirport: 'JFK',
            arrivalAirport: 'CDG',
            departureDateTime: `${returnDate}T${op.time === '06:15' ? '21:40' : '06:15'}`,
          });
        const preview = await post(t.app, `${base}/flight-change/preview`, { flights }, partner.auth);
        if (preview.status !== 200) {
          assert.ok([409, 422].includes(preview.status), JSON.stringify(preview.body));
          continue;
        }
        const res = await twice(`${base}/flight-change`, { changeReference: preview.body.changeReference }, partner);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const difference = res.body.difference.amount as number;
        if (difference > 0) money.charged += difference;
        else money.refunded -= difference;
      } else if (op.kind === 'cancel') {
        const res = await twice(`${FLIGHT}/cancel`, { contractNumber, reason: 'customer_request' }, partner);
        // cancelling a cancelled contract answers the first cancellation again, refunding nothing more
        if (res.status === 200 && !money.cancelled) money.refunded += res.body.refund.amount;
        if (res.status === 200) money.cancelled = true;
        else assert.equal(res.status, 409, JSON.stringify(res.body));
      } else {
        const legs = await t.db
          .selectFrom('contract_legs as l')
          .innerJoin('contracts as c', 'c.id', 'l.contract_id')
          .select(['l.flight_number'])
          .where('c.contract_number', '=', contractNumber)
          .where('l.leg_index', '=', 0)
          .executeTakeFirst();
        await claim(
          partner,
          contractNumber,
          legs?.flight_number ?? outbound,
          departureDate,
          op.rejectFirst,
          plan.currency,
        );
      }
    }
  }

  /** Per contract: the ledger against the contract, the API's answers, the terms it was sold under, the payouts. */
  async function checkContracts() {
    const rows = await sql<{
      contract_number: string;
      status: string;
      currency: string;
      passengers: number;
      premium_net: number;
      premium_tax: number;
      premium_commission: number;
      premium_total: number;
      written: number;
      refund: number;
      commission: number;
      tax: number;
      tax_refunded: number;
      compensation_paid: number;
      payouts_failed: number;
      payouts_paid: number;
      claims_paid: number;
      sale_rate: string;
      sale_tax_rate: string;
      legs_total: number;
    }>`
      SELECT c.contract_number, c.status, c.currency, c.passengers, c.premium_net, c.premium_tax, c.premium_commission, c.premium_total,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'premium_written'), 0)::bigint AS written,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'refund'), 0)::bigint AS refund,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'commission'), 0)::bigint AS commission,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'tax'), 0)::bigint AS tax,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'tax_refunded'), 0)::bigint AS tax_refunded,
             coalesce(sum(le.amount) FILTER (WHERE le.kind = 'compensation_paid'), 0)::bigint AS compensation_paid,
             count(le.id) FILTER (WHERE le.kind = 'payout_failed')::int AS payouts_failed,
             (SELECT coalesce(sum(p.amount), 0)::bigint FROM payouts p JOIN claims cl ON cl.id = p.claim_id
               WHERE cl.contract_id = c.id AND p.status = 'paid') AS payouts_paid,
             (SELECT coalesce(sum(cl.compensation_amount), 0)::bigint FROM claims cl
               WHERE cl.contract_id = c.id AND cl.status = 'paid') AS claims_paid,
             (SELECT pc.commission_rate FROM partner_configurations pc
               WHERE pc.partner_id = c.partner_id AND pc.version = c.configuration_version) AS sale_rate,
             (SELECT av.tax_rate FROM agreement_versions av
               WHERE av.partner_id = c.partner_id AND av.version = c.agreement_version) AS sale_tax_rate,
             (SELECT coalesce(sum(l.share_net + l.share_tax), 0)::bigint * c.passengers FROM contract_legs l
               WHERE l.contract_id = c.id) AS legs_total
      FROM contracts c LEFT JOIN ledger_entries le ON le.contract_id = c.id
      WHERE c.partner_id IN (${sql.join([...partners.values()].map((p) => p.id))})
      GROUP BY c.id`
      .execute(t.db)
      .then((r) => r.rows);
    assert.equal(rows.length, told.size);
    for (const c of rows) {
      const at = `contract ${c.contract_number} (${c.status}, ${c.currency})`;
      const live = c.status !== 'cancelled';
      // premiums written − refunds = the premium; the commission and the tax net of refunds likewise
      assert.equal(c.written + c.tax - c.refund, live ? c.premium_total : 0, `${at}: premium`);
      assert.equal(c.commission, live ? c.premium_commission : 0, `${at}: commission`);
      assert.equal(c.tax - c.tax_refunded, live ? c.premium_tax : 0, `${at}: tax`);
      assert.equal(c.premium_total, c.premium_net + c.premium_tax, `${at}: total = net + tax`);
      if (live) assert.equal(c.legs_total, c.premium_total, `${at}: the legs' shares × passengers`);
      // what the API answered: charged (sale, dearer changes) and refunded (every refund)
      const api = told.get(c.contract_number)!;
      assert.equal(c.written + c.tax, api.charged, `${at}: charged as answered`);
      assert.equal(c.refund, api.refunded, `${at}: refunded as answered`);
      // paid claims = payouts paid = compensation paid in the ledger; one failed attempt per rejection
      assert.equal(c.compensation_paid, c.payouts_paid, `${at}: payouts paid`);
      assert.equal(c.compensation_paid, c.claims_paid, `${at}: claims paid`);
      assert.equal(c.payouts_failed, failedAttempts.get(c.contract_number) ?? 0, `${at}: failed attempts`);
      // the terms of the sale: commission and tax of the configuration and agreement versions it was sold under
      const versions = await t.db
        .selectFrom('contract_versions as v')
        .innerJoin('contracts as c', 'c.id', 'v.contract_id')
        .select(['v.version', 'v.flights'])
        .where('c.contract_number', '=', c.contract_number)
        .orderBy('v.version')
        .execute();
      const soldLegs = versions.length
        ? versions[0]!.flights.map((f) => f.share)
        : (
            await t.db
              .selectFrom('contract_legs as l')
              .innerJoin('contracts as c', 'c.id', 'l.contract_id')
              .select(['l.share_net as net', 'l.share_commission as commission', 'l.share_tax as tax'])
              .where('c.contract_number', '=', c.contract_number)
              .execute()
          ).map((l) => ({ net: Number(l.net), commission: Number(l.commission), tax: Number(l.tax) }));
      const perPassenger = (f: (s: { net: number; commission: number; tax: number }) => number) =>
        soldLegs.reduce((n, s) => n + f(s), 0);
      assert.equal(
        perPassenger((s) => s.commission),
        perPassenger((s) => halfUp(s.net, c.sale_rate)),
        `${at}: the sale's commission at ${c.sale_rate}`,
      );
      assert.equal(
        perPassenger((s) => s.tax),
        perPassenger((s) => halfUp(s.net, c.sale_tax_rate)),
        `${at}: the sale's tax at ${c.sale_tax_rate}`,
      );
      // a flight changed since: priced at the same rates, whatever the partner set meanwhile
      for (const v of versions.slice(1)) {
        const previous = versions[versions.indexOf(v) - 1]!.flights;
        for (const f of v.flights) {
          if (previous.some((p) => p.flightNumber === f.flightNumber)) continue;
          assert.equal(f.share.commission, halfUp(f.share.net, c.sale_rate), `${at}: ${f.flightNumber} commission`);
          assert.equal(f.share.tax, halfUp(f.share.net, c.sale_tax_rate), `${at}: ${f.flightNumber} tax`);
        }
      }
    }
  }

  /** Per partner and month: statement = premium bordereau = claims bordereau, rows and files; months add up. */
  async function checkReports() {
    const months = [new Date(), nextMonth].map((d) => d.toISOString().slice(0, 7));
    for (const [currency, partner] of partners) {
      const scope = { partnerId: partner.id, environment: 'sandbox' as const };
      const byMonth: StatementLine[] = [];
      for (const month of [...new Set(months)]) {
        const period = monthPeriod(month);
        const statement = await partnerStatement(t.db, scope, period);
        const premium = await premiumBordereau(t.db, scope, period);
        const claims = await claimsBordereau(t.db, scope, period);
        assert.ok(statement.lines.every((l) => l.currency === currency));
        const line = statement.lines[0];
        const sum = <R>(rows: R[], f: (r: R) => number) => rows.reduce((n, r) => n + f(r), 0);
        const at = `${currency} ${month}`;
        assert.equal(
          sum(premium.rows, (r) => r.premium_net),
          line?.premiumNet ?? 0,
          `${at}: net`,
        );
        assert.equal(
          sum(premium.rows, (r) => r.premium_tax),
          line?.premiumTax ?? 0,
          `${at}: tax`,
        );
        assert.equal(
          sum(premium.rows, (r) => r.commission),
          line?.commission ?? 0,
          `${at}: commission`,
        );
        assert.equal(
          sum(premium.rows, (r) => r.refund),
          line?.refunds ?? 0,
          `${at}: refunds`,
        );
        assert.equal(
          sum(premium.rows, (r) => r.tax_refunded),
          line?.taxRefunded ?? 0,
          `${at}: tax refunded`,
        );
        assert.equal(
          sum(claims.rows, (r) => r.paid_in_period),
          line?.compensationPaid ?? 0,
          `${at}: paid`,
        );
        if (line) {
          assert.equal(line.amountDue, line.premiumCollected - line.commission - line.refunds);
          assert.equal(line.taxNetOfRefunds, line.premiumTax - line.taxRefunded);
          byMonth.push(line);
        }
        // every row's movement in its month (the months adding up to the ledger, below: none twice)
        for (const r of premium.rows)
          assert.ok(
            r.occurred_at >= period.from && r.occurred_at < period.to,
            `${at}: ${r.contract_number} in its month`,
          );
        // the files: exact decimals in the currency's own minor unit
        const exponent = currencyExponent(currency);
        const minor = (text: string) =>
          text.startsWith('-') ? -toMinorUnits(text.slice(1), currency) : toMinorUnits(text, currency);
        const csv = (buffer: Buffer) => {
          const [header, ...lines] = buffer.toString('utf8').trimEnd().split('\r\n');
          const names = header!.split(',');
          return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i]!, v])));
        };
        const premiumCsv = csv(toCsv(premium.columns, premium.rows));
        for (const r of premiumCsv)
          for (const column of ['premium_net', 'premium_tax', 'commission', 'refund', 'tax_refunded'])
            assert.match(r[column]!, exponent ? new RegExp(`^-?\\d+\\.\\d{${exponent}}$`) : /^-?\d+$/);
        const column = (rows: Record<string, string>[], name: string) => sum(rows, (r) => minor(r[name]!));
        assert.equal(
          column(premiumCsv, 'premium_net') + column(premiumCsv, 'premium_tax'),
          line?.premiumCollected ?? 0,
        );
        assert.equal(column(premiumCsv, 'refund'), line?.refunds ?? 0);
        if (line) {
          const [statementRow] = csv(statementCsv(statement));
          assert.equal(minor(statementRow!.amount_due!), line.amountDue, `${at}: CSV amount due`);
          assert.equal(minor(statementRow!.tax_net_of_refunds!), line.taxNetOfRefunds);
        }
        const book = new ExcelJS.Workbook();
        await book.xlsx.load((await toXlsx(premium)) as unknown as ExcelJS.Buffer);
        const sheet = book.worksheets[0]!;
        const names = (sheet.getRow(1).values as unknown[]).slice(1);
        let xlsxRefund = 0;
        for (let i = 2; i <= sheet.rowCount; i++)
          xlsxRefund += toMinorUnits(
            new Decimal(Number(sheet.getRow(i).getCell(names.indexOf('refund') + 1).value)).toFixed(exponent),
            currency,
          );
        assert.equal(xlsxRefund, line?.refunds ?? 0, `${at}: XLSX refunds`);
      }
      // the months add up to the whole ledger of the partner: nothing lost or counted twice at a boundary
      const all = await sql<{ kind: string; amount: number }>`
        SELECT kind, sum(amount)::bigint AS amount FROM ledger_entries
        WHERE partner_id = ${partner.id} GROUP BY kind`.execute(t.db);
      const total = (kind: string) => Number(all.rows.find((r) => r.kind === kind)?.amount ?? 0);
      const months2 = (f: (l: StatementLine) => number) => byMonth.reduce((n, l) => n + f(l), 0);
      assert.equal(
        months2((l) => l.premiumNet),
        total('premium_written'),
        `${currency}: net over the months`,
      );
      assert.equal(
        months2((l) => l.refunds),
        total('refund'),
        `${currency}: refunds over the months`,
      );
      assert.equal(
        months2((l) => l.commission),
        total('commission'),
        `${currency}: commission over the months`,
      );
      assert.equal(
        months2((l) => l.compensationPaid),
        total('compensation_paid'),
        `${currency}: paid over the months`,
      );
    }
  }

  it('for any sequence, the ledger, the contracts, the payouts and every report agree to the minor unit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(planArb, { minLength: 1, maxLength: 3 }), async (plans) => {
        for (const plan of plans) await play(plan);
        await checkContracts();
      }),
      {
        numRuns: Number(process.env.BOOKS_RUNS ?? 5),
        // always played besides the random ones: a commission raised between the quote and the sale, then a
        // flight change (priced at the sale's rate); a contract moved on both sides of a month boundary
        examples: [
          [
            [
              {
                currency: 'EUR',
                passengers: 2,
                returnTrip: true,
                rateChangeAfterQuote: '0.3',
                later: 'now',
                ops: [
                  { kind: 'change_outbound', time: '06:15' },
                  { kind: 'change_both', time: '21:40' },
                  { kind: 'cancel_passenger' },
                ],
              },
              {
                currency: 'JPY',
                passengers: 3,
                returnTrip: true,
                rateChangeAfterQuote: '0.1',
                later: 'month_end',
                ops: [{ kind: 'cancel_return' }, { kind: 'change_outbound', time: '21:40' }, { kind: 'cancel' }],
              },
              {
                currency: 'KWD',
                passengers: 2,
                returnTrip: false,
                rateChangeAfterQuote: null,
                later: 'month_start',
                ops: [{ kind: 'cancel_passenger' }, { kind: 'claim', rejectFirst: true }, { kind: 'cancel' }],
              },
            ],
          ],
        ],
        ...(process.env.BOOKS_SEED ? { seed: Number(process.env.BOOKS_SEED) } : {}),
        // a run moves the app's money for good: a failure is reported as found, not shrunk on a changed database
        endOnFailure: true,
        includeErrorInReport: true,
      },
    );
    // the backfill finds every entry already written: it writes nothing
    const written = await t.db.transaction().execute((trx) => backfillLedger(trx, 'operator:test'));
    assert.equal(written, 0);
    await checkContracts();
    await checkReports();
  });
});
