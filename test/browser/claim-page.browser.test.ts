import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser } from 'playwright-core';
import { launchChromium, RESULTS } from './chromium.ts';
import type { CustomerLang } from '../../src/platform/language.ts';
import {
  buildTestApp,
  createTestPartner,
  eventually,
  FLIGHT,
  insureFlight,
  post,
  type TestApp,
  type TestPartner,
} from '../helper.ts';

/** The customer's bank-details page on a phone (390 px wide), in Debian's Chromium. */

describe('the bank-details page on a phone', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let partner: TestPartner;
  /** A partner whose claims are paid in USD: its page asks for a US account. */
  let dollars: TestPartner;

  before(async () => {
    t = await buildTestApp({ env: { PARASOL_JOB_POLL_SECONDS: '1' } });
    partner = await createTestPartner(t.db);
    dollars = await createTestPartner(t.db, { agreement: { currency: 'USD' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A cancelled flight's claim for a customer of `language`: its bank-details link, and a phone-sized page. */
  async function claimOnPhone(flightNumber: string, language: CustomerLang, locale: string, seller = partner) {
    const insured = await insureFlight(t.app, seller, { flightNumber, language });
    const event = await post(
      t.app,
      `${FLIGHT}/claims`,
      { flightNumber: insured.flightNumber, departureDate: insured.departureDate, status: 'cancelled' },
      seller.auth,
    );
    assert.equal(event.status, 200, JSON.stringify(event.body));
    const link = await eventually(async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `${FLIGHT}/sandbox/messages?contractNumber=${insured.contractNumber}`,
        headers: seller.auth,
      });
      return (JSON.parse(res.body).messages[0]?.link as string | undefined) ?? undefined;
    });
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      locale,
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return { link, context, page };
  }

  test('the IBAN groups in fours in capitals as it is typed, the page fits 390 px, and the details are taken', async () => {
    const { link, context, page } = await claimOnPhone('AF871', 'en', 'en-GB');
    try {
      await page.goto(`${base}/c/${link.split('/c/')[1]}`);
      const iban = page.locator('#f-iban');
      assert.equal(await iban.getAttribute('autocapitalize'), 'characters');
      assert.equal(await iban.getAttribute('inputmode'), 'text');
      assert.equal(await iban.getAttribute('spellcheck'), 'false');
      await page.locator('#f-accountHolder').fill('Ada Byron');
      await iban.pressSequentially('de89370400440532013000');
      assert.equal(await iban.inputValue(), 'DE89 3704 0044 0532 0130 00');
      // a correction in the middle keeps the grouping and the caret where the customer types
      await iban.press('End');
      for (let i = 0; i < 3; i++) await iban.press('Backspace');
      await iban.pressSequentially('000');
      assert.equal(await iban.inputValue(), 'DE89 3704 0044 0532 0130 00');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
      await page.screenshot({ path: path.join(RESULTS, 'claim-page-390.png'), fullPage: true });
      await page.getByRole('button').click();
      await page.getByText(/3000/).first().waitFor();
    } finally {
      await context.close();
    }
  });

  test('refused details on a phone: what to fix shows where the customer looks, focused, and what was typed stays', async () => {
    const { link, context, page } = await claimOnPhone('AF873', 'de', 'de-DE');
    try {
      await page.goto(`${base}/c/${link.split('/c/')[1]}`);
      await page.locator('#f-iban').fill('DE89 3704 0044 0532 0130 01');
      await page.getByRole('button').click();
      const summary = page.locator('#error-summary');
      await summary.waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary');
      assert.ok(await summary.isVisible(), 'the summary shows');
      const box = await summary.boundingBox();
      assert.ok(
        box && box.y >= 0 && box.y + box.height <= 844,
        `the summary is on the screen (${JSON.stringify(box)})`,
      );
      assert.match(await page.title(), /^Bitte prüfen Sie Ihre Angaben — /);
      assert.equal(await page.locator('#f-iban').inputValue(), 'DE89 3704 0044 0532 0130 01');
      await page.screenshot({ path: path.join(RESULTS, 'claim-page-390-refused.png'), fullPage: true });
      // each message leads to its field
      await summary.getByRole('link', { name: /IBAN/ }).click();
      await page.waitForFunction(() => location.hash === '#f-iban');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    } finally {
      await context.close();
    }
  });

  test('the US bank account form at 390 px: every field on the screen, no sideways scroll, a bad routing number focuses the error summary', async () => {
    const { link, context, page } = await claimOnPhone('AF874', 'en', 'en-US', dollars);
    try {
      await page.goto(`${base}/c/${link.split('/c/')[1]}`);
      const fields = [
        '#f-accountHolder',
        '#f-routingNumber',
        '#f-accountNumber',
        '#f-accountType',
        'button[type="submit"]',
      ];
      /** Each field shown and within the phone's width; the page as wide as the phone. */
      const fitsThePhone = async (when: string) => {
        for (const selector of fields) {
          const field = page.locator(selector);
          assert.ok(await field.isVisible(), `${when}: ${selector} shows`);
          const box = await field.boundingBox();
          assert.ok(
            box && box.x >= 0 && box.x + box.width <= 390,
            `${when}: ${selector} within 390 px (${JSON.stringify(box)})`,
          );
        }
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${when}: the page is ${overflow}px wider than the phone`);
      };
      await fitsThePhone('the form');
      assert.equal(await page.locator('#f-routingNumber').getAttribute('inputmode'), 'numeric');
      assert.equal(await page.locator('#f-iban').count(), 0, 'a US account, not an IBAN');
      await page.screenshot({ path: path.join(RESULTS, 'claim-page-390-us.png'), fullPage: true });

      await page.locator('#f-accountHolder').fill('Jordan Smith');
      await page.locator('#f-routingNumber').fill('123456789'); // its ABA check digit does not match
      await page.locator('#f-accountNumber').fill('000123456789');
      await page.locator('#f-accountType').selectOption('checking');
      await page.getByRole('button').click();
      const summary = page.locator('#error-summary');
      await summary.waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary', 'the summary has the focus');
      const box = await summary.boundingBox();
      assert.ok(
        box && box.y >= 0 && box.y + box.height <= 844,
        `the summary is on the screen (${JSON.stringify(box)})`,
      );
      const routing = summary.getByRole('link', { name: /routing number/ });
      assert.equal(await routing.getAttribute('href'), '#f-routingNumber');
      assert.equal(await summary.getByRole('link').count(), 1, 'the routing number alone is refused');
      assert.equal(await page.locator('#f-routingNumber').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('#f-routingNumber').inputValue(), '123456789', 'what was typed stays');
      assert.equal(await page.locator('#f-accountType').inputValue(), 'checking');
      await fitsThePhone('refused');
      await page.screenshot({ path: path.join(RESULTS, 'claim-page-390-us-refused.png'), fullPage: true });
      // the message leads to its field
      await routing.click();
      await page.waitForFunction(() => location.hash === '#f-routingNumber');
    } finally {
      await context.close();
    }
  });

  test('in Italian at 390 px: the page, its legal footer with the insurer, and the privacy notice', async () => {
    await t.db.updateTable('partners').set({ brand_name: 'SkyFly' }).where('id', '=', partner.id).execute();
    const { link, context, page } = await claimOnPhone('AF872', 'it', 'it-IT');
    try {
      await page.goto(`${base}/c/${link.split('/c/')[1]}`);
      assert.equal(await page.locator('html').getAttribute('lang'), 'it');
      await page.getByRole('heading', { name: 'Il suo indennizzo' }).waitFor();
      const footer = page.locator('#legal-footer');
      await footer.scrollIntoViewIfNeeded();
      assert.ok(await footer.isVisible(), 'the legal footer shows');
      const text = await footer.innerText();
      assert.match(text, /Assicurazione ritardo volo SkyFly, assicurata da Parasol Assurances SA \(demo\)/);
      assert.match(text, /Assicuratore: Parasol Assurances SA/);
      assert.match(text, /Iscrizione: RCS Paris/);
      assert.match(text, /contact@parasol\.example/);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
      await page.screenshot({ path: path.join(RESULTS, 'claim-page-390-it.png'), fullPage: true });
      await page.getByRole('link', { name: 'Informativa privacy' }).click();
      await page.getByRole('heading', { name: 'Informativa privacy' }).waitFor();
      await page.getByText(/sono conservati cifrati/).waitFor();
      const notice = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(notice <= 0, `the notice is ${notice}px wider than the phone`);
      await page.screenshot({ path: path.join(RESULTS, 'privacy-390-it.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });
});
