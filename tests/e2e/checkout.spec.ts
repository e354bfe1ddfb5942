import type { Page } from '@playwright/test';
import { readDevMailbox } from '@/server/mail/dev-mailbox.server';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { addFromProductPage, apiCheckout, checkoutTo, newShopper, openCart, openSignedIn, payWithTestCard } from './journeys';

// Checkout on the embedded defaults: the rate table ships, the test processor takes TEST MODE cards, the dev mailbox
// receives the e-mails. Every amount the page shows is checked against the spec's rules.

const mailbox = `http://127.0.0.1:${process.env.E2E_MAILBOX_PORT}`;

/** Pays with a TEST MODE card. */
async function pay(page: Page, card: string) {
  const checkout = page.getByRole('dialog', { name: 'Checkout' });
  await checkout.getByLabel('Card number').fill(card);
  await checkout.getByLabel(/Expir/).fill('12/34');
  await checkout.getByLabel(/CVC/).fill('123');
  await checkout.getByRole('button', { name: /^Pay / }).click();
}

async function mailsTo(address: string) {
  return (await readDevMailbox(mailbox)).filter((m) => m.to.includes(address));
}

test.describe('checkout', () => {
  test('a guest buys two scrubs in Powder Blue, size M, and a soap: one order, the right totals, two e-mails, a label', async ({
    page,
  }) => {
    await addFromProductPage(page, 3, { color: 'Powder Blue', size: 'M', quantity: 2 });
    await addFromProductPage(page, 7);
    const who = newShopper('Grace', { lastName: 'Hopper' });
    const checkout = await checkoutTo(page, who);

    // $45 × 2 + $15 = $105; 2 × 1.2 lb + 0.3 lb = 2.7 lb; Standard to GA: $10 + $3 × 2 = $16; tax 8.9% of $105 = $9.35.
    const standard = checkout.getByRole('radio', { name: /Standard Shipping/ });
    await expect(standard).toBeChecked();
    await expect(checkout.getByTestId('checkout-subtotal')).toHaveText('$105.00');
    await expect(checkout.getByTestId('checkout-shipping')).toHaveText('$16.00');
    await expect(checkout.getByTestId('checkout-tax')).toHaveText('$9.35');
    await expect(checkout.getByTestId('checkout-total')).toHaveText('$130.35');
    await expect(checkout.getByText('TEST MODE')).toBeVisible();
    await expect(checkout.getByRole('button', { name: 'Pay $130.35' })).toBeVisible();

    await pay(page, '4242 4242 4242 4242');
    const toast = page.getByText(/^Order [0-9a-f]{8} placed!/);
    await expect(toast).toBeVisible();
    // The page reloads 2 s after the order, with an empty cart.
    await page.waitForEvent('load');
    await expect(page.getByTestId('cart-count')).toHaveText('0');

    let customer: { subject: string; text: string; html: string } | undefined;
    await expect
      .poll(async () => {
        // The e-mails name the order as the history and the order page do: ORD- and the id's last 6 characters.
        customer = (await mailsTo(who.email)).find((m) => /^Your Aurelia order ORD-[0-9A-F]{6}$/.test(m.subject));
        return Boolean(customer);
      })
      .toBe(true);
    expect(customer?.text).toContain('2 × Clinical Scrubs (powder-blue, M)');
    expect(customer?.text).toContain('Total: $130.35');
    const number = () => /ORD-[0-9A-F]{6}/.exec(customer?.subject ?? '')?.[0] ?? '';
    let shop: { text: string; html: string } | undefined;
    await expect
      .poll(async () => {
        shop = (await mailsTo('orders@aurelia-care.com')).find((m) => m.subject.startsWith(`New order ${number()}:`));
        return Boolean(shop);
      })
      .toBe(true);

    // The guest's order page, from the e-mail's link: the order, and its tracking number once the label is bought.
    const link = /https?:\/\/\S+\/order\?token=[\w%-]+/.exec(customer?.text ?? '')?.[0] ?? '';
    expect(link).not.toBe('');
    expect(customer?.html).toContain(`href="${link}"`);
    // The shop's notice names the shopper and opens the admin's page of the order, never the customer's.
    expect(shop?.text).toContain(`<${who.email}>`);
    expect(shop?.text).toMatch(/Open the order: https?:\/\/\S+\/admin\/orders\/[0-9a-f-]{36}/);
    expect(shop?.text).not.toContain(link);
    await expect
      .poll(async () => {
        await page.goto(new URL(link).pathname + new URL(link).search);
        return page.locator('main').textContent();
      })
      .toMatch(/TEST\d{18}/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^Order ORD-/);
    await expect(page.getByText('$130.35')).toBeVisible();
  });

  test('a signed-in shopper buys, finds the order in My Orders and reorders it', async ({ page, baseURL, signIn }) => {
    await signIn(page.request, 'Katherine');
    await openSignedIn(page, '/product/8');
    await addFromProductPage(page, 8, { quantity: 3 });
    await checkoutTo(page, newShopper('Katherine', { lastName: 'Johnson', city: 'Hampton', state: 'VA', zip: '23669' }));
    await pay(page, '4242 4242 4242 4242');
    const toast = page.getByText(/^Order [0-9a-f]{8} placed!/);
    await expect(toast).toBeVisible();
    await page.waitForEvent('load');
    await page.goto('/orders');
    const card = page.locator('.order-card').first();
    await expect(card).toContainText('Turmeric Face Soap');
    // 3 × $10 + $15 to Virginia (0.75 lb: no whole pound) + 8.9% of $30 = $47.67.
    await expect(card).toContainText('$47.67');
    await expect(card).toContainText('Processing');
    await card.getByRole('button', { name: 'Reorder' }).click();
    await expect(page.getByTestId('cart-count')).toHaveText('3');

    // The label, through the spec's endpoint: bought once, the same answer twice, a PDF for its owner only.
    const { orders } = (await (await page.request.get('/api/orders')).json()) as { orders: { id: string }[] };
    const orderId = orders[0]?.id ?? '';
    const headers = { origin: baseURL ?? '' };
    const ask = () => page.request.post('/api/create-shipment', { headers, data: { orderId, selectedRateAmount: '0.01' } });
    const first = (await (await ask()).json()) as { success: boolean; tracking_number: string; label_url: string };
    expect(first).toMatchObject({ success: true, tracking_number: expect.stringMatching(/^TEST\d{18}$/) });
    expect(await (await ask()).json()).toEqual(first);
    const pdf = await page.request.get(new URL(first.label_url).pathname);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    expect((await pdf.body()).subarray(0, 5).toString()).toBe('%PDF-');
    const stranger = await page
      .context()
      .browser()
      ?.newContext({ baseURL: baseURL ?? '' });
    const guest = await stranger?.request.post('/api/create-shipment', { headers, data: { orderId } });
    expect(guest?.status()).toBe(401);
    await stranger?.close();
  });

  test('a signed-in shopper finds name and e-mail filled in, and the next checkout offers the last address, apartment included', async ({
    page,
    signIn,
  }) => {
    const me = await signIn(page.request, 'Dorothy');
    await openSignedIn(page, '/product/8');
    await addFromProductPage(page, 8);
    const startCheckout = async () => {
      await (await openCart(page)).getByRole('button', { name: 'Checkout' }).click();
      return page.getByRole('dialog', { name: 'Checkout' });
    };
    let checkout = await startCheckout();
    let form = checkout.getByRole('form', { name: 'Shipping address' });
    await expect(form.getByLabel('Full name')).toHaveValue('Dorothy Thompson');
    await expect(form.getByLabel('Email')).toHaveValue(me.email);
    await expect(form.getByText('Ship to your last address?')).toHaveCount(0);
    await form.getByLabel('Street address').fill('12 Bull St');
    await form.getByLabel('Apartment, suite, etc. (optional)').fill('Apt 4B');
    await form.getByLabel('City').fill('Savannah');
    await form.getByLabel('State').selectOption({ label: 'Georgia' });
    await form.getByLabel('ZIP code').fill('31401');
    await form.getByRole('button', { name: 'Continue' }).click();
    await expect(checkout.locator('.checkout-ship-to')).toContainText(
      'Dorothy Thompson, 12 Bull St, Apt 4B, Savannah, Georgia 31401',
    );
    await pay(page, '4242 4242 4242 4242');
    await page.waitForEvent('load');

    // The apartment is in the confirmation e-mail, under the street.
    let mail: { subject: string; text: string } | undefined;
    await expect
      .poll(async () => {
        mail = (await mailsTo(me.email)).find((m) => m.subject.startsWith('Your Aurelia order'));
        return Boolean(mail);
      })
      .toBe(true);
    expect(mail?.text).toContain('Dorothy Thompson\n12 Bull St\nApt 4B\nSavannah, GA 31401\nUnited States');

    // The next checkout offers that address; one tap fills it, and Continue is next.
    await addFromProductPage(page, 7);
    checkout = await startCheckout();
    form = checkout.getByRole('form', { name: 'Shipping address' });
    await expect(form).toContainText('Ship to your last address?');
    await expect(form).toContainText('Dorothy Thompson, 12 Bull St, Apt 4B, Savannah, GA 31401');
    await expect(form.getByLabel('Street address')).toHaveValue('');
    await form.getByRole('button', { name: 'Use this address' }).click();
    await expect(form.getByLabel('Street address')).toHaveValue('12 Bull St');
    await expect(form.getByLabel('Apartment, suite, etc. (optional)')).toHaveValue('Apt 4B');
    await expect(form.getByLabel('State')).toHaveValue('GA');
    await expect(form.getByLabel('ZIP code')).toHaveValue('31401');
    await expect(form.getByText('Ship to your last address?')).toHaveCount(0);
    await expect(form.getByRole('button', { name: 'Continue' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(checkout.locator('.checkout-ship-to')).toContainText('12 Bull St, Apt 4B, Savannah, Georgia 31401');

    // The order's own page shows it too.
    await page.goto('/orders');
    await page.locator('.order-card').first().getByRole('link', { name: /^ORD-/ }).click();
    await expect(page.getByRole('main')).toContainText('12 Bull St');
    await expect(page.getByRole('main')).toContainText('Apt 4B');
  });

  test('a guest is not asked about an account: nothing is filled in and no address is offered', async ({ page }) => {
    let asked = false;
    page.on('request', (request) => {
      if (request.url().includes('/api/checkout/prefill')) asked = true;
    });
    await addFromProductPage(page, 9);
    await (await openCart(page)).getByRole('button', { name: 'Checkout' }).click();
    const form = page.getByRole('dialog', { name: 'Checkout' }).getByRole('form', { name: 'Shipping address' });
    await expect(form.getByLabel('Full name')).toHaveValue('');
    await expect(form.getByLabel('Email')).toHaveValue('');
    await expect(form.getByText('Ship to your last address?')).toHaveCount(0);
    expect(asked).toBe(false);
    expect((await page.request.get('/api/checkout/prefill')).status()).toBe(401);
  });

  test('a declined card says so, charges nothing, and the shopper can pay with another card', async ({ page }) => {
    await addFromProductPage(page, 9);
    await checkoutTo(page, newShopper('Ada', { lastName: 'Lovelace', city: 'San Jose', state: 'CA', zip: '95112' }));
    await pay(page, '4000 0000 0000 0002');
    await expect(page.getByText('Payment failed: Your card was declined.')).toBeVisible();
    await pay(page, '4242 4242 4242 4242');
    await expect(page.getByText(/^Order [0-9a-f]{8} placed!/)).toBeVisible();
  });

  test('when the order cannot be saved the shopper is told so, with the reason', async ({ page }) => {
    await page.route('**/api/orders/confirm', (route) =>
      route.fulfill({ status: 503, json: { error: { code: 'unavailable', message: 'The shop is busy. Please try again.' } } }),
    );
    await addFromProductPage(page, 8);
    await checkoutTo(page, newShopper('Evelyn', { lastName: 'Boyd', city: 'Mobile', state: 'AL', zip: '36602' }));
    await pay(page, '4242 4242 4242 4242');
    await expect(page.getByText('Order submission failed')).toBeVisible();
    await expect(page.getByText('The shop is busy. Please try again.')).toBeVisible();
  });

  test('a card that asks for authentication pays once the shopper completes it', async ({ page }) => {
    await addFromProductPage(page, 1);
    await checkoutTo(page, newShopper('Alan', { lastName: 'Turing', city: 'Austin', state: 'TX', zip: '78701' }));
    await pay(page, '4000 0025 0000 3155');
    await page.getByRole('button', { name: /Complete authentication/ }).click();
    await expect(page.getByText(/^Order [0-9a-f]{8} placed!/)).toBeVisible();
  });

  test('when shipping cannot be calculated: the message, the fallback Standard Shipping rate, payment with it, and Retry', async ({
    page,
  }) => {
    let failures = 1;
    await page.route('**/api/shippo-rates', (route) =>
      failures-- > 0
        ? route.fulfill({ status: 502, json: { error: { code: 'shipping_failed', message: 'the carrier did not answer' } } })
        : route.continue(),
    );
    await addFromProductPage(page, 2, { quantity: 2 });
    const checkout = await checkoutTo(
      page,
      newShopper('Dorothy', { lastName: 'Vaughan', city: 'Nashville', state: 'TN', zip: '37201' }),
    );
    await expect(checkout.getByText('Shipping calculation failed: the carrier did not answer')).toBeVisible();
    const fallback = checkout.getByRole('radio', { name: /Standard Shipping/ });
    await expect(fallback).toBeChecked();
    await checkout.getByRole('button', { name: 'Retry shipping calculation' }).click();
    await expect(checkout.getByText(/Shipping calculation failed/)).toBeHidden();
    await expect(checkout.getByRole('radio', { name: /Express Shipping/ })).toBeVisible();
  });

  test('the fallback rate pays: the server prices it by the spec’s rule', async ({ page }) => {
    await page.route('**/api/shippo-rates', (route) =>
      route.fulfill({ status: 502, json: { error: { code: 'shipping_failed', message: 'timeout' } } }),
    );
    await addFromProductPage(page, 6);
    const checkout = await checkoutTo(
      page,
      newShopper('Annie', { lastName: 'Easley', city: 'Cleveland', state: 'OH', zip: '44101' }),
    );
    await expect(checkout.getByText('Shipping calculation failed: timeout')).toBeVisible();
    // $35 oil + $15 (Ohio, under a pound) + 8.9% of $35 ($3.12).
    await expect(checkout.getByTestId('checkout-total')).toHaveText('$53.12');
    await pay(page, '4242 4242 4242 4242');
    await expect(page.getByText(/^Order [0-9a-f]{8} placed!/)).toBeVisible();
  });

  test('from $500 shipping is free', async ({ page }) => {
    // Two products added from their pages, the checkout and two accessibility scans of the drawer.
    test.slow();
    // 5 × $90 trio sets + 2 × $35 body cream = $520.
    await addFromProductPage(page, 4, { quantity: 5 });
    await addFromProductPage(page, 1, { quantity: 2 });
    const checkout = await checkoutTo(
      page,
      newShopper('Mary', { lastName: 'Jackson', city: 'Miami', state: 'FL', zip: '33101' }),
    );
    await expect(checkout.getByTestId('checkout-subtotal')).toHaveText('$520.00');
    await expect(checkout.getByTestId('checkout-shipping')).toHaveText('Free');
    await expect(checkout.getByTestId('checkout-tax')).toHaveText('$46.28');
    await expect(checkout.getByTestId('checkout-total')).toHaveText('$566.28');
    await expect(checkout.getByRole('button', { name: 'Pay $566.28' })).toBeVisible();
    expect(await axeViolations(page, '.cart-drawer')).toEqual([]);
    // The back arrow goes payment → address → cart.
    await page.getByRole('button', { name: 'Back to the address' }).click();
    await expect(checkout.getByRole('form', { name: 'Shipping address' })).toBeVisible();
    await expect(checkout.getByLabel('City')).toHaveValue('Miami');
    expect(await axeViolations(page, '.cart-drawer')).toEqual([]);
    await page.getByRole('button', { name: 'Back to the cart' }).click();
    await expect(page.getByRole('dialog', { name: 'Your cart' })).toBeVisible();
  });

  test('a malformed e-mail or ZIP code is named next to its field, and Continue waits for every field', async ({ page }) => {
    await addFromProductPage(page, 8);
    const drawer = await openCart(page);
    await drawer.getByRole('button', { name: 'Checkout' }).click();
    const form = page.getByRole('form', { name: 'Shipping address' });
    await form.getByLabel('Full name').fill('Kim');
    await form.getByLabel('Email').fill('kim@');
    await form.getByLabel('Street address').fill('1 Oak St');
    await form.getByLabel('City').fill('Reno');
    await form.getByLabel('State').selectOption('NV');
    await form.getByLabel('ZIP code').fill('895');
    await form.getByRole('button', { name: 'Continue' }).click();
    await expect(form.getByLabel('Email')).toHaveAccessibleDescription('Please enter a valid email address');
    await expect(form.getByLabel('ZIP code')).toHaveAccessibleDescription('Please enter a 5-digit ZIP code (or ZIP+4).');
    await expect(form.getByLabel('Email')).toHaveAttribute('autocomplete', 'email');
    await expect(form.getByLabel('ZIP code')).toHaveAttribute('autocomplete', 'shipping postal-code');
  });

  test('the server prices the order: an amount the browser sends is ignored, a rate it never quoted is refused', async ({
    request,
    baseURL,
  }) => {
    const checkout = await apiCheckout(
      request,
      baseURL ?? '',
      [{ productId: 7 }],
      newShopper('Eve', { city: 'Atlanta', state: 'GA', zip: '30303' }),
    );
    // The body said amount: 1. The server charges $15 + shipping + 8.9% tax of $15 ($1.34).
    expect(checkout.amountCents).toBe(1500 + checkout.rate.amount_cents + 134);
    expect(checkout.client_secret).toMatch(/_secret_/);
    const forged = await request.post('/api/create-payment-intent', {
      headers: checkout.headers,
      data: { lines: checkout.lines, address: checkout.address, rateId: 'table_0000000000000000000000000' },
    });
    expect(forged.status()).toBe(409);
  });

  test('twenty simultaneous confirmations of one payment record one order', async ({ request, baseURL }) => {
    const checkout = await apiCheckout(
      request,
      baseURL ?? '',
      [{ productId: 2 }],
      newShopper('Zed', { city: 'Denver', state: 'CO', zip: '80202' }),
    );
    await payWithTestCard(request, checkout);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        request.post('/api/orders/confirm', { headers: checkout.headers, data: { paymentIntentId: checkout.paymentIntentId } }),
      ),
    );
    const ids = await Promise.all(answers.map(async (a) => ((await a.json()) as { order: { id: string } }).order.id));
    expect(new Set(ids).size).toBe(1);
    expect(answers.filter((a) => a.status() === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status() === 200)).toHaveLength(19);
  });

  test('an unpaid payment records no order', async ({ request, baseURL }) => {
    const checkout = await apiCheckout(
      request,
      baseURL ?? '',
      [{ productId: 6 }],
      newShopper('Ivy', { city: 'Boise', state: 'ID', zip: '83702' }),
    );
    const confirm = await request.post('/api/orders/confirm', {
      headers: checkout.headers,
      data: { paymentIntentId: checkout.paymentIntentId },
    });
    expect(confirm.status()).toBe(402);
  });

  test('the payment webhook needs no Origin but a valid signature: a forged event is refused and records nothing', async ({
    request,
  }) => {
    const event = JSON.stringify({ id: 'evt_forged', type: 'payment_intent.succeeded', data: { object: { id: 'pi_test_x' } } });
    const unsigned = await request.post('/api/stripe-webhook', { headers: { 'content-type': 'application/json' }, data: event });
    expect(unsigned.status()).toBe(400);
    const forged = await request.post('/api/stripe-webhook', {
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      data: event,
    });
    expect(forged.status()).toBe(400);
    // Every other state-changing route still wants our Origin.
    const other = await request.post('/api/orders/confirm', { data: { paymentIntentId: 'pi_test_x' } });
    expect(other.status()).toBe(403);
  });
});
