import type { Browser } from '@playwright/test';
import { adminEmail } from './admin-accounts';
import { expect } from './fixtures';
import { addFromProductPage, apiCheckout, checkoutTo, hydrated, newShopper, publish } from './journeys';
import { type SecondShop, startSecondShop, testOn } from './second-shop';

// Scheduled changes with real releases (decisions 017, 018), on a shop of the spec's own (a publish changes what every shopper of
// its server sees): a sale that starts and ends by itself, seen and charged on a phone; and a publish at a chosen
// time, scheduled, listed, cancelled and run on a phone. The server's clock cannot be moved from the browser, so the
// times are real ones a few seconds ahead. The rules (start included, end excluded, time zones, exactly once, cancel
// races, a payment opened during a sale) are in Vitest: sale.test.ts, shop-time.test.ts, tests/db/sales-live.test.ts
// and tests/db/scheduled-publish.test.ts.

const ZONE = 'America/New_York'; // the shop's time zone (SHOP_TIME_ZONE's default)
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const OWNERS = [adminEmail('sale-desk'), adminEmail('schedules-mobile')].join(',');

/** `at` on the shop's clock, as a datetime-local field that takes seconds holds it: '2026-12-09T09:00:05'. */
function shopWall(at: Date): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: ZONE,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

/** A whole second `seconds` from now (the field takes whole seconds). */
const secondsAhead = (seconds: number) => new Date(Math.ceil(Date.now() / 1000) * 1000 + seconds * 1000);

const onOwnShop = testOn((): Promise<SecondShop> => startSecondShop('schedules', { ADMIN_EMAILS: OWNERS }), 180_000);

/** A shopper's phone. */
async function phone(browser: Browser, baseURL: string | undefined) {
  const context = await browser.newContext({ ...(baseURL ? { baseURL } : {}), ...PHONE });
  return { context, page: await context.newPage() };
}

onOwnShop.describe('scheduled changes', () => {
  onOwnShop.describe.configure({ mode: 'serial' });

  onOwnShop(
    'a sale set on a desktop starts and ends by itself: a shopper on a phone sees it struck through on the page, the home grid and its JSON-LD, and is charged it; then the price again',
    async ({ page, browser, baseURL, signInAdmin, shop }, testInfo) => {
      onOwnShop.setTimeout(120_000); // a publish, then the sale's end
      await signInAdmin('sale-desk');
      await page.goto('/admin/catalogue/06-turmeric-body-oil');
      await hydrated(page, '.editor-product');
      const start = secondsAhead(5);
      const end = secondsAhead(35);
      await page.getByLabel('Sale price, in dollars').fill('29.99');
      await page.getByLabel('Sale starts').fill(shopWall(start));
      await page.getByLabel('Sale ends').fill(shopWall(end));
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect(page.locator('.editor-product .editor-status')).toHaveText(/^Saved at .*: sale \$29\.99 from /);
      await publish(page);
      const live = Date.now();
      testInfo.annotations.push({
        type: 'sale',
        description: `published ${Math.round((live - start.getTime()) / 1000)} s after the sale's start`,
      });
      expect(live, 'the publish took longer than the sale lasts: nothing left to see').toBeLessThan(end.getTime() - 15_000);

      const shopper = await phone(browser, baseURL);
      // Published before the start (a release takes a second or two): the sale's pages go out at its start, or at
      // once when it started while the publish was being switched in (tests/db/sales-live.test.ts). Should they not
      // come, the server's log says which release it served and when it changed pages.
      await expect
        .poll(async () => /Sale: was (<!-- -->)?\$35\.00/.test(await (await shopper.context.request.get('/product/6')).text()), {
          timeout: Math.max(0, start.getTime() - Date.now()) + 10_000,
          intervals: [250],
        })
        .toBe(true)
        .catch((error: Error) => {
          throw new Error(`${error.message}\nThe server's log:\n${shop.output().slice(-6000)}`);
        });
      const began = Date.now();
      testInfo.annotations.push({
        type: 'sale',
        description: `began on the page ${((began - start.getTime()) / 1000).toFixed(1)} s after its start`,
      });
      // From its start, or from the publish when that came after it (a busy machine).
      expect(began - Math.max(start.getTime(), live)).toBeLessThan(5_000);
      await shopper.page.goto('/product/6');
      const price = shopper.page.locator('.product-price');
      await expect(price).toContainText('Sale: was $35.00, now $29.99');
      await expect(price.locator('s')).toHaveText('$35.00');
      await expect(price.locator('s')).toBeVisible();
      const ld = JSON.parse((await shopper.page.locator('script[type="application/ld+json"]').first().textContent()) ?? '{}');
      expect(ld.offers).toMatchObject({
        price: '29.99',
        priceSpecification: { priceType: 'https://schema.org/StrikethroughPrice', price: '35.00' },
      });
      await shopper.page.goto('/');
      const card = shopper.page.getByRole('link', { name: /Turmeric Body Oil/ });
      await expect(card).toContainText('Sale: was $35.00, now $29.99');
      await expect(card.locator('s')).toBeVisible();
      expect(await shopper.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

      // What the checkout charges is what the page shows: the payment stage is priced by the server.
      await addFromProductPage(shopper.page, 6);
      const checkout = await checkoutTo(shopper.page, newShopper('Sol', { city: 'Savannah', state: 'GA', zip: '31401' }));
      await expect(checkout.getByTestId('checkout-subtotal')).toHaveText('$29.99');
      expect(Date.now(), 'still within the sale').toBeLessThan(end.getTime());

      // The end: no one publishes; from it the page and the checkout are back at the price (the shop promises a minute;
      // the release holds the pages for after the sale, sent from its end).
      await expect
        .poll(
          async () => {
            const res = await shopper.context.request.get('/product/6');
            return /class="product-price">\$35\.00</.test(await res.text());
          },
          { timeout: end.getTime() - Date.now() + 10_000, intervals: [250] },
        )
        .toBe(true);
      const ended = Date.now();
      testInfo.annotations.push({
        type: 'sale',
        description: `ended on the page ${((ended - end.getTime()) / 1000).toFixed(1)} s after its end`,
      });
      expect(ended).toBeGreaterThanOrEqual(end.getTime());
      expect(ended - end.getTime()).toBeLessThan(5_000);
      await shopper.page.goto('/product/6');
      await expect(price).toHaveText('$35.00');
      await expect(price.locator('s')).toHaveCount(0);
      const again = await checkoutTo(shopper.page, newShopper('Sol', { city: 'Savannah', state: 'GA', zip: '31401' }));
      await expect(again.getByTestId('checkout-subtotal')).toHaveText('$35.00');
      await shopper.context.close();
    },
  );

  onOwnShop(
    'an editor on a phone schedules a publish of a price change 12 s ahead: listed with who scheduled it, live at its time and listed as published; another is cancelled',
    async ({ browser, baseURL, signInAdmin }, testInfo) => {
      onOwnShop.setTimeout(240_000);
      const editor = await phone(browser, baseURL);
      const { page } = editor;
      await signInAdmin('schedules-mobile', page.request);
      const origin = baseURL ?? '';
      const who = newShopper('Ren', { city: 'Savannah', state: 'GA', zip: '31401' });
      const before = (await apiCheckout(page.request, origin, [{ productId: 7 }], who)).amountCents;

      await page.goto('/admin/catalogue/07-kojic-acid-soap');
      await hydrated(page, '.editor-product');
      await page.getByLabel('Price (dollars)').fill('14.50');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect(page.locator('.editor-product .editor-status')).toHaveText(/^Saved at /);

      await page.goto('/admin/catalogue');
      await hydrated(page, '.editor-publish');
      const panel = page.getByRole('region', { name: 'Publish' });
      const when = panel.getByLabel(/^Publish at \(/);
      // One for later, cancelled.
      await when.fill(shopWall(secondsAhead(3600)));
      await panel.getByRole('button', { name: 'Schedule publish' }).click();
      const upcoming = panel.getByRole('list', { name: 'Scheduled publishes', exact: true });
      await expect(upcoming.getByRole('listitem')).toHaveCount(1);
      await upcoming.getByRole('button', { name: /^Cancel/ }).click();
      await expect(panel.getByText(/^The publish scheduled for .* is cancelled\.$/)).toBeVisible();
      await expect(panel.getByRole('list', { name: 'Scheduled publishes done' })).toContainText(
        `cancelled by ${adminEmail('schedules-mobile')}`,
      );
      // One 12 s ahead.
      const runAt = secondsAhead(12);
      await when.fill(shopWall(runAt));
      await panel.getByRole('button', { name: 'Schedule publish' }).click();
      await expect(panel.getByText(/^A publish is scheduled for /)).toBeVisible();
      await expect(upcoming.getByRole('listitem')).toContainText(`scheduled by ${adminEmail('schedules-mobile')}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      // Saved, scheduled: shoppers still see the price.
      const shopper = await browser.newContext({ ...(baseURL ? { baseURL } : {}), ...PHONE });
      expect(await (await shopper.request.get('/product/7')).text()).toContain('$15.00');

      await expect
        .poll(async () => (await (await shopper.request.get('/product/7')).text()).includes('$14.50'), {
          timeout: runAt.getTime() - Date.now() + 15_000,
          intervals: [250],
        })
        .toBe(true);
      const seen = Date.now();
      testInfo.annotations.push({
        type: 'schedule',
        description: `live ${((seen - runAt.getTime()) / 1000).toFixed(1)} s after its time`,
      });
      expect(seen).toBeGreaterThanOrEqual(runAt.getTime());
      expect(seen - runAt.getTime()).toBeLessThan(15_000);
      const after = (await apiCheckout(shopper.request, origin, [{ productId: 7 }], who)).amountCents;
      // 50 cents less, and the tax on them.
      expect(before - after).toBeGreaterThanOrEqual(50);
      expect(before - after).toBeLessThanOrEqual(60);
      // The panel lists it as done (it follows a publish it sees start), and the publish as live.
      await expect(panel.getByRole('list', { name: 'Scheduled publishes done' }).getByRole('listitem').first()).toContainText(
        'published at',
        { timeout: 15_000 },
      );
      await expect(panel.getByText('No publish is scheduled.')).toBeVisible();
      await expect(page.locator('.editor-publish [role="status"]')).toHaveText('Published: shoppers see the catalogue as saved.');
      await Promise.all([shopper.close(), editor.context.close()]);
    },
  );
});
