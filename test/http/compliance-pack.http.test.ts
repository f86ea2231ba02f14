import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setDocuments } from '../../src/partners/documents.ts';
import { DEMO_DOCUMENTS } from '../../src/partners/seed.ts';
import {
  buildTestApp,
  consent,
  createTestPartner,
  FLIGHT,
  post,
  runCliOn,
  subscription,
  testConfig,
  trip,
  type TestApp,
} from '../helper.ts';
import { Browser, csrfOf } from '../web/inject-browser.ts';

/** Issue 13 §2: the documents and insurer given with every quote; the customer's consent at /subscribe. */

const ADMIN = { email: 'ops-compliance-tests@parasol.test', password: 'operator password 42' };
const sha = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

describe('Flight Delay API — the compliance pack', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password } });
  });
  after(() => t.close());

  it('quotes with the documents and the insurer, and records the consent on the contract', async () => {
    const partner = await createTestPartner(t.db);
    const body = trip(25);
    const quote = await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth);
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    assert.deepEqual(quote.body.documents, { version: 1, ipid: DEMO_DOCUMENTS.ipid, terms: DEMO_DOCUMENTS.terms });
    assert.deepEqual(quote.body.insurer, DEMO_DOCUMENTS.insurer);

    const acceptedAt = new Date(Date.now() - 60_000);
    const res = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(quote.body.quoteReference, body, {
        consent: { acceptedAt: acceptedAt.toISOString(), documentsVersion: 1, channel: 'mobile_app' },
      }),
      partner.auth,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.consent, {
      acceptedAt: acceptedAt.toISOString(),
      documentsVersion: 1,
      channel: 'mobile_app',
    });
    const row = await t.db
      .selectFrom('contracts')
      .select(['consent_accepted_at', 'consent_documents_version', 'consent_channel'])
      .where('contract_number', '=', res.body.contractNumber)
      .executeTakeFirstOrThrow();
    assert.equal(row.consent_accepted_at?.toISOString(), acceptedAt.toISOString());
    assert.equal(row.consent_documents_version, 1);
    assert.equal(row.consent_channel, 'mobile_app');
  });

  it('requires the consent, to the quoted version, not in the future', async () => {
    const partner = await createTestPartner(t.db);
    const body = trip(26);
    const quote = (await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth)).body;
    const { consent: _omitted, ...withoutConsent } = subscription(quote.quoteReference, body);
    const missing = await post(t.app, `${FLIGHT}/subscribe`, withoutConsent, partner.auth);
    assert.equal(missing.status, 422, JSON.stringify(missing.body));
    assert.equal(missing.body.code, 'validation_failed');

    const other = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(quote.quoteReference, body, { consent: consent(2) }),
      partner.auth,
    );
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'documents_version_mismatch');
    assert.equal(other.body.errors[0].field, '/consent/documentsVersion');

    const future = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(quote.quoteReference, body, { consent: consent(1, new Date(Date.now() + 3_600_000)) }),
      partner.auth,
    );
    assert.equal(future.status, 422);
    assert.equal(future.body.errors[0].field, '/consent/acceptedAt');

    const badChannel = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(quote.quoteReference, body, { consent: { ...consent(), channel: 'carrier_pigeon' } }),
      partner.auth,
    );
    assert.equal(badChannel.body.code, 'validation_failed');
    // none of the refusals used the quote
    assert.equal(
      (await post(t.app, `${FLIGHT}/subscribe`, subscription(quote.quoteReference, body), partner.auth)).status,
      201,
    );
  });

  it('a new version of the documents applies to new quotes only', async () => {
    const partner = await createTestPartner(t.db);
    const body = trip(27);
    const before = (await post(t.app, `${FLIGHT}/getPrice`, body, partner.auth)).body;
    const v2 = await setDocuments(t.db, 'operator:test', partner.id, {
      ...DEMO_DOCUMENTS,
      ipid: { ...DEMO_DOCUMENTS.ipid, version: 'IPID-2026-2', sha256: sha('IPID-2026-2') },
    });
    assert.equal(v2.version, 2);
    t.app.parasol.directory.invalidate();
    const afterChange = (await post(t.app, `${FLIGHT}/getPrice`, trip(28), partner.auth)).body;
    assert.equal(afterChange.documents.version, 2);
    assert.equal(afterChange.documents.ipid.version, 'IPID-2026-2');

    // the earlier quote keeps its documents: consent to version 2 is refused, to version 1 accepted
    const refused = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(before.quoteReference, body, { consent: consent(2) }),
      partner.auth,
    );
    assert.equal(refused.body.code, 'documents_version_mismatch');
    const kept = await post(
      t.app,
      `${FLIGHT}/subscribe`,
      subscription(before.quoteReference, body, { consent: consent(1) }),
      partner.auth,
    );
    assert.equal(kept.status, 201, JSON.stringify(kept.body));
    assert.equal(kept.body.consent.documentsVersion, 1);
  });

  it('does not quote without documents', async () => {
    const partner = await createTestPartner(t.db, { documents: null });
    const quote = await post(t.app, `${FLIGHT}/getPrice`, trip(29), partner.auth);
    assert.equal(quote.status, 409);
    assert.equal(quote.body.code, 'partner_not_configured');
    assert.match(quote.body.detail, /pre-contract documents/);
  });

  it('validates the documents: https URLs, SHA-256, the insurer’s contact', async () => {
    const partner = await createTestPartner(t.db, { documents: null });
    await assert.rejects(
      setDocuments(t.db, 'operator:test', partner.id, {
        ...DEMO_DOCUMENTS,
        ipid: { url: 'http://example.org/ipid.pdf', version: ' ', sha256: 'abc' },
        insurer: { ...DEMO_DOCUMENTS.insurer, complaints: { email: 'not-an-email', url: null } },
      }),
      (error: { code: string; extra: { errors: { field: string }[] } }) => {
        assert.equal(error.code, 'validation_failed');
        assert.deepEqual(error.extra.errors.map((e) => e.field).sort(), [
          '/insurer/complaints/email',
          '/ipid/sha256',
          '/ipid/url',
          '/ipid/version',
        ]);
        return true;
      },
    );
  });

  it('the operator attaches documents in the console, and the CLI shows and sets them', async () => {
    const partner = await createTestPartner(t.db, { documents: null });
    const operator = new Browser(t.app);
    await operator.signIn(ADMIN.email, ADMIN.password, 'admin');
    const pageBefore = await operator.get(`/admin/partners/${partner.slug}`);
    assert.match(pageBefore.body, /this partner cannot quote/);
    // a first set starts from the platform's insurer (PARASOL_INSURER_*), the one customers' messages name
    const platform = testConfig().insurer;
    assert.ok(pageBefore.body.includes(`name="insurerName" value="${platform.legalName}"`), 'insurer prefilled');
    assert.ok(pageBefore.body.includes(`name="complaintsEmail" value="${platform.email}"`), 'complaints prefilled');
    const csrf = csrfOf(pageBefore.body)!;
    const form = {
      _csrf: csrf,
      ipidUrl: 'https://insurer.example/ipid-7.pdf',
      ipidVersion: 'IPID-7',
      ipidSha256: sha('ipid 7').toUpperCase(),
      termsUrl: 'https://insurer.example/cg-4.pdf',
      termsVersion: 'CG-4',
      termsSha256: sha('cg 4'),
      insurerName: 'Assureur Exemple SA',
      insurerRegistration: 'SA, RCS Paris 123 456 789',
      insurerAddress: '1 rue Exemple, 75001 Paris',
      insurerRegulator: 'ACPR',
      complaintsEmail: 'Reclamations@Insurer.example',
      complaintsUrl: '',
    };
    const bad = await operator.post(`/admin/partners/${partner.slug}/documents`, { ...form, termsSha256: 'xyz' });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /SHA-256/);
    const saved = await operator.post(`/admin/partners/${partner.slug}/documents`, form);
    assert.equal(saved.statusCode, 303);
    const pageAfter = await operator.get(`/admin/partners/${partner.slug}`);
    assert.match(pageAfter.body, /id="documents-version">1</);
    assert.match(pageAfter.body, /Assureur Exemple SA/);

    const quote = await post(t.app, `${FLIGHT}/getPrice`, trip(30), partner.auth);
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    assert.equal(quote.body.documents.ipid.sha256, sha('ipid 7'), 'stored in lower case');
    assert.equal(quote.body.insurer.complaints.email, 'reclamations@insurer.example');
    assert.equal(quote.body.insurer.complaints.url, null);

    const cli = (...argv: string[]) => runCliOn(t, argv, { config: testConfig() });
    const amended = await cli(
      '--json',
      'agreement',
      'documents',
      partner.slug,
      '--ipid-url',
      'https://insurer.example/ipid-8.pdf',
      '--ipid-version',
      'IPID-8',
      '--ipid-sha256',
      sha('ipid 8'),
      '--terms-url',
      'https://insurer.example/cg-4.pdf',
      '--terms-version',
      'CG-4',
      '--terms-sha256',
      sha('cg 4'),
      '--insurer-name',
      'Assureur Exemple SA',
      '--insurer-registration',
      'SA, RCS Paris 123 456 789',
      '--insurer-address',
      '1 rue Exemple, 75001 Paris',
      '--insurer-regulator',
      'ACPR',
      '--complaints-email',
      'reclamations@insurer.example',
      '--complaints-url',
      'https://insurer.example/complaints',
    );
    assert.equal(amended.code, 0, amended.err);
    assert.equal(JSON.parse(amended.out).documents.version, 2);
    const refused = await cli('agreement', 'documents', partner.slug, ...badFlags());
    assert.equal(refused.code, 1);
    assert.match(refused.err, /--ipid-sha256/);
    const shown = await cli('agreement', 'documents-show', partner.slug);
    assert.equal(shown.code, 0);
    assert.match(shown.out, /Version 2 \(current\)/);
    assert.match(shown.out, /IPID-8/);

    // the insurer's flags left out: the platform's insurer
    const defaults = await cli(
      '--json',
      'agreement',
      'documents',
      partner.slug,
      ...badFlags().slice(0, 12),
      '--ipid-sha256',
      sha('ipid 9'),
    );
    assert.equal(defaults.code, 0, defaults.err);
    const insurer = JSON.parse(defaults.out).documents.insurer;
    const configured = testConfig().insurer;
    assert.deepEqual(insurer, {
      name: configured.legalName,
      registration: configured.registration,
      address: configured.address,
      regulator: configured.regulator,
      complaints: { email: configured.email, url: null },
    });
  });
});

function badFlags(): string[] {
  const flags: Record<string, string> = {
    '--ipid-url': 'https://insurer.example/ipid.pdf',
    '--ipid-version': 'IPID-9',
    '--ipid-sha256': 'not-a-hash',
    '--terms-url': 'https://insurer.example/cg.pdf',
    '--terms-version': 'CG-9',
    '--terms-sha256': sha('cg 9'),
    '--insurer-name': 'X',
    '--insurer-registration': 'X',
    '--insurer-address': 'X',
    '--insurer-regulator': 'X',
    '--complaints-email': 'a@b.example',
  };
  return Object.entries(flags).flat();
}
