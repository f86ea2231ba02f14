import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertMissingWatches } from '../../src/monitoring/watches-repo.ts';
import { createUser } from '../../src/partners/users.ts';
import {
  buildTestApp,
  cancelledFlightClaim,
  createTestPartner,
  POLICY_ADMIN,
  uniqueSlug,
  type TestApp,
} from '../helper.ts';
import { amendmentForm, revisionOf } from './agreement-forms.ts';
import { Browser, csrfOf } from './inject-browser.ts';

/**
 * The consoles in the page's language: calendar dates written as the language writes them (the ISO date
 * kept in `<time datetime>`), the operator forms' own conflict sentences, the key form's field errors.
 */

const ADMIN = { email: 'ops-french-consoles@parasol.test', password: 'operator password 42' };
const PASSWORD = 'french consoles password';
const FR_MONTHS = ['janv.', 'févr.', 'mars', 'avr.', 'mai', 'juin', 'juil.', 'août', 'sept.', 'oct.', 'nov.', 'déc.'];
// en-GB writes September 'Sept' (CLDR, as Node 20 has it), not 'Sep'
const EN_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec'];
/** '2026-11-28' as French ('28 nov. 2026') and English ('28 Nov 2026') write it, from fixed month names. */
const dayIn = (iso: string, months: string[]) => {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return `${d} ${months[m - 1]} ${y}`;
};
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('consoles in French: dates, conflict sentences, the key form', () => {
  let t: TestApp;
  /** The app's clock when a test holds it (the dashboard's "today" and the test's are then one day); else the time. */
  let clock: Date | undefined;
  before(async () => {
    t = await buildTestApp({
      now: () => clock ?? new Date(),
      env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password },
    });
  });
  after(() => t.close());

  async function operator(lang: 'en' | 'fr') {
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(ADMIN.email, ADMIN.password, 'admin')).statusCode, 303);
    await browser.get(`/lang/${lang}?next=/admin`);
    return browser;
  }

  test('the claims list writes the departure and opening dates as the page’s language does, ISO for machines', async () => {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('fr-dates')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const { c, claimNumber } = await cancelledFlightClaim(t, partner, partner.auth, { flightNumber: 'AF7301' });
    const row = await t.db
      .selectFrom('claims')
      .select('opened_at')
      .where('claim_number', '=', claimNumber)
      .executeTakeFirstOrThrow();
    const opened = new Date(row.opened_at).toISOString().slice(0, 10);
    const browser = new Browser(t.app);
    assert.equal((await browser.signIn(email, PASSWORD)).statusCode, 303);
    for (const [lang, months] of [
      ['fr', FR_MONTHS],
      ['en', EN_MONTHS],
    ] as const) {
      await browser.get(`/lang/${lang}?next=/console/claims`);
      const page = (await browser.get('/console/claims?env=sandbox')).body;
      const departure = `<time datetime="${c.departureDate}">${dayIn(c.departureDate, months)}</time>`;
      assert.match(page, new RegExp(`AF7301 ${escape(departure)}`), `${lang}: the departure date`);
      assert.ok(page.includes(`<time datetime="${opened}">${dayIn(opened, months)}</time>`), `${lang}: opened on`);
      assert.doesNotMatch(
        page,
        new RegExp(`>${c.departureDate}<|AF7301 ${c.departureDate}`),
        'no ISO date for a person',
      );
    }
  });

  test('the operator’s flights and claim page, the partner’s contract and dashboard write dates in the page’s language', async (context) => {
    const partner = await createTestPartner(t.db);
    const email = `${uniqueSlug('fr-days')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    const { c, claimNumber } = await cancelledFlightClaim(t, partner, partner.auth, { flightNumber: 'AF7302' });
    // the app's clock held from here: the dashboard's last day is this test's "today", even across midnight UTC
    clock = new Date();
    context.after(() => (clock = undefined));
    const today = clock.toISOString().slice(0, 10);
    // the flight watched (as the planner does for an active contract's flight): /admin/flights lists it
    await insertMissingWatches(t.db, {
      flight: { environment: 'sandbox', flightNumbers: ['AF7302'], departureDate: c.departureDate },
    });
    const user = new Browser(t.app);
    assert.equal((await user.signIn(email, PASSWORD)).statusCode, 303);
    for (const [lang, months] of [
      ['fr', FR_MONTHS],
      ['en', EN_MONTHS],
    ] as const) {
      const ops = await operator(lang);
      const departure = dayIn(c.departureDate, months);
      const flights = (await ops.get('/admin/flights')).body;
      assert.match(flights, new RegExp(`AF7302</td><td>CDG ${escape(departure)} \\(`), `${lang}: /admin/flights`);
      const claim = (await ops.get(`/admin/claims/${claimNumber}`)).body;
      assert.ok(
        claim.includes(`AF7302 <time datetime="${c.departureDate}">${departure}</time>`),
        `${lang}: the operator's claim page`,
      );
      // the audit trail's instants: to the minute in the page's language, UTC said once in the column's header,
      // the ISO instant kept in <time datetime>
      assert.match(claim, /<table id="claim-audit">.*?<th scope="col">Date \(UTC\)<\/th>/s);
      const audited =
        /<table id="claim-audit">.*?<td><span class="nowrap"><time datetime="(\d{4}-\d\d-\d\d)T(\d\d:\d\d):\d\d\.\d{3}Z">(.*?)<\/time>/s.exec(
          claim,
        );
      assert.ok(audited, `${lang}: the audit trail's instant`);
      assert.equal(audited[3], `${dayIn(audited[1]!, months)}, ${audited[2]}`, `${lang}: the audit trail's instant`);
      assert.doesNotMatch(claim, /\d{4}-\d\d-\d\d \d\d:\d\d/, 'no ISO-like instant for a person');
      await user.get(`/lang/${lang}?next=/console`);
      // the contract's legs: the departure's local date and time, no time zone named (the airport's clock)
      const contract = (await user.get(`/console/contracts/${c.contractNumber}?env=sandbox`)).body;
      assert.match(
        contract,
        new RegExp(`CDG <time datetime="${c.departureDate}T(\\d\\d:\\d\\d)">${escape(departure)}, \\1</time>`),
        `${lang}: the contract's legs`,
      );
      const dashboard = (await user.get('/console/dashboard?env=sandbox')).body;
      const day = dayIn(today, months);
      assert.ok(dashboard.includes(`<td><time datetime="${today}">${day}</time></td>`), `${lang}: the day table`);
      const chart = /<script type="application\/json" id="chart-activity">(.*?)<\/script>/s.exec(dashboard);
      assert.ok(chart, 'the chart’s data');
      const labels = (JSON.parse(chart[1]!) as { data: { labels: string[] } }).data.labels;
      assert.equal(labels.at(-1), day, `${lang}: the chart’s days as the page writes them`);
      assert.ok(!labels.includes(today), 'no ISO day on the chart');
    }
  });

  test('operator forms: each conflict has its own sentence, in English and in French', async () => {
    const partner = await createTestPartner(t.db);
    for (const lang of ['en', 'fr'] as const) {
      const ops = await operator(lang);
      const base = `/admin/partners/${partner.slug}`;
      const page = (await ops.get(base)).body;
      const csrf = csrfOf(page)!;
      // a new partner with an identifier taken
      const taken = await ops.post('/admin/partners', { _csrf: csrf, slug: partner.slug, name: 'Again' });
      assert.equal(taken.statusCode, 409);
      assert.ok(
        taken.body.includes(
          lang === 'en'
            ? `A partner has the identifier “${partner.slug}” already: choose another.`
            : `Un partenaire a déjà l’identifiant «\u202f${partner.slug}\u202f»\u202f: choisissez-en un autre.`,
        ),
        taken.body,
      );
      // documents for a new partner, without an agreement yet: the operator's sentence, not the partner's
      const bare = uniqueSlug(`bare-${lang}`);
      assert.equal((await ops.post('/admin/partners', { _csrf: csrf, slug: bare, name: 'Bare' })).statusCode, 303);
      const sha = (c: string) => c.repeat(64);
      const documents = await ops.post(`/admin/partners/${bare}/documents`, {
        _csrf: csrf,
        ipidUrl: 'https://insurer.example/ipid-7.pdf',
        ipidVersion: 'IPID-7',
        ipidSha256: sha('a'),
        termsUrl: 'https://insurer.example/cg-4.pdf',
        termsVersion: 'CG-4',
        termsSha256: sha('b'),
        insurerName: 'Assureur Exemple SA',
        insurerRegistration: 'SA, RCS Paris 123 456 789',
        insurerAddress: '1 rue Exemple, 75001 Paris',
        insurerRegulator: 'ACPR',
        complaintsEmail: 'reclamations@insurer.example',
        complaintsUrl: '',
      });
      assert.equal(documents.statusCode, 409);
      assert.ok(
        documents.body.includes(
          lang === 'en'
            ? 'This partner has no agreement yet: save its terms (the draft) first, then attach its documents.'
            : 'Ce partenaire n’a pas encore d’accord\u202f: enregistrez d’abord ses conditions (le projet), puis joignez ses documents.',
        ),
        documents.body,
      );
      assert.doesNotMatch(documents.body, /l’assureur le fixe d’abord|the insurer sets it first/);
      // a portal user with an address that has an account
      const userEmail = `${uniqueSlug(`taken-${lang}`)}@example.com`;
      const user = { _csrf: csrf, email: userEmail, password: 'a password of ten', role: 'viewer' };
      assert.equal((await ops.post(`${base}/users`, user)).statusCode, 303);
      const twice = await ops.post(`${base}/users`, user);
      assert.equal(twice.statusCode, 409);
      assert.ok(
        twice.body.includes(
          lang === 'en'
            ? `The address ${userEmail} has a Parasol account already (one account per address).`
            : `L’adresse ${userEmail} a déjà un compte Parasol (un compte par adresse).`,
        ),
      );
      // the amendment form, opened on version 1, sent after another amendment made version 2
      const tab1 = (await ops.get(base)).body;
      const tab2 = (await ops.get(base)).body;
      assert.equal(
        (await ops.post(`${base}/amend`, amendmentForm(tab1, { compensationMax: '450', reason: 'first' }))).statusCode,
        303,
      );
      const second = await ops.post(
        `${base}/amend`,
        amendmentForm(tab2, { compensationMax: '420.50', reason: 'second' }),
      );
      assert.equal(second.statusCode, 409);
      const version = /version (\d+) is the latest|la version (\d+) est la dernière/.exec(second.body);
      assert.ok(version, second.body);
      assert.ok(
        second.body.includes(
          lang === 'en'
            ? `nothing was saved — the version this amendment was written against was replaced.`
            : `L’accord a changé depuis l’ouverture du formulaire (la version ${version[2]} est la dernière)\u202f: rien n’a été enregistré — la version que cet avenant modifiait a été remplacée.`,
        ),
      );
      // the sign button of a page that showed a draft saved again since
      const draftPartner = await createTestPartner(t.db, { signed: false });
      const draftBase = `/admin/partners/${draftPartner.slug}`;
      const draft = (body: string, compensationMax: string) => ({
        _csrf: csrfOf(body)!,
        revision: revisionOf(body)!,
        allowedFormulas: 'delay',
        currency: 'EUR',
        taxRate: '0.09',
        commissionMin: '0',
        commissionMax: '0.3',
        compensationMin: '10',
        compensationMax,
      });
      const shown = (await ops.get(draftBase)).body;
      assert.equal((await ops.post(`${draftBase}/agreement`, draft(shown, '333'))).statusCode, 303);
      const sign = await ops.post(`${draftBase}/sign`, {
        _csrf: csrfOf(shown)!,
        revision: /action="[^"]*\/sign"[^>]*>.*?name="revision" value="([^"]+)"/s.exec(shown)![1]!,
      });
      assert.equal(sign.statusCode, 409);
      assert.ok(
        sign.body.includes(
          lang === 'en'
            ? 'The agreement changed since the form was opened (its draft was saved again): nothing was signed — the draft this page showed was replaced.'
            : 'L’accord a changé depuis l’ouverture de la page (son projet a été enregistré à nouveau)\u202f: rien n’a été signé — le projet que cette page montrait a été remplacé.',
        ),
        sign.body,
      );
      // an amendment of an agreement never signed: a conflict (409), the amendment form's own sentence
      const unsigned = await ops.post(
        `${draftBase}/amend`,
        amendmentForm(shown, { compensationMax: '400', reason: 'no signed version' }),
      );
      assert.equal(unsigned.statusCode, 409);
      assert.ok(
        unsigned.body.includes(
          lang === 'en'
            ? 'Only a signed agreement is amended: sign the draft first.'
            : 'Seul un accord signé peut recevoir un avenant\u202f: signez d’abord le projet.',
        ),
        unsigned.body,
      );
      if (lang === 'fr') assert.doesNotMatch(second.body + taken.body + twice.body, /Conflit avec l’état actuel/);
    }
  });

  test('the key form sent without an environment, or an unknown one: the form again, the field’s error in French', async () => {
    const partner = await createTestPartner(t.db);
    const ops = await operator('fr');
    const base = `/admin/partners/${partner.slug}`;
    const csrf = csrfOf((await ops.get(base)).body)!;
    const before = await t.db.selectFrom('api_keys').select('id').where('partner_id', '=', partner.id).execute();
    for (const [form, text] of [
      [{ label: 'ma clé' }, 'est obligatoire'],
      [{ environment: 'nowhere', label: 'ma clé' }, 'n’est pas permis'],
    ] as [Record<string, string>, string][]) {
      const refused = await ops.post(`${base}/keys`, { _csrf: csrf, ...form });
      assert.equal(refused.statusCode, 422);
      assert.match(refused.body, /<h1>Test Partner/, 'the partner page, not an error page');
      assert.match(
        refused.body,
        /<select id="k-env" name="environment" aria-invalid="true" aria-describedby="k-env-error">/,
      );
      assert.equal(refused.body.match(/\bautofocus\b/g)?.length, 1, 'one focus: the error summary');
      assert.ok(refused.body.includes(`<p class="error" id="k-env-error">${text}</p>`), refused.body);
      assert.ok(
        refused.body.includes(`<a href="#k-env">Environnement\u202f: ${text}</a>`),
        'the summary names the label',
      );
      assert.match(refused.body, /id="k-label" name="label" maxlength="100" value="ma clé"/, 'what was typed is kept');
      assert.doesNotMatch(refused.body, /Choose an environment|must be one of|is required|environment\s*:/);
    }
    const after = await t.db.selectFrom('api_keys').select('id').where('partner_id', '=', partner.id).execute();
    assert.equal(after.length, before.length, 'no key written');
    const created = await ops.post(`${base}/keys`, { _csrf: csrf, environment: 'sandbox', label: 'ma clé' });
    assert.equal(created.statusCode, 201);
    assert.match(created.body, /id="new-key"/);
  });
  test('the key form’s other answers, in English and French: a label too long, no signed agreement, a revocation', async () => {
    for (const lang of ['en', 'fr'] as const) {
      const partner = await createTestPartner(t.db, { signed: false });
      const ops = await operator(lang);
      const base = `/admin/partners/${partner.slug}`;
      const csrf = csrfOf((await ops.get(base)).body)!;
      const keys = () =>
        t.db.selectFrom('api_keys').select(['id', 'revoked_at']).where('partner_id', '=', partner.id).execute();
      const before = await keys();
      // a label too long: the form again, the error under the label, the environment chosen kept
      const long = await ops.post(`${base}/keys`, { _csrf: csrf, environment: 'sandbox', label: 'x'.repeat(101) });
      assert.equal(long.statusCode, 422);
      assert.match(long.body, /id="k-label" name="label" maxlength="100" value="x{101}" aria-invalid="true"/);
      const labelError = /<p class="error" id="k-label-error">([^<]*)<\/p>/.exec(long.body)?.[1];
      assert.equal(
        labelError,
        lang === 'en' ? 'must be at most 100 characters' : 'est trop long\u202f: au plus 100\u00a0caractères',
        long.body,
      );
      assert.match(long.body, /<option selected>sandbox<\/option>/, 'the environment chosen is kept');
      assert.doesNotMatch(long.body, /id="k-env-error"/);
      // a production key before the agreement is signed: said above the page, not a field's error
      const unsigned = await ops.post(`${base}/keys`, { _csrf: csrf, environment: 'production', label: 'live' });
      assert.equal(unsigned.statusCode, 422);
      assert.ok(
        unsigned.body.includes(
          `<div class="alert" role="alert"><ul><li>${
            lang === 'en'
              ? 'production keys need a signed agreement with the insurer; sandbox keys do not.'
              : 'L’accord n’est pas signé.'
          }</li></ul></div>`,
        ),
        unsigned.body,
      );
      assert.doesNotMatch(unsigned.body, /aria-invalid="true"/);
      assert.deepEqual(await keys(), before, 'no key written');
      // a key created (201, shown once), then revoked: the page again with its flash (303 ?done=1)
      const created = await ops.post(`${base}/keys`, { _csrf: csrf, environment: 'sandbox', label: 'ma clé' });
      assert.equal(created.statusCode, 201);
      const plaintext = /<code class="key" id="new-key">(psl_sbx_[^<]+)<\/code>/.exec(created.body)?.[1];
      assert.ok(plaintext, 'the key shown');
      const asPartner = () =>
        t.app.inject({
          method: 'GET',
          url: `${POLICY_ADMIN}/policies`,
          headers: { authorization: `Bearer ${plaintext}` },
        });
      assert.equal((await asPartner()).statusCode, 200, 'the key shown is the partner’s key');
      // shown once: the partner page read again does not hold it
      const again = await ops.get(base);
      assert.equal(again.statusCode, 200);
      assert.ok(!again.body.includes(plaintext), 'the key is not shown again');
      assert.doesNotMatch(again.body, /id="new-key"/);
      const [key] = (await keys()).filter((k) => !before.some((b) => b.id === k.id));
      assert.ok(key, 'the key written');
      const revoked = await ops.post(`${base}/keys/${key.id}/revoke`, { _csrf: csrf });
      assert.equal(revoked.statusCode, 303);
      assert.equal(revoked.headers.location, `${base}?done=1`);
      assert.ok((await keys()).find((k) => k.id === key.id)?.revoked_at, 'revoked');
      assert.equal((await asPartner()).statusCode, 401, 'the revoked key no longer authenticates');
      // a key the partner does not have: the partner page with the problem (422)
      const unknown = await ops.post(`${base}/keys/00000000-0000-4000-8000-000000000000/revoke`, { _csrf: csrf });
      assert.equal(unknown.statusCode, 422);
      assert.match(unknown.body, /<h1>Test Partner/);
      assert.ok(
        unknown.body.includes(
          lang === 'en'
            ? 'No API key 00000000-0000-4000-8000-000000000000 for this partner.'
            : 'Clé d’API introuvable.',
        ),
        unknown.body,
      );
    }
  });
});
