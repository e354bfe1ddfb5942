// The steps a shopper or an admin takes, as they take them: one `Shopper`, islands waited for as a person sees them,
// accounts (signing up through the dialog, signing in through the API), what a page shows, the cart and checkout in the
// browser, and buying through the shop's own endpoints. Specs take `test` and `expect` from fixtures.ts.
import { randomBytes } from 'node:crypto';
import { type APIRequestContext, expect, type Page } from '@playwright/test';
import { US_STATES, type UsStateCode } from '@/lib/us-states';
import { readDevMailbox } from '@/server/mail/dev-mailbox.server';
import { adminEmail, type E2EAdmin } from './admin-accounts';

/** The dev mailbox of the shop under test (playwright.config.ts starts it). */
export const MAILBOX = `http://127.0.0.1:${process.env.E2E_MAILBOX_PORT}`;
const mailbox = MAILBOX;

// ── The shopper ──────────────────────────────────────────────────────────────────────────────────────────────────────

/** A person using the shop: who they are, how they sign in, where their orders go. */
export interface Shopper {
  firstName: string;
  lastName: string;
  /** First and last name: the address form's 'Full name'. */
  name: string;
  email: string;
  password: string;
  street: string;
  city: string;
  state: UsStateCode;
  zip: string;
}

/**
 * A shopper no other test uses (a fresh e-mail address), living at the given address: by default in Savannah, Georgia.
 * A first name may hold spaces or hyphens; the e-mail's local part keeps only its letters and digits.
 */
export function newShopper(firstName = 'Maya', details: Partial<Omit<Shopper, 'firstName' | 'name'>> = {}): Shopper {
  const lastName = details.lastName ?? 'Thompson';
  return {
    firstName,
    lastName,
    name: `${firstName} ${lastName}`,
    email: `${firstName.toLowerCase().replace(/[^a-z0-9]/g, '') || 'shopper'}.${randomBytes(4).toString('hex')}@example.com`,
    password: 'lavender-fields-7',
    street: '12 Bull St',
    city: 'Savannah',
    state: 'GA',
    zip: '31401',
    ...details,
  };
}

/** The shopper's address as the checkout's endpoints take it. */
export function shippingAddress(who: Shopper) {
  return { name: who.name, email: who.email, street1: who.street, city: who.city, state: who.state, zip: who.zip, country: 'US' };
}

/** The state's name, as the address form's select shows it. */
const stateName = (code: UsStateCode) => US_STATES.find((s) => s.code === code)?.name ?? code;

// ── Islands ──────────────────────────────────────────────────────────────────────────────────────────────────────────

/** Waits until the island containing `selector` has hydrated (Astro drops the `ssr` attribute then). */
export async function hydrated(page: Page, selector: string): Promise<void> {
  const island = page.locator('astro-island', { has: page.locator(selector) }).last();
  await island.scrollIntoViewIfNeeded();
  await expect(island).not.toHaveAttribute('ssr', /.*/);
}

/**
 * Waits until every island on the page has hydrated. A `client:painted="visible"` one waits to be seen, so the test
 * scrolls to each in turn, as a shopper scrolling down would (its first element: an island is `display: contents`; one
 * that renders nothing is simply waited for), and leaves it on screen until it has hydrated. Nothing here waits on the
 * page's own frames or timers: each step is retried until the islands are there, however slow the machine.
 * What axe then checks is what a shopper uses, not the server's first paint.
 */
export async function allHydrated(page: Page): Promise<void> {
  const waiting = page.locator('astro-island[ssr]');
  const unseen = page.locator('astro-island[ssr][opts*=\'"value":"visible"\'] > :first-child');
  await expect(async () => {
    // evaluateAll, not first().evaluate: an island may hydrate between two calls, and evaluate would wait for it.
    await unseen.evaluateAll((islands) => islands[0]?.scrollIntoView({ block: 'center' }));
    await expect(waiting).toHaveCount(0, { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
}

/**
 * Holds back every script of the shop's build the page asks for from now on, as a slow network would, until the
 * returned function is called: the page is there, its islands' code is not.
 */
export function holdScripts(page: Page): Promise<() => void> {
  return holdRequests(page, '**/_astro/*.js');
}

/** Holds back every request the page makes to `url` (a glob) from now on, until the returned function is called. */
export async function holdRequests(page: Page, url: string): Promise<() => void> {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(url, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

/** Every console error and uncaught error the page reports from now on (React's hydration errors among them). */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

// ── Accounts ─────────────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Waits for the newest e-mail to `to` whose subject matches, and returns it with the link it carries. `box`: the dev
 * mailbox to read (the main server's by default; a shop of the spec's own has its own).
 */
export async function waitForMail(to: string, subject: RegExp, box = mailbox) {
  let found: { subject: string; text: string } | undefined;
  await expect
    .poll(
      async () => {
        const mails = (await readDevMailbox(box)).filter((m) => m.to.includes(to) && subject.test(m.subject));
        found = mails.at(-1);
        return Boolean(found);
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  const mail = found ?? { subject: '', text: '' };
  // The link with a token it carries (a confirmation, a reset), as a path; '' for an e-mail without one.
  const link = /https?:\/\/\S+token=[\w-]+/.exec(mail.text)?.[0];
  return { ...mail, link: link ? new URL(link).pathname + new URL(link).search : '' };
}

/** Opens the account dialog from the header. */
export async function openAccountDialog(page: Page, pane: 'Log in' | 'Sign up') {
  await hydrated(page, '.account-button');
  await page.getByRole('banner').getByRole('button', { name: 'Log in' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  if (pane === 'Sign up') await dialog.getByRole('button', { name: 'Sign up', exact: true }).click();
  return dialog;
}

/** Signs up through the dialog and follows the verification link from the dev mailbox, which signs the shopper in. */
export async function signUpAndVerify(page: Page, shopper: Shopper) {
  await page.goto('/about');
  const dialog = await openAccountDialog(page, 'Sign up');
  await dialog.getByLabel('First name').fill(shopper.firstName);
  await dialog.getByLabel('Last name').fill(shopper.lastName);
  await dialog.getByLabel('Email').fill(shopper.email);
  await dialog.getByLabel('Password', { exact: true }).fill(shopper.password);
  await dialog.getByLabel('Confirm password').fill(shopper.password);
  await dialog.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText('Account created! Please check your email to verify your account.')).toBeVisible();
  const mail = await waitForMail(shopper.email, /Confirm your Aurelia account/);
  await page.goto(mail.link);
  // The link asks for the password chosen at sign-up, then signs the shopper in.
  await hydrated(page, '.narrow-form');
  await page.getByLabel('Password').fill(shopper.password);
  await page.getByRole('button', { name: 'Confirm my account' }).click();
  await expect(page.getByRole('main').getByRole('status')).toHaveText('Your email is verified. Welcome to Aurelia!');
  await expect(page.getByTestId('online-indicator')).toHaveText(`Online: ${shopper.firstName}`);
}

/** Logs in through the dialog (opening it if needed). */
export async function logIn(page: Page, email: string, password: string) {
  const dialog = page.getByRole('dialog');
  if (!(await dialog.isVisible())) await openAccountDialog(page, 'Log in');
  await dialog.getByLabel('Email').fill(email);
  await dialog.getByLabel('Password').fill(password);
  await dialog.getByRole('button', { name: 'Log in', exact: true }).last().click();
}

/**
 * Creates a verified shopper through the API (sign-up, the confirmation link from the dev mailbox `box`) and signs
 * `request` in. Pass `page.request` to sign the page's browser context in too: it shares the cookies.
 */
export async function signedInShopper(
  request: APIRequestContext,
  baseURL: string,
  firstName = 'Maya',
  email?: string,
  box = mailbox,
): Promise<Shopper> {
  const shopper = { ...newShopper(firstName), ...(email ? { email } : {}) };
  const headers = { origin: baseURL };
  const signup = await request.post('/api/auth/signup', { headers, data: { ...shopper, confirmPassword: shopper.password } });
  if (!signup.ok()) throw new Error(`sign-up failed: ${signup.status()} ${await signup.text()}`);
  const mail = await waitForMail(shopper.email, /Confirm your Aurelia account/, box);
  // What the confirmation page sends: the link's token and the password chosen at sign-up. It signs the shopper in.
  const token = new URLSearchParams(mail.link.split('?')[1]).get('token');
  const confirm = await request.post('/api/auth/verify', { headers, data: { token, password: shopper.password } });
  if (!confirm.ok()) throw new Error(`confirmation failed: ${confirm.status()} ${await confirm.text()}`);
  return shopper;
}

/** Signs up, verifies and signs in the admin `name` (pass `page.request` to sign the page in too). */
export function signedInAdmin(request: APIRequestContext, baseURL: string, name: E2EAdmin, box = mailbox) {
  return signedInShopper(request, baseURL, 'Admin', adminEmail(name), box);
}

/** Opens `path` and waits until the page knows the shopper is signed in (the header's online indicator). */
export async function openSignedIn(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.getByTestId('online-indicator')).toContainText('Online:');
}

/**
 * The shopper signs out in another tab while this page still shows them signed in. They are active here first, and
 * the page's activity report (sent at most once a minute, which would notice the sign-out and forget the shopper,
 * taking away the buttons under test) is let through before the sign-out, so what happens next is up to the island
 * under test. wishlist.spec.ts also signs out from a real second tab, report and all.
 */
export async function signOutInAnotherTab(page: Page, origin: string): Promise<void> {
  const report = page
    .waitForResponse((r) => r.url().endsWith('/api/auth/session') && r.request().method() === 'POST', { timeout: 2000 })
    .catch(() => null); // none due: one was sent (and answered) within the last minute
  await page.keyboard.press('Shift');
  await report;
  await page.request.post('/api/auth/logout', { headers: { origin } });
}

// ── What a page shows ────────────────────────────────────────────────────────────────────────────────────────────────

/** A toast (or any text) shown exactly so. */
export function message(page: Page, text: string) {
  return page.getByText(text, { exact: true });
}

/** The home grid's card of a product, found by its name. */
export function card(page: Page, name: string) {
  return page.locator('.product-card', { has: page.locator('.card-name', { hasText: name }) });
}

/** Makes the next matching API call fail with a 500, as a server or database outage would. */
export async function failOnce(page: Page, url: string, method: string): Promise<void> {
  await page.route(
    url,
    (route) =>
      route.request().method() === method
        ? route.fulfill({ status: 500, json: { error: { code: 'unavailable', message: 'Service unavailable' } } })
        : route.fallback(),
    { times: 1 },
  );
}

/** A product page's reviews section, once its island has hydrated and answered from GET /api/reviews. */
export async function openReviews(page: Page, productId: number) {
  const answered = page.waitForResponse((r) => r.url().includes(`/api/reviews?productId=${productId}`) && r.ok());
  await page.goto(`/product/${productId}`);
  await hydrated(page, '.review-form-place');
  await answered;
  return page.locator('#reviews');
}

// ── Cart and checkout, in the browser ────────────────────────────────────────────────────────────────────────────────

interface Choice {
  quantity?: number;
  /** The colour's name on the swatch, e.g. 'Powder Blue'. */
  color?: string;
  size?: string;
}

/** Adds a product from its page, as a shopper would. */
export async function addFromProductPage(page: Page, id: number, { quantity = 1, color, size }: Choice = {}) {
  await page.goto(`/product/${id}`);
  await hydrated(page, '.purchase');
  await hydrated(page, '.cart-badge');
  const before = Number(await page.getByTestId('cart-count').textContent());
  if (color) await page.getByRole('radio', { name: color, exact: true }).check();
  if (size) await page.getByRole('radio', { name: size, exact: true }).check();
  await page.getByLabel('Quantity').selectOption(String(quantity));
  await page.getByRole('button', { name: 'Add to Cart' }).click();
  await expect(page.getByTestId('cart-count')).not.toHaveText(String(before));
}

export const cartButton = (page: Page) => page.getByRole('banner').getByRole('button', { name: /^Cart, / });

/** Opens the cart drawer from the header, with the pointer, and returns it. */
export async function openCart(page: Page) {
  await hydrated(page, '.cart-badge');
  await cartButton(page).click();
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  await expect(drawer).toBeVisible();
  return drawer;
}

/** From the cart drawer: Checkout, then the address stage filled in with `who`'s address and continued. */
export async function checkoutTo(page: Page, who: Shopper) {
  const drawer = await openCart(page);
  await drawer.getByRole('button', { name: 'Checkout' }).click();
  const checkout = page.getByRole('dialog', { name: 'Checkout' });
  const form = checkout.getByRole('form', { name: 'Shipping address' });
  await expect(form).toBeVisible();
  const cont = form.getByRole('button', { name: 'Continue' });
  await expect(cont).toBeDisabled();
  await form.getByLabel('Full name').fill(who.name);
  await form.getByLabel('Email').fill(who.email);
  await form.getByLabel('Street address').fill(who.street);
  await form.getByLabel('City').fill(who.city);
  await form.getByLabel('State').selectOption({ label: stateName(who.state) });
  await expect(cont).toBeDisabled();
  await form.getByLabel('ZIP code').fill(who.zip);
  await cont.click();
  await expect(checkout.getByRole('heading', { name: 'Shipping and payment' })).toBeVisible();
  return checkout;
}

// ── Buying through the shop's own endpoints ──────────────────────────────────────────────────────────────────────────
// As the checkout drawer does: rates quoted, a payment opened for the first rate, paid with a TEST MODE card, then
// confirmed. For tests that need real orders rather than the drawer itself.

export interface Line {
  productId: number;
  quantity?: number;
  selectedColor?: string | null;
  selectedSize?: string | null;
}

/** Where `buy` ships by default: one fixed customer, so a test can find the e-mails an order sends. */
export const ADA = newShopper('Ada', {
  lastName: 'Lovelace',
  email: 'ada@example.com',
  street: '5 Elm St',
  city: 'Austin',
  state: 'TX',
  zip: '78701',
});

/** A checkout opened through the API: the rates quoted, then a payment for the first rate (`amount` is ignored). */
export async function apiCheckout(request: APIRequestContext, origin: string, lines: Line[], who: Shopper) {
  const headers = { origin };
  const address = shippingAddress(who);
  const wire = lines.map((l) => ({
    productId: l.productId,
    quantity: l.quantity ?? 1,
    selectedColor: l.selectedColor ?? null,
    selectedSize: l.selectedSize ?? null,
  }));
  const quoted = await request.post('/api/shippo-rates', { headers, data: { toAddress: address, lines: wire } });
  expect(quoted.status()).toBe(200);
  const { rates } = (await quoted.json()) as { rates: { object_id: string; amount_cents: number }[] };
  const rate = rates[0];
  if (!rate) throw new Error('no rate');
  const intent = await request.post('/api/create-payment-intent', {
    headers,
    data: { lines: wire, address, rateId: rate.object_id, amount: 1 },
  });
  expect(intent.status()).toBe(200);
  const body = (await intent.json()) as {
    client_secret: string;
    paymentIntentId: string;
    amountCents: number;
    processor: { kind: 'test' } | { kind: 'stripe'; publishableKey: string };
  };
  return { headers, lines: wire, address, rate, ...body };
}

/** Pays a checkout with a TEST MODE card that succeeds. */
export async function payWithTestCard(request: APIRequestContext, checkout: Awaited<ReturnType<typeof apiCheckout>>) {
  const paid = await request.post('/api/test-payments/confirm', {
    headers: checkout.headers,
    data: { clientSecret: checkout.client_secret, number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' },
  });
  expect(paid.status()).toBe(200);
}

/** Buys `lines` for whoever `request` is signed in as (or a guest), shipped to `who`: the order's id and total. */
export async function buy(request: APIRequestContext, origin: string, lines: Line[], who: Shopper = ADA) {
  const checkout = await apiCheckout(request, origin, lines, who);
  await payWithTestCard(request, checkout);
  const confirmed = await request.post('/api/orders/confirm', {
    headers: checkout.headers,
    data: { paymentIntentId: checkout.paymentIntentId },
  });
  expect(confirmed.status()).toBe(201);
  const { order } = (await confirmed.json()) as { order: { id: string } };
  return { id: order.id, totalCents: checkout.amountCents };
}

/**
 * Presses Publish on the catalogue page and waits until that publish is live and the editor is told so. The publish is
 * followed by its id (from the answer to the press), not by the panel's words: after a first publish the panel already
 * says "Published" before the second has started. Making the release takes a second or two alone; beside the whole
 * suite on two cores it has taken over 15 s, so 45 s are allowed (the time a publish takes is bench:publish's to measure).
 */
export async function publish(page: Page) {
  await page.goto('/admin/catalogue');
  await hydrated(page, '.editor-publish');
  const [pressed] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/admin/catalogue/publish') && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Publish', exact: true }).click(),
  ]);
  expect(pressed.status()).toBe(202);
  const { publish: asked } = (await pressed.json()) as { publish: { id: number } };
  await expect
    .poll(
      async () => {
        const now = (await (await page.request.get('/api/admin/catalogue/publish')).json()) as { live: { id: number } | null };
        return now.live?.id;
      },
      { timeout: 45_000 },
    )
    .toBe(asked.id);
  await expect(page.locator('.editor-publish [role="status"]')).toHaveText('Published: shoppers see the catalogue as saved.', {
    timeout: 10_000,
  });
}
