import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  allPages,
  buildTestApp,
  createTestPartner,
  FLIGHT,
  HOLDER,
  insureFlight,
  post,
  usingPostgres,
  type InsuredFlight,
  type TestApp,
  type TestPartner,
  POLICY_ADMIN,
} from '../helper.ts';

/**
 * An oldest-first list is keyset-paginated on (opened_at, id), opened_at being the start of the
 * transaction that wrote the row. A transaction that started before a page was read but commits after
 * it writes a row that sorts before that page's cursor: without a bound, a traversal already past it
 * never sees it. Two connections are needed (PostgreSQL): one holds the early transaction open.
 */
describe('POST /getclaims — a claim committed late by an early transaction', { skip: !usingPostgres }, () => {
  let t: TestApp;
  let a: TestPartner;
  let held: pg.Client;
  const flights: InsuredFlight[] = [];
  before(async () => {
    t = await buildTestApp();
    a = await createTestPartner(t.db);
    for (const n of ['AF6101', 'AF6102', 'AF6103', 'AF6104'])
      flights.push(await insureFlight(t.app, a, { flightNumber: n }));
    held = new pg.Client({ connectionString: t.database.url });
    await held.connect();
  });
  after(async () => {
    await held.end();
    await t.close();
  });

  const openClaim = async (f: InsuredFlight) => {
    const res = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: f.flightNumber, departureDate: f.departureDate, status: 'cancelled' },
      a.auth,
    );
    assert.equal(res.body.claimsOpened?.length, 1, JSON.stringify(res.body));
  };
  const page = async (cursor?: string) => {
    const res = await post(
      t.app,
      `${FLIGHT}/getclaims`,
      { fromDate: day(-1), toDate: day(1), limit: 1, ...(cursor ? { cursor } : {}) },
      a.auth,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { claims: { contractNumber: string }[]; nextCursor: string | null };
  };

  it('is seen by a traversal that had passed its opening time', async () => {
    const [first, late, third, fourth] = flights as [InsuredFlight, InsuredFlight, InsuredFlight, InsuredFlight];
    await openClaim(first);
    // the early transaction: it starts now (its now() is the claim's opened_at) and commits later
    await held.query('BEGIN');
    await held.query(
      `INSERT INTO claims (claim_number, partner_id, environment, contract_id, leg_id, reason, event, status,
                           delay_minutes, compensation_amount, currency, evidence)
       SELECT 'CLLATE' || substr(md5(random()::text), 1, 8), c.partner_id, c.environment, k.id, l.id,
              c.reason, c.event, c.status, c.delay_minutes, c.compensation_amount, c.currency, c.evidence
       FROM claims c, contracts k JOIN contract_legs l ON l.contract_id = k.id
       WHERE c.partner_id = $1 AND k.contract_number = $2`,
      [a.id, late.contractNumber],
    );
    await openClaim(third);
    await openClaim(fourth);

    const seen: string[] = [];
    let body = await page();
    seen.push(...body.claims.map((c) => c.contractNumber));
    assert.ok(body.nextCursor, 'four claims, pages of one: more to read');
    body = await page(body.nextCursor);
    seen.push(...body.claims.map((c) => c.contractNumber));
    assert.ok(body.nextCursor, 'the claim held open may still come: the traversal is not over');
    await held.query('COMMIT');
    const rest = await allPages(
      'the rest of the claims',
      async (cursor) => {
        const next = await page(cursor);
        return { rows: next.claims.map((c) => c.contractNumber), nextCursor: next.nextCursor };
      },
      { from: body.nextCursor },
    );
    seen.push(...rest);
    assert.deepEqual(
      seen,
      [first, late, third, fourth].map((f) => f.contractNumber),
      'each claim once, oldest first',
    );
  });
});

describe('GET /policies — a policy committed late by an early transaction', { skip: !usingPostgres }, () => {
  let t: TestApp;
  let a: TestPartner;
  let held: pg.Client;
  before(async () => {
    t = await buildTestApp();
    a = await createTestPartner(t.db, { apis: ['policy-admin'] });
    held = new pg.Client({ connectionString: t.database.url });
    await held.connect();
  });
  after(async () => {
    await held.end();
    await t.close();
  });

  let n = 0;
  const createPolicy = async () => {
    const res = await post(
      t.app,
      `${POLICY_ADMIN}/policies`,
      {
        product: 'other',
        externalReference: `LATE-${process.pid}-${++n}`,
        policyholder: HOLDER,
        effectiveDate: day(1),
        expiryDate: day(366),
        premium: { amount: 1_000, currency: 'EUR', frequency: 'annual' },
        risk: { note: 'any' },
      },
      a.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.policyNumber as string;
  };
  const page = async (cursor?: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${POLICY_ADMIN}/policies?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      headers: a.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { policies: { policyNumber: string }[]; nextCursor: string | null };
  };

  it('is seen by a traversal that had passed its creation time', async () => {
    const first = await createPolicy();
    await held.query('BEGIN');
    // a copy of the first under another number and reference, written by the early transaction
    const columns = (
      await held.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns
         WHERE table_name = 'policies' AND column_name NOT IN ('id', 'policy_number', 'external_reference', 'created_at', 'updated_at')`,
      )
    ).rows.map((r) => r.column_name);
    const { rows } = await held.query<{ policy_number: string }>(
      `INSERT INTO policies (policy_number, external_reference, ${columns.join(', ')})
       SELECT 'PA-LATE-' || substr(md5(random()::text), 1, 4), external_reference || '-late', ${columns.join(', ')}
       FROM policies WHERE policy_number = $1
       RETURNING policy_number`,
      [first],
    );
    const late = rows[0]!.policy_number;
    const third = await createPolicy();
    const fourth = await createPolicy();

    const seen: string[] = [];
    let body = await page();
    seen.push(...body.policies.map((p) => p.policyNumber));
    assert.ok(body.nextCursor, 'four policies, pages of one: more to read');
    body = await page(body.nextCursor);
    seen.push(...body.policies.map((p) => p.policyNumber));
    assert.ok(body.nextCursor, 'the policy held open may still come: the traversal is not over');
    await held.query('COMMIT');
    const rest = await allPages(
      'the rest of the policies',
      async (cursor) => {
        const next = await page(cursor);
        return { rows: next.policies.map((p) => p.policyNumber), nextCursor: next.nextCursor };
      },
      { from: body.nextCursor },
    );
    seen.push(...rest);
    assert.deepEqual(seen, [first, late, third, fourth], 'each policy once, oldest first');
  });
});

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
