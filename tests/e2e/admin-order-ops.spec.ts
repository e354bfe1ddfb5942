import type { Browser, Page } from '@playwright/test';
import { orderNumber } from '@/features/orders/orders';
import { readDevMailbox } from '@/server/mail/dev-mailbox.server';
import { type FakeShippo, startFakeShippo } from '../mocks/shippo';
import { adminEmail, type E2EAdmin } from './admin-accounts';
import { axeViolations } from './axe';
import { expect } from './fixtures';
import { ADA, buy, hydrated, message, openSignedIn, signedInAdmin } from './journeys';
import { type SecondShop, startSecondShop, testOn } from './second-shop';

// What the owner changes about an order after the sale (issue 43, part 4), on a shop of its own whose labels come from
// a mock Shippo (SHIPPO_API_BASE) that refuses the customer's street, as a carrier refuses an address it cannot find:
// the label fails, the owner corrects the address, the label is bought for the new one and the shopper's order page
// shows it; the confirmation is resent once; a sale that leaves a counted item at the threshold e-mails the shop once.

const REFUSED = ADA.street;
const FIXED = { street: '1100 Congress Ave', zip: '78701' };
const SHOP_EMAIL = 'orders@aurelia-care.com';

interface ShippoShop extends SecondShop {
  fake: FakeShippo;
}

async function startShippoShop(): Promise<ShippoShop> {
  const fake = await startFakeShippo();
  fake.refuseLabelsTo(REFUSED);
  try {
    const shop = await startSecondShop('order-ops', {
      SHIPPO_API_KEY: fake.apiKey,
      SHIPPO_API_BASE: fake.url,
      ADMIN_EMAILS: (['ops-desktop', 'ops-mobile'] as const).map(adminEmail).join(','),
    });
    return {
      ...shop,
      fake,
      stop: async () => {
        await shop.stop();
        await fake.stop();
      },
    };
  } catch (error) {
    await fake.stop();
    throw error;
  }
}

const test = testOn(startShippoShop, 180_000);

/** A browser of its own (a phone's when `phone`), signed in as the admin `name`. */
async function ownerBrowser(browser: Browser, origin: string, mailbox: string, name: E2EAdmin, phone: boolean) {
  const context = await browser.newContext({ baseURL: origin, ...(phone ? { viewport: { width: 390, height: 844 } } : {}) });
  const admin = await context.newPage();
  await signedInAdmin(admin.request, origin, name, mailbox);
  return admin;
}

/** The order's admin page, once its label has failed: the carrier refused the street, and the job waits to retry. */
async function openFailedOrder(admin: Page, id: string) {
  await expect(async () => {
    await admin.goto(`/admin/orders/${id}`);
    await expect(admin.locator('.admin-jobs li', { hasText: 'Shipping label' })).toContainText('Failed', { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await hydrated(admin, '.admin-action-row');
}

/** Changes the address through the form: a ZIP in another state first (refused at the field), then the right one. */
async function changeAddress(admin: Page, id: string) {
  await admin.getByRole('button', { name: 'Change the address' }).click();
  const form = admin.getByRole('form', { name: 'New shipping address' });
  await expect(form).toContainText('State: Texas. Shipping was paid for Texas, so the new address stays in it.');
  await form.getByLabel('Street address').fill(FIXED.street);
  await form.getByLabel('ZIP code').fill('10001');
  await form.getByRole('button', { name: 'Save the address' }).click();
  await expect(form.getByLabel('ZIP code')).toHaveAttribute('aria-invalid', 'true');
  await expect(form).toContainText('ZIP code 10001 is in New York, not Texas. Please check the ZIP code and state.');
  await form.getByLabel('ZIP code').fill(FIXED.zip);
  await form.getByRole('button', { name: 'Save the address' }).click();
  await expect(
    message(
      admin,
      `${orderNumber(id)} now ships to ${ADA.name}, ${FIXED.street}, Austin, TX 78701. Its label is being bought again, for this address.`,
    ),
  ).toBeVisible();
  await expect(admin.locator('address')).toContainText(FIXED.street);
}

test.describe('the owner’s changes to an order after the sale', () => {
  test.describe.configure({ mode: 'default' });
  test.slow();

  test('on a desktop: the carrier refused the street, the owner fixes it, the label and the shopper’s page follow', async ({
    page,
    browser,
    baseURL,
    shop,
    signIn,
    mailbox,
  }) => {
    const origin = baseURL ?? '';
    await signIn();
    const order = await buy(page.request, origin, [{ productId: 8 }]);
    const admin = await ownerBrowser(browser, origin, mailbox, 'ops-desktop', false);
    await openFailedOrder(admin, order.id);
    expect(await axeViolations(admin, '.admin-order')).toEqual([]);
    await changeAddress(admin, order.id);

    // The label is bought again at once, for the new street; then the address can no longer change.
    await expect(async () => {
      await admin.reload();
      await expect(admin.getByText('has its shipping label, bought for this address', { exact: false })).toBeVisible({
        timeout: 1000,
      });
    }).toPass({ timeout: 30_000 });
    expect(shop.fake.labels.at(-1)?.street1).toBe(FIXED.street);
    await expect(admin.getByRole('button', { name: 'Change the address' })).toHaveCount(0);
    await admin.goto('/admin/activity');
    await expect(admin.locator('tr', { hasText: `Shipping address changed: ${orderNumber(order.id)}` })).toContainText(
      `${ADA.name}, ${REFUSED}, Austin, TX 78701 → ${ADA.name}, ${FIXED.street}, Austin, TX 78701`,
    );

    // The shopper's order page shows where it now goes.
    await openSignedIn(page, `/orders/${order.id}`);
    await expect(page.getByRole('main')).toContainText(FIXED.street);
    await admin.context().close();
  });

  test('on a phone: the confirmation is resent once, and a sale to the low-stock threshold e-mails the shop once', async ({
    page,
    browser,
    baseURL,
    signIn,
    mailbox,
  }) => {
    const origin = baseURL ?? '';
    const admin = await ownerBrowser(browser, origin, mailbox, 'ops-mobile', true);
    // Three grey M scrubs on hand, low at 2 or fewer.
    const stock = await admin.request.post('/api/admin/stock', {
      headers: { origin },
      data: { counts: [{ productId: 3, selectedColor: 'grey', selectedSize: 'M', onHand: 3 }], lowStockThreshold: 2 },
    });
    expect(stock.status(), await stock.text()).toBe(200);

    await signIn();
    const grey = { productId: 3, selectedColor: 'grey', selectedSize: 'M' };
    const order = await buy(page.request, origin, [grey]);
    const lowStock = async () =>
      (await readDevMailbox(mailbox)).filter((m) => m.to.includes(SHOP_EMAIL) && m.subject.startsWith('Low stock: '));
    await expect
      .poll(async () => (await lowStock()).map((m) => m.subject), { timeout: 15_000 })
      .toEqual(['Low stock: Clinical Scrubs (Grey, M) is down to 2']);
    // A second sale, further down: no second e-mail.
    await buy(page.request, origin, [grey]);

    await openFailedOrder(admin, order.id);
    await changeAddress(admin, order.id);
    // The form and the page fit the phone's width.
    expect(await admin.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await admin.getByRole('button', { name: 'Resend the confirmation e-mail' }).click();
    const confirm = admin.getByRole('dialog', { name: `Resend the confirmation of ${orderNumber(order.id)}?` });
    await expect(confirm).toContainText(`${ADA.email} gets the order’s confirmation again`);
    await confirm.getByRole('button', { name: 'Resend it' }).click();
    await expect(message(admin, `The confirmation of ${orderNumber(order.id)} is on its way to ${ADA.email}.`)).toBeVisible();

    // Two confirmations in all (the checkout's and the resent one), the resent one with the new street.
    const confirmations = async () =>
      (await readDevMailbox(mailbox)).filter(
        (m) => m.to.includes(ADA.email) && m.subject === `Your Aurelia order ${orderNumber(order.id)}`,
      );
    await expect.poll(async () => (await confirmations()).length, { timeout: 15_000 }).toBe(2);
    expect((await confirmations()).some((m) => m.text.includes(FIXED.street))).toBe(true);
    expect(await lowStock()).toHaveLength(1);
    await admin.goto('/admin/activity');
    await expect(admin.getByText('Order confirmation resent')).toHaveCount(1);
    await admin.context().close();
  });
});
