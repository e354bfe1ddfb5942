import { readFile } from 'node:fs/promises';
import { orderNumber } from '@/features/orders/orders';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { buy, newShopper } from './journeys';

// What sold, as the owner sees it through the built server: a guest buys scrubs in a colour and size, the owner opens
// the overview's sales card, reads the week's figures, the chart and the best sellers, and downloads the week's orders
// as CSV with that order in it. Exact figures are the database suite's (tests/db/sales.test.ts): other tests place
// orders on this server at the same time.

test('the owner sees what sold this week, as figures, a chart and best sellers, and downloads the orders as CSV', async ({
  page,
  browser,
  baseURL,
  signInAdmin,
}) => {
  const customer = newShopper('Sales', { lastName: `Buyer ${Date.now()}`, city: 'Austin', state: 'TX', zip: '78701' });
  const order = await buy(
    page.request,
    baseURL ?? '',
    [{ productId: 3, quantity: 2, selectedColor: 'powder-blue', selectedSize: 'L' }],
    customer,
  );

  const context = await browser.newContext({
    baseURL: baseURL ?? '',
    viewport: { width: 390, height: 844 },
    acceptDownloads: true,
  });
  const admin = await context.newPage();
  await signInAdmin('sales', admin.request);
  await admin.goto('/admin');
  await admin.getByRole('link', { name: /revenue in the last 7 days/ }).click();
  await expect(admin).toHaveURL(/\/admin\/sales\?period=7d$/);
  await expect(admin.getByRole('heading', { level: 1 })).toHaveText('Sales');
  await expect(admin.getByRole('link', { name: 'Last 7 days' })).toHaveAttribute('aria-current', 'page');
  // At least this order's money and pieces (other tests' orders may be counted too).
  const card = (label: string) => admin.locator('.sales-cards li', { hasText: label }).locator('strong');
  const dollars = async (label: string) => Number(((await card(label).textContent()) ?? '').replace(/[$,]/g, ''));
  expect(await dollars('Revenue')).toBeGreaterThanOrEqual(order.totalCents / 100);
  expect(Number((await card('Units sold').textContent())?.trim())).toBeGreaterThanOrEqual(2);
  await expect(admin.getByRole('img', { name: /^Revenue per day/ })).toBeVisible();
  await expect(admin.locator('.sales-bar')).toHaveCount(7);
  const variants = admin.getByRole('region', { name: 'Best-selling variants (colour and size)' });
  await expect(variants.getByRole('row', { name: /Clinical Scrubs powder-blue, L/ })).toBeVisible();
  // Nothing wider than the phone: the chart and the tables fit or scroll inside their own boxes.
  expect(await admin.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // The chart, the day table (opened) and the best sellers, as axe reads them.
  await admin.getByText('The days as a table').click();
  await expect(admin.getByRole('region', { name: 'Sales per day' })).toBeVisible();
  expect(await axeViolations(admin)).toEqual([]);

  const [download] = await Promise.all([
    admin.waitForEvent('download'),
    admin.getByRole('link', { name: 'Download this period’s orders (CSV)' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^aurelia-orders-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = (await readFile(await download.path(), 'utf8')).split('\r\n');
  expect(lines[0]).toBe(
    'order,order_id,placed_at,date,status,customer,email,account,items,units,subtotal,discount_code,discount,net_sales,shipping,shipping_discount,tax,total,refunded,net,returns',
  );
  const row = lines.find((l) => l.startsWith(`${orderNumber(order.id)},${order.id},`));
  expect(row).toContain(`,Processing,${customer.name},`);
  expect(row).toContain(',guest,"2 x Clinical Scrubs (powder-blue, L) [');
  const total = (order.totalCents / 100).toFixed(2);
  expect(row).toMatch(new RegExp(`,${total.replace('.', '\\.')},0\\.00,${total.replace('.', '\\.')},$`));
  await context.close();
});
