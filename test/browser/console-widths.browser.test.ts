import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium, RESULTS } from './chromium.ts';
import { createUser } from '../../src/partners/users.ts';
import { addEndpoint } from '../../src/webhooks/webhooks.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  uniqueSlug,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/**
 * Issue 14 §4: every page of the portal and both consoles, with data in its tables, at a phone's width
 * (390 px: the document never scrolls sideways — a table scrolls inside its own region) and the
 * operator's payouts at a laptop's (1280 px: the table fits without scrolling at all).
 */

const PASSWORD = 'browser test password';
const ADMIN = { email: 'ops-widths@parasol.test', password: 'operator password 42' };
const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };

describe('console pages at a phone’s and a laptop’s width', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let partner: TestPartner;
  let email: string;
  let contractNumber: string;
  let claimNumber: string;

  before(async () => {
    t = await buildTestApp({
      env: {
        PARASOL_ADMIN_EMAIL: ADMIN.email,
        PARASOL_ADMIN_PASSWORD: ADMIN.password,
        PARASOL_JOB_POLL_SECONDS: '1',
        PARASOL_WEBHOOKS_ALLOW_PRIVATE: 'on',
      },
    });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();

    // data in every table: a contract, a paid claim (its payout, its SMS), a webhook endpoint with deliveries
    partner = await createTestPartner(t.db);
    email = `${uniqueSlug('widths')}@example.com`;
    await createUser(t.db, 'operator:test', { partnerId: partner.id, email, password: PASSWORD });
    await addEndpoint(
      { db: t.db, jobs: t.app.parasol.jobs, keys: t.app.parasol.keys, allowPrivate: true, now: () => new Date() },
      { actor: 'test', partnerId: partner.id, environment: 'sandbox' },
      { url: `http://127.0.0.1:9/hooks/${'a-rather-long-path-segment-'.repeat(3)}receiver`, description: 'ours' },
    );
    const flight = `AF${7000 + (process.pid % 1000)}`;
    const c = await insureFlight(t.app, partner, { flightNumber: flight });
    contractNumber = c.contractNumber;
    const opened = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: c.flightNumber, departureDate: c.departureDate, status: 'cancelled' },
      partner.auth,
    );
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const link = await eventually(async () => {
      const res = await fetch(`${base}${FLIGHT}/sandbox/messages?contractNumber=${contractNumber}`, {
        headers: partner.auth,
      });
      const { messages } = (await res.json()) as { messages: { link: string }[] };
      return messages[0]?.link;
    });
    const form = `${base}${new URL(link).pathname}`;
    assert.equal((await fetch(form)).status, 200);
    const sent = await fetch(form, {
      method: 'POST',
      body: new URLSearchParams({ accountHolder: 'Camille Martin', iban: 'DE89 3704 0044 0532 0130 00', bic: '' }),
      redirect: 'manual',
    });
    assert.equal(sent.status, 200);
    claimNumber = opened.body.claimsOpened[0].claimNumber as string;
    await eventually(async () => {
      const row = await t.db
        .selectFrom('claims')
        .select('status')
        .where('claim_number', '=', claimNumber)
        .executeTakeFirst();
      return row?.status === 'paid' ? true : undefined;
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(area: 'portal' | 'admin', viewport: { width: number; height: number }): Promise<Page> {
    const context = await browser.newContext({ locale: 'en-GB', viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/${area}/login`);
    await page.getByLabel('Email').fill(area === 'admin' ? ADMIN.email : email);
    await page.getByLabel('Password').fill(area === 'admin' ? ADMIN.password : PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/login'));
    return page;
  }

  /** The pages, each once; the widths each leaves (scrollWidth of the document, and of every table not in a scroll region). */
  async function overflowing(page: Page, urls: string[], name: string): Promise<string[]> {
    const wrong: string[] = [];
    for (const url of urls) {
      const response = await page.goto(`${base}${url}`);
      assert.equal(response?.status(), 200, url);
      const { scrollWidth, innerWidth, unwrapped, culprits } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        // the innermost elements reaching past the right edge (outside scroll regions), to tell what to fix
        culprits: [...document.querySelectorAll('body *')]
          .filter(
            (el) =>
              el.getBoundingClientRect().right > window.innerWidth + 0.5 &&
              !el.parentElement?.closest('.table-scroll') &&
              (el.matches('.table-scroll') ||
                ![...el.children].some((child) => child.getBoundingClientRect().right > window.innerWidth + 0.5)),
          )
          .slice(0, 3)
          .map(
            (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${el.className}` : ''}`,
          ),
        // a data table that may scroll must do so in a region a keyboard can reach
        unwrapped: [...document.querySelectorAll('main table')].filter(
          (table) => !table.closest('.table-scroll[role="region"][tabindex="0"][aria-label]'),
        ).length,
      }));
      if (scrollWidth > innerWidth)
        wrong.push(`${url}: the document is ${scrollWidth} px wide in ${innerWidth} (${culprits.join(', ')})`);
      if (unwrapped) wrong.push(`${url}: ${unwrapped} table(s) outside a keyboard-scrollable region`);
      // named by route, not by this run's slug or numbers, so that each run overwrites the last
      const route = url.replace(partner.slug, 'slug').replace(contractNumber, 'number').replace(claimNumber, 'number');
      const file = `${name}-${route.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}.png`;
      await page.screenshot({ path: path.join(RESULTS, file), fullPage: true });
    }
    return wrong;
  }

  test('at 390 px, no partner page scrolls sideways', async () => {
    const page = await signedIn('portal', PHONE);
    const wrong = await overflowing(
      page,
      [
        '/portal',
        '/portal/keys',
        '/portal/apis/flight-delay',
        '/console',
        `/console/contracts/${contractNumber}`,
        '/console/dashboard',
        '/console/claims',
        '/console/reports',
        '/console/webhooks',
        '/console/users',
        '/portal/forgot',
      ],
      'phone-partner',
    );
    await page.context().close();
    assert.deepEqual(wrong, []);
  });

  test('at 390 px, no operator page scrolls sideways', async () => {
    const page = await signedIn('admin', PHONE);
    const wrong = await overflowing(
      page,
      [
        '/admin',
        `/admin/partners/${partner.slug}`,
        `/admin/partners/${partner.slug}/webhooks`,
        '/admin/flights',
        '/admin/claims',
        `/admin/claims/${claimNumber}`,
        '/admin/outbox',
        '/admin/emails',
        '/admin/payouts',
        '/admin/risk',
        '/admin/limits',
        `/admin/reports?partner=${partner.slug}`,
      ],
      'phone-operator',
    );
    assert.deepEqual(wrong, []);

    // the payouts table is wider than the phone: its region scrolls, from the keyboard too
    await page.goto(`${base}/admin/payouts`);
    const region = page.getByRole('region', { name: 'Payouts' });
    const wider = await region.evaluate((el) => el.scrollWidth > el.clientWidth);
    assert.ok(wider, 'the payouts table is wider than a phone');
    // Chromium scrolls smoothly: the position moves over the next frames, later on a busy machine, and
    // a key pressed while the page is still settling may be lost: the region focused and the arrow
    // pressed again, up to 10 times, each given 3 s (never scrolled: the keys do not scroll it)
    const handle = await region.elementHandle();
    let scrolledBy = false;
    for (let attempt = 0; attempt < 10 && !scrolledBy; attempt += 1) {
      await region.focus();
      await page.keyboard.press('ArrowRight');
      scrolledBy = await page
        .waitForFunction((el) => el.scrollLeft > 0, handle, { timeout: 3_000 })
        .then(() => true)
        .catch(() => false);
    }
    assert.ok(scrolledBy, 'the arrow keys scroll the focused region');

    // the claim desk at 390 px: an action with its reason, refused for a paid claim, the problem on the page
    await page.goto(`${base}/admin/claims/${claimNumber}`);
    // a settled claim offers no review, approval or void: resending its link is refused
    assert.equal(await page.getByRole('button', { name: 'Mark for manual review' }).count(), 0);
    const resend = page.locator('#desk-resend');
    await resend.getByLabel(/Reason/).fill('Checked from a phone');
    await resend.getByRole('button', { name: 'Resend the link' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /paid: it does not wait for bank details/);
    const refusal = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(refusal <= 0, `the claim desk's refusal is ${refusal}px wider than the phone`);
    await page.context().close();
  });

  test('at 1280 px, the payouts table fits without scrolling', async () => {
    const page = await signedIn('admin', LAPTOP);
    assert.deepEqual(await overflowing(page, ['/admin/payouts'], 'laptop-operator'), []);
    const region = page.locator('main .table-scroll');
    await region.waitFor();
    const { scrollWidth, clientWidth } = await region.evaluate((el) => ({
      scrollWidth: el.scrollWidth,
      clientWidth: el.clientWidth,
    }));
    assert.ok(scrollWidth <= clientWidth, `the payouts table is ${scrollWidth} px wide in ${clientWidth}`);
    await page.context().close();
  });
});
