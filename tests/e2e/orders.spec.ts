import type { Page } from '@playwright/test';
import { FINAL_SALE } from '@/features/catalogue/final-sale';
import { type Order, orderNumber } from '@/features/orders/orders';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { buy, consoleErrors, failOnce, hydrated, message, openSignedIn, signedInAdmin, signedInShopper } from './journeys';

// The history shows orders the shopper really bought: each test buys first, through the checkout's own endpoints
// (`buy` in tests/e2e/journeys.ts), on the embedded defaults. Orders are 'processing' until the shop changes them; how other
// stored statuses are shown, and the date filters over months, are unit-tested in src/features/orders/orders.test.ts;
// one test below has an admin move the shopper's real orders on, as the shop would later.

const SCRUBS = { productId: 3, quantity: 2, selectedColor: 'blue', selectedSize: 'M' };

/** Signs a shopper in and buys two orders: four kinds of item (five pieces), then one soap. */
async function shopperWithOrders(page: Page, baseURL: string) {
  await signedInShopper(page.request, baseURL);
  const big = await buy(page.request, baseURL, [SCRUBS, { productId: 8 }, { productId: 9 }, { productId: 7 }]);
  const small = await buy(page.request, baseURL, [{ productId: 8 }]);
  return { big, small };
}

/** Opens /orders for the signed-in shopper once the history has loaded. */
async function openHistory(page: Page) {
  await openSignedIn(page, '/orders');
  await hydrated(page, '.orders-list, .orders-empty');
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

const cards = (page: Page) => page.locator('.order-card');

test.describe('order history', () => {
  test('guests are sent home, and the API refuses them', async ({ page, baseURL }) => {
    await page.goto('/orders');
    await expect(page).toHaveURL(`${baseURL}/`);
    const res = await page.request.get('/api/orders');
    expect(res.status()).toBe(401);
    expect((await res.json()).error.code).toBe('unauthenticated');
  });

  test('a new shopper has no orders yet (the real API)', async ({ page, signIn }) => {
    await signIn();
    expect(await (await page.request.get('/api/orders')).json()).toEqual({ orders: [] });
    await openSignedIn(page, '/orders');
    await expect(page.getByText('You have no orders yet.')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Start shopping' })).toHaveAttribute('href', '/');
  });

  test('each order shows its number, status, date, total, up to 3 pictures and 2 names, and tracking', async ({
    page,
    baseURL,
  }) => {
    const { big, small } = await shopperWithOrders(page, baseURL ?? '');
    // The label job buys the label (and its tracking number) just after the order is recorded.
    await expect
      .poll(async () => {
        const { orders } = (await (await page.request.get('/api/orders')).json()) as {
          orders: { id: string; trackingNumber: string | null }[];
        };
        return orders.find((o) => o.id === big.id)?.trackingNumber ?? null;
      })
      .toMatch(/^TEST\d{18}$/);
    await openHistory(page);
    await expect(cards(page)).toHaveCount(2);
    const [newest, oldest] = [cards(page).first(), cards(page).nth(1)];
    await expect(newest.getByRole('heading')).toHaveText(orderNumber(small.id));
    await expect(newest).toContainText(dollars(small.totalCents));
    await expect(oldest.getByRole('heading')).toHaveText(orderNumber(big.id));
    await expect(oldest.locator('.order-status')).toHaveText('Processing');
    await expect(oldest).toContainText(dollars(big.totalCents));
    await expect(oldest).toContainText('Arrives by');
    await expect(oldest.locator('img')).toHaveCount(3);
    await expect(oldest).toContainText('Clinical Scrubs, Turmeric Face Soap and 2 more');
    // The rate table's test labels have no carrier page to link to: the number is shown as it is.
    await expect(oldest.getByText(/^Tracking number TEST\d{18}$/)).toBeVisible();
    await expect(page.getByText('Showing 2 of 2 orders')).toBeVisible();
  });

  test('a delivered or a cancelled order no longer says when it arrives', async ({ page, browser, baseURL }) => {
    const origin = baseURL ?? '';
    const { big, small } = await shopperWithOrders(page, origin);
    const { orders } = (await (await page.request.get('/api/orders')).json()) as { orders: Order[] };
    expect(orders.map((o) => [o.status, Boolean(o.estimatedDelivery)])).toEqual([
      ['processing', true],
      ['processing', true],
    ]);
    // The shop moves the shopper's two orders on, through the admin's endpoints: one delivered, one cancelled.
    const shop = await browser.newContext({ baseURL: origin });
    try {
      await signedInAdmin(shop.request, origin, 'history');
      const post = async (path: string, data: object) =>
        expect((await shop.request.post(path, { headers: { origin }, data })).status()).toBe(200);
      await post(`/api/admin/orders/${big.id}/status`, { from: 'processing', to: 'shipped' });
      await post(`/api/admin/orders/${big.id}/status`, { from: 'shipped', to: 'delivered' });
      await post(`/api/admin/orders/${small.id}/cancel`, {});
    } finally {
      await shop.close();
    }
    await openHistory(page);
    const [cancelled, delivered] = [cards(page).first(), cards(page).nth(1)];
    await expect(delivered.locator('.order-status')).toHaveText('Delivered');
    await expect(cancelled.locator('.order-status')).toHaveText('Cancelled');
    for (const card of [delivered, cancelled]) {
      await expect(card).toContainText('Placed');
      await expect(card).not.toContainText('Arrives by');
    }
    // The cancelled order says what went back to the card; the delivered one was refunded nothing.
    await expect(cancelled).toContainText(`$${(small.totalCents / 100).toFixed(2)} refunded`);
    await expect(delivered).not.toContainText('refunded');
  });

  test('filters by status, sorts by value and date, and can show everything again', async ({ page, baseURL }) => {
    const { big, small } = await shopperWithOrders(page, baseURL ?? '');
    await openHistory(page);
    const numbers = () => cards(page).getByRole('heading').allTextContents();
    const [bigNo, smallNo] = [orderNumber(big.id), orderNumber(small.id)];

    expect(await numbers()).toEqual([smallNo, bigNo]);
    await page.getByLabel('Status').selectOption('processing');
    expect(await numbers()).toEqual([smallNo, bigNo]);
    await page.getByLabel('Placed').selectOption('last30');
    expect(await numbers()).toEqual([smallNo, bigNo]);
    await page.getByLabel('Sort by').selectOption('highest');
    expect(await numbers()).toEqual([bigNo, smallNo]);
    await page.getByLabel('Sort by').selectOption('lowest');
    expect(await numbers()).toEqual([smallNo, bigNo]);
    await page.getByLabel('Sort by').selectOption('oldest');
    expect(await numbers()).toEqual([bigNo, smallNo]);

    await page.getByLabel('Status').selectOption('delivered');
    await expect(page.getByText('No orders match these filters.')).toBeVisible();
    await page.getByRole('button', { name: 'Show all orders' }).click();
    expect(await numbers()).toEqual([smallNo, bigNo]);
  });

  test('reorder puts the order’s items back in the cart, colour and size included', async ({ page, baseURL }) => {
    const { big } = await shopperWithOrders(page, baseURL ?? '');
    await openHistory(page);
    await cards(page).nth(1).getByRole('button', { name: 'Reorder' }).click();
    await expect(message(page, `Added 5 items from ${orderNumber(big.id)} to your cart`)).toBeVisible();
    await expect(page.getByTestId('cart-count')).toHaveText('5');

    const drawer = page.getByRole('dialog', { name: 'Your cart' });
    await page
      .getByRole('banner')
      .getByRole('button', { name: /^Cart, / })
      .click();
    await expect(drawer.getByRole('link', { name: 'Clinical Scrubs' })).toBeVisible();
    await expect(drawer.getByText('Blue, M', { exact: true })).toBeVisible();
    await expect(drawer.getByRole('link', { name: '12-Herb Hair Oil' })).toBeVisible();
    await expect(drawer.getByRole('link', { name: 'Kojic Acid Soap' })).toBeVisible();
  });

  test('the page comes with the orders in it, for its shopper only, and is never cached', async ({ page, baseURL }) => {
    const origin = baseURL ?? '';
    const { big, small } = await shopperWithOrders(page, origin);
    // The HTML as the server sends it, before any script has run: the history is painted with the page.
    const answer = await page.request.get('/orders');
    expect(answer.status()).toBe(200);
    expect(answer.headers()['cache-control']).toBe('private, no-store');
    const html = await answer.text();
    for (const id of [big.id, small.id]) expect(html).toContain(orderNumber(id));
    expect(html).toContain('class="order-card"');

    // Another shopper's page holds none of them.
    const other = await page.context().browser()?.newContext({ baseURL: origin });
    if (!other) throw new Error('no browser');
    try {
      await signedInShopper(other.request, origin);
      const theirs = await (await other.request.get('/orders')).text();
      expect(theirs).toContain('You have no orders yet.');
      for (const id of [big.id, small.id]) expect(theirs).not.toContain(orderNumber(id));
    } finally {
      await other.close();
    }
  });

  test('when the page comes without the orders, they are loaded; a failed load says so and can be retried', async ({
    page,
    baseURL,
    signIn,
  }) => {
    await signIn();
    // What the server sends when it could not read the orders (the database away): the island without them, which
    // then asks the API. That first ask fails here too.
    await page.route(`${baseURL}/orders`, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace(/(<astro-island[^>]*OrderHistory[^>]*props=")[^"]*"/, '$1{}"');
      expect(html).toContain('props="{}"');
      await route.fulfill({ response, body: html });
    });
    await failOnce(page, '**/api/orders', 'GET');
    await openSignedIn(page, '/orders');
    await expect(page.getByRole('alert')).toContainText('Your orders could not be loaded just now. Please try again.');
    await expect(cards(page)).toHaveCount(0);
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect(page.getByText('You have no orders yet.')).toBeVisible();
  });

  test('a session that ends before the orders load says Please Log In, then goes home', async ({ page, baseURL, signIn }) => {
    await signIn();
    // The page came without the orders, and by the time the island asks for them the session has ended.
    await page.route(`${baseURL}/orders`, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace(/(<astro-island[^>]*OrderHistory[^>]*props=")[^"]*"/, '$1{}"');
      await route.fulfill({ response, body: html });
    });
    await page.route('**/api/orders', (route) =>
      route.fulfill({ status: 401, json: { error: { code: 'unauthenticated', message: 'Please sign in.' } } }),
    );
    // The way home answers 204, which a browser does not navigate to: the page stays, so the prompt can be seen, and
    // the request shows where the page went.
    const home = page.waitForRequest((r) => r.url() === `${baseURL}/` && r.isNavigationRequest());
    await page.route(`${baseURL}/`, (route) => route.fulfill({ status: 204 }));
    await openSignedIn(page, '/orders');
    await home;
    await expect(page.getByRole('heading', { name: 'Please Log In' })).toBeVisible();
    await expect(cards(page)).toHaveCount(0);
  });

  test.describe('in a time zone far from the server’s', () => {
    // Twelve hours behind UTC (the server's zone): for half of every day the date there is not the server's.
    const timezoneId = 'Etc/GMT+12';
    test.use({ timezoneId });

    test('an order shows the day it was placed where the shopper is, and the page hydrates cleanly', async ({
      page,
      baseURL,
    }) => {
      const errors = consoleErrors(page);
      const { small } = await shopperWithOrders(page, baseURL ?? '');
      const { orders } = (await (await page.request.get('/api/orders')).json()) as { orders: Order[] };
      const placed = new Date(orders.find((o) => o.id === small.id)?.createdAt ?? '');
      const day = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: timezoneId });
      await openHistory(page);
      await expect(cards(page).first().locator('.order-meta')).toContainText(`Placed ${day.format(placed)} ·`);
      expect(errors).toEqual([]);
    });
  });

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    test(`the history has no WCAG 2.2 AA violations on ${viewport.name}`, async ({ page, baseURL }) => {
      await page.setViewportSize(viewport);
      await shopperWithOrders(page, baseURL ?? '');
      await openHistory(page);
      expect(await axeViolations(page)).toEqual([]);
    });
  }
});

test('a shopper opens an order from My Orders and sees all of it; no one else can', async ({
  page,
  browser,
  baseURL,
  signIn,
}) => {
  await signIn();
  const order = await buy(page.request, baseURL ?? '', [SCRUBS, { productId: 8 }, { productId: 6 }]);
  const number = orderNumber(order.id);
  await page.goto('/orders');
  await page.getByRole('link', { name: number }).click();
  await expect(page).toHaveURL(new RegExp(`/orders/${order.id}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Order ${number}`);
  const main = page.getByRole('main');
  await expect(main).toContainText('2 × Clinical Scrubs (blue, M)');
  await expect(main).toContainText('1 × Turmeric Face Soap');
  // The body oil was bought as final sale: its line, and only its line, says it cannot be returned.
  await expect(main.getByRole('listitem').filter({ hasText: 'Turmeric Body Oil' })).toContainText(FINAL_SALE.line);
  await expect(main.getByText(FINAL_SALE.line)).toHaveCount(1);
  await expect(main).toContainText(`$${(order.totalCents / 100).toFixed(2)}`);
  await expect(main).toContainText('Austin, TX 78701');
  await expect(main.getByRole('heading', { name: 'Tracking' })).toBeVisible();

  // Another shopper, and a guest, get nothing of it.
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await signIn(otherPage.request, 'Ben');
  const response = await otherPage.goto(`/orders/${order.id}`);
  expect(response?.status()).toBe(404);
  await expect(otherPage.getByRole('heading', { level: 1 })).toHaveText('Order not found');
  await expect(otherPage.getByRole('main')).not.toContainText('Clinical Scrubs');
  await other.close();
  const guest = await browser.newContext();
  const guestPage = await guest.newPage();
  await guestPage.goto(`/orders/${order.id}`);
  await expect(guestPage).toHaveURL(/\/$/);
  await guest.close();
});
