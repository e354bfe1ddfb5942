import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, type Page, request as playwrightRequest } from '@playwright/test';
import { unzip } from '../db/unzip';
import { adminEmail, editorEmail } from './admin-accounts';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { hydrated, logIn, signedInAdmin, signedInShopper } from './journeys';
import { type SecondShop, startSecondShop } from './second-shop';

// The repository and the shop agree (decision 018), as a deploy happens: a shop of the spec's own runs from a copy of
// the project (its scripts and content, the built dist/ and node_modules linked), on an embedded database of its own.
// Editors save two products; the shop stops; the copy's content/products changes both (the deploy: the running shop
// reads its seed from the project it runs in, and nothing else points it elsewhere); the shop starts again on the same
// database. An editor on a desktop sees the change, with both versions, keeps the saved price and downloads the
// catalogue as saved; an editor on a 390 px phone takes the repository's version; the owner reads both in the
// activity log on a desktop and on a phone. The shop's pages are the build of the project's own seed, so no shopper
// page is checked here: what is published after a choice is catalogue-repository.test's and publish.spec's.
// The rules (found once across servers, stale and crossed choices, exports byte for byte): tests/db/catalogue-repository.test.ts.

const PROJECT = resolve('.');
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const OWNER = adminEmail('repo-keeper');
const OIL = 'content/products/06-turmeric-body-oil.md';
const SCRUBS = 'content/products/03-clinical-scrubs.md';

test.describe.configure({ mode: 'serial' });

let copy = '';
let shop: SecondShop | undefined;
const people = {
  owner: { email: OWNER, password: '' },
  desk: { email: editorEmail('repository'), password: '' },
  phone: { email: editorEmail('repository-phone'), password: '' },
};

/** The shop on the copy and its data directory (one start, with the repository as it is in the copy). */
const start = () =>
  startSecondShop(
    'repository',
    { ADMIN_EMAILS: OWNER, PGLITE_DIR: join(copy, 'pglite'), BUILDS_DIR: join(copy, '.builds') },
    copy,
  );

test.beforeAll(async () => {
  test.setTimeout(420_000); // two starts of a shop, a minute or more each on a busy two-core machine
  copy = mkdtempSync(join(tmpdir(), 'aurelia-repository-'));
  for (const entry of ['package.json', 'astro.config.mjs', 'tsconfig.json', 'scripts', 'content'])
    cpSync(join(PROJECT, entry), join(copy, entry), { recursive: true });
  for (const entry of ['node_modules', 'dist', 'src', 'supabase', 'public']) symlinkSync(join(PROJECT, entry), join(copy, entry));

  // Before the deploy: accounts, the editor role, and a save of each product.
  shop = await start();
  const api = await playwrightRequest.newContext({ baseURL: shop.origin });
  const headers = { origin: shop.origin };
  people.owner.password = (await signedInAdmin(api, shop.origin, 'repo-keeper', shop.mailbox)).password;
  for (const who of [people.desk, people.phone]) {
    const editor = await playwrightRequest.newContext({ baseURL: shop.origin });
    who.password = (await signedInShopper(editor, shop.origin, 'Edna', who.email, shop.mailbox)).password;
    await editor.dispose();
    const grant = await api.post('/api/admin/editors', { headers, data: { email: who.email, editor: true } });
    expect(grant.status()).toBe(200);
  }
  for (const [slug, price] of [
    ['06-turmeric-body-oil', 29.99],
    ['03-clinical-scrubs', 44],
  ] as const) {
    const saved = await api.post(`/api/admin/catalogue/products/${slug}`, { headers, data: { base: 0, fields: { price } } });
    expect(saved.status(), await saved.text()).toBe(200);
  }
  await api.dispose();
  await shop.stop();

  // The deploy: a developer changed both products in the repository meanwhile.
  const edit = (file: string, change: (text: string) => string) => {
    const path = join(copy, file);
    const text = readFileSync(path, 'utf8');
    const changed = change(text);
    if (changed === text) throw new Error(`${file} did not change`);
    writeFileSync(path, changed);
  };
  edit(OIL, (t) =>
    t.replace(/^price: 35$/m, 'price: 32').replace('A lightweight, golden dry-touch', 'A lightweight, fast-absorbing'),
  );
  edit(SCRUBS, (t) => t.replace(/^name: Clinical Scrubs$/m, 'name: Clinical Scrub Set'));
  shop = await start();
});

test.afterAll(async () => {
  await shop?.stop();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** A browser of one's own on the shop, signed in from its front page as a person does. */
async function signedIn(browser: Browser, who: { email: string; password: string }, phone = false) {
  const origin = shop?.origin ?? '';
  const context: BrowserContext = await browser.newContext({ baseURL: origin, ...(phone ? PHONE : {}) });
  const page = await context.newPage();
  await page.goto('/');
  await logIn(page, who.email, who.password);
  await expect(page.getByRole('dialog')).toBeHidden();
  return { context, page };
}

/** From the front page to the catalogue: the header's Admin link (in the menu on a phone). */
async function openCatalogue(page: Page, phone: boolean) {
  await page.goto('/');
  const nav = page.getByRole('navigation', { name: 'Main' });
  if (phone) {
    await hydrated(page, '.menu-button');
    await nav.getByRole('button', { name: 'Menu' }).click();
    await page.locator('.nav-mobile').getByRole('link', { name: 'Admin', exact: true }).click();
  } else await nav.getByRole('link', { name: 'Admin', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Catalogue');
}

test('on a desktop, an editor sees what the deploy changed under their save, keeps the saved price, and downloads the catalogue as saved', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { context, page } = await signedIn(browser, people.desk);
  await openCatalogue(page, false);
  const notice = page.getByRole('region', { name: 'Changed in the repository' });
  await expect(notice).toContainText('A deploy changed 2 products that editors had saved.');
  const row = page.getByRole('row', { name: /Turmeric Body Oil/ });
  await expect(row).toContainText('Changed in the repository: choose a version');
  await notice.getByRole('link', { name: 'Turmeric Body Oil' }).click();

  await hydrated(page, '.editor-product');
  const panel = page.getByRole('region', { name: 'Changed in the repository' });
  await expect(panel).toContainText('From the saved version to the repository’s: price $29.99 → $32.00; description changed.');
  await expect(panel).toContainText('Shoppers see');
  // The description word by word: the saved words struck through, the repository's underlined.
  const diff = panel.locator('.editor-diff');
  await expect(diff.locator('del')).toContainText('golden dry-touch');
  await expect(diff.locator('ins')).toContainText('fast-absorbing');
  // Both files whole, on demand.
  await panel.getByText('The repository’s version, whole').click();
  await expect(panel.locator('pre').nth(1)).toContainText('price: 32');
  await panel.getByText('The saved version, whole').click();
  await expect(panel.locator('pre').first()).toContainText('price: 29.99');
  await expect(page.getByLabel('Price (dollars)')).toHaveValue('29.99');
  expect(await axeViolations(page, '.editor-repository')).toEqual([]);

  await panel.getByRole('button', { name: 'Keep the saved version' }).click();
  await expect(page.locator('.editor-product .editor-status')).toHaveText(
    /^Kept the saved version at .*: kept the saved version over the repository’s \(price \$29\.99 → \$32\.00; description changed\)\./,
  );
  await expect(panel).toHaveCount(0);
  await expect(page.getByLabel('Price (dollars)')).toHaveValue('29.99');
  await expect(page.getByRole('region', { name: 'History' }).getByRole('listitem').first()).toContainText(
    'kept the saved version over the repository’s',
  );

  // The list no longer marks it; the download holds the saved file as the next publish builds it.
  await page.goto('/admin/catalogue');
  await expect(page.getByRole('row', { name: /Turmeric Body Oil/ })).not.toContainText('Changed in the repository');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download the catalogue as saved (.zip)' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^aurelia-catalogue-\d{4}-\d{2}-\d{2}\.zip$/);
  const files = unzip(readFileSync((await download.path()) ?? ''));
  const oil = files.get(OIL)?.toString('utf8') ?? '';
  expect(oil).toContain('price: 29.99');
  expect(oil).toContain('A lightweight, golden dry-touch');
  // What the editor did not touch is the repository's, byte for byte.
  const butter = 'content/products/02-turmeric-body-butter.md';
  expect(files.get(butter)?.toString('utf8')).toBe(readFileSync(join(copy, butter), 'utf8'));
  expect(files.size).toBe(9);
  await context.close();
});

test('on a 390 px phone, an editor takes the repository’s version of the other product', async ({ browser }) => {
  test.setTimeout(120_000);
  const { context, page } = await signedIn(browser, people.phone, true);
  await openCatalogue(page, true);
  const notice = page.getByRole('region', { name: 'Changed in the repository' });
  await expect(notice).toContainText('A deploy changed a product that editors had saved.');
  await notice.getByRole('link', { name: 'Clinical Scrubs' }).click();
  await hydrated(page, '.editor-product');
  const panel = page.getByRole('region', { name: 'Changed in the repository' });
  await expect(panel).toContainText('name “Clinical Scrubs” → “Clinical Scrub Set”; price $44.00 → $45.00');
  await panel.getByText('The repository’s version, whole').click();
  await expect(panel.locator('pre').nth(1)).toContainText('name: Clinical Scrub Set');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const take = panel.getByRole('button', { name: 'Take the repository’s version' });
  const box = await take.boundingBox();
  expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
  await take.tap();
  await expect(page.locator('.editor-product .editor-status')).toHaveText(/^Took the repository’s version at /);
  await expect(panel).toHaveCount(0);
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Clinical Scrub Set');
  await expect(page.getByLabel('Price (dollars)')).toHaveValue('45.00');
  await page.goto('/admin/catalogue');
  await expect(page.getByRole('region', { name: 'Changed in the repository' })).toHaveCount(0);
  await context.close();
});

for (const phone of [false, true])
  test(`the owner reads on a ${phone ? '390 px phone' : 'desktop'} what the deploy changed and what the editors chose`, async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const { context, page } = await signedIn(browser, people.owner, phone);
    await page.goto('/admin/activity');
    const log = page.getByRole('region', { name: 'Admin actions' });
    await expect(log).toContainText(
      'changed Turmeric Body Oil, which editors had saved: price $29.99 → $32.00; description changed (saved → repository). The shop keeps the saved version until an editor chooses.',
    );
    await expect(log.getByRole('row', { name: /changed Clinical Scrubs, which editors had saved/ })).toContainText(
      'the repository (a deploy)',
    );
    await expect(log.getByRole('row', { name: /kept the saved version of Turmeric Body Oil/ })).toContainText(people.desk.email);
    await expect(
      log.getByRole('row', {
        name: /took the repository’s version of Clinical Scrubs: name “Clinical Scrubs” → “Clinical Scrub Set”/,
      }),
    ).toContainText(people.phone.email);
    // Found as the shop started after the deploy: one line for each product.
    await expect(log.getByRole('row', { name: /which editors had saved/ })).toHaveCount(2);
    if (phone) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await context.close();
  });
