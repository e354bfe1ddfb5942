import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import Stripe from 'stripe';
import { orderNumber } from '@/features/orders/orders';
import { readDevMailbox } from '@/server/mail/dev-mailbox.server';
import { type FakeStripe, startFakeStripe } from '../mocks/stripe';
import { expect } from './fixtures';
import { addFromProductPage, apiCheckout, checkoutTo, newShopper, type Shopper } from './journeys';
import { type SecondShop, startSecondShop, testOn } from './second-shop';

// The payment step with Stripe configured, end to end in Chromium, on a second server of its own: the built shop
// started with test keys and STRIPE_API_BASE pointing its Stripe adapter (the official SDK) at tests/mocks/stripe.ts.
// Stripe.js cannot be downloaded here, so the page's requests to https://js.stripe.com are answered with
// tests/mocks/stripe-js.js, a stand-in that mounts plain inputs and confirms through https://api.stripe.com, which is
// answered by the same mock. The browser still applies the shop's CSP to both origins before any route sees them.
// What this proves: our server, our page, our CSP and our form's wiring against Stripe's wire format. What it cannot
// prove: Stripe's real script, its frames, 3-D Secure, or that Stripe's live API answers as the mock does.

const SECRET_KEY = 'sk_test_aurelia_e2e';
const PUBLISHABLE_KEY = 'pk_test_aurelia_e2e';
const WEBHOOK_SECRET = 'whsec_aurelia_e2e';
const FAKE_STRIPE_JS = readFileSync(join(process.cwd(), 'tests/mocks/stripe-js.js'), 'utf8');

interface StripeShop {
  origin: string;
  mailbox: string;
  fake: FakeStripe;
}

/** The mock Stripe, then the built shop configured for it (test keys, STRIPE_API_BASE at the mock). */
async function startStripeShop(): Promise<StripeShop & { stop: () => Promise<void> }> {
  const fake = await startFakeStripe({ secretKey: SECRET_KEY, publishableKey: PUBLISHABLE_KEY });
  let shop: SecondShop;
  try {
    shop = await startSecondShop('stripe', {
      STRIPE_SECRET_KEY: SECRET_KEY,
      PUBLIC_STRIPE_PUBLISHABLE_KEY: PUBLISHABLE_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: fake.origin,
    });
  } catch (error) {
    await fake.stop();
    throw error;
  }
  const stop = async () => {
    await shop.stop();
    await fake.stop();
  };
  try {
    // The server said which adapter it runs, and where its API calls go.
    expect(shop.output()).toContain(`payments: Stripe (API at ${fake.origin}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin: shop.origin, mailbox: shop.mailbox, fake, stop };
}

const test = testOn(startStripeShop, 180_000);

/**
 * Answers Stripe's two origins, as the page reaches them once the CSP has let it: js.stripe.com with the fake
 * Stripe.js (and an empty page for its frames), api.stripe.com from the mock Stripe (or not at all without one).
 */
async function routeStripe(page: Page, fake: FakeStripe | null) {
  await page.route('https://js.stripe.com/**', (route) => {
    const { pathname } = new URL(route.request().url());
    if (/^\/[a-z0-9]+\/stripe\.js$/.test(pathname)) {
      return route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: FAKE_STRIPE_JS });
    }
    return route.fulfill({ contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>Stripe</title>' });
  });
  await page.route('https://api.stripe.com/**', async (route) => {
    if (!fake) return route.abort('connectionrefused');
    const { pathname, search } = new URL(route.request().url());
    return route.fulfill({ response: await route.fetch({ url: `${fake.origin}${pathname}${search}` }) });
  });
}

/** Every CSP violation the page reports, from the console and from securitypolicyviolation events. */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.exposeFunction('__reportCspViolation', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __reportCspViolation: (text: string) => void }).__reportCspViolation;
      void report(`securitypolicyviolation: ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  return violations;
}

/** Types a card into the (fake) Payment Element and presses Pay. */
async function payWithStripe(page: Page, number: string) {
  const checkout = page.getByRole('dialog', { name: 'Checkout' });
  const element = checkout.getByTestId('fake-payment-element');
  await element.getByLabel('Card number').fill(number);
  await element.getByLabel('Expiration date').fill('12 / 34');
  await element.getByLabel('Security code').fill('123');
  await checkout.getByRole('button', { name: /^Pay \$/ }).click();
}

/** The intent the browser confirmed last, as the mock Stripe saw the confirmation. */
function lastConfirmation(fake: FakeStripe) {
  const request = fake.requests.findLast((r) => r.method === 'POST' && r.path.endsWith('/confirm'));
  const intentId = /^\/v1\/payment_intents\/([^/]+)\/confirm$/.exec(request?.path ?? '')?.[1];
  if (!request || !intentId) throw new Error('the browser never confirmed a payment with the mock Stripe');
  return { request, intentId };
}

async function mailsTo(shop: StripeShop, address: string) {
  return (await readDevMailbox(shop.mailbox)).filter((m) => m.to.includes(address));
}

async function toPayment(page: Page, who: Shopper) {
  await addFromProductPage(page, 7);
  const checkout = await checkoutTo(page, who);
  // Stripe's Payment Element, not the TEST MODE form; Pay waits for the element's 'ready'.
  await expect(checkout.getByTestId('fake-payment-element')).toBeVisible();
  await expect(checkout.getByText('TEST MODE')).toHaveCount(0);
  await expect(checkout.getByRole('button', { name: /^Pay \$/ })).toBeEnabled();
  return checkout;
}

test.describe('payment with Stripe (a mock Stripe and a stand-in Stripe.js)', () => {
  // One Stripe-configured server for the file: its tests run in order in one worker.
  test.describe.configure({ mode: 'default' });
  // Two cores shared with other work: a checkout through the drawer can take more than the default 30 s.
  test.slow();

  test('a guest pays in the Payment Element: the order is placed, charged the total shown, mailed, with no CSP violation', async ({
    page,
    shop,
  }) => {
    const { fake } = shop;
    const violations = await watchCsp(page);
    await routeStripe(page, fake);
    const who = newShopper('Grace', { lastName: 'Hopper', city: 'Savannah', state: 'GA', zip: '31401' });
    const checkout = await toPayment(page, who);
    const shownTotal = (await checkout.getByTestId('checkout-total').textContent()) ?? '';

    // Stripe.js was given our publishable key and the client secret of the intent the server opened at the mock.
    const calls = await page.evaluate(() => (window as unknown as { __fakeStripeJs: { calls: unknown[] } }).__fakeStripeJs.calls);
    expect(calls).toContainEqual(expect.objectContaining({ method: 'Stripe', publishableKey: PUBLISHABLE_KEY }));
    const created = fake.requests.findLast((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
    expect(created?.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(created?.body).toMatchObject({ currency: 'usd', automatic_payment_methods: { allow_redirects: 'never' } });
    // Stripe's controller frame loaded from js.stripe.com: frame-src lets it.
    await expect.poll(() => page.frames().some((f) => f.url().startsWith('https://js.stripe.com/'))).toBe(true);

    // The page reloads 2 s after the order, with an empty cart.
    const reloaded = page.waitForEvent('load');
    const confirmed = page.waitForResponse((r) => r.url().endsWith('/api/orders/confirm'));
    await payWithStripe(page, '4242 4242 4242 4242');
    const { order } = (await (await confirmed).json()) as { order: { id: string } };
    const orderPrefix = order.id.slice(0, 8);
    await expect(page.getByText(`Order ${orderPrefix} placed! Thank you.`)).toBeVisible();

    // The card went to api.stripe.com with the publishable key and the intent's client secret, never to our server.
    const { request: confirmation, intentId } = lastConfirmation(fake);
    const intent = fake.intent(intentId);
    expect(confirmation.body).toMatchObject({
      key: PUBLISHABLE_KEY,
      client_secret: intent?.client_secret,
      payment_method_data: { type: 'card', card: { number: '4242424242424242' } },
    });
    // The amount charged is the total the page showed, and the server asked Stripe (with its secret key) before
    // recording the order.
    expect(intent?.status).toBe('succeeded');
    expect(`$${((intent?.amount ?? 0) / 100).toFixed(2)}`).toBe(shownTotal);
    expect(
      fake.requests.some(
        (r) =>
          r.method === 'GET' &&
          r.path === `/v1/payment_intents/${intentId}` &&
          r.headers.authorization === `Bearer ${SECRET_KEY}`,
      ),
    ).toBe(true);

    await expect
      .poll(async () => (await mailsTo(shop, who.email)).find((m) => m.subject.includes(orderNumber(order.id)))?.text ?? '')
      .toContain(`Total: ${shownTotal}`);
    await reloaded;
    await expect(page.getByTestId('cart-count')).toHaveText('0');
    expect(violations).toEqual([]);
  });

  test('a declined card says so and records no order; another card then pays', async ({ page, shop }) => {
    const { fake } = shop;
    const violations = await watchCsp(page);
    await routeStripe(page, fake);
    const checkout = await toPayment(
      page,
      newShopper('Ada', { lastName: 'Lovelace', city: 'San Jose', state: 'CA', zip: '95112' }),
    );

    await payWithStripe(page, '4000 0000 0000 0002');
    await expect(checkout.getByText('Payment failed: Your card was declined.')).toBeVisible();
    const { intentId } = lastConfirmation(fake);
    expect(fake.intent(intentId)).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { code: 'card_declined', message: 'Your card was declined.' },
    });
    // No order: asking the server to record one for this payment is refused (an existing order would be returned).
    const confirm = await page.request.post('/api/orders/confirm', {
      headers: { origin: shop.origin },
      data: { paymentIntentId: intentId },
    });
    expect(confirm.status()).toBe(402);

    // The same payment, the same Payment Element: another card goes through.
    await payWithStripe(page, '4242 4242 4242 4242');
    await expect(page.getByText(/^Order [0-9a-f]{8} placed! Thank you\.$/)).toBeVisible();
    expect(lastConfirmation(fake).intentId).toBe(intentId);
    expect(violations).toEqual([]);
  });

  test('when Stripe.js cannot be loaded the shopper is told so, and Try again loads it', async ({ page, shop }) => {
    await routeStripe(page, shop.fake);
    // Registered last, so asked first: js.stripe.com refuses connections until `reachable`, then the fake answers.
    let reachable = false;
    await page.route('https://js.stripe.com/**', (route) => (reachable ? route.fallback() : route.abort('connectionrefused')));
    await addFromProductPage(page, 7);
    const checkout = await checkoutTo(
      page,
      newShopper('Tim', { lastName: 'Berners-Lee', city: 'Savannah', state: 'GA', zip: '31401' }),
    );
    await expect(checkout.getByRole('alert').filter({ hasText: 'Payment processing failed. Please try again.' })).toBeVisible();
    reachable = true;
    await checkout.getByRole('button', { name: 'Try again' }).click();
    await expect(checkout.getByTestId('fake-payment-element')).toBeVisible();
    await expect(checkout.getByRole('button', { name: /^Pay \$/ })).toBeEnabled();
  });

  test('the header CSP allows Stripe only on the server configured for it, and the browser enforces it', async ({
    page,
    request,
  }) => {
    const stripePolicy = (await request.get('/')).headers()['content-security-policy'] ?? '';
    expect(stripePolicy).toMatch(/script-src [^;]*https:\/\/js\.stripe\.com/);
    expect(stripePolicy).toMatch(/frame-src [^;]*https:\/\/js\.stripe\.com/);
    expect(stripePolicy).toMatch(/connect-src [^;]*https:\/\/api\.stripe\.com/);

    // The main end-to-end server runs without Stripe: the same routes answer, yet the browser refuses both origins.
    const main = test.info().project.use.baseURL ?? '';
    expect(main).not.toBe('');
    expect((await request.get(`${main}/`)).headers()['content-security-policy']).not.toContain('stripe.com');
    const violations = await watchCsp(page);
    await routeStripe(page, null);
    await page.goto(`${main}/about`);
    const outcome = await page.evaluate(async () => {
      const script = await new Promise<string>((resolve) => {
        const el = document.createElement('script');
        el.src = 'https://js.stripe.com/endive/stripe.js';
        el.onload = () => resolve('loaded');
        el.onerror = () => resolve('blocked');
        document.head.append(el);
      });
      const api = await fetch('https://api.stripe.com/v1/payment_intents', { method: 'POST' }).then(
        () => 'answered',
        () => 'blocked',
      );
      return { script, api };
    });
    expect(outcome).toEqual({ script: 'blocked', api: 'blocked' });
    await expect.poll(() => violations.some((v) => /script-src/.test(v) && /js\.stripe\.com/.test(v))).toBe(true);
    await expect.poll(() => violations.some((v) => /connect-src/.test(v) && /api\.stripe\.com/.test(v))).toBe(true);
  });

  test('a signed payment_intent.succeeded webhook records the order when the browser never confirms it', async ({
    request,
    shop,
  }) => {
    const { fake } = shop;
    const who = newShopper('Hedy', { city: 'Vienna', state: 'VA', zip: '22180' });
    const checkout = await apiCheckout(request, shop.origin, [{ productId: 6 }], who);
    expect(checkout.processor).toEqual({ kind: 'stripe', publishableKey: PUBLISHABLE_KEY });
    // Paid in Stripe's frame; the tab closed before the page asked our server to record the order.
    fake.succeed(checkout.paymentIntentId);
    const payload = fake.event('payment_intent.succeeded', checkout.paymentIntentId);
    const post = (signature: string) =>
      request.post('/api/stripe-webhook', {
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        data: payload,
      });

    const forged = await post(Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' }));
    expect(forged.status()).toBe(400);
    const signed = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const first = await post(signed);
    expect(first.status()).toBe(200);
    expect(await first.json()).toEqual({ received: true });
    // Stripe retries and duplicates events: the same one again changes nothing.
    expect(await (await post(signed)).json()).toEqual({ received: true, duplicate: true });

    // The order exists already: the browser's confirmation, arriving late, finds it (200) instead of creating it (201).
    const late = await request.post('/api/orders/confirm', {
      headers: checkout.headers,
      data: { paymentIntentId: checkout.paymentIntentId },
    });
    expect(late.status()).toBe(200);
    await expect.poll(async () => (await mailsTo(shop, who.email)).length).toBe(1);
  });
});
