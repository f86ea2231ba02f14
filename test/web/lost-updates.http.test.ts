import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as repo from '../../src/partners/partners-repo.ts';
import { createPartner } from '../../src/partners/partners.ts';
import { createUser } from '../../src/partners/users.ts';
import { buildTestApp, createTestPartner, uniqueSlug, type TestApp } from '../helper.ts';
import { amendmentForm, revisionOf } from './agreement-forms.ts';
import { Browser, csrfOf } from './inject-browser.ts';

/**
 * The consoles' forms against lost updates (the configuration, the operator's agreement and amendment),
 * and the operator's compensation bounds in major units of the currency.
 */

const ADMIN = { email: 'ops-lost-updates@parasol.test', password: 'operator password 42' };
const PASSWORD = 'lost updates password';

const versionOf = (body: string) => /name="version" value="(\d+)"/.exec(body)?.[1];

describe('consoles: a save from a version another save replaced is refused, what was typed kept', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password } });
  });
  after(() => t.close());

  async function partnerTabs() {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('tabs')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
    return { partner, browser, email };
  }

  const configurationForm = (page: string, commission: string) => ({
    _csrf: csrfOf(page)!,
    version: versionOf(page)!,
    formula: 'delay_and_cancellation',
    tier_minutes_0: '120',
    tier_amount_0: '50',
    cancellation: '150',
    commission,
  });

  async function operator() {
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    return browser;
  }

  test('two tabs save the configuration from version 1: the first is version 2, the second is refused, its entries kept', async () => {
    const { partner, browser, email } = await partnerTabs();
    const tab1 = (await browser.get('/console')).body;
    const tab2 = (await browser.get('/console')).body;
    assert.equal(versionOf(tab1), '1');
    const first = await browser.post('/console', configurationForm(tab1, '25'));
    assert.equal(first.statusCode, 303);
    assert.equal(first.headers.location, '/console?saved=2');
    const second = await browser.post('/console', configurationForm(tab2, '12.5'));
    assert.equal(second.statusCode, 409);
    assert.match(second.body, /id="configuration-changed"/);
    assert.match(
      second.body,
      new RegExp(
        `Nothing was saved: ${email.replace('.', '\\.')} saved version 2 of the configuration on .*, after this form was opened on version 1\\.`,
      ),
    );
    assert.match(
      second.body,
      /What changed since version 1:<\/p><ul><li>Delay tiers: 120 min → €50\.00 \(was 120 min → €50\.00 · 180 min → €100\.00\)<\/li><li>Commission rate \(%\): 25 % \(was 20 %\)<\/li><\/ul>/,
    );
    assert.match(second.body, /<a href="\/console">Reload the page to see the current version<\/a>/);
    assert.match(second.body, /id="f-commission" name="commission" value="12\.5"/, 'what the user typed is kept');
    // the page has told who saved version 2, when and what changed: the form now carries version 2
    assert.match(second.body, /name="version" value="2"/, 'the refused form carries the version it showed');
    assert.deepEqual(
      (await repo.listConfigurations(t.db, partner.id)).map((c) => [c.version, c.commissionRate]),
      [
        [2, '0.25'],
        [1, '0.2'],
      ],
      'the first save kept, nothing written by the second',
    );
    // another save meanwhile (a third tab): saving the kept entries again is caught again, now from version 2
    const tab3 = (await browser.get('/console')).body;
    assert.equal((await browser.post('/console', configurationForm(tab3, '30'))).headers.location, '/console?saved=3');
    const again = await browser.post('/console', configurationForm(second.body, '12.5'));
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /after this form was opened on version 2\./);
    assert.match(again.body, /name="version" value="3"/);
    // seen, saved knowingly: the entries kept need no retyping
    const knowing = await browser.post('/console', configurationForm(again.body, '12.5'));
    assert.equal(knowing.headers.location, '/console?saved=4');
    assert.equal((await repo.findCurrentConfiguration(t.db, partner.id))?.commissionRate, '0.125');
    // a form without the field (a page from before it) is reloaded, not saved
    const reloaded = (await browser.get('/console')).body;
    const { version: _version, ...withoutVersion } = configurationForm(reloaded, '10');
    const stale = await browser.post('/console', withoutVersion);
    assert.equal(stale.statusCode, 400);
    assert.equal((await repo.listConfigurations(t.db, partner.id)).length, 4);
  });

  test('later saves restored the terms the form was opened on: the refusal says so, in both languages', async () => {
    const { browser } = await partnerTabs();
    assert.equal(
      (await browser.post('/console', configurationForm((await browser.get('/console')).body, '25'))).statusCode,
      303,
    );
    const stale = (await browser.get('/console')).body;
    assert.equal(versionOf(stale), '2');
    assert.equal(
      (await browser.post('/console', configurationForm((await browser.get('/console')).body, '30'))).statusCode,
      303,
    );
    assert.equal(
      (await browser.post('/console', configurationForm((await browser.get('/console')).body, '25'))).statusCode,
      303,
    );
    const refused = await browser.post('/console', configurationForm(stale, '12.5'));
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /It has the same terms as version 2: later saves restored them\./);
    assert.doesNotMatch(refused.body, /What changed since/);
    await browser.get('/lang/fr?next=/console');
    const french = await browser.post('/console', configurationForm(stale, '12.5'));
    assert.match(french.body, /Elle a les mêmes termes que la version 2\u202f/);
    assert.doesNotMatch(french.body, /Ce qui a changé depuis/);
  });

  test('the refusal in French', async () => {
    const { browser } = await partnerTabs();
    await browser.get('/lang/fr?next=/console');
    const tab1 = (await browser.get('/console')).body;
    const tab2 = (await browser.get('/console')).body;
    assert.equal((await browser.post('/console', configurationForm(tab1, '25'))).statusCode, 303);
    const second = await browser.post('/console', configurationForm(tab2, '12.5'));
    assert.equal(second.statusCode, 409);
    assert.match(second.body, /Rien n’a été enregistré\u202f: .* a enregistré la version 2 de la configuration le /);
    assert.match(second.body, /Ce qui a changé depuis la version 1\u202f:/);
    assert.match(second.body, /Rechargez la page pour voir la version actuelle/);
    assert.doesNotMatch(second.body, /Nothing was saved/);
  });

  test('two operators amend from version 1: the first is signed, the second refused with its entries kept', async () => {
    const partner = await createTestPartner(t.db);
    const base = `/admin/partners/${partner.slug}`;
    const [ops1, ops2] = [await operator(), await operator()];
    const page1 = (await ops1.get(base)).body;
    const page2 = (await ops2.get(base)).body;
    assert.equal(revisionOf(page2), 'v1');
    const amend = (page: string, compensationMax: string, reason: string) =>
      amendmentForm(page, { compensationMax, reason });
    assert.equal((await ops1.post(`${base}/amend`, amend(page1, '450', 'first'))).statusCode, 303);
    const second = await ops2.post(`${base}/amend`, amend(page2, '420.50', 'second'));
    assert.equal(second.statusCode, 409);
    assert.match(
      second.body,
      /The agreement changed since the form was opened \(version 2 is the latest\): nothing was saved/,
    );
    assert.match(second.body, /Your entries are kept in the form, not saved\./);
    assert.match(second.body, /id="m-pmax" name="compensationMax" value="420\.50"/);
    assert.match(second.body, /id="m-reason" name="reason" required size="40" value="second"/);
    const versions = await repo.listAgreementVersions(t.db, partner.id);
    assert.deepEqual(
      versions.map((a) => [a.version, a.compensationMax, a.reason]),
      [
        [1, 50_000, 'original agreement'],
        [2, 45_000, 'first'],
      ],
    );
    // the page shows version 2 now: its form carries it, and the kept entries are signed knowingly
    assert.equal(revisionOf(second.body), 'v2');
    assert.equal((await ops2.post(`${base}/amend`, amend(second.body, '420.50', 'second'))).statusCode, 303);
    assert.deepEqual(
      (await repo.listAgreementVersions(t.db, partner.id)).map((a) => [a.version, a.compensationMax]).at(-1),
      [3, 42_050],
    );
  });

  test('an operator signs from a page that showed other terms than those another operator signed: refused', async () => {
    const partner = await createPartner(t.db, 'operator:test', { slug: uniqueSlug('sign'), name: 'Sign' });
    const base = `/admin/partners/${partner.slug}`;
    const [opsA, opsB] = [await operator(), await operator()];
    const terms = (page: string, compensationMax: string) => ({
      _csrf: csrfOf(page)!,
      revision: revisionOf(page)!,
      boundsCurrency: 'EUR',
      allowedFormulas: 'delay',
      currency: 'EUR',
      taxRate: '0.09',
      commissionMin: '0',
      commissionMax: '0.3',
      compensationMin: '10',
      compensationMax,
    });
    assert.equal((await opsA.post(`${base}/agreement`, terms((await opsA.get(base)).body, '300'))).statusCode, 303);
    const pageA = (await opsA.get(base)).body; // shows X: €300
    const pageB = (await opsB.get(base)).body;
    assert.equal((await opsB.post(`${base}/agreement`, terms(pageB, '400'))).statusCode, 303); // Y: €400
    const pageB2 = (await opsB.get(base)).body;
    assert.equal(
      (await opsB.post(`${base}/sign`, { _csrf: csrfOf(pageB2)!, revision: revisionOf(pageB2)! })).statusCode,
      303,
    );
    const signA = await opsA.post(`${base}/sign`, { _csrf: csrfOf(pageA)!, revision: revisionOf(pageA)! });
    assert.equal(signA.statusCode, 409, 'A never saw the terms signed');
    assert.match(signA.body, /The agreement changed since the form was opened \(version 1 is the latest\)/);
    // B's page twice (a double click): the terms it showed are signed, success
    assert.equal(
      (await opsB.post(`${base}/sign`, { _csrf: csrfOf(pageB2)!, revision: revisionOf(pageB2)! })).statusCode,
      303,
    );
    // a sign form without the revision (a page older than the field): the 400 page, like the other forms
    const old = await opsA.post(`${base}/sign`, { _csrf: csrfOf(pageA)! });
    assert.equal(old.statusCode, 400);
    assert.equal((await repo.findAgreement(t.db, partner.id))?.compensationMax, 40_000);
  });

  test('a JPY draft switched to EUR with its bounds left in yen is refused, not saved as euros', async () => {
    const partner = await createPartner(t.db, 'operator:test', { slug: uniqueSlug('switch'), name: 'Switch' });
    const base = `/admin/partners/${partner.slug}`;
    const ops = await operator();
    const form = (page: string, currency: string, compensationMin: string, compensationMax: string) => ({
      _csrf: csrfOf(page)!,
      revision: revisionOf(page)!,
      boundsCurrency: /name="boundsCurrency" value="([A-Z]{3})"/.exec(page)?.[1] ?? '',
      allowedFormulas: 'delay',
      currency,
      taxRate: '0.09',
      commissionMin: '0',
      commissionMax: '0.3',
      compensationMin,
      compensationMax,
    });
    assert.equal(
      (await ops.post(`${base}/agreement`, form((await ops.get(base)).body, 'JPY', '1000', '50000'))).statusCode,
      303,
    );
    const yen = (await ops.get(base)).body;
    assert.match(yen, /<label for="a-pmin">Minimum compensation \(JPY, e\.g\. 10\)<\/label>/, 'no decimals for JPY');
    assert.match(yen, /id="a-pmin" name="compensationMin" value="1000"/);
    const switched = await ops.post(`${base}/agreement`, form(yen, 'EUR', '1000', '50000'));
    assert.equal(switched.statusCode, 422);
    assert.match(switched.body, /the bounds were in JPY; check them in EUR/);
    assert.equal((await repo.findAgreement(t.db, partner.id))?.currency, 'JPY', 'nothing saved');
    // the refused page labels them in EUR: saved again as they are, they are euros knowingly
    assert.match(switched.body, /<label for="a-pmin">Minimum compensation \(EUR, e\.g\. 10\.00\)<\/label>/);
    assert.equal((await ops.post(`${base}/agreement`, form(switched.body, 'EUR', '10', '500'))).statusCode, 303);
    const saved = await repo.findAgreement(t.db, partner.id);
    assert.deepEqual([saved?.currency, saved?.compensationMin, saved?.compensationMax], ['EUR', 1_000, 50_000]);
    // KWD: three decimals in the example, the bounds typed with them; "10,125" could be ten thousand: refused
    const page = (await ops.get(base)).body;
    const ambiguous = await ops.post(`${base}/agreement`, form(page, 'KWD', '10,125', '500'));
    assert.equal(ambiguous.statusCode, 422);
    assert.match(
      ambiguous.body,
      /Lowest compensation: In KWD, a comma followed by three digits may be a decimal or a thousands separator/,
    );
    assert.equal((await repo.findAgreement(t.db, partner.id))?.currency, 'EUR', 'nothing saved');
    assert.equal((await ops.post(`${base}/agreement`, form(ambiguous.body, 'KWD', '10.125', '500'))).statusCode, 303);
    const kwd = (await ops.get(base)).body;
    assert.match(kwd, /Minimum compensation \(KWD, e\.g\. 10\.000\)/);
    assert.equal((await repo.findAgreement(t.db, partner.id))?.compensationMin, 10_125);
    // too large is not told as a matter of decimals
    const huge = await ops.post(`${base}/agreement`, form(kwd, 'KWD', '99999999999999999', '500'));
    assert.equal(huge.statusCode, 422);
    assert.match(huge.body, /Lowest compensation: is too large/);
    assert.doesNotMatch(huge.body, /at most 3 decimals/);
  });

  test('the draft form takes the compensation bounds in major units of its currency, never cents', async () => {
    const partner = await createPartner(t.db, 'operator:test', { slug: uniqueSlug('bounds'), name: 'Bounds' });
    const base = `/admin/partners/${partner.slug}`;
    const ops = await operator();
    const blank = (await ops.get(base)).body;
    assert.match(blank, /<label for="a-pmin">Minimum compensation \(EUR, e\.g\. 10\.00\)<\/label>/);
    assert.match(blank, /id="a-pmin" name="compensationMin" value="10\.00"/);
    const draft = (page: string, currency: string, compensationMin: string, compensationMax: string) => ({
      _csrf: csrfOf(page)!,
      revision: revisionOf(page)!,
      allowedFormulas: 'delay',
      currency,
      taxRate: '0.09',
      commissionMin: '0',
      commissionMax: '0.3',
      compensationMin,
      compensationMax,
    });
    const cents = await ops.post(`${base}/agreement`, draft(blank, 'EUR', '50.505', '500'));
    assert.equal(cents.statusCode, 422);
    assert.match(
      cents.body,
      /Lowest compensation: must be an amount in EUR \(not in cents\) with at most 2 decimals, such as 10\.00/,
    );
    assert.match(cents.body, /id="a-pmin" name="compensationMin" value="50\.505"/);
    const yen = await ops.post(`${base}/agreement`, draft(blank, 'JPY', '1000.5', '50000'));
    assert.equal(yen.statusCode, 422);
    assert.match(yen.body, /at most 0 decimals, such as 10</);
    assert.equal(await repo.findAgreement(t.db, partner.id), undefined, 'nothing saved');
    assert.equal((await ops.post(`${base}/agreement`, draft(blank, 'EUR', '50', '500,25'))).statusCode, 303);
    const saved = await repo.findAgreement(t.db, partner.id);
    assert.deepEqual([saved?.compensationMin, saved?.compensationMax], [5_000, 50_025], '€50 is 5000 cents');
    const page = (await ops.get(base)).body;
    assert.match(page, /id="a-pmin" name="compensationMin" value="50\.00"/);
    // the same page opened before that save is refused
    const again = await ops.post(`${base}/agreement`, draft(blank, 'EUR', '20', '300'));
    assert.equal(again.statusCode, 409);
    assert.equal((await repo.findAgreement(t.db, partner.id))?.compensationMin, 5_000);
    // signing from a page that showed other terms than the draft's now: refused, not signed unseen
    assert.equal((await ops.post(`${base}/agreement`, draft(page, 'EUR', '20', '300'))).statusCode, 303);
    const signUnseen = await ops.post(`${base}/sign`, { _csrf: csrfOf(page)!, revision: revisionOf(page)! });
    assert.equal(signUnseen.statusCode, 409);
    assert.match(signUnseen.body, /The agreement changed since the form was opened \(its draft was saved again\)/);
    assert.equal((await repo.findAgreement(t.db, partner.id))?.status, 'draft');
    const current = (await ops.get(base)).body;
    assert.equal(
      (await ops.post(`${base}/sign`, { _csrf: csrfOf(current)!, revision: revisionOf(current)! })).statusCode,
      303,
    );
    assert.equal((await repo.findAgreement(t.db, partner.id))?.compensationMin, 2_000);
  });

  test('the agreement summary and the refusals speak French on a French operator page', async () => {
    const partner = await createTestPartner(t.db);
    const base = `/admin/partners/${partner.slug}`;
    const ops = await operator();
    await ops.get(`/lang/fr?next=${base}`);
    const page = (await ops.get(base)).body;
    assert.match(
      page,
      /<p id="agreement-summary">Version <span id="agreement-version">1<\/span> · Retard, Annulation, Retard et annulation · EUR · taxe 9\s% · commission 0\s%–30\s% · indemnisation 10,00\s€–500,00\s€<\/p>/,
    );
    assert.doesNotMatch(page, /· tax |· compensation /);
    assert.match(page, /Indemnisation minimale \(EUR, ex\. 10,00\)/);
    const refused = await ops.post(
      `${base}/amend`,
      amendmentForm(page, { revision: 'v0', allowedFormulas: 'delay', compensationMin: '10', reason: 'raison' }),
    );
    assert.equal(refused.statusCode, 409);
    // the amendment form's own sentence: what replaced the version it was opened on
    assert.match(
      refused.body,
      /L’accord a changé depuis l’ouverture du formulaire \(la version 1 est la dernière\)\u202f: rien n’a été enregistré — la version que cet avenant modifiait a été remplacée\./,
    );
    assert.match(refused.body, /Vos saisies sont conservées dans le formulaire, sans être enregistrées\./);
    // an amount with too many decimals: the example is written as a French reader writes amounts
    const cents = await ops.post(
      `${base}/amend`,
      amendmentForm((await ops.get(base)).body, {
        allowedFormulas: 'delay',
        compensationMin: '10,505',
        reason: 'raison',
      }),
    );
    assert.equal(cents.statusCode, 422, cents.body.slice(0, 300));
    assert.match(cents.body, /par exemple 10,00/);
    assert.doesNotMatch(cents.body, /par exemple 10\.00/);
  });
});
