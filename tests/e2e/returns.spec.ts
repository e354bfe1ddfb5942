import type { APIRequestContext, Browser, Page } from '@playwright/test';
import { orderNumber } from '@/features/orders/orders';
import type { E2EAdmin } from './admin-accounts';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { buy, hydrated, message, newShopper, openSignedIn, signedInAdmin, waitForMail } from './journeys';

// Returns, through the built server on the embedded defaults: a shopper asks to return part of a delivered order from
// its page (signed in on a desktop; a guest with the order's link on a phone), and the owner, in a browser of their
// own, approves it (a TEST return label), receives it and refunds it, or declines it. The rules (the window, final
// sale, quantities, who may ask, the refund's amount, once) are tests/db/returns.test.ts's and returns-admin.test.ts's.

const SOAP = { productId: 7 };
const BUTTER = { productId: 5, quantity: 2 };
/** Final sale in the catalogue. */
const OIL = { productId: 6 };
const SCRUBS = { productId: 3, selectedColor: 'blue', selectedSize: 'M' };

/** A browser of the owner `name`, signed in (on a phone's screen when given one). */
async function ownerPage(
  browser: Browser,
  baseURL: string,
  name: E2EAdmin,
  viewport?: { width: number; height: number },
): Promise<Page> {
  const context = await browser.newContext({ baseURL, ...(viewport ? { viewport } : {}) });
  const page = await context.newPage();
  await signedInAdmin(page.request, baseURL, name);
  return page;
}

/** Moves the order on as the owner's Mark shipped / Mark delivered buttons do. */
async function mark(admin: APIRequestContext, origin: string, orderId: string, steps: ['processing' | 'shipped', string][]) {
  for (const [from, to] of steps) {
    const answer = await admin.post(`/api/admin/orders/${orderId}/status`, { headers: { origin }, data: { from, to } });
    expect(answer.status()).toBe(200);
  }
}

/** Opens the return form on an order's page, once its island is live. */
async function openReturnForm(page: Page) {
  await hydrated(page, '.return-open');
  await page.getByRole('button', { name: 'Return items' }).click();
  return page.getByRole('form', { name: 'Return items' });
}

/** The request sent, the page reloaded: the new return's card and its number. */
async function requested(page: Page) {
  await expect(page.getByText(/^Return RMA-\d+ requested$/)).toBeVisible();
  const card = page.locator('.return-card').last();
  await expect(card.locator('.return-status')).toHaveText('Requested');
  const number = ((await card.getByRole('heading').textContent()) ?? '').replace('Return ', '');
  expect(number).toMatch(/^RMA-\d+$/);
  return { card, number };
}

test.describe('returns', () => {
  // Each test signs up an owner (and a shopper), buys, and drives two browsers.
  test.slow();

  test('a signed-in shopper returns part of a delivered order; the owner approves, receives and refunds it', async ({
    page,
    browser,
    baseURL,
    signIn,
  }) => {
    const origin = baseURL ?? '';
    await signIn();
    const who = newShopper('Rhea');
    const order = await buy(page.request, origin, [SOAP, BUTTER, OIL], who);
    const owner = await ownerPage(browser, origin, 'rma-desk');
    await mark(owner.request, origin, order.id, [
      ['processing', 'shipped'],
      ['shipped', 'delivered'],
    ]);

    await openSignedIn(page, `/orders/${order.id}`);
    const returns = page.getByRole('region', { name: 'Returns' });
    await expect(returns).toContainText(/You can return items until \w{3} \d{1,2}, \d{4}: 30 days from delivery on /);
    const form = await openReturnForm(page);
    // The oil was bought final sale: it cannot be ticked, and says why.
    await expect(form.getByRole('checkbox', { name: 'Turmeric Body Oil' })).toBeDisabled();
    await expect(form).toContainText('Final sale: cannot be returned');
    await form.getByRole('checkbox', { name: 'Vitamin C Body Butter' }).check();
    await form.getByLabel('How many').selectOption('2');
    await form.getByRole('button', { name: 'Request return' }).click();
    await expect(form.getByRole('alert')).toHaveText('Choose a reason for the return.');
    await form.getByLabel('Reason').selectOption({ label: 'Did not suit my skin or hair' });
    await form.getByLabel('Anything we should know? (optional)').fill('Too rich for me.');
    expect(await axeViolations(page, '.order-returns')).toEqual([]);
    await form.getByRole('button', { name: 'Request return' }).click();

    const { card, number } = await requested(page);
    await expect(card).toContainText('2 × Vitamin C Body Butter');
    await expect(card.getByRole('list', { name: 'Where it stands' }).getByRole('listitem')).toHaveText([
      /^Requested\w{3} \d{1,2}, \d{4}$/,
      'Approved',
      'Received',
      'Refunded',
    ]);
    const mail = await waitForMail(who.email, new RegExp(`^Your Aurelia return ${number}: request received$`));
    expect(mail.text).toContain(`Your return number is ${number}.`);
    expect(mail.text).toContain(orderNumber(order.id));

    // The owner: the navigation counts it, the list of requested returns has it, its page says what and why.
    await owner.goto('/admin/returns?status=requested');
    await expect(
      owner.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: /^Returns \d+ to handle$/ }),
    ).toBeVisible();
    await owner.getByRole('link', { name: number }).click();
    await expect(owner.getByRole('heading', { level: 1 })).toHaveText(`Return ${number}`);
    await expect(owner.getByRole('region', { name: 'Items' })).toContainText('2 × Vitamin C Body Butter');
    await expect(owner.getByRole('region', { name: 'Items' })).toContainText('The customer wrote: “Too rich for me.”');
    expect(await axeViolations(owner)).toEqual([]);

    // Approved: the customer is e-mailed a TEST return label, which their order page links to.
    await hydrated(owner, '.admin-order-actions');
    await owner.getByRole('button', { name: 'Approve and send a label' }).click();
    await owner
      .getByRole('dialog', { name: `Approve ${number}?` })
      .getByRole('button', { name: 'Approve' })
      .click();
    await expect(message(owner, `${number} is approved: the customer is e-mailed a return label.`)).toBeVisible();
    const approved = await waitForMail(who.email, new RegExp(`^Your Aurelia return ${number} is approved: your return label$`));
    expect(approved.text).toContain('the label is a TEST label, not valid postage');
    await page.reload();
    const label = await page.request.get(
      (await page.getByRole('link', { name: 'Print your return label' }).getAttribute('href')) ?? '',
    );
    expect(label.headers()['content-type']).toBe('application/pdf');

    // Received, back in stock; then refunded: the butter, its share of the order and its tax, not the shipping.
    await owner.reload();
    await hydrated(owner, '.admin-order-actions');
    await owner.getByLabel('2 × Vitamin C Body Butter').selectOption({ label: 'Resellable: back in stock' });
    await owner.getByRole('button', { name: 'Mark received' }).click();
    await expect(message(owner, 'Received: 2 × Vitamin C Body Butter (resellable).')).toBeVisible();
    await hydrated(owner, '.admin-order-actions');
    const refund = owner.getByRole('button', { name: /^Refund \$65\.34$/ });
    await refund.click();
    await owner.getByRole('dialog', { name: 'Refund $65.34?' }).getByRole('button', { name: 'Refund $65.34' }).click();
    await expect(message(owner, `Refunded $65.34 for ${number}.`)).toBeVisible();
    await waitForMail(who.email, new RegExp(`^Your Aurelia return ${number}: \\$65\\.34 refunded$`));
    await page.reload();
    await expect(page.locator('.return-card').last().locator('.return-status')).toHaveText('Refunded');
    await expect(page.locator('.return-card').last()).toContainText('Refunded $65.34 to your card.');
    await owner.goto('/admin/activity');
    await expect(owner.getByText(`Return refunded: ${number} for ${orderNumber(order.id)}`)).toBeVisible();
  });

  test.describe('on a phone', () => {
    test.use({ viewport: { width: 390, height: 844 } });

    test('a guest returns one line and exchanges another with the order’s link; the owner declines one and sends the other', async ({
      page,
      browser,
      baseURL,
    }) => {
      const origin = baseURL ?? '';
      const who = newShopper('Gus');
      const order = await buy(page.request, origin, [SOAP, SCRUBS], who);
      const owner = await ownerPage(browser, origin, 'rma-mobile', { width: 390, height: 844 });
      await mark(owner.request, origin, order.id, [['processing', 'shipped']]);
      const confirmation = await waitForMail(who.email, new RegExp(`^Your Aurelia order ${orderNumber(order.id)}$`));

      await page.goto(confirmation.link);
      await expect(page.getByRole('region', { name: 'Returns' })).toContainText(
        /30 days from shipping on \w{3} \d{1,2}, \d{4}, as the order has not been marked delivered\./,
      );
      let form = await openReturnForm(page);
      await form.getByRole('checkbox', { name: 'Kojic Acid Soap' }).check();
      await form.getByLabel('Reason').selectOption({ label: 'Arrived damaged or leaking' });
      await form.getByRole('button', { name: 'Request return' }).click();
      const soap = (await requested(page)).number;
      // The page fits the phone's width: nothing to scroll sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await waitForMail(who.email, new RegExp(`^Your Aurelia return ${soap}: request received$`));

      // The scrubs, for another size: the soap can no longer be chosen, and comes in one kind anyway.
      form = await openReturnForm(page);
      await form.getByRole('radio', { name: 'Another colour or size' }).check();
      await form.getByRole('checkbox', { name: 'Clinical Scrubs (blue, M)' }).check();
      await form.getByLabel('New size').selectOption('L');
      await form.getByLabel('Reason').selectOption({ label: 'Does not fit' });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await form.getByRole('button', { name: 'Request exchange' }).click();
      await expect(page.getByText(/^Exchange RMA-\d+ requested$/)).toBeVisible();
      const exchange = page.locator('.return-card').last();
      await expect(exchange).toContainText('1 × Clinical Scrubs (blue, M) for blue, L');
      const swap = ((await exchange.getByRole('heading').textContent()) ?? '').replace('Exchange ', '');

      // The owner, on a phone too, declines the soap with a reason: the guest's page and e-mail say why.
      await owner.goto(`/admin/returns?status=requested`);
      await owner.getByRole('link', { name: soap }).click();
      await hydrated(owner, '.admin-order-actions');
      await owner.getByRole('button', { name: 'Decline…' }).click();
      await owner.getByLabel('Why the return is declined (the customer is e-mailed this)').fill('Please send us a photo first.');
      await owner.getByRole('button', { name: 'Decline the return' }).click();
      await owner
        .getByRole('dialog', { name: `Decline ${soap}?` })
        .getByRole('button', { name: 'Decline' })
        .click();
      await expect(message(owner, `${soap} is declined: the customer is e-mailed your reason.`)).toBeVisible();
      expect(await owner.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const declined = await waitForMail(who.email, new RegExp(`^Your Aurelia return ${soap} was declined$`));
      expect(declined.text).toContain('Our reason: Please send us a photo first.');

      // And sends the exchange's replacement once the scrubs are back: a $0 order, e-mailed like any.
      await owner.goto(`/admin/returns?status=requested`);
      await owner.getByRole('link', { name: swap }).click();
      await hydrated(owner, '.admin-order-actions');
      await owner.getByRole('button', { name: 'Approve and send a label' }).click();
      await owner
        .getByRole('dialog', { name: `Approve ${swap}?` })
        .getByRole('button', { name: 'Approve' })
        .click();
      await expect(message(owner, `${swap} is approved: the customer is e-mailed a return label.`)).toBeVisible();
      await hydrated(owner, '.admin-order-actions');
      await owner.getByLabel('1 × Clinical Scrubs (blue, M)').selectOption({ label: 'Resellable: back in stock' });
      await owner.getByRole('button', { name: 'Mark received' }).click();
      await expect(message(owner, 'Received: 1 × Clinical Scrubs (resellable).')).toBeVisible();
      await hydrated(owner, '.admin-order-actions');
      await owner.getByRole('button', { name: 'Send the replacement' }).click();
      await owner
        .getByRole('dialog', { name: `Send the replacement for ${swap}?` })
        .getByRole('button', { name: 'Send it' })
        .click();
      await expect(owner.getByText(new RegExp(`^The replacement for ${swap} is order ORD-[0-9A-F]{6}`))).toBeVisible();
      const sent = await waitForMail(who.email, new RegExp(`^Your Aurelia return ${swap}: your replacement is on its way$`));
      const replacement = /order (ORD-[0-9A-F]{6}), at no charge/.exec(sent.text)?.[1] ?? '';
      await waitForMail(who.email, new RegExp(`^Your Aurelia order ${replacement}$`));

      await page.reload();
      await expect(page.locator('.return-card .return-status')).toHaveText(['Declined', 'Replacement sent']);
      await expect(page.locator('.return-declined')).toContainText('Please send us a photo first.');
      await expect(page.locator('.return-card').last()).toContainText(`Your replacement is order ${replacement}, at no charge`);
    });
  });
});
