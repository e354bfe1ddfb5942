import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readDevMailbox } from '@/server/mail/dev-mailbox.server';
import { expect } from './fixtures';
import { card, hydrated, newShopper, openCart, openSignedIn } from './journeys';
import { type SecondShop, startSecondShop, testOn } from './second-shop';

// A product marked `inStock: false`, end to end in Chromium. No real product is out of stock, and the real catalogue
// must not change for a test: a copy of the project, with the Turmeric Face Soap (id 8) marked out of stock, is built
// and served as a second shop of its own. The main end-to-end server and the content files stay as they are.

const PROJECT = resolve('.');
const COPIED = ['astro.config.mjs', 'package.json', 'tsconfig.json', 'content', 'public', 'scripts', 'src', 'supabase'];
const FILE = 'content/products/08-turmeric-face-soap.md';
const SOAP = { id: 8, name: 'Turmeric Face Soap' };
const REFUSED = `Line 1: ${SOAP.name} is out of stock.`;

/** Copies the project, marks the soap out of stock in the copy, builds it and serves it. */
async function startSoldOutShop(): Promise<SecondShop> {
  const copy = mkdtempSync(join(tmpdir(), 'aurelia-out-of-stock-'));
  for (const entry of COPIED) cpSync(join(PROJECT, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(PROJECT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const source = readFileSync(join(copy, FILE), 'utf8');
  const soldOut = source.replace(/^inStock: true$/m, 'inStock: false');
  if (soldOut === source) throw new Error(`${FILE} no longer says "inStock: true"`);
  writeFileSync(join(copy, FILE), soldOut);

  let output = '';
  const build: ChildProcess = spawn(process.execPath, [join(PROJECT, 'node_modules/astro/bin/astro.mjs'), 'build'], {
    cwd: copy,
    env: { PATH: process.env.PATH ?? '', ASTRO_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  build.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  build.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise<number | null>((done) => build.once('exit', done));
  if (code !== 0) {
    rmSync(copy, { recursive: true, force: true });
    throw new Error(`The copy's build failed (${code}):\n${output}`);
  }
  try {
    const shop = await startSecondShop('out-of-stock', {}, copy);
    return {
      ...shop,
      stop: async () => {
        await shop.stop();
        rmSync(copy, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(copy, { recursive: true, force: true });
    throw error;
  }
}

// Every page and request of these tests goes to the copy's server.
const test = testOn(startSoldOutShop, 300_000);

test.describe.configure({ mode: 'serial' });

test('the card and the product page say Out of stock, and there is no Add to Cart to press', async ({ page }) => {
  await page.goto('/');
  await hydrated(page, '.catalog');
  await page.getByRole('button', { name: 'Load More Products' }).click();
  await expect(card(page, SOAP.name).getByText('Out of stock', { exact: true })).toBeVisible();
  // A product in stock says nothing of the kind.
  await expect(card(page, 'Turmeric Body Oil')).toBeVisible();
  await expect(card(page, 'Turmeric Body Oil').getByText('Out of stock')).toHaveCount(0);

  await page.goto(`/product/${SOAP.id}`);
  await hydrated(page, '.purchase');
  const button = page.locator('.purchase-actions').getByRole('button', { name: 'Out of stock', exact: true });
  await expect(button).toBeVisible();
  await expect(button).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Add to Cart' })).toHaveCount(0);
  await page.goto('/product/6');
  await hydrated(page, '.purchase');
  await expect(page.getByRole('button', { name: 'Add to Cart' })).toBeEnabled();
});

test('a guest cart line of it, kept from before, leaves the cart when the drawer opens, with a notice', async ({ page }) => {
  await page.goto('/about');
  await page.evaluate((id) => {
    const line = (productId: number) => ({
      cartId: String(productId),
      productId,
      quantity: 1,
      selectedColor: null,
      selectedSize: null,
    });
    localStorage.setItem('aurelia:cart', JSON.stringify([line(id), line(6)]));
  }, SOAP.id);
  await page.reload();
  const drawer = await openCart(page);
  await expect(drawer.getByTestId('cart-line')).toHaveCount(1);
  await expect(drawer.getByRole('link', { name: 'Turmeric Body Oil' })).toBeVisible();
  // (Its lines, not the drawer: the notice below is shown in the open drawer, so it stays on top and can be closed.)
  await expect(drawer.getByTestId('cart-line').filter({ hasText: SOAP.name })).toHaveCount(0);
  // The shopper is told, rather than finding a line gone.
  await expect(page.getByText(`${SOAP.name} is out of stock and was taken out of your cart.`)).toBeVisible();
});

test('the server refuses it in a saved cart and a checkout; the wishlist says Out of stock', async ({ page, shop }) => {
  const origin = shop.origin;
  const headers = { origin };
  const shopper = newShopper('Stock');
  const signup = await page.request.post('/api/auth/signup', {
    headers,
    data: { ...shopper, confirmPassword: shopper.password },
  });
  expect(signup.ok()).toBe(true);
  let link = '';
  await expect
    .poll(
      async () => {
        const mail = (await readDevMailbox(shop.mailbox)).find((m) => m.to.includes(shopper.email));
        link = /https?:\/\/\S+token=[\w-]+/.exec(mail?.text ?? '')?.[0] ?? '';
        return link;
      },
      { timeout: 15_000 },
    )
    .not.toBe('');
  // What the confirmation page sends; it signs the shopper in.
  const confirm = await page.request.post('/api/auth/verify', {
    headers,
    data: { token: new URL(link).searchParams.get('token'), password: shopper.password },
  });
  expect(confirm.ok()).toBe(true);

  const soap = { productId: SOAP.id, quantity: 1, selectedColor: null, selectedSize: null };
  const oil = { ...soap, productId: 6 };
  const put = await page.request.put('/api/cart', { headers, data: { lines: [soap] } });
  expect(put.status()).toBe(400);
  expect(await put.json()).toEqual({ error: { code: 'invalid_cart', message: REFUSED } });
  const saved = await page.request.put('/api/cart', { headers, data: { lines: [oil] } });
  expect(saved.status()).toBe(200);
  expect((await (await page.request.get('/api/cart')).json()).lines).toHaveLength(1);

  const address = {
    name: 'Grace Hopper',
    email: shopper.email,
    street1: '12 Bull St',
    city: 'Savannah',
    state: 'GA',
    zip: '31401',
    country: 'US',
  };
  const intent = await page.request.post('/api/create-payment-intent', {
    headers,
    data: { lines: [soap], address, rateId: 'any-rate' },
  });
  expect(intent.status()).toBe(400);
  expect((await intent.json()).error.message).toBe(REFUSED);

  expect((await page.request.post('/api/favorites', { headers, data: { productId: SOAP.id } })).status()).toBe(201);
  await openSignedIn(page, '/wishlist');
  const item = page.locator('.wishlist-item', { hasText: SOAP.name });
  const button = item.getByRole('button', { name: /^Out of stock/ });
  await expect(button).toBeVisible();
  await expect(button).toBeDisabled();
  await expect(item.getByRole('button', { name: /Add to Cart/ })).toHaveCount(0);
});
