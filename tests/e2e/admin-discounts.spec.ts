import type { Page } from '@playwright/test';
import type { E2EAdmin } from './admin-accounts';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { hydrated, signedInAdmin } from './journeys';

// The owner's discounts through the built server, on a desktop and on a phone: create a code, find it in the list,
// pause it, change the automatic offer, and read both in the activity log. The offer is the shop's one row, which every
// checkout reads: it stays off here (other specs' shoppers pay at the same time), so its rule is checked as the preview
// says it before saving, and the two viewports run one after the other. What each refusal says, and every rule of the
// codes, are the database suite's (tests/db/discounts-admin.test.ts).

test.describe.configure({ mode: 'serial' });
// A long journey (two forms, the offer, the activity log, four accessibility checks): 44 s on a machine at load 19.
test.slow();

const VIEWPORTS: { name: string; admin: E2EAdmin; viewport: { width: number; height: number } }[] = [
  { name: 'desktop', admin: 'discounts', viewport: { width: 1280, height: 900 } },
  { name: 'phone', admin: 'promotions', viewport: { width: 390, height: 844 } },
];

const fitsWidth = async (page: Page, width: number) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);

for (const { name, admin, viewport } of VIEWPORTS) {
  test(`the owner creates a code, pauses it and changes the offer, and reads both in the activity log (${name})`, async ({
    browser,
    baseURL,
  }, testInfo) => {
    const context = await browser.newContext({ baseURL: baseURL ?? '', viewport });
    const page = await context.newPage();
    await signedInAdmin(page.request, baseURL ?? '', admin);
    const code = `E2E${name.toUpperCase()}${Date.now().toString(36).toUpperCase()}`;
    // The soap's page (and its JSON-LD) and the sitemap as they are before the code for the soap exists.
    const published = async () =>
      Promise.all(['/product/7', '/sitemap-0.xml'].map(async (path) => (await page.request.get(path)).text()));
    const before = await published();
    expect(before[0]).toContain('application/ld+json');

    await page.goto('/admin');
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Discounts' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Discounts');
    await page.getByRole('link', { name: 'New code' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('New discount code');
    await hydrated(page, '.discount-form');

    // Markup typed as a code is refused in words and shown as text, never as markup.
    const codeField = page.getByLabel(/^Code \(what shoppers type/);
    await codeField.fill('<b>bold</b>');
    await page.getByLabel('Percent off (1 to 100)').fill('20');
    await page.getByRole('button', { name: 'Create code' }).click();
    await expect(page.getByRole('alert')).toHaveText('A code is 3 to 32 letters or digits (and - or _), such as SUMMER10.');
    await expect(page.locator('.discount-form b')).toHaveCount(0);

    await codeField.fill(code.toLowerCase());
    await page.getByLabel('Minimum subtotal before discounts (USD, optional)').fill('40');
    await page.getByLabel(/^Ends \(America\/New_York time, optional\)$/).fill('2031-01-31T23:30');
    await page.getByLabel('Uses in all (optional)').fill('25');
    await page.getByLabel('Uses per customer (optional)').fill('1');
    await page.getByRole('group', { name: 'Products' }).getByRole('checkbox', { name: 'Kojic Acid Soap' }).check();
    await page.getByRole('group', { name: 'Categories' }).getByRole('checkbox', { name: 'Body Butter' }).check();
    await page.getByRole('button', { name: 'Create code' }).click();

    // The code's page, saying so; its rules read back on the shop's clock.
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Code ${code}`);
    await expect(page.getByRole('status').filter({ hasText: `Code ${code} created.` })).toBeVisible();
    await expect(page.locator('main')).toContainText('20% off on Kojic Acid Soap, the Body Butter category');
    await expect(page.locator('main')).toContainText('until Jan 31, 2031, 11:30 PM EST');
    await expect(page.locator('.discount-cards')).toContainText('0 used');
    await expect(page.getByText('No order has used this code yet.')).toBeVisible();
    // A code changes what a cart costs, never what the catalogue's pages say.
    expect(await published()).toEqual(before);
    await hydrated(page, '.discount-form');
    await expect(page.getByLabel(/^Ends \(/)).toHaveValue('2031-01-31T23:30');
    await page.screenshot({ path: testInfo.outputPath(`code-${name}.png`), fullPage: true });
    await fitsWidth(page, viewport.width);
    expect(await axeViolations(page)).toEqual([]);

    // Paused, after confirming.
    await hydrated(page, '.discount-status-line');
    await page.getByRole('button', { name: `Pause ${code}` }).click();
    const dialog = page.getByRole('dialog', { name: `Pause code ${code}?` });
    await expect(dialog).toContainText('Shoppers who type it are told it is paused');
    await dialog.getByRole('button', { name: `Pause ${code}` }).click();
    await expect(page.getByRole('status').filter({ hasText: `Code ${code} paused.` })).toBeVisible();
    await expect(page.locator('.discount-status-line')).toHaveText('Paused');

    // Listed, paused, with its uses and limit.
    await page.getByRole('link', { name: '← All discounts' }).click();
    const row = page.getByRole('list', { name: 'Discount codes' }).getByRole('listitem').filter({ hasText: code });
    await expect(row).toContainText('20% off');
    await expect(row).toContainText('Paused');
    await expect(row).toContainText('0 used');
    await expect(row).toContainText('of 25');
    await fitsWidth(page, viewport.width);

    // The offer: its preview says what shoppers will read as it is set, before anything is saved. It is saved off.
    await hydrated(page, '.discount-offer-form');
    const preview = page.locator('.discount-preview');
    await page.getByLabel('From a subtotal of (USD)').fill(name === 'phone' ? '150' : '120');
    await page.getByLabel('Percent off every item').fill(name === 'phone' ? '8' : '12');
    const on = page.getByRole('checkbox', { name: 'The offer is on' });
    const combines = page.getByRole('checkbox', { name: /^A code adds to the offer/ });
    await on.check();
    await combines.check();
    await expect(preview).toContainText(
      `${name === 'phone' ? 8 : 12}% off every item from a subtotal of $${name === 'phone' ? 150 : 120}.00`,
    );
    await expect(preview).toContainText('a code adds to the automatic offer (it applies to what the offer left)');
    await combines.uncheck();
    await expect(preview).toContainText('you get whichever saves you more');
    await on.uncheck();
    await expect(preview).toContainText('Off: shoppers get no offer.');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: testInfo.outputPath(`list-${name}.png`), fullPage: true });
    await page.getByRole('button', { name: 'Save offer' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Automatic offer saved.' })).toBeVisible();

    // Both changes in the activity log, naming the owner.
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Activity' }).click();
    const log = page.getByRole('region', { name: 'Admin actions' });
    const who = `${admin}@admins.aurelia.test`;
    await expect(log.getByRole('row').filter({ hasText: `Discount code paused: code ${code}` })).toContainText(who);
    await expect(log.getByRole('row').filter({ hasText: `Discount code paused: code ${code}` })).toContainText('Active → Paused');
    await expect(log.getByRole('row').filter({ hasText: `Discount code created: code ${code}` })).toContainText('20% off');
    await expect(
      log.getByRole('row').filter({ hasText: 'Automatic offer changed: automatic offer' }).filter({ hasText: who }).first(),
    ).toContainText(`from $${name === 'phone' ? 150 : 120}.00`);
    await page.screenshot({ path: testInfo.outputPath(`activity-${name}.png`), fullPage: true });
    await context.close();
  });
}
