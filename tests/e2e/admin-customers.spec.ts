import { orderNumber } from '@/features/orders/orders';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { allHydrated, buy, hydrated, message, newShopper, signedInAdmin } from './journeys';

// The shop owner's customers, through the built server on the embedded defaults: a shopper buys signed in and again
// as a guest with the same e-mail, the admin finds them as one customer, net of a refund, writes private notes on the
// customer and on an order, and the shopper sees none of it. Rules and edge cases (the search's wildcards, who is
// whose, every refusal) are tests/db/admin-customers.test.ts and admin-notes.test.ts.

const SOAP = { productId: 8 };
const OIL = { productId: 6 };
const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

test.describe('the admin’s customers', () => {
  // Signs up a shopper and an admin (e-mails read back from the mailbox), buys twice and drives two browsers.
  test.slow();

  test('one customer across their account and guest orders, net of a refund; private notes the shopper never sees', async ({
    page,
    browser,
    baseURL,
    signIn,
  }, testInfo) => {
    const origin = baseURL ?? '';
    const shopper = await signIn();
    const mine = await buy(page.request, origin, [SOAP], shopper);
    // The same person as a guest, typing their e-mail in capitals: the orders join their account.
    const guestContext = await browser.newContext({ baseURL: origin });
    const asGuest = await buy(guestContext.request, origin, [OIL], { ...shopper, email: shopper.email.toUpperCase() });
    await guestContext.close();

    const adminContext = await browser.newContext({ baseURL: origin });
    const admin = await adminContext.newPage();
    await signedInAdmin(admin.request, origin, 'customers');
    const refunded = await admin.request.post(`/api/admin/orders/${asGuest.id}/refund`, {
      headers: { origin },
      data: { amountCents: 500 },
    });
    expect(refunded.status()).toBe(200);

    // The list: found by part of the e-mail in another case, one row for both orders.
    await admin.goto('/admin');
    await admin.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Customers' }).click();
    await expect(admin.getByRole('heading', { level: 1 })).toHaveText('Customers');
    await admin.getByRole('searchbox', { name: 'Search' }).fill(shopper.email.split('@')[0]?.toUpperCase() ?? '');
    await admin.getByRole('button', { name: 'Find customers' }).click();
    const rows = admin.locator('.admin-table tbody tr');
    await expect(rows).toHaveCount(1);
    const row = rows.first();
    await expect(row.locator('[data-label="Customer"]')).toHaveText(shopper.name);
    await expect(row.locator('[data-label="E-mail"]')).toHaveText(shopper.email);
    await expect(row.locator('[data-label="Orders"]')).toHaveText('2');
    await expect(row.locator('[data-label="Spent"]')).toHaveText(dollars(mine.totalCents + asGuest.totalCents - 500));
    await expect(row.locator('[data-label="Newsletter"]')).toHaveText('No');
    await expect(row.locator('[data-label="Kind"]')).toHaveText('Account');
    await admin.screenshot({ path: testInfo.outputPath('customers-desktop.png'), fullPage: true });

    // Their page: both orders, linked; a private note, refused empty first.
    await row.getByRole('link', { name: shopper.name }).click();
    await expect(admin.getByRole('heading', { level: 1 })).toHaveText(shopper.name);
    const orders = admin.getByRole('region', { name: 'Their orders' });
    await expect(orders.getByRole('link', { name: orderNumber(mine.id) })).toBeVisible();
    await expect(orders.locator('tr', { hasText: orderNumber(asGuest.id) })).toContainText('as a guest');
    await expect(orders.locator('tr', { hasText: orderNumber(asGuest.id) })).toContainText('$5.00 refunded');
    await hydrated(admin, '.admin-note-form');
    const save = admin.getByRole('button', { name: 'Save note' });
    await save.click();
    await expect(admin.getByRole('alert')).toHaveText('Write something in the note first.');
    const customerNote = 'Prefers a call before 10 am; sensitive skin.';
    await admin.getByRole('textbox', { name: 'Add a private note' }).fill(customerNote);
    await save.click();
    await expect(message(admin, `Note added to ${shopper.email}.`)).toBeVisible();
    const notes = admin.locator('.admin-notes li');
    await expect(notes).toHaveCount(1);
    await expect(notes.first()).toContainText(customerNote);
    await expect(notes.first()).toContainText('customers@admins.aurelia.test');
    await admin.screenshot({ path: testInfo.outputPath('customer-desktop.png'), fullPage: true });

    // An order's note, from the order's page, which links back to the customer.
    await orders.getByRole('link', { name: orderNumber(mine.id) }).click();
    await expect(admin.getByRole('heading', { level: 1 })).toHaveText(orderNumber(mine.id));
    await expect(admin.getByRole('link', { name: shopper.name })).toHaveAttribute('href', /^\/admin\/customers\/[0-9a-f-]{36}$/);
    await hydrated(admin, '.admin-note-form');
    const orderNote = 'Gift: no prices on the slip.';
    await admin.getByRole('textbox', { name: 'Add a private note' }).fill(orderNote);
    await admin.getByRole('button', { name: 'Save note' }).click();
    await expect(message(admin, `Note added to ${orderNumber(mine.id)}.`)).toBeVisible();
    await expect(admin.locator('.admin-notes li').first()).toContainText(orderNote);
    await admin.screenshot({ path: testInfo.outputPath('order-desktop.png'), fullPage: true });
    await admin.goto('/admin/activity');
    await expect(admin.getByText(`Order note added: ${orderNumber(mine.id)}`)).toBeVisible();
    await expect(admin.getByText(`Customer note added: ${shopper.email}`)).toBeVisible();
    await adminContext.close();

    // The shopper: no note in their orders or on their order's page, and the admin does not exist for them.
    const history = await page.request.get('/api/orders');
    expect(history.status()).toBe(200);
    const historyText = await history.text();
    expect(historyText).toContain(mine.id);
    const orderPage = await page.request.get(`/orders/${mine.id}`);
    expect(orderPage.status()).toBe(200);
    const pageText = await orderPage.text();
    for (const note of [customerNote, orderNote]) {
      expect(historyText).not.toContain(note);
      expect(pageText).not.toContain(note);
    }
    expect((await page.goto('/admin/customers'))?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
    expect(
      (await page.request.post(`/api/admin/orders/${mine.id}/notes`, { headers: { origin }, data: { note: 'x' } })).status(),
    ).toBe(404);
    const attempt = await page.request.post('/api/admin/customers/notes', {
      headers: { origin },
      data: { email: shopper.email, note: 'x' },
    });
    expect(attempt.status()).toBe(404);
    expect(await attempt.text()).not.toContain(customerNote);
  });

  test('on a phone the list is a card per customer and their page fits the screen, with no WCAG 2.2 AA violations', async ({
    page,
    baseURL,
    signInAdmin,
  }, testInfo) => {
    const guest = newShopper('Priya', { lastName: 'Raman' });
    const bought = await buy(page.request, baseURL ?? '', [SOAP], guest);
    await signInAdmin('customers-mobile');
    await page.setViewportSize({ width: 390, height: 844 });
    const fits = () =>
      page.evaluate(() => ({
        page: document.documentElement.scrollWidth <= window.innerWidth,
        table: [...document.querySelectorAll('.admin-table-wrap')].every((w) => w.scrollWidth <= w.clientWidth),
      }));

    await page.goto(`/admin/customers?${new URLSearchParams({ q: guest.email })}`);
    const row = page.locator('.admin-table tbody tr');
    await expect(row).toHaveCount(1);
    await expect(row.locator('[data-label="Kind"]')).toHaveText('Guest');
    expect(await fits()).toEqual({ page: true, table: true });
    for (const cell of [row.locator('[data-label="Spent"]'), row.locator('[data-label="Last order"]')]) {
      const box = await cell.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    }
    await expect(row.locator('[data-label="Spent"]')).toHaveText(dollars(bought.totalCents));
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: testInfo.outputPath('customers-phone.png'), fullPage: true });

    await row.getByRole('link', { name: guest.name }).click();
    await expect(page).toHaveURL(/\/admin\/customers\/guest\?email=/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(guest.name);
    await allHydrated(page);
    expect(await fits()).toEqual({ page: true, table: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: testInfo.outputPath('customer-phone.png'), fullPage: true });
  });
});
