// Everything an end-to-end spec needs besides Playwright itself: one `test` with the shop's fixtures, one `Shopper`,
// and the steps a shopper or an admin takes, as they take them. A spec imports `test` and `expect` from here.
//
// Fixtures (each made only for the tests that ask for it):
// - `signedIn`: a new verified shopper, with the page signed in as them (through the API: the dialog itself is
//   covered by auth.spec.ts);
// - `signIn(request?, firstName?)`: the same for another browser context (or `page.request` later in a test);
// - `signInAdmin(name, request?)`: an admin of tests/e2e/admin-accounts.ts, signed in.
//
// `testOn(start, timeout)` is the same `test` pointed at a shop of the spec's own (startSecondShop): Stripe against a
// mock Stripe, Geoapify against a mock Geoapify, a build with test-only content.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type APIRequestContext, test as base, expect, type Page } from '@playwright/test';
import { US_STATES, type UsStateCode } from '@/lib/us-states';
import { readDevMailbox } from '@/server/mail/dev-mailbox.server';
import { SERVER_NODE_FLAGS } from '../../scripts/server-flags.mjs';
import { adminEmail, type E2EAdmin } from './admin-accounts';

export { expect };

const mailbox = `http://127.0.0.1:${process.env.E2E_MAILBOX_PORT}`;

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
export async function holdScripts(page: Page): Promise<() => void> {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/_astro/*.js', async (route) => {
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
  const link = /https?:\/\/\S+token=[\w-]+/.exec(mail.text)?.[0] ?? '';
  return { ...mail, link: new URL(link).pathname + new URL(link).search };
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

// ── The test, with the shop's fixtures ───────────────────────────────────────────────────────────────────────────────

interface ShopFixtures {
  /** A new verified shopper, with the page signed in as them. */
  signedIn: Shopper;
  /** Signs a new verified shopper in on `request` (the page's by default). */
  signIn: (request?: APIRequestContext, firstName?: string) => Promise<Shopper>;
  /** Signs the admin `name` in on `request` (the page's by default). */
  signInAdmin: (name: E2EAdmin, request?: APIRequestContext) => Promise<Shopper>;
  /** The dev mailbox of the shop under test (testOn: the spec's own shop's). */
  mailbox: string;
}

const origin = (baseURL: string | undefined) => {
  if (!baseURL) throw new Error('no baseURL: playwright.config.ts sets one');
  return baseURL;
};

export const test = base.extend<ShopFixtures>({
  mailbox,
  signIn: async ({ page, baseURL, mailbox }, use) => {
    await use((request = page.request, firstName) => signedInShopper(request, origin(baseURL), firstName, undefined, mailbox));
  },
  signedIn: async ({ signIn }, use) => {
    await use(await signIn());
  },
  signInAdmin: async ({ page, baseURL, mailbox }, use) => {
    await use((name, request = page.request) => signedInAdmin(request, origin(baseURL), name, mailbox));
  },
});

// ── A shop of the spec's own ─────────────────────────────────────────────────────────────────────────────────────────
// A second built shop (scripts/serve.mjs), for specs that need a configuration the main end-to-end server does not
// have: Stripe against a mock Stripe (stripe.spec.ts), Geoapify against a mock Geoapify (address-suggestions.spec.ts),
// a build with test-only content (out-of-stock.spec.ts). It gets an empty PGlite directory and a dev mailbox of its
// own, and only the variables it is given: nothing of the developer's own keys or DATABASE_URL leaks in.

export interface SecondShop {
  origin: string;
  /** Its dev mailbox (readDevMailbox reads it back). */
  mailbox: string;
  /** What the server has printed so far (its start-up line names every adapter). */
  output: () => string;
  stop: () => Promise<void>;
}

/** Free ports on 127.0.0.1, held open together so two calls cannot get the same one. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    servers.push(server);
    ports.push(address.port);
  }
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/**
 * Starts the built shop with `env` on top of the test defaults; resolves once /api/health answers. `root` is the
 * project whose build (dist/) it serves: this one, or a copy built with test-only content.
 */
export async function startSecondShop(name: string, env: Record<string, string>, root = '.'): Promise<SecondShop> {
  const [port, mailboxPort] = await freePorts(2);
  const dir = mkdtempSync(join(tmpdir(), `aurelia-e2e-${name}-`));
  const shopOrigin = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [...SERVER_NODE_FLAGS, join(root, 'scripts/serve.mjs')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      PGLITE_DIR: join(dir, 'pglite'),
      DEV_MAILBOX_PORT: String(mailboxPort),
      ADDRESS_LIMIT_FACTOR: '20',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };

  // Start-up takes a few seconds, and more than a minute on a busy two-core machine.
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`The ${name} server exited (${child.exitCode}):\n${output}`);
    }
    const ok = await fetch(`${shopOrigin}/api/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The ${name} server did not answer within 150 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { origin: shopOrigin, mailbox: `http://127.0.0.1:${mailboxPort}`, output: () => output, stop };
}

/**
 * The shop's `test` with every page and request going to a shop of the spec's own (its `shop` fixture): started by
 * `start` once per worker, within `timeout` ms, and stopped after the worker's last test. The main server stays as it is.
 */
export function testOn<S extends { origin: string; stop: () => Promise<void> }>(start: () => Promise<S>, timeout: number) {
  return test.extend<object, { shop: S }>({
    shop: [
      // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
      async ({}, use) => {
        const shop = await start();
        try {
          await use(shop);
        } finally {
          await shop.stop();
        }
      },
      { scope: 'worker', timeout },
    ],
    baseURL: async ({ shop }, use) => {
      await use(shop.origin);
    },
    // The spec's own shop has its own dev mailbox, when it has one.
    mailbox: async ({ shop }, use) => {
      await use((shop as { mailbox?: string }).mailbox ?? mailbox);
    },
  });
}
