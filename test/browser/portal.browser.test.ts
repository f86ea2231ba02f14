import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium, RESULTS } from './chromium.ts';
import { setSubscription } from '../../src/partners/partners.ts';
import { createUser } from '../../src/partners/users.ts';
import * as repo from '../../src/partners/partners-repo.ts';
import { sampleTrip } from '../../src/web/console-routes.ts';
import {
  buildTestApp,
  createTestPartner,
  FLIGHT,
  subscription,
  uniqueSlug,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * The portal and consoles in a real browser: Debian's Chromium driven by playwright-core, against
 * the app listening on a random port. Each test leaves a screenshot in test-results/.
 */

const PASSWORD = 'browser test password';
const ADMIN = { email: 'ops-browser-tests@parasol.test', password: 'operator password 42' };

describe('portal and consoles in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  before(async () => {
    t = await buildTestApp({ env: { PARASOL_ADMIN_EMAIL: ADMIN.email, PARASOL_ADMIN_PASSWORD: ADMIN.password } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const opened = new Map<string, number>();
  /** A fresh browser context (its own cookies) whose page is screenshotted when the test ends. */
  async function open(ctx: TestContext): Promise<Page> {
    const context = await browser.newContext({
      acceptDownloads: true,
      locale: 'en-GB',
      viewport: { width: 1366, height: 900 },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('dialog', (dialog) => void dialog.accept());
    const n = (opened.get(ctx.name) ?? 0) + 1;
    opened.set(ctx.name, n);
    ctx.after(async () => {
      const name =
        ctx.name
          .replace(/[^a-z0-9]+/gi, '-')
          .replace(/^-|-$/g, '')
          .toLowerCase() + (n > 1 ? `-${n}` : '');
      await page.screenshot({ path: path.join(RESULTS, `${name}.png`), fullPage: true }).catch(() => undefined);
      await context.close();
    });
    return page;
  }

  async function partnerWithUser(
    options: Parameters<typeof createTestPartner>[1] = {},
  ): Promise<{ partner: TestPartner; email: string }> {
    const partner = await createTestPartner(t.db, options);
    const email = `${uniqueSlug('browser')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    return { partner, email };
  }

  async function signIn(page: Page, email: string, password = PASSWORD, area: 'portal' | 'admin' = 'portal') {
    await page.goto(`${base}/${area}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  const catalogNames = (page: Page) => page.locator('li.api h2').allTextContents();

  test('sign in; the catalog shows exactly the subscribed APIs, and changes when a subscription is removed', async (ctx) => {
    const page = await open(ctx);
    const { partner, email } = await partnerWithUser({ apis: ['flight-delay', 'demo'] });
    await signIn(page, email);
    await page.waitForURL(`${base}/portal`);
    assert.deepEqual(await catalogNames(page), ['Flight Delay and Cancellation API', 'Demo API']);
    assert.equal(await page.getByText('API to manage policies').count(), 0);

    await setSubscription(t.db, 'operator:test', partner.id, 'demo', false);
    await page.reload();
    assert.deepEqual(await catalogNames(page), ['Flight Delay and Cancellation API']);
    const response = await page.goto(`${base}/portal/apis/demo`);
    assert.equal(response?.status(), 404);
  });

  test('the API definition menu downloads an OpenAPI 3 document; the reference renders offline', async (ctx) => {
    const page = await open(ctx);
    const { email } = await partnerWithUser();
    await signIn(page, email);
    await page.getByRole('link', { name: 'Flight Delay and Cancellation API' }).click();
    await page.getByText('API definition').first().click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download OpenAPI 3 (JSON)' }).click(),
    ]);
    const file = await download.path();
    const document = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.match(document.openapi, /^3\./);
    assert.equal(document.info.title, 'Flight Delay and Cancellation API');
    assert.ok(document.paths['/getPrice'], 'the document lists /getPrice');
    assert.equal(download.suggestedFilename(), 'parasol-flight-delay-openapi.json');

    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:')) outside.push(request.url());
    });
    await page.getByRole('link', { name: 'Interactive reference' }).first().click();
    await page.getByText('Quote a trip with your configuration').first().waitFor();
    assert.deepEqual(outside, [], 'the reference loads nothing from outside');
  });

  test('a key is created, shown once, and works against the API', async (ctx) => {
    const page = await open(ctx);
    const { email } = await partnerWithUser({ apis: ['demo'] });
    await signIn(page, email);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Environment').selectOption('sandbox');
    await page.getByLabel('Label').fill('browser test');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    assert.match(key, /^psl_sbx_[A-Za-z0-9_-]{32}$/);
    await page.getByRole('button', { name: 'Copy' }).click();

    const response = await fetch(`${base}/demo/v1/getCityByZipCode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ zipCode: '75007' }),
    });
    assert.equal(response.status, 200);
    assert.deepEqual((await response.json()).cities, ['PARIS']);

    await page.goto(`${base}/portal/keys`);
    assert.equal(await page.locator('#new-key').count(), 0, 'the key is shown once');
    assert.equal(await page.locator('td', { hasText: 'browser test' }).count(), 1);
  });

  test('a configuration change shows in the live preview, then in /getPrice', async (ctx) => {
    const page = await open(ctx);
    const { partner, email } = await partnerWithUser();
    await signIn(page, email);
    await page.goto(`${base}/console`);
    const total = page.locator('#preview-total');
    const before = Number(await total.getAttribute('data-amount'));
    await page.getByLabel('Commission rate (%)').fill('28');
    await page.waitForFunction(
      (previous) => document.querySelector('#preview-total')?.getAttribute('data-amount') !== String(previous),
      before,
    );
    const previewed = Number(await total.getAttribute('data-amount'));
    assert.ok(previewed > before, `a higher commission costs more (${before} → ${previewed})`);

    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByText('Saved: version 2 is now used for quotes.').waitFor();
    assert.equal((await repo.findCurrentConfiguration(t.db, partner.id))?.commissionRate, '0.28');

    const quote = await fetch(`${base}${FLIGHT}/getPrice`, {
      method: 'POST',
      headers: { authorization: `Bearer ${partner.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(sampleTrip(new Date())),
    });
    assert.equal(quote.status, 200);
    const body = await quote.json();
    assert.equal(body.premium.total.amount, previewed, 'the quote costs what the preview said');
    assert.equal(body.configurationVersion, 2);
  });

  test('an out-of-bounds commission is refused with a message next to the field', async (ctx) => {
    const page = await open(ctx);
    const { partner, email } = await partnerWithUser();
    await signIn(page, email);
    await page.goto(`${base}/console`);
    await page.getByLabel('Commission rate (%)').fill('45');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    const message = page.locator('#f-commission-error');
    await message.waitFor();
    assert.equal((await message.textContent())?.trim(), 'Enter a rate between 0 % and 30 %.');
    assert.equal(await page.getByLabel('Commission rate (%)').getAttribute('aria-invalid'), 'true');
    // the page opens on the summary of what to fix, focused; its link leads to the field
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary', 'the summary has the focus');
    await page.locator('#error-summary a[href="#f-commission"]').click();
    assert.equal(await page.evaluate(() => location.hash), '#f-commission');
    assert.equal((await repo.listConfigurations(t.db, partner.id)).length, 1, 'no version was saved');
  });

  test('a partner cannot open another partner’s contract page', async (ctx) => {
    const page = await open(ctx);
    const { partner: mine, email } = await partnerWithUser();
    const theirs = await createTestPartner(t.db);
    const trip = sampleTrip(new Date());
    const contractOf = async (partner: TestPartner) => {
      const quote = await (
        await fetch(`${base}${FLIGHT}/getPrice`, {
          method: 'POST',
          headers: { ...partner.auth, 'content-type': 'application/json' },
          body: JSON.stringify(trip),
        })
      ).json();
      const contract = await fetch(`${base}${FLIGHT}/subscribe`, {
        method: 'POST',
        headers: { ...partner.auth, 'content-type': 'application/json' },
        body: JSON.stringify(subscription(quote.quoteReference, trip)),
      });
      assert.equal(contract.status, 201);
      return (await contract.json()).contractNumber as string;
    };
    const own = await contractOf(mine);
    const other = await contractOf(theirs);
    await signIn(page, email);
    const ownPage = await page.goto(`${base}/console/contracts/${own}`);
    assert.equal(ownPage?.status(), 200);
    assert.equal((await page.locator('#contract-number').textContent())?.trim(), own);
    const otherPage = await page.goto(`${base}/console/contracts/${other}`);
    assert.equal(otherPage?.status(), 404);
    assert.equal(await page.getByText(other).count(), 0);
  });

  test('the dashboard draws its charts from the local Chart.js, in French after the switch', async (ctx) => {
    const page = await open(ctx);
    const { partner, email } = await partnerWithUser();
    const trip = sampleTrip(new Date());
    const quote = await (
      await fetch(`${base}${FLIGHT}/getPrice`, {
        method: 'POST',
        headers: { ...partner.auth, 'content-type': 'application/json' },
        body: JSON.stringify(trip),
      })
    ).json();
    await fetch(`${base}${FLIGHT}/subscribe`, {
      method: 'POST',
      headers: { ...partner.auth, 'content-type': 'application/json' },
      body: JSON.stringify(subscription(quote.quoteReference, trip)),
    });
    await signIn(page, email);
    await page.goto(`${base}/console/dashboard`);
    await page.getByRole('link', { name: 'Français' }).click();
    await page.getByRole('heading', { name: 'Tableau de bord' }).waitFor();
    assert.equal(await page.locator('#total-subscriptions').textContent(), '1');
    const drawn = await page.evaluate(() =>
      [...document.querySelectorAll('canvas[data-chart]')].map((c) =>
        Boolean((window as unknown as { Chart: { getChart(c: Element): unknown } }).Chart.getChart(c)),
      ),
    );
    assert.deepEqual(drawn, [true, true, true]);
    // keyboard: the skip link is the first stop and leads to the content
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Aller au contenu');
  });

  test('the operator signs an agreement; a partner user is refused the operator console', async (ctx) => {
    const page = await open(ctx);
    const { partner, email } = await partnerWithUser({ signed: false });
    await signIn(page, ADMIN.email, ADMIN.password, 'admin');
    await page.waitForURL(`${base}/admin`);
    await page.getByRole('link', { name: partner.slug }).click();
    assert.equal((await page.locator('#agreement-status').textContent())?.trim(), 'draft');
    await page.getByRole('button', { name: 'Sign the agreement' }).click();
    await page.locator('#agreement-status', { hasText: 'signed' }).waitFor();
    assert.equal((await repo.findAgreement(t.db, partner.id))?.status, 'signed');

    const partnerPage = await open(ctx);
    await signIn(partnerPage, email);
    const refused = await partnerPage.goto(`${base}/admin/partners/${partner.slug}`);
    assert.equal(refused?.status(), 403);
  });
});
