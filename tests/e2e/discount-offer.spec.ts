import type { Page } from '@playwright/test';
import { adminEmail } from './admin-accounts';
import { expect } from './fixtures';
import { addFromProductPage, checkoutTo, newShopper, openCart, waitForMail } from './journeys';
import { startSecondShop, testOn } from './second-shop';

// The automatic offer as the shopper meets it in the cart drawer (decision 009): a line of its own once the cart
// reaches its threshold, a code that saves less is taken but not applied (the notice says so, the rule is printed),
// and a free-shipping code adds to it. The offer is one setting for the whole shop, so this runs on a shop of its own:
// the main server's other specs check totals without an offer.

const test = testOn(() => startSecondShop('offer', { ADMIN_EMAILS: adminEmail('codes-offer') }), 120_000);

/** The drawer's totals as the shopper reads them, in order. */
async function drawerTotals(page: Page) {
  const summary = page.getByRole('dialog', { name: 'Your cart' }).locator('.cart-summary');
  return (await summary.locator('p.cart-row, p.cart-subtotal').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

async function apply(page: Page, code: string) {
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  const field = drawer.getByRole('textbox', { name: 'Discount code' });
  if (!(await field.isVisible())) await drawer.getByText('Add a discount code').click();
  await field.fill(code);
  await drawer.getByRole('button', { name: 'Apply' }).click();
}

test.describe('the automatic offer in the cart drawer', () => {
  test.slow();
  test.use({ viewport: { width: 390, height: 844 } });

  test('from its threshold the offer is a line of its own; a code that saves less says so; free shipping adds to it, to the order page', async ({
    page,
    baseURL,
    playwright,
    signInAdmin,
    mailbox,
  }, info) => {
    const origin = baseURL ?? '';
    const owner = await playwright.request.newContext({ baseURL: origin });
    await signInAdmin('codes-offer', owner);
    const headers = { origin };
    const offer = await owner.post('/api/admin/discounts/offer', {
      headers,
      data: { thresholdCents: 5000, percent: 10, active: true, combines: false },
    });
    expect(offer.status(), await offer.text()).toBe(200);
    const rules = { minSubtotalCents: null, startsAt: null, endsAt: null, usageLimit: null, perCustomerLimit: null };
    const scope = { productIds: [], categories: [] };
    for (const data of [
      { code: 'SAVE5', kind: 'percent', percent: 5, ...rules, ...scope },
      { code: 'SHIPFREE', kind: 'free_shipping', ...rules, ...scope },
    ]) {
      const created = await owner.post('/api/admin/discounts', { headers, data });
      expect(created.status(), await created.text()).toBe(201);
    }
    await owner.dispose();

    // Two Kojic Acid Soaps, $30: below the offer's $50, so no line (and nothing to ask the server).
    await addFromProductPage(page, 7, { quantity: 2 });
    const drawer = await openCart(page);
    await expect
      .poll(() => drawerTotals(page))
      .toEqual(['Subtotal $30.00', 'Shipping (estimate) $10.00', 'Tax (8.9%) $2.67', 'Estimated total $42.67']);

    // Four, $60: 10 % off, $6.00; tax on $54.00 is $4.81; 1.2 lb is estimated at $15.
    await drawer.getByRole('button', { name: 'Increase quantity of Kojic Acid Soap' }).click();
    await drawer.getByRole('button', { name: 'Increase quantity of Kojic Acid Soap' }).click();
    const withOffer = [
      'Subtotal $60.00',
      'Automatic offer (10% off) \u2212$6.00',
      'Shipping (estimate) $15.00',
      'Tax (8.9%) $4.81',
      'Estimated total $73.81',
    ];
    await expect.poll(() => drawerTotals(page)).toEqual(withOffer);

    // SAVE5 would take $3.00: the offer saves more, so it applies instead, and the shopper is told so.
    await apply(page, 'save5');
    await expect(drawer.getByRole('status').filter({ hasText: 'automatic offer' })).toHaveText(
      'The automatic offer saves you more than code SAVE5, so the offer applies instead.',
    );
    await expect(drawer.getByText(/^One code per order; a code and the automatic offer do not add up/)).toBeVisible();
    await expect.poll(() => drawerTotals(page)).toEqual(withOffer);
    await page.screenshot({ path: info.outputPath('offer-better.png') });

    // A free-shipping code adds to the offer: the shipping is free, the total $54.00 + $4.81.
    await drawer.getByRole('button', { name: 'Remove code SAVE5' }).click();
    await apply(page, 'SHIPFREE');
    await expect
      .poll(() => drawerTotals(page))
      .toEqual([
        'Subtotal $60.00',
        'Automatic offer (10% off) \u2212$6.00',
        'Code SHIPFREE Free shipping',
        'Shipping (estimate) Free',
        'Tax (8.9%) $4.81',
        'Estimated total $58.81',
      ]);
    await page.screenshot({ path: info.outputPath('offer-and-free-shipping.png') });

    await page.keyboard.press('Escape');
    const who = newShopper('Grace');
    const checkout = await checkoutTo(page, who);
    await expect(checkout.getByTestId('checkout-discount-offer')).toHaveText('Automatic offer (10% off)\u2212$6.00');
    await expect(checkout.getByTestId('checkout-discount-code')).toHaveText('Code SHIPFREEFree shipping');
    await expect(checkout.getByTestId('checkout-shipping')).toHaveText('Free');
    await expect(checkout.getByTestId('checkout-total')).toHaveText('$58.81');
    await expect(checkout.getByRole('button', { name: 'Pay $58.81' })).toBeVisible();
    await page.screenshot({ path: info.outputPath('offer-payment.png') });
    await checkout.getByLabel('Card number').fill('4242 4242 4242 4242');
    await checkout.getByLabel(/Expir/).fill('12/34');
    await checkout.getByLabel(/CVC/).fill('123');
    await checkout.getByRole('button', { name: 'Pay $58.81' }).click();
    await expect(page.getByText(/^Order [0-9a-f]{8} placed!/)).toBeVisible();
    await page.waitForEvent('load');

    // The order page, from the e-mail's link: both lines, the shipping free, the total charged.
    const mail = await waitForMail(who.email, /^Your Aurelia order/, mailbox);
    expect(mail.text).toContain('Subtotal: $60.00\nAutomatic offer: \u2212$6.00\nCode SHIPFREE: Free shipping\n');
    await page.goto(mail.link);
    const totals = page.locator('.order-page-totals');
    await expect(totals.locator('dd[data-discount="offer"]')).toHaveText('\u2212$6.00');
    await expect(totals.locator('dd[data-discount="code"]')).toHaveText('Free shipping');
    await expect(totals).toContainText('$58.81');
  });
});
