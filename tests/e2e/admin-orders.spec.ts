import type { Browser, Page } from '@playwright/test';
import { orderNumber } from '@/features/orders/orders';
import type { E2EAdmin } from './admin-accounts';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { allHydrated, buy, hydrated, message, openSignedIn, signedInAdmin, waitForMail } from './journeys';

// The shop owner's orders, through the built server on the embedded defaults: a shopper buys through the
// checkout's own endpoints, an admin in a browser of their own finds the order and changes it, and the shopper's
// history shows what the admin did, in the spec's colours.

const SOAP = { productId: 8 };

/** A second browser, signed in as the admin `name`. */
async function adminPage(browser: Browser, baseURL: string, name: E2EAdmin): Promise<Page> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signedInAdmin(page.request, baseURL, name);
  return page;
}

/** Finds the order by the number shoppers see, through the list's search, and opens its page. */
async function openOrder(admin: Page, id: string): Promise<void> {
  await admin.goto('/admin/orders');
  await admin.getByRole('searchbox', { name: 'Search' }).fill(orderNumber(id).toLowerCase());
  await admin.getByRole('button', { name: 'Show orders' }).click();
  await expect(admin.locator('.admin-table tbody tr')).toHaveCount(1);
  await admin.getByRole('link', { name: orderNumber(id) }).click();
  await expect(admin.getByRole('heading', { level: 1 })).toHaveText(orderNumber(id));
  await hydrated(admin, '.admin-order-actions');
}

/** The shopper's history card of an order: its status badge. */
async function historyStatus(page: Page, id: string) {
  await openSignedIn(page, '/orders');
  const card = page.locator('.order-card', { has: page.getByRole('heading', { name: orderNumber(id) }) });
  return card.locator('.order-status');
}

test.describe('the admin’s orders', () => {
  // Each test signs up a shopper and an admin (e-mails read back from the mailbox), buys, and drives two browsers.
  test.slow();

  test('an admin finds an order by its ORD- number and marks it shipped: the shopper sees Shipped, in blue', async ({
    page,
    browser,
    baseURL,
    signIn,
  }) => {
    await signIn();
    const order = await buy(page.request, baseURL ?? '', [SOAP]);
    const admin = await adminPage(browser, baseURL ?? '', 'orders');
    await openOrder(admin, order.id);
    await expect(admin.locator('.admin-order-state .admin-status')).toHaveText('Processing');
    // The customer is e-mailed: the admin confirms first, and keeping the order as it is changes nothing.
    await admin.getByRole('button', { name: 'Mark shipped' }).click();
    const confirm = admin.getByRole('dialog', { name: `Mark shipped: ${orderNumber(order.id)}?` });
    await expect(confirm).toContainText('The customer is e-mailed that the order is on its way');
    await expect(confirm.getByRole('button', { name: 'Not yet' })).toBeFocused();
    await confirm.getByRole('button', { name: 'Not yet' }).click();
    await expect(admin.locator('.admin-order-state .admin-status')).toHaveText('Processing');
    await admin.getByRole('button', { name: 'Mark shipped' }).click();
    await confirm.getByRole('button', { name: 'Mark shipped' }).click();
    await expect(message(admin, `Order ${orderNumber(order.id)} is Shipped.`)).toBeVisible();
    await expect(admin.locator('.admin-order-state .admin-status')).toHaveText('Shipped');
    await expect(admin.getByRole('button', { name: 'Mark delivered' })).toBeVisible();
    await expect(admin.getByRole('button', { name: 'Cancel and refund' })).toHaveCount(0);

    const status = await historyStatus(page, order.id);
    await expect(status).toHaveText('Shipped');
    // The spec's blue: dark blue text on a light blue pill (orders.css).
    await expect(status).toHaveCSS('color', 'rgb(26, 76, 133)');
    await expect(status).toHaveCSS('background-color', 'rgb(222, 235, 250)');

    // The shopper is told, once, with a link to the order's page; the action is in the activity log.
    const mail = await waitForMail('ada@example.com', new RegExp(`^Your Aurelia order ${orderNumber(order.id)} has shipped$`));
    expect(mail.link).toMatch(/^\/order\?token=/);
    await admin.reload();
    await expect(admin.getByText('Shipped e-mail to the customer')).toBeVisible();
    await admin.goto('/admin/activity');
    await expect(admin.getByText(`Order status changed: ${orderNumber(order.id)}`)).toBeVisible();
    await admin.context().close();
  });

  test('an admin cancels an unshipped order with a refund, after confirming: the shopper sees Cancelled', async ({
    page,
    browser,
    baseURL,
    signIn,
  }) => {
    await signIn();
    const order = await buy(page.request, baseURL ?? '', [SOAP, { productId: 7 }]);
    const admin = await adminPage(browser, baseURL ?? '', 'orders-2');
    await openOrder(admin, order.id);
    const total = `$${(order.totalCents / 100).toFixed(2)}`;

    // Keeping the order changes nothing.
    await admin.getByRole('button', { name: 'Cancel and refund' }).click();
    const dialog = admin.getByRole('dialog', { name: `Cancel ${orderNumber(order.id)}?` });
    await expect(dialog).toContainText(`${total} goes back to the customer’s card`);
    await expect(dialog.getByRole('button', { name: 'Keep the order' })).toBeFocused();
    await dialog.getByRole('button', { name: 'Keep the order' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(admin.locator('.admin-order-state .admin-status')).toHaveText('Processing');

    await admin.getByRole('button', { name: 'Cancel and refund' }).click();
    await dialog.getByRole('button', { name: 'Cancel and refund' }).click();
    await expect(message(admin, `Order ${orderNumber(order.id)} is cancelled and ${total} refunded.`)).toBeVisible();
    await expect(admin.locator('.admin-order-state .admin-status')).toHaveText('Cancelled');
    await expect(admin.getByText('Refunded in full')).toBeVisible();
    await expect(admin.getByText('Cancelled is final: the status cannot change.')).toBeVisible();
    await expect(admin.getByRole('button', { name: 'Refund', exact: true })).toHaveCount(0);

    const status = await historyStatus(page, order.id);
    await expect(status).toHaveText('Cancelled');
    await expect(status).toHaveCSS('color', 'rgb(143, 34, 24)');

    // The list finds it by the shopper's e-mail too, cancelled and refunded.
    await admin.goto(`/admin/orders?status=cancelled&q=${encodeURIComponent('ada@example.com')}`);
    const row = admin.locator('.admin-table tbody tr', { has: admin.getByRole('link', { name: orderNumber(order.id) }) });
    await expect(row).toContainText('Cancelled');
    await expect(row).toContainText(`${total} refunded`);
    await admin.context().close();
  });

  test('a refund asks for an amount no larger than what is left, and refunds it', async ({ page, browser, baseURL }) => {
    const order = await buy(page.request, baseURL ?? '', [SOAP]);
    const admin = await adminPage(browser, baseURL ?? '', 'orders-3');
    await openOrder(admin, order.id);
    const amount = admin.getByRole('textbox', { name: 'Refund amount (USD)' });
    // Empty: one Enter never refunds the whole order.
    await expect(amount).toHaveValue('');
    await admin.getByRole('button', { name: 'Refund', exact: true }).click();
    await expect(admin.getByRole('alert')).toHaveText('Enter an amount in dollars, such as 12.50.');
    await amount.fill('100000');
    await admin.getByRole('button', { name: 'Refund', exact: true }).click();
    await expect(admin.getByRole('alert')).toHaveText(/^At most \$[\d.]+ is left to refund\.$/);
    await amount.fill('2.50');
    await admin.getByRole('button', { name: 'Refund', exact: true }).click();
    await admin.getByRole('dialog', { name: 'Refund $2.50?' }).getByRole('button', { name: 'Refund $2.50' }).click();
    await expect(message(admin, 'Refunded $2.50.')).toBeVisible();
    // Every card says the same after the refund: the status card and the payment card.
    await expect(admin.getByText('$2.50 refunded')).toBeVisible();
    await expect(admin.locator('dt', { hasText: 'Refunded' }).locator('+ dd')).toHaveText('$2.50');
    await expect(amount).toHaveValue('');
    // 'Refund in full' states the amount left before anything moves.
    const rest = `$${((order.totalCents - 250) / 100).toFixed(2)}`;
    await admin.getByRole('button', { name: `Refund in full (${rest})` }).click();
    const full = admin.getByRole('dialog', { name: `Refund ${rest}?` });
    await expect(full).toContainText(`${rest} goes back to the customer’s card.`);
    await full.getByRole('button', { name: `Refund ${rest}` }).click();
    await expect(admin.getByText('Refunded in full')).toBeVisible();
    await expect(admin.locator('dt', { hasText: 'Refunded' }).locator('+ dd')).toHaveText(
      `$${(order.totalCents / 100).toFixed(2)}`,
    );
    // The shopper is told of each refund, with a link to the order's page.
    const subject = (amount: string) =>
      new RegExp(`^Your Aurelia order ${orderNumber(order.id)}: ${amount.replace(/[$.]/g, '\\$&')} refunded$`);
    const told = await waitForMail('ada@example.com', subject('$2.50'));
    expect(told.link).toMatch(/^\/order\?token=/);
    await waitForMail('ada@example.com', subject(rest));
    await admin.context().close();
  });

  test('an admin ticks two orders and prints their packing slips as one PDF; nothing ticked says so', async ({
    page,
    browser,
    baseURL,
    signIn,
  }) => {
    await signIn();
    const first = await buy(page.request, baseURL ?? '', [SOAP]);
    const second = await buy(page.request, baseURL ?? '', [{ productId: 3, selectedColor: 'powder-blue', selectedSize: 'M' }]);
    const admin = await adminPage(browser, baseURL ?? '', 'slips');
    await admin.goto('/admin/orders');
    await admin.getByRole('button', { name: 'Packing slips for the ticked orders (PDF)' }).click();
    await expect(admin).toHaveURL(/\/admin\/orders\?slips=none$/);
    await expect(admin.getByRole('alert')).toHaveText('Tick the orders to print packing slips for.');

    await admin.getByRole('checkbox', { name: `Packing slip for ${orderNumber(first.id)}` }).check();
    await admin.getByRole('checkbox', { name: `Packing slip for ${orderNumber(second.id)}` }).check();
    const [pdf] = await Promise.all([
      admin.waitForResponse((r) => r.url().includes('/api/admin/packing-slips?')),
      admin.getByRole('button', { name: 'Packing slips for the ticked orders (PDF)' }).click(),
    ]);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    const url = new URL(pdf.url());
    expect(url.searchParams.getAll('id').sort()).toEqual([first.id, second.id].sort());
    const body = await admin.request.get(url.pathname + url.search);
    expect((await body.body()).subarray(0, 5).toString()).toBe('%PDF-');

    // The order's own page prints its slip too; a shopper gets the 404 a stranger gets.
    await openOrder(admin, first.id);
    const one = await admin.request.get(
      (await admin.getByRole('link', { name: 'Print the packing slip (PDF)' }).getAttribute('href')) ?? '',
    );
    expect(one.headers()['content-type']).toBe('application/pdf');
    expect((await page.request.get(`/api/admin/packing-slips?id=${first.id}`)).status()).toBe(404);
    await admin.context().close();
  });

  test('does not exist for a shopper: the order page and every order endpoint answer 404', async ({ page, baseURL, signIn }) => {
    await signIn();
    const order = await buy(page.request, baseURL ?? '', [SOAP]);
    const response = await page.goto(`/admin/orders/${order.id}`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
    const headers = { origin: baseURL ?? '' };
    for (const path of ['status', 'refund', 'cancel', 'retry']) {
      const res = await page.request.post(`/api/admin/orders/${order.id}/${path}`, {
        headers,
        data: { from: 'processing', to: 'shipped', jobId: '1' },
      });
      expect(res.status(), path).toBe(404);
    }
    expect((await page.request.get(`/api/admin/orders/${order.id}/label`)).status()).toBe(404);
    const status = await historyStatus(page, order.id);
    await expect(status).toHaveText('Processing');
  });

  test('the orders list and an order’s page fit a phone; the page has no WCAG 2.2 AA violations, its confirmation included', async ({
    page,
    baseURL,
    signInAdmin,
  }, testInfo) => {
    const order = await buy(page.request, baseURL ?? '', [SOAP]);
    await signInAdmin('orders-4');
    await page.setViewportSize({ width: 390, height: 844 });

    // The list: no wider than the screen, each order a card with its total and status in sight (the walkthrough
    // found them hidden to the right of a scrolling table).
    await page.goto('/admin/orders');
    await expect(page.getByRole('link', { name: orderNumber(order.id) })).toBeVisible();
    const widths = await page.evaluate(() => {
      const wrap = document.querySelector('.admin-table-wrap');
      return {
        page: document.documentElement.scrollWidth,
        screen: window.innerWidth,
        hidden: (wrap?.scrollWidth ?? 0) - (wrap?.clientWidth ?? 0),
      };
    });
    expect(widths.page).toBeLessThanOrEqual(widths.screen);
    expect(widths.hidden).toBeLessThanOrEqual(0);
    const row = page.locator('.admin-table tbody tr', { has: page.getByRole('link', { name: orderNumber(order.id) }) });
    for (const cell of [row.locator('.admin-money'), row.locator('.admin-status')]) {
      const box = await cell.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= widths.screen).toBe(true);
    }
    await expect(row.locator('.admin-status')).toHaveText('Processing');
    await page.screenshot({ path: testInfo.outputPath('orders-phone.png'), fullPage: true });

    await page.goto(`/admin/orders/${order.id}`);
    await allHydrated(page);
    expect(await page.locator('.admin').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Cancel and refund' }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
  });
});
