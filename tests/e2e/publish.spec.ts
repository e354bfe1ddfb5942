import { randomBytes } from 'node:crypto';
import type { APIRequestContext, Page } from '@playwright/test';
import { adminEmail, editorEmail } from './admin-accounts';
import { expect } from './fixtures';
import { apiCheckout, hydrated, logIn, publish, signedInShopper, waitForMail } from './journeys';
import { type SecondShop, startSecondShop, testOn } from './second-shop';

// Publishing on the running shop, with real releases: each describe runs a shop of its own (a publish changes what
// every shopper of that server sees, so never on the server other specs share).
// The editor's form, history and undo without publishing: catalogue-editing.spec.ts.

const SCRUBS = '/admin/catalogue/03-clinical-scrubs';
const OWNER = adminEmail('publish');
/** The shop's owners: one account per test on a shared shop (an account signs up once). */
const OWNERS = [OWNER, adminEmail('publish-load'), adminEmail('publish-log')].join(',');

/** A shop of the spec's own. */
function publishingShop(name: string, env: Record<string, string> = {}): Promise<SecondShop> {
  return startSecondShop(name, { ADMIN_EMAILS: OWNERS, ...env });
}

/** Saves a new price for the Clinical Scrubs in the editor's form, as the owner in `page`. */
async function savePrice(page: Page, price: string) {
  await page.goto(SCRUBS);
  await hydrated(page, '.editor-product');
  await page.getByLabel('Price (dollars)').fill(price);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.locator('.editor-status')).toHaveText(/^Saved at /);
}

/** What the checkout charges, in cents, for one Clinical Scrubs set to a fixed address. */
async function scrubsCheckout(request: APIRequestContext, origin: string) {
  const who = {
    firstName: 'Pat',
    lastName: 'Price',
    name: 'Pat Price',
    email: 'pat.price@example.com',
    password: 'lavender-fields-7',
    street: '12 Bull St',
    city: 'Savannah',
    state: 'GA' as const,
    zip: '31401',
  };
  const checkout = await apiCheckout(request, origin, [{ productId: 3, selectedColor: 'blue', selectedSize: 'M' }], who);
  return checkout.amountCents;
}

const onOwnShop = testOn(() => publishingShop('publish'), 180_000);

onOwnShop.describe('publishing the catalogue', () => {
  onOwnShop.describe.configure({ mode: 'serial' });

  onOwnShop(
    'the owner changes a price and publishes: shoppers see it on the page and are charged it; undone and published again, it is back',
    async ({ page, browser, baseURL, signInAdmin }) => {
      onOwnShop.slow();
      const origin = baseURL ?? '';
      await signInAdmin('publish');
      const shopper = await browser.newContext();
      const shopperPage = await shopper.newPage();
      const before = await scrubsCheckout(shopper.request, origin);
      await shopperPage.goto('/product/3');
      await expect(shopperPage.getByRole('main').getByText('$45.00').first()).toBeVisible();

      await savePrice(page, '47.25');
      // Saved is not published: shoppers still see the old price.
      await shopperPage.reload();
      await expect(shopperPage.getByRole('main').getByText('$45.00').first()).toBeVisible();

      const pressed = Date.now();
      await publish(page);
      expect(Date.now() - pressed).toBeLessThan(15_000);
      await shopperPage.reload();
      await expect(shopperPage.getByRole('main').getByText('$47.25').first()).toBeVisible();
      // The page's structured data and the checkout's amount say the same.
      expect(await shopperPage.locator('script[type="application/ld+json"]').first().textContent()).toContain('47.25');
      const after = await scrubsCheckout(shopper.request, origin);
      expect(after - before).toBeGreaterThanOrEqual(225);
      expect(after - before).toBeLessThan(300);

      // Undo the change in the history, publish again: the seed's price is back everywhere.
      await page.goto(SCRUBS);
      await hydrated(page, '.editor-product');
      await page.getByRole('region', { name: 'History' }).getByRole('button', { name: /^Undo/ }).first().click();
      await expect(page.locator('.editor-status')).toHaveText(/^Undone and saved at /);
      await publish(page);
      await shopperPage.reload();
      await expect(shopperPage.getByRole('main').getByText('$45.00').first()).toBeVisible();
      expect(await scrubsCheckout(shopper.request, origin)).toBe(before);

      // The first publish served again from the panel's earlier publishes: its price is back, on the page and charged.
      await page.goto('/admin/catalogue');
      await hydrated(page, '.editor-publish');
      const earlier = page.getByRole('list', { name: 'Earlier publishes' });
      await earlier
        .getByRole('listitem')
        .first()
        .getByRole('button', { name: /^Serve this publish again/ })
        .click();
      await expect(page.locator('.editor-publish [role="status"]')).toHaveText(
        /^Publish \d+ is served again: shoppers see the catalogue as it was then\.$/,
      );
      await expect
        .poll(async () => (await (await shopper.request.get('/product/3')).text()).includes('$47.25'), { timeout: 10_000 })
        .toBe(true);
      expect(await scrubsCheckout(shopper.request, origin)).toBe(after);
      await shopper.close();
    },
  );

  onOwnShop(
    'shoppers notice nothing of a publish: 50 connections through it get no failed request, and a signed-in shopper stays signed in',
    async ({ page, baseURL, signIn, signInAdmin, playwright }) => {
      onOwnShop.setTimeout(300_000); // a publish (two minutes allowed) under 50 connections
      const origin = baseURL ?? '';
      await signInAdmin('publish-load');
      const shopperRequest = await playwright.request.newContext({ baseURL: origin });
      const shopper = await signIn(shopperRequest, 'Lou');
      await savePrice(page, '46.50');

      const failures: string[] = [];
      let answered = 0;
      let publishing = true;
      const pages = ['/', '/product/3', '/product/7', '/api/auth/session', '/api/stock'];
      // The signed-in shopper's requests include the cart (a guest's would be refused: it is the signed-in shopper's).
      const shoppersPaths = [...pages, '/api/cart'];
      // Half the connections as the signed-in shopper, half as guests.
      const guest = await playwright.request.newContext({ baseURL: origin });
      const client = async (n: number) => {
        const [request, paths] = n % 2 === 0 ? [shopperRequest, shoppersPaths] : [guest, pages];
        for (let i = n; publishing; i++) {
          const path = paths[i % paths.length] ?? '/';
          try {
            const res = await request.get(path, { headers: { origin }, failOnStatusCode: false });
            if (res.status() >= 300) failures.push(`${path} ${res.status()}`);
            await res.body();
            answered++;
          } catch (error) {
            failures.push(`${path} ${(error as Error).message.split('\n')[0]}`);
          }
        }
      };
      const load = Promise.all(Array.from({ length: 50 }, (_, n) => client(n)));
      try {
        await publish(page);
        // The load goes on a moment on the new build.
        await new Promise((resolve) => setTimeout(resolve, 1500));
      } finally {
        publishing = false;
        await load;
      }
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(200);
      const session = await (await shopperRequest.get('/api/auth/session')).json();
      expect(session.user?.email).toBe(shopper.email);
      const product = await shopperRequest.get('/product/3');
      expect(await product.text()).toContain('$46.50');
      await Promise.all([shopperRequest.dispose(), guest.dispose()]);
    },
  );
  onOwnShop(
    'an editor signs in from the front page, finds the editor in the header and the phone menu, changes a price and publishes; the owner reads each step in the activity log',
    async ({ page, browser, baseURL, mailbox, playwright, signInAdmin }) => {
      onOwnShop.setTimeout(240_000); // a publish, two minutes allowed
      const origin = baseURL ?? '';
      const EDITOR = editorEmail('publisher');
      // An ordinary account; the owner grants it the role, which e-mails its owner the way in.
      const signUp = await playwright.request.newContext({ baseURL: origin });
      const person = await signedInShopper(signUp, origin, 'Edna', EDITOR, mailbox);
      await signUp.dispose();
      await signInAdmin('publish-log');
      const grant = await page.request.post('/api/admin/editors', { headers: { origin }, data: { email: EDITOR, editor: true } });
      expect(grant.status()).toBe(200);
      const mail = await waitForMail(EDITOR, /^You can now edit the Aurelia catalogue$/, mailbox);
      expect(mail.text).toContain(`Open the catalogue editor: ${origin}/admin/catalogue`);

      // The editor signs in from the front page; the header's Admin link takes them to the catalogue.
      const context = await browser.newContext();
      const editor = await context.newPage();
      await editor.goto('/');
      await logIn(editor, EDITOR, person.password);
      const nav = editor.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Admin', exact: true }).click();
      await expect(editor.getByRole('heading', { level: 1 })).toHaveText('Catalogue');
      // On a phone, in the menu.
      await editor.setViewportSize({ width: 390, height: 844 });
      await editor.goto('/');
      await hydrated(editor, '.menu-button');
      await nav.getByRole('button', { name: 'Menu' }).click();
      await editor.locator('.nav-mobile').getByRole('link', { name: 'Admin', exact: true }).click();
      await expect(editor.getByRole('heading', { level: 1 })).toHaveText('Catalogue');

      // A price change, published.
      await editor.getByRole('link', { name: 'Turmeric Body Oil' }).click();
      await hydrated(editor, '.editor-product');
      await editor.getByLabel('Price (dollars)').fill('29.99');
      await editor.getByRole('button', { name: 'Save', exact: true }).click();
      await expect(editor.locator('.editor-status')).toHaveText(/^Saved at .*: price \$35\.00 → \$29\.99\./);
      await publish(editor);
      // The rest of the admin is the owner's, and says so.
      expect((await editor.goto('/admin/activity'))?.status()).toBe(403);
      await expect(editor.getByRole('heading', { level: 1 })).toHaveText('You have catalogue access only');
      await context.close();

      // The owner reads it all in the activity log, in words.
      await page.goto('/admin/activity');
      const log = page.getByRole('region', { name: 'Admin actions' });
      const line = (text: string) => log.getByRole('row').filter({ hasText: text });
      await expect(line('changed the price of Turmeric Body Oil $35.00 → $29.99')).toContainText(EDITOR);
      await expect(line('publish requested: 1 product changed (Turmeric Body Oil)')).toContainText(EDITOR);
      await expect(line('published: 1 product changed (Turmeric Body Oil)')).toHaveCount(1);
      await expect(line('Editor role granted')).toContainText(EDITOR);
    },
  );
});

// Two servers on one PostgreSQL database: what is published on one is served by the other within a minute.
const databaseUrl = process.env.TEST_DATABASE_URL;
const onTwoServers = testOn(async () => {
  if (!databaseUrl) return { origin: '', second: '', stop: async () => {} };
  const { default: postgres } = await import('postgres');
  const name = `aurelia_e2e_publish_${randomBytes(4).toString('hex')}`;
  const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const first = await publishingShop('publish-one', { DATABASE_URL: url.href });
  const second = await publishingShop('publish-two', { DATABASE_URL: url.href });
  return {
    origin: first.origin,
    mailbox: first.mailbox,
    second: second.origin,
    async stop() {
      await Promise.all([first.stop(), second.stop()]);
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}, 240_000);

onTwoServers(
  'with two servers on one PostgreSQL database, a price published on one is served and charged by the other within seconds',
  async ({ page, shop, signInAdmin, playwright }) => {
    onTwoServers.skip(!databaseUrl, 'needs PostgreSQL (TEST_DATABASE_URL): the embedded database is one server’s alone');
    onTwoServers.slow();
    await signInAdmin('publish');
    const other = await playwright.request.newContext({ baseURL: shop.second });
    const before = await scrubsCheckout(other, shop.second);
    await savePrice(page, '49.75');
    const pressed = Date.now();
    await publish(page);
    await expect
      .poll(async () => (await (await other.get('/product/3')).text()).includes('$49.75'), { timeout: 15_000, intervals: [250] })
      .toBe(true);
    expect(Date.now() - pressed).toBeLessThan(15_000);
    const after = await scrubsCheckout(other, shop.second);
    expect(after - before).toBeGreaterThanOrEqual(475);
    await other.dispose();
  },
);
