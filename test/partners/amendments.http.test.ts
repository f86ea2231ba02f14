import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { amendAgreement, type AmendmentInput } from '../../src/partners/amendments.ts';
import { setConfiguration } from '../../src/partners/configuration.ts';
import { PartnerDirectory, termsAt } from '../../src/partners/directory.ts';
import { createUser } from '../../src/partners/users.ts';
import { DomainError } from '../../src/platform/errors.ts';
import { sealJson } from '../../src/platform/signed-token.ts';
import {
  buildTestApp,
  consent,
  createTestPartner,
  DEFAULT_AGREEMENT,
  DEFAULT_CONFIGURATION,
  FLIGHT,
  post,
  subscription,
  trip,
  uniqueSlug,
  type TestApp,
  type TestPartner,
} from '../helper.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';

/**
 * Amendable agreements (issue 14 §2): versions with effective dates, quotes priced under the version
 * in force at the (test) clock's instant, contracts keeping their version, configurations checked
 * against the version in force and warned about future ones, the history in both consoles.
 */

const DAY = 86_400_000;
const ADMIN = { email: 'ops-amendments@parasol.test', password: 'operator password 42' };
const PASSWORD = 'amendment test password';

describe('amendable agreements', () => {
  let t: TestApp;
  /** The app's clock: tests move it past an amendment's effective date and put it back. */
  let clock = new Date();
  before(async () => {
    t = await buildTestApp({
      now: () => clock,
      env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password },
    });
  });
  after(() => t.close());

  /** v2 of DEFAULT_AGREEMENT: 20 % tax instead of 9 %, commission at most 0.25 instead of 0.3. */
  const amendment = (effectiveAt: Date, changes: Partial<AmendmentInput> = {}): AmendmentInput => ({
    ...DEFAULT_AGREEMENT,
    taxRate: '0.2',
    commissionMax: '0.25',
    effectiveAt,
    reason: '2027 renewal',
    ...changes,
  });

  async function quoteAndSubscribe(partner: TestPartner, days: number) {
    const quoted = trip(days);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, quoted, partner.auth);
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const contract = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(quote.body.quoteReference, quoted, { consent: consent(1, clock) }),
      partner.auth,
    );
    assert.equal(contract.status, 201, JSON.stringify(contract.body));
    return { quote: quote.body, contract: contract.body };
  }

  const agreementVersionOf = async (contractNumber: string) =>
    (
      await t.db
        .selectFrom('contracts')
        .select('agreement_version')
        .where('contract_number', '=', contractNumber)
        .executeTakeFirstOrThrow()
    ).agreement_version;

  test('quotes before the effective date use version 1, after it version 2; a contract keeps its version', async (c) => {
    c.after(() => (clock = new Date()));
    const partner = await createTestPartner(t.db);
    const start = new Date();
    const effective = new Date(start.getTime() + 5 * DAY);
    const { agreement, violations } = await amendAgreement(t.db, 'operator:test', partner.id, amendment(effective));
    assert.equal(agreement.version, 2);
    assert.deepEqual(violations, [], 'commission 0.2 is within 0 – 0.25');

    clock = start;
    const before = await quoteAndSubscribe(partner, 30);
    assert.equal(before.quote.premium.tax.amount, Math.round(before.quote.premium.net.amount * 0.09));
    assert.equal(await agreementVersionOf(before.contract.contractNumber), 1);

    clock = new Date(effective.getTime() + 60_000);
    const afterwards = await quoteAndSubscribe(partner, 30);
    assert.equal(afterwards.quote.premium.tax.amount, Math.round(afterwards.quote.premium.net.amount * 0.2));
    assert.equal(await agreementVersionOf(afterwards.contract.contractNumber), 2);
    assert.equal(await agreementVersionOf(before.contract.contractNumber), 1, 'sold under v1, keeps v1');

    // a quote issued under v1 and subscribed once v2 is in force: the contract is v1's
    clock = new Date(effective.getTime() - 60_000);
    const quoted = trip(31);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, quoted, partner.auth);
    clock = new Date(effective.getTime() + 60_000);
    const late = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(quote.body.quoteReference, quoted, { consent: consent(1, clock) }),
      partner.auth,
    );
    assert.equal(late.status, 201, JSON.stringify(late.body));
    assert.equal(await agreementVersionOf(late.body.contractNumber), 1);
    assert.equal(late.body.agreementVersion, 1, 'the partner API shows it');
    assert.equal(afterwards.contract.agreementVersion, 2);
    const read = await t.app.inject({
      method: 'GET',
      url: `${FLIGHT}/contracts/${before.contract.contractNumber}`,
      headers: partner.auth,
    });
    assert.equal(read.json().agreementVersion, 1);

    // q3 terms signed before agreement versions (no version after the documents version): the
    // version in force when the quote was issued
    clock = new Date(effective.getTime() + 120_000);
    const older = trip(32);
    const fresh = await post(t.app, `${FLIGHT}/getPrice`, older, partner.auth);
    const [, terms, , id] = fresh.body.quoteReference.split('.');
    const decoded = JSON.parse(Buffer.from(terms, 'base64url').toString());
    assert.equal(decoded.length, 14);
    assert.equal(decoded[10], 2, 'the agreement version is signed after the documents version');
    decoded.splice(10, 2); // nor the legs' nets, signed with it since: the q3 terms of before

    const previous = `${sealJson(t.app.parasol.keys.quoteSigning, 'q3', JSON.stringify(decoded))}.${id}`;
    const fromPrevious = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(previous, older, { consent: consent(1, clock) }),
      partner.auth,
    );
    assert.equal(fromPrevious.status, 201, JSON.stringify(fromPrevious.body));
    assert.equal(fromPrevious.body.agreementVersion, 2);
  });

  test('the cached terms switch to an amendment at its effective instant, with no notification', async () => {
    const partner = await createTestPartner(t.db);
    const effective = new Date(Date.now() + 2 * DAY);
    await amendAgreement(t.db, 'operator:test', partner.id, amendment(effective));
    const directory = new PartnerDirectory(t.db, 3_600_000);
    const terms = await directory.partnerTerms(partner.id);
    assert.equal(directory.cachedTerms(partner.id), terms, 'cached for an hour');
    assert.equal(termsAt(terms, new Date(effective.getTime() - 1)).agreement?.version, 1);
    assert.equal(termsAt(terms, effective).agreement?.version, 2);
  });

  test('amendments: effective today or later, in order, same currency; versions are immutable', async () => {
    const partner = await createTestPartner(t.db);
    const now = new Date();
    const refused = async (input: AmendmentInput, field: string) => {
      await assert.rejects(amendAgreement(t.db, 'operator:test', partner.id, input, now), (e: unknown) => {
        assert.ok(e instanceof DomainError && e.code === 'validation_failed', String(e));
        assert.ok(
          e.extra.errors?.some((f) => f.field === field),
          JSON.stringify(e.extra.errors),
        );
        return true;
      });
    };
    await refused(amendment(new Date(now.getTime() - DAY)), '/effectiveAt');
    await refused(amendment(new Date(now.getTime() + DAY), { currency: 'USD' }), '/currency');
    await refused(amendment(new Date(now.getTime() + DAY), { reason: ' ' }), '/reason');
    await amendAgreement(t.db, 'operator:test', partner.id, amendment(new Date(now.getTime() + 3 * DAY)), now);
    await refused(amendment(new Date(now.getTime() + 2 * DAY)), '/effectiveAt');
    const draft = await createTestPartner(t.db, { signed: false });
    await assert.rejects(amendAgreement(t.db, 'operator:test', draft.id, amendment(new Date(now.getTime() + DAY))), {
      code: 'conflict',
    });
    await assert.rejects(
      t.db.updateTable('agreement_versions').set({ tax_rate: '0.5' }).where('partner_id', '=', partner.id).execute(),
      /immutable/,
    );
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'entity_id'])
      .where('partner_id', '=', partner.id)
      .where('entity', '=', 'agreement')
      .where('action', '=', 'amended')
      .execute();
    assert.deepEqual(audit, [{ action: 'amended', entity_id: `${partner.id}/2` }]);
  });

  test("an amendment's reason keeps no email address or phone number in clear", async () => {
    const partner = await createTestPartner(t.db);
    const now = new Date();
    await amendAgreement(
      t.db,
      'operator:test',
      partner.id,
      amendment(new Date(now.getTime() + DAY), { reason: 'Asked by jane.roe@partner.example (+33 1 23 45 67 89)' }),
      now,
    );
    const kept = 'Asked by [email] ([phone])';
    const version = await t.db
      .selectFrom('agreement_versions')
      .select('reason')
      .where('partner_id', '=', partner.id)
      .where('version', '=', 2)
      .executeTakeFirstOrThrow();
    assert.equal(version.reason, kept);
    const audited = await t.db
      .selectFrom('audit_log')
      .select('data')
      .where('partner_id', '=', partner.id)
      .where('action', '=', 'amended')
      .executeTakeFirstOrThrow();
    assert.equal((audited.data as { reason: string }).reason, kept);
  });

  test('configurations are checked against the version in force and warned about a future one', async (c) => {
    c.after(() => (clock = new Date()));
    const partner = await createTestPartner(t.db);
    const now = new Date();
    const effective = new Date(now.getTime() + 5 * DAY);
    // v2 narrows the commission to 0 – 0.25: the current configuration (0.2) fits; 0.3 fits v1 only
    await amendAgreement(t.db, 'operator:test', partner.id, amendment(effective), now);
    const saved = await setConfiguration(
      t.db,
      'operator:test',
      partner.id,
      { ...DEFAULT_CONFIGURATION, commissionRate: '0.3' },
      now,
    );
    assert.deepEqual(
      saved.warnings.map((w) => ({
        version: w.version,
        at: w.effectiveAt.toISOString(),
        fields: w.errors.map((e) => e.field),
      })),
      [{ version: 2, at: effective.toISOString(), fields: ['/commissionRate'] }],
    );
    t.app.parasol.directory.invalidate();

    clock = now;
    assert.equal((await post(t.app, `${FLIGHT}/getPrice`, trip(30), partner.auth)).status, 200, 'v1 allows 0.3');
    clock = new Date(effective.getTime() + 60_000);
    const refused = await post(t.app, `${FLIGHT}/getPrice`, trip(30), partner.auth);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'partner_not_configured');
    assert.match(refused.body.detail, /outside your agreement \(version 2/);
    assert.deepEqual(
      refused.body.errors.map((e: { field: string }) => e.field),
      ['/commissionRate'],
    );
    // once v2 is in force, 0.3 is refused and 0.25 saved without warning
    await assert.rejects(
      setConfiguration(t.db, 'operator:test', partner.id, { ...DEFAULT_CONFIGURATION, commissionRate: '0.3' }, clock),
      { code: 'configuration_out_of_bounds' },
    );
    const fixed = await setConfiguration(
      t.db,
      'operator:test',
      partner.id,
      { ...DEFAULT_CONFIGURATION, commissionRate: '0.25' },
      clock,
    );
    assert.deepEqual(fixed.warnings, []);
    t.app.parasol.directory.invalidate();
    assert.equal((await post(t.app, `${FLIGHT}/getPrice`, trip(30), partner.auth)).status, 200);
  });

  test('the operator console amends and shows the history; the partner console shows it read-only', async (c) => {
    c.after(() => (clock = new Date()));
    clock = new Date();
    const partner = await createTestPartner(t.db);
    const slug = (
      await t.db.selectFrom('partners').select('slug').where('id', '=', partner.id).executeTakeFirstOrThrow()
    ).slug;
    const operator = new Browser(t.app);
    assert.equal((await operator.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    const base = `/admin/partners/${slug}`;
    const page = await operator.get(base);
    assert.match(page.body, /<table id="agreement-history">/);
    assert.match(page.body, /<tr data-version="1"><td>1<\/td>/);
    assert.match(page.body, /<form method="post" action="[^"]+\/amend" id="amend-form"/);
    const csrf = csrfOf(page.body)!;
    const effective = new Date(clock.getTime() + 10 * DAY).toISOString().slice(0, 10);
    const form = new URLSearchParams({
      _csrf: csrf,
      revision: 'v1',
      currency: 'EUR',
      taxRate: '0.09',
      commissionMin: '0',
      commissionMax: '0.15',
      compensationMin: '10.00',
      compensationMax: '500.00',
      effectiveAt: effective,
      reason: 'Lower commission cap',
    });
    form.append('allowedFormulas', 'delay');
    form.append('allowedFormulas', 'delay_and_cancellation');
    const inject = (payload: URLSearchParams) =>
      t.app.inject({
        method: 'POST',
        url: `${base}/amend`,
        payload: payload.toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `psl_admin=${operator.cookies.get('psl_admin')}`,
        },
      });
    const without = new URLSearchParams(form);
    without.delete('_csrf');
    assert.equal((await inject(without)).statusCode, 403, 'CSRF-protected');
    const past = new URLSearchParams(form);
    past.set('effectiveAt', '2020-01-01');
    const refused = await inject(past);
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /never in the past/);
    assert.equal((await inject(form)).statusCode, 303);
    const amended = await operator.get(base);
    assert.match(amended.body, /<tr data-version="2"><td>2<\/td>/);
    assert.match(amended.body, /<span id="agreement-version">1<\/span>/, 'version 1 is still in force');
    assert.match(amended.body, /Scheduled/);
    assert.match(amended.body, /Lower commission cap/);
    assert.match(amended.body, /Highest commission: 30 % → 15 %/);
    assert.match(amended.body, /Formulas: Delay, Cancellation, Delay and cancellation → Delay, Delay and cancellation/);
    assert.match(amended.body, /data-warning-version="2"/, "the partner's commission 0.2 is above v2's 0.15");
    const audited = await t.db
      .selectFrom('audit_log')
      .select('actor')
      .where('partner_id', '=', partner.id)
      .where('action', '=', 'amended')
      .executeTakeFirstOrThrow();
    assert.equal(audited.actor, `operator:${ADMIN.email}`);

    // the partner console: the history, read-only, and the warning on the configuration page
    const email = `${uniqueSlug('amend')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const user = new Browser(t.app);
    assert.equal((await user.signIn(email, PASSWORD)).statusCode, 303);
    const console = await user.get('/console');
    assert.equal(console.statusCode, 200);
    assert.match(console.body, /<table id="agreement-history">/);
    assert.match(console.body, /<tr data-version="2"><td>2<\/td>/);
    assert.match(console.body, /Version 2 of the agreement, effective .*, does not allow this configuration/);
    assert.doesNotMatch(console.body, /amend-form/);
    assert.equal((await user.post(`/admin/partners/${slug}/amend`, { _csrf: csrf })).statusCode, 403);
    const french = await user.request('GET', '/console', undefined, { 'accept-language': 'fr' });
    assert.match(french.body, /Historique de la convention/);
    assert.match(french.body, /La version 2 de la convention, en vigueur le .*, n’autorise pas cette configuration/);
  });

  test('the contract page of the partner console shows the agreement version it was sold under', async () => {
    clock = new Date();
    const partner = await createTestPartner(t.db);
    const { contract } = await quoteAndSubscribe(partner, 25);
    const email = `${uniqueSlug('amend')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const user = new Browser(t.app);
    await user.signIn(email, PASSWORD);
    const page = await user.get(`/console/contracts/${contract.contractNumber}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<dd id="contract-agreement-version">1<\/dd>/);
  });
});
