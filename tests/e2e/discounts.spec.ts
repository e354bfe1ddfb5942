import { randomBytes } from 'node:crypto';
import type { APIRequestContext, Page, TestInfo } from '@playwright/test';
import { readDevMailbox } from '@/server/mail/dev-mailbox.server';
import type { E2EAdmin } from './admin-accounts';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { addFromProductPage, checkoutTo, holdRequests, logIn, MAILBOX, newShopper, openCart, shippingAddress } from './journeys';

// The shopper's side of discount codes (decision 009), on a desktop and on a phone: the drawer's "Discount code"
// field, the code's line and the discounted totals in the drawer and at payment, paying with a TEST MODE card, the line
// on the order page, in My Orders and in the e-mail; a wrong code's message, Remove, a code that stops applying, a
// code kept through the sign-in, and a code refused as the payment opens. Each test's codes are its own (the owner
// creates them through the admin's endpoint), so tests running side by side never share one. The automatic offer is
// left off: it is one setting for the whole shop, and other specs check totals without it.

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex').toUpperCase()}`;

interface CodeRules {
  kind: 'percent' | 'amount' | 'free_shipping';
  percent?: number;
  amountCents?: number;
  minSubtotalCents?: number;
  usageLimit?: number;
  perCustomerLimit?: number;
}

/** The owner creates codes through the admin's endpoint, signed in as the admin `name` in a context of their own. */
async function createCodes(
  signInAdmin: (name: E2EAdmin, request?: APIRequestContext) => Promise<unknown>,
  request: APIRequestContext,
  origin: string,
  name: E2EAdmin,
  codes: Record<string, CodeRules>,
) {
  await signInAdmin(name, request);
  for (const [code, rules] of Object.entries(codes)) {
    const res = await request.post('/api/admin/discounts', {
      headers: { origin },
      data: {
        code,
        kind: rules.kind,
        percent: rules.percent ?? null,
        amountCents: rules.amountCents ?? null,
        minSubtotalCents: rules.minSubtotalCents ?? null,
        startsAt: null,
        endsAt: null,
        usageLimit: rules.usageLimit ?? null,
        perCustomerLimit: rules.perCustomerLimit ?? null,
        productIds: [],
        categories: [],
      },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
}

/** Pays with the TEST MODE card that succeeds. */
async function pay(page: Page) {
  const checkout = page.getByRole('dialog', { name: 'Checkout' });
  await checkout.getByLabel('Card number').fill('4242 4242 4242 4242');
  await checkout.getByLabel(/Expir/).fill('12/34');
  await checkout.getByLabel(/CVC/).fill('123');
  await checkout.getByRole('button', { name: /^Pay / }).click();
}

/** Opens the field and applies `code` from the cart drawer. */
async function apply(page: Page, code: string) {
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  const field = drawer.getByRole('textbox', { name: 'Discount code' });
  if (!(await field.isVisible())) await drawer.getByText('Add a discount code').click();
  await field.fill(code);
  await drawer.getByRole('button', { name: 'Apply' }).click();
}

/** The drawer's totals as the shopper reads them, in order. */
async function drawerTotals(page: Page) {
  const summary = page.getByRole('dialog', { name: 'Your cart' }).locator('.cart-summary');
  return (await summary.locator('p.cart-row, p.cart-subtotal').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

/** What axe finds wrong in the open dialog (WCAG 2.2 AA and best practice), once its toasts have faded in. */
async function dialogViolations(page: Page) {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState === 'finished'));
  return axeViolations(page, 'dialog');
}

/** A screenshot kept in the test's output directory, to look at what was built. */
async function shot(page: Page, info: TestInfo, name: string) {
  await page.screenshot({ path: info.outputPath(`${name.replace(/\W+/g, '-')}.png`) });
}

/** The newest e-mail to `to` whose subject starts so. */
async function mailTo(to: string, subject: string) {
  let found: { subject: string; text: string } | undefined;
  await expect
    .poll(async () => {
      found = (await readDevMailbox(MAILBOX)).filter((m) => m.to.includes(to) && m.subject.startsWith(subject)).at(-1);
      return Boolean(found);
    })
    .toBe(true);
  return found ?? { subject: '', text: '' };
}

for (const viewport of VIEWPORTS) {
  test.describe(`discount codes on a ${viewport.name}`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test('a guest tries a wrong code, applies a real one, removes it and applies it again; the line and the discounted total are in the drawer and at payment; paid, the line is on the order page, both e-mails and the admin’s order page', async ({
      page,
      browser,
      playwright,
      baseURL,
      signInAdmin,
    }, info) => {
      test.slow();
      const origin = baseURL ?? '';
      const save10 = unique('SAVE10');
      const owner = await playwright.request.newContext({ baseURL: origin });
      await createCodes(signInAdmin, owner, origin, viewport.name === 'phone' ? 'codes-mobile' : 'codes-desk', {
        [save10]: { kind: 'percent', percent: 10 },
      });

      // Two Kojic Acid Soaps, $15 each: $30, 0.6 lb (shipping estimated at $10), tax 8.9 % of $30 = $2.67.
      await addFromProductPage(page, 7, { quantity: 2 });
      const drawer = await openCart(page);
      const before = ['Subtotal $30.00', 'Shipping (estimate) $10.00', 'Tax (8.9%) $2.67', 'Estimated total $42.67'];
      await expect.poll(() => drawerTotals(page)).toEqual(before);

      // A code that does not exist: the server's words, and nothing else changes.
      const wrong = unique('NOPE');
      await apply(page, wrong.toLowerCase());
      await expect(drawer.getByRole('alert')).toHaveText(`There is no discount code ${wrong}. Please check the spelling.`);
      await expect(drawer.getByRole('textbox', { name: 'Discount code' })).toHaveAccessibleDescription(
        /^There is no discount code/,
      );
      await expect(drawer.getByText(/^One code per order/)).toBeVisible();
      expect(await drawerTotals(page)).toEqual(before);
      expect(await dialogViolations(page)).toEqual([]);
      await shot(page, info, `wrong code (${viewport.name})`);

      // The real one (typed in lower case): 10 % off, $3.00; tax on $27.00 is $2.40.
      await apply(page, save10.toLowerCase());
      const after = [
        'Subtotal $30.00',
        `Code ${save10} \u2212$3.00`,
        'Shipping (estimate) $10.00',
        'Tax (8.9%) $2.40',
        'Estimated total $39.40',
      ];
      await expect.poll(() => drawerTotals(page)).toEqual(after);
      await expect(drawer.getByText(`Code ${save10} applied`)).toBeVisible();
      await expect(drawer.getByRole('alert')).toHaveCount(0);
      // The rule of how a code meets the automatic offer is printed by the field (the offer is off: not under the code).
      await expect(drawer.getByText(/^One code per order/)).toHaveCount(0);
      expect(await dialogViolations(page)).toEqual([]);
      await shot(page, info, `code applied (${viewport.name})`);

      // Removed, the totals are the cart's own again; applied again, the line comes back.
      await drawer.getByRole('button', { name: `Remove code ${save10}` }).click();
      await expect.poll(() => drawerTotals(page)).toEqual(before);
      await apply(page, save10);
      await expect.poll(() => drawerTotals(page)).toEqual(after);

      // The payment stage prices it again on the server: $10 Standard Shipping to Georgia, the same total.
      await page.keyboard.press('Escape');
      const who = newShopper('Ada', { lastName: 'Byron' });
      const checkout = await checkoutTo(page, who);
      await expect(checkout.getByTestId('checkout-subtotal')).toHaveText('$30.00');
      await expect(checkout.getByTestId('checkout-discount-code')).toHaveText(`Code ${save10}\u2212$3.00`);
      await expect(checkout.getByTestId('checkout-shipping')).toHaveText('$10.00');
      await expect(checkout.getByTestId('checkout-tax')).toHaveText('$2.40');
      await expect(checkout.getByTestId('checkout-total')).toHaveText('$39.40');
      await expect(checkout.getByRole('button', { name: 'Pay $39.40' })).toBeVisible();
      await shot(page, info, `payment stage (${viewport.name})`);
      await pay(page);
      await expect(page.getByText(/^Order [0-9a-f]{8} placed!/)).toBeVisible();
      await page.waitForEvent('load');
      await expect(page.getByTestId('cart-count')).toHaveText('0');

      // The e-mail has the line; its link opens the order page, which has it too.
      const mail = await mailTo(who.email, 'Your Aurelia order');
      expect(mail.text).toContain(
        `Subtotal: $30.00\nCode ${save10}: \u2212$3.00\nShipping (Standard Shipping): $10.00\nTax: $2.40\nTotal: $39.40`,
      );
      const link = /https?:\/\/\S+\/order\?token=[\w%-]+/.exec(mail.text)?.[0] ?? '';
      await page.goto(new URL(link).pathname + new URL(link).search);
      const totals = page.locator('.order-page-totals');
      await expect(totals.locator('dt[data-discount="code"]')).toHaveText(`Code ${save10}`);
      await expect(totals.locator('dd[data-discount="code"]')).toHaveText('\u2212$3.00');
      await expect(totals).toContainText('$39.40');
      await shot(page, info, `order page (${viewport.name})`);

      // The shop's notice has the line too, and links to the admin's page of the order, which shows it.
      const number = /ORD-[0-9A-F]{6}/.exec(mail.subject)?.[0] ?? '';
      const notice = await mailTo('orders@aurelia-care.com', `New order ${number}:`);
      expect(notice.text).toContain(`Subtotal: $30.00\nCode ${save10}: \u2212$3.00\n`);
      const adminPath = new URL(/https?:\/\/\S+\/admin\/orders\/[0-9a-f-]{36}/.exec(notice.text)?.[0] ?? '').pathname;
      const admin = await browser.newContext({
        baseURL: origin,
        viewport: { width: viewport.width, height: viewport.height },
        storageState: await owner.storageState(),
      });
      await owner.dispose();
      const adminPage = await admin.newPage();
      await adminPage.goto(adminPath);
      const adminTotals = adminPage.locator('.admin-totals');
      await expect(adminTotals.locator('dt[data-discount="code"]')).toHaveText(`Code ${save10}`);
      await expect(adminTotals.locator('dd[data-discount="code"]')).toHaveText('\u2212$3.00');
      await expect(adminTotals).toContainText('$39.40');
      await adminTotals.scrollIntoViewIfNeeded();
      await shot(adminPage, info, `admin order page (${viewport.name})`);
      await admin.close();

      // The code went with the order: the next cart starts without one.
      await addFromProductPage(page, 8);
      await openCart(page);
      await expect(page.getByText('Add a discount code')).toBeVisible();
    });

    test('a code applied as a guest survives the sign-in and the cart’s merge; paid, My Orders shows its line', async ({
      page,
      playwright,
      baseURL,
      signIn,
      signInAdmin,
    }, info) => {
      test.slow();
      const origin = baseURL ?? '';
      const sixOff = unique('SIXOFF');
      const owner = await playwright.request.newContext({ baseURL: origin });
      await createCodes(signInAdmin, owner, origin, viewport.name === 'phone' ? 'codes-merge-mobile' : 'codes-merge-desk', {
        [sixOff]: { kind: 'amount', amountCents: 600 },
      });
      await owner.dispose();
      const account = await playwright.request.newContext({ baseURL: origin });
      const shopper = await signIn(account, 'Lin');
      await account.dispose();

      // Three Turmeric Face Soaps, $10 each, $6 off: $24.00 of goods, tax $2.14, shipping estimated at $10.
      await addFromProductPage(page, 8, { quantity: 3 });
      await openCart(page);
      await apply(page, sixOff);
      const discounted = [
        'Subtotal $30.00',
        `Code ${sixOff} \u2212$6.00`,
        'Shipping (estimate) $10.00',
        'Tax (8.9%) $2.14',
        'Estimated total $36.14',
      ];
      await expect.poll(() => drawerTotals(page)).toEqual(discounted);
      await page.keyboard.press('Escape');

      // Signing in checks the password with a deliberately slow hash: one run of this spec at a load average of 10 on
      // two cores failed here after the usual 10 s, so the header is given longer to say the shopper is in.
      await logIn(page, shopper.email, shopper.password);
      await expect(page.getByTestId('online-indicator')).toHaveText('Online: Lin', { timeout: 30_000 });
      // A new page, signed in: the cart (merged into the account's) and the code are both still there.
      await page.reload();
      await expect(page.getByTestId('online-indicator')).toHaveText('Online: Lin');
      const drawer = await openCart(page);
      await expect(drawer.getByText(`Code ${sixOff} applied`)).toBeVisible();
      await expect.poll(() => drawerTotals(page)).toEqual(discounted);
      await shot(page, info, `after sign-in (${viewport.name})`);
      await page.keyboard.press('Escape');

      const checkout = await checkoutTo(page, { ...newShopper('Lin'), email: shopper.email });
      await expect(checkout.getByTestId('checkout-total')).toHaveText('$36.14');
      await pay(page);
      await expect(page.getByText(/^Order [0-9a-f]{8} placed!/)).toBeVisible();
      await page.waitForEvent('load');

      await page.goto('/orders');
      const card = page.locator('.order-card').first();
      await expect(card).toContainText('$36.14');
      await expect(card.locator('[data-discount="code"]')).toHaveText(` · Code ${sixOff} \u2212$6.00`);
      await shot(page, info, `My Orders (${viewport.name})`);
      await card.getByRole('link', { name: /^ORD-/ }).click();
      await expect(page.locator('.order-page-totals dd[data-discount="code"]')).toHaveText('\u2212$6.00');
    });

    test('a code below its minimum says so and changes nothing; one that stops applying as the cart shrinks comes off and says why', async ({
      page,
      playwright,
      baseURL,
      signInAdmin,
    }) => {
      const origin = baseURL ?? '';
      const big = unique('BIG20');
      const owner = await playwright.request.newContext({ baseURL: origin });
      await createCodes(signInAdmin, owner, origin, viewport.name === 'phone' ? 'codes-min-mobile' : 'codes-min-desk', {
        [big]: { kind: 'percent', percent: 20, minSubtotalCents: 2000 },
      });
      await owner.dispose();

      // One soap, $10: below the code's $20 minimum.
      await addFromProductPage(page, 8);
      const drawer = await openCart(page);
      const one = await drawerTotals(page);
      await apply(page, big);
      await expect(drawer.getByRole('alert')).toHaveText(
        `Code ${big} is for orders of $20.00 or more (before discounts). Please add to your cart to use it.`,
      );
      expect(await drawerTotals(page)).toEqual(one);

      // A second soap reaches it: 20 % of $20 is $4.00.
      await drawer.getByRole('button', { name: 'Increase quantity of Turmeric Face Soap' }).click();
      await apply(page, big);
      await expect.poll(() => drawerTotals(page)).toContain(`Code ${big} \u2212$4.00`);
      // Back to one: while the server is asked, the tax and total wait for its answer rather than show an old one...
      const answer = await holdRequests(page, '**/api/discount');
      await drawer.getByRole('button', { name: 'Decrease quantity of Turmeric Face Soap' }).click();
      await expect.poll(() => drawerTotals(page)).toContain('Discount Checking…');
      expect(await drawerTotals(page)).toContain('Estimated total …');
      answer();
      // ...which says why the code no longer applies, and it comes off.
      await expect(drawer.getByRole('alert')).toHaveText(
        `Code ${big} is for orders of $20.00 or more (before discounts). Please add to your cart to use it.`,
      );
      await expect.poll(() => drawerTotals(page)).toEqual(one);
      await expect(drawer.getByRole('button', { name: `Remove code ${big}` })).toHaveCount(0);
    });
  });
}

test('a code used up while the shopper checks out is refused as the payment opens, before anything is charged; they go on without it', async ({
  page,
  playwright,
  baseURL,
  signInAdmin,
}, info) => {
  test.slow();
  const origin = baseURL ?? '';
  const once = unique('ONCE');
  const owner = await playwright.request.newContext({ baseURL: origin });
  await createCodes(signInAdmin, owner, origin, 'codes-used-up', { [once]: { kind: 'percent', percent: 10, usageLimit: 1 } });
  await owner.dispose();

  await addFromProductPage(page, 7, { quantity: 2 });
  await openCart(page);
  await apply(page, once);
  await expect.poll(() => drawerTotals(page)).toContain(`Code ${once} \u2212$3.00`);

  // Meanwhile another shopper opens a payment with the code: its one use is held for them.
  const other = await playwright.request.newContext({ baseURL: origin });
  const them = newShopper('Other');
  const lines = [{ productId: 7, quantity: 1, selectedColor: null, selectedSize: null }];
  const rates = await other.post('/api/shippo-rates', { headers: { origin }, data: { toAddress: shippingAddress(them), lines } });
  const { rates: quoted } = (await rates.json()) as { rates: { object_id: string }[] };
  const held = await other.post('/api/create-payment-intent', {
    headers: { origin },
    data: { lines, address: shippingAddress(them), rateId: quoted[0]?.object_id, discountCode: once },
  });
  expect(held.status()).toBe(200);
  await other.dispose();

  await page.keyboard.press('Escape');
  const checkout = await checkoutTo(page, newShopper('Ada'));
  const refused = checkout.getByRole('alert');
  await expect(refused).toContainText(`Code ${once} has been used as many times as it can be.`);
  await expect(checkout.getByRole('button', { name: /^Pay / })).toHaveCount(0);
  await shot(page, info, 'refused at payment');
  await checkout.getByRole('button', { name: `Continue without code ${once}` }).click();
  await expect(checkout.getByTestId('checkout-total')).toHaveText('$42.67');
  await expect(checkout.getByTestId('checkout-discount-code')).toHaveCount(0);
  await expect(checkout.getByRole('button', { name: 'Pay $42.67' })).toBeVisible();
});

test('a one-per-customer code survives going back from the payment to change the cart: the same payment, updated, is paid with it', async ({
  page,
  playwright,
  baseURL,
  signInAdmin,
}) => {
  test.slow();
  const origin = baseURL ?? '';
  const once = unique('ONCE');
  const owner = await playwright.request.newContext({ baseURL: origin });
  await createCodes(signInAdmin, owner, origin, 'codes-back', { [once]: { kind: 'percent', percent: 20, perCustomerLimit: 1 } });
  await owner.dispose();

  // One Kojic Acid Soap ($15) with the code: 20 % off, $3.00.
  await addFromProductPage(page, 7);
  const drawer = await openCart(page);
  await apply(page, once);
  await expect(drawer.getByText(`Code ${once} applied`)).toBeVisible();
  await page.keyboard.press('Escape');
  const who = newShopper('Grace', { lastName: 'Hopper' });
  const checkout = await checkoutTo(page, who);
  await expect(checkout.getByTestId('checkout-discount-code')).toHaveText(`Code ${once}\u2212$3.00`);

  // Back to the cart for a second soap: the code is the shopper's own open payment's, not a use against them.
  await page.getByRole('button', { name: 'Back to the address' }).click();
  await page.getByRole('button', { name: 'Back to the cart' }).click();
  await drawer.getByRole('button', { name: /Increase quantity of Kojic Acid Soap/ }).click();
  await expect.poll(() => drawerTotals(page)).toContain(`Code ${once} \u2212$6.00`);
  await expect(drawer.getByRole('alert')).toHaveCount(0);

  // On to the payment again: the payment is updated and paid with the code.
  await page.keyboard.press('Escape');
  const again = await checkoutTo(page, who);
  await expect(again.getByTestId('checkout-discount-code')).toHaveText(`Code ${once}\u2212$6.00`);
  await pay(page);
  await expect(page.getByText(/^Order [0-9a-f]{8} placed!/)).toBeVisible();
  const mail = await mailTo(who.email, 'Your Aurelia order');
  expect(mail.text).toContain(`Subtotal: $30.00\nCode ${once}: \u2212$6.00\n`);
});
