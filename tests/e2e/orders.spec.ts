import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import type { Order, OrderItem } from '@/features/orders/orders';
import { hydrated } from './islands';
import { signedInShopper } from './session';
import { failOnce, message, openSignedIn } from './social';

// Orders are written only when a payment is confirmed, which the shop cannot do yet. The history's own API is tested
// against the database in tests/db/orders.test.ts; here the browser is given a history at the network boundary to test
// what the page does with one.

const item = (over: Partial<OrderItem>): OrderItem => ({
  productId: 8,
  name: 'Turmeric Face Soap',
  image: '/favicon.svg',
  priceCents: 1000,
  quantity: 1,
  selectedColor: null,
  selectedSize: null,
  available: true,
  ...over,
});

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();

const HISTORY: Order[] = [
  {
    id: '00000000-0000-4000-8000-00000000a1b2',
    createdAt: daysAgo(3),
    status: 'Shipped',
    totalCents: 12_589,
    trackingNumber: '9400111899223',
    trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400111899223',
    estimatedDelivery: null,
    items: [
      item({ productId: 3, name: 'Clinical Scrubs', priceCents: 4500, quantity: 2, selectedColor: 'blue', selectedSize: 'M' }),
      item({ productId: 8, quantity: 1 }),
      item({ productId: 9, name: '12-Herb Hair Oil', priceCents: 3000, quantity: 1 }),
      item({ productId: 42, name: 'Discontinued Balm', available: false }),
    ],
  },
  {
    id: '00000000-0000-4000-8000-00000000c3d4',
    createdAt: daysAgo(60),
    status: 'completed',
    totalCents: 2089,
    trackingNumber: null,
    trackingUrl: null,
    estimatedDelivery: null,
    items: [item({ productId: 8 })],
  },
  {
    id: '00000000-0000-4000-8000-00000000e5f6',
    createdAt: daysAgo(200),
    status: 'canceled',
    totalCents: 4789,
    trackingNumber: null,
    trackingUrl: null,
    estimatedDelivery: null,
    items: [],
  },
];

/** Signs a shopper in and opens /orders with `orders` as the server's answer. */
async function openHistory(page: Page, baseURL: string, orders: Order[]) {
  await signedInShopper(page.request, baseURL);
  await page.route('**/api/orders', (route) => route.fulfill({ json: { orders } }));
  await openSignedIn(page, '/orders');
  await hydrated(page, '.orders-list, .orders-empty');
}

const cards = (page: Page) => page.locator('.order-card');

test.describe('order history', () => {
  test('guests are sent home, and the API refuses them', async ({ page, baseURL }) => {
    await page.goto('/orders');
    await expect(page).toHaveURL(`${baseURL}/`);
    const res = await page.request.get('/api/orders');
    expect(res.status()).toBe(401);
    expect((await res.json()).error.code).toBe('unauthenticated');
  });

  test('a new shopper has no orders yet (the real API)', async ({ page, baseURL }) => {
    await signedInShopper(page.request, baseURL ?? '');
    expect(await (await page.request.get('/api/orders')).json()).toEqual({ orders: [] });
    await openSignedIn(page, '/orders');
    await expect(page.getByText('You have no orders yet.')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Start shopping' })).toHaveAttribute('href', '/');
  });

  test('each order shows its number, status, date, total, up to 3 pictures and 2 names, and tracking', async ({
    page,
    baseURL,
  }) => {
    await openHistory(page, baseURL ?? '', HISTORY);
    await expect(cards(page)).toHaveCount(3);
    const first = cards(page).first();
    await expect(first.getByRole('heading')).toHaveText('ORD-00A1B2');
    await expect(first.locator('.order-status')).toHaveText('Shipped');
    await expect(first).toContainText('$125.89');
    await expect(first.locator('img')).toHaveCount(3);
    await expect(first).toContainText('Clinical Scrubs, Turmeric Face Soap and 2 more');
    await expect(first.getByRole('link', { name: 'Track parcel 9400111899223' })).toHaveAttribute(
      'href',
      /^https:\/\/tools\.usps\.com\//,
    );
    // Stored spellings map to the spec's labels.
    await expect(cards(page).nth(1).locator('.order-status')).toHaveText('Delivered');
    await expect(cards(page).nth(2).locator('.order-status')).toHaveText('Cancelled');
    await expect(page.getByText('Showing 3 of 3 orders')).toBeVisible();
  });

  test('filters by status and date, sorts by value, and can show everything again', async ({ page, baseURL }) => {
    await openHistory(page, baseURL ?? '', HISTORY);
    const numbers = () => cards(page).getByRole('heading').allTextContents();

    await page.getByLabel('Status').selectOption('delivered');
    expect(await numbers()).toEqual(['ORD-00C3D4']);
    await page.getByLabel('Status').selectOption('all');
    await page.getByLabel('Placed').selectOption('last30');
    expect(await numbers()).toEqual(['ORD-00A1B2']);
    await page.getByLabel('Placed').selectOption('last90');
    expect(await numbers()).toEqual(['ORD-00A1B2', 'ORD-00C3D4']);
    await page.getByLabel('Placed').selectOption('all');
    await page.getByLabel('Sort by').selectOption('lowest');
    expect(await numbers()).toEqual(['ORD-00C3D4', 'ORD-00E5F6', 'ORD-00A1B2']);
    await page.getByLabel('Sort by').selectOption('oldest');
    expect(await numbers()).toEqual(['ORD-00E5F6', 'ORD-00C3D4', 'ORD-00A1B2']);

    await page.getByLabel('Status').selectOption('processing');
    await expect(page.getByText('No orders match these filters.')).toBeVisible();
    await page.getByRole('button', { name: 'Show all orders' }).click();
    expect(await numbers()).toEqual(['ORD-00A1B2', 'ORD-00C3D4', 'ORD-00E5F6']);
  });

  test('reorder puts what is still sold in the cart; an order without items says so', async ({ page, baseURL }) => {
    await openHistory(page, baseURL ?? '', HISTORY);
    await cards(page).first().getByRole('button', { name: 'Reorder' }).click();
    await expect(message(page, 'Added 4 items from ORD-00A1B2 to your cart')).toBeVisible();
    await expect(page.getByTestId('cart-count')).toHaveText('4');
    await cards(page).nth(2).getByRole('button', { name: 'Reorder' }).click();
    await expect(message(page, 'No items found in this order to reorder.')).toBeVisible();
    await expect(page.getByTestId('cart-count')).toHaveText('4');

    const drawer = page.getByRole('dialog', { name: 'Your cart' });
    await page
      .getByRole('banner')
      .getByRole('button', { name: /^Cart, / })
      .click();
    await expect(drawer.getByRole('link', { name: 'Clinical Scrubs' })).toBeVisible();
    await expect(drawer.getByRole('link', { name: '12-Herb Hair Oil' })).toBeVisible();
    await expect(drawer.getByText('Discontinued Balm')).toHaveCount(0);
  });

  test('a failed load says so, shows no orders, and can be retried', async ({ page, baseURL }) => {
    await signedInShopper(page.request, baseURL ?? '');
    await failOnce(page, '**/api/orders', 'GET');
    await openSignedIn(page, '/orders');
    await expect(page.getByRole('alert')).toContainText('Your orders could not be loaded just now. Please try again.');
    await expect(cards(page)).toHaveCount(0);
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect(page.getByText('You have no orders yet.')).toBeVisible();
  });

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    test(`the history has no WCAG 2.2 AA violations on ${viewport.name}`, async ({ page, baseURL }) => {
      await page.setViewportSize(viewport);
      await openHistory(page, baseURL ?? '', HISTORY);
      const results = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
        .analyze();
      expect(results.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    });
  }
});
