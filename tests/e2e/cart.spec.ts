import type { APIRequestContext, Browser, Page } from '@playwright/test';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { addFromProductPage, cartButton, hydrated, logIn, openCart } from './journeys';

/** What the drawer lists: name, variant and quantity of each line, in order. */
async function drawerLines(page: Page) {
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  const lines = drawer.getByTestId('cart-line');
  const result: string[] = [];
  for (const line of await lines.all()) {
    const name = await line.locator('.cart-line-name').textContent();
    const variant = (await line.locator('.cart-line-variant').count())
      ? await line.locator('.cart-line-variant').textContent()
      : '';
    const quantity = await line.getByTestId('line-quantity').textContent();
    result.push(`${quantity} × ${name}${variant ? ` (${variant})` : ''}`);
  }
  return result;
}

/** The shopper's saved cart on the server, as `quantity × cartId`. */
async function savedCart(request: APIRequestContext) {
  const res = await request.get('/api/cart');
  expect(res.status()).toBe(200);
  const { lines } = (await res.json()) as { lines: { cartId: string; quantity: number }[] };
  return lines.map((l) => `${l.quantity} × ${l.cartId}`);
}

/** A second device: a browser context of its own, signed in as `shopper` through the API. */
async function otherDevice(browser: Browser, baseURL: string, shopper: { email: string; password: string }) {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  const login = await page.request.post('/api/auth/login', {
    headers: { origin: baseURL },
    data: { email: shopper.email, password: shopper.password },
  });
  expect(login.ok()).toBe(true);
  return { context, page };
}

test.describe('cart', () => {
  test('a guest’s cart survives a reload, appears in a new tab, and open tabs stay in step', async ({ page, context }) => {
    await addFromProductPage(page, 8, { quantity: 2 });
    await expect(page.getByTestId('cart-count')).toHaveText('2');

    await page.reload();
    await hydrated(page, '.cart-badge');
    await expect(page.getByTestId('cart-count')).toHaveText('2');

    const tab = await context.newPage();
    await tab.goto('/about');
    await hydrated(tab, '.cart-badge');
    await expect(tab.getByTestId('cart-count')).toHaveText('2');

    // A change in one tab reaches the other without a reload.
    await addFromProductPage(tab, 3, { color: 'Grey', size: 'S', quantity: 1 });
    await expect(tab.getByTestId('cart-count')).toHaveText('3');
    await expect(page.getByTestId('cart-count')).toHaveText('3');
    await openCart(page);
    expect(await drawerLines(page)).toEqual(['2 × Turmeric Face Soap', '1 × Clinical Scrubs (Grey, S)']);
  });

  test('the drawer lists lines with pictures, variants and the catalogue’s prices; − / + change them, 0 removes', async ({
    page,
  }) => {
    await addFromProductPage(page, 3, { color: 'Powder Blue', size: 'L', quantity: 2 });
    await addFromProductPage(page, 8, { quantity: 1 });
    await expect(page.getByTestId('cart-count')).toHaveText('3');

    const drawer = await openCart(page);
    // Focus moves into the dialog; the page behind is inert.
    await expect(drawer.getByRole('button', { name: 'Close cart' })).toBeFocused();
    expect(await drawerLines(page)).toEqual(['2 × Clinical Scrubs (Powder Blue, L)', '1 × Turmeric Face Soap']);
    const scrubs = drawer.getByTestId('cart-line').first();
    await expect(scrubs.locator('img')).toHaveAttribute('src', /clinical-scrubs-powder-blue/);
    await expect(scrubs.getByText('$45.00 each')).toBeVisible();
    await expect(scrubs.locator('.cart-line-total')).toHaveText('$90.00');
    await expect(drawer.getByTestId('cart-subtotal')).toHaveText('$100.00');
    // Shipping estimated by weight (2 × 1.2 lb + 0.25 lb: up to 3 lb, $15), tax 8.9% of the subtotal.
    await expect(drawer.getByTestId('cart-shipping')).toHaveText('$15.00');
    await expect(drawer.getByTestId('cart-tax')).toHaveText('$8.90');
    await expect(drawer.getByTestId('cart-total')).toHaveText('$123.90');
    await expect(drawer.getByRole('link', { name: 'Clinical Scrubs' })).toHaveAttribute('href', '/product/3');
    await expect(drawer.getByRole('button', { name: 'Checkout' })).toBeEnabled();

    await drawer.getByRole('button', { name: 'Increase quantity of Turmeric Face Soap' }).click();
    expect(await drawerLines(page)).toEqual(['2 × Clinical Scrubs (Powder Blue, L)', '2 × Turmeric Face Soap']);
    await expect(drawer.getByTestId('cart-subtotal')).toHaveText('$110.00');
    await expect(page.getByTestId('cart-count')).toHaveText('4');

    // Five is the most the product page offers, and the most a line holds.
    const more = drawer.getByRole('button', { name: 'Increase quantity of Clinical Scrubs (Powder Blue, L)' });
    for (let i = 0; i < 3; i++) await more.click();
    await expect(more).toHaveAttribute('aria-disabled', 'true');
    await expect(more).toBeFocused();
    await page.keyboard.press('Enter'); // refused, and focus stays put
    expect(await drawerLines(page)).toEqual(['5 × Clinical Scrubs (Powder Blue, L)', '2 × Turmeric Face Soap']);
    await expect(drawer.getByTestId('cart-subtotal')).toHaveText('$245.00');
    await expect(drawer.getByTestId('cart-shipping')).toHaveText('$35.00'); // 6.5 lb: up to 10 lb

    // Decreasing to 0 removes the line (product spec); focus stays in the drawer.
    const fewer = drawer.getByRole('button', { name: 'Decrease quantity of Turmeric Face Soap' });
    await fewer.click();
    await fewer.click();
    expect(await drawerLines(page)).toEqual(['5 × Clinical Scrubs (Powder Blue, L)']);
    await expect(drawer.getByRole('heading', { name: 'Your cart' })).toBeFocused();
    await expect(drawer.getByTestId('cart-subtotal')).toHaveText('$225.00');

    await drawer.getByRole('button', { name: 'Remove Clinical Scrubs (Powder Blue, L)' }).click();
    await expect(drawer.getByText('Your cart is empty.')).toBeVisible();
    await expect(page.getByTestId('cart-count')).toHaveText('0');
    // The empty cart stays empty after a reload.
    await page.reload();
    await hydrated(page, '.cart-badge');
    await expect(page.getByTestId('cart-count')).toHaveText('0');
  });

  test('a line taken out says so and can be put back; + at the most says why it stops', async ({ page }) => {
    await addFromProductPage(page, 8, { quantity: 5 });
    await addFromProductPage(page, 7);
    const drawer = await openCart(page);
    // At 5 the + says why it does nothing (aria-disabled: pressed by keyboard, as a pointer's click is refused).
    await drawer.getByRole('button', { name: 'Increase quantity of Turmeric Face Soap' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('.toast', { hasText: 'You can have up to 5 of each item in your cart.' })).toBeVisible();
    expect(await drawerLines(page)).toEqual(['5 × Turmeric Face Soap', '1 × Kojic Acid Soap']);

    // '−' at 1 takes the line out: the shopper is told, on top of the drawer, and Undo puts it back in its place.
    await drawer.getByRole('button', { name: 'Decrease quantity of Kojic Acid Soap' }).click();
    expect(await drawerLines(page)).toEqual(['5 × Turmeric Face Soap']);
    const told = page.locator('.toast', { hasText: 'Kojic Acid Soap was taken out of your cart.' });
    await expect(told).toBeVisible();
    await told.getByRole('button', { name: 'Undo' }).click();
    expect(await drawerLines(page)).toEqual(['5 × Turmeric Face Soap', '1 × Kojic Acid Soap']);
    await expect(told).toHaveCount(0);
    await expect(page.getByTestId('cart-count')).toHaveText('6');
  });

  test('on a phone the drawer’s list never scrolls sideways, before or after − / +, and shows every picture whole', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await addFromProductPage(page, 3, { color: 'Powder Blue', size: 'XXL', quantity: 2 });
    await addFromProductPage(page, 8, { quantity: 1 });
    const drawer = await openCart(page);
    const list = drawer.getByRole('list').filter({ has: page.getByTestId('cart-line') });
    /** How far the list scrolls sideways, and which pictures it cuts off. */
    const sideways = () =>
      list.evaluate((ul) => {
        const box = ul.getBoundingClientRect();
        const cut = [...ul.querySelectorAll('img')].filter((img) => {
          const r = img.getBoundingClientRect();
          return r.left < box.left || r.right > box.right;
        });
        return { overflow: ul.scrollWidth - ul.clientWidth, scrolled: ul.scrollLeft, cutPictures: cut.length };
      });
    const none = { overflow: 0, scrolled: 0, cutPictures: 0 };
    expect(await sideways()).toEqual(none);

    await drawer.getByRole('button', { name: 'Increase quantity of Turmeric Face Soap' }).click();
    await expect(drawer.getByTestId('line-quantity').last()).toHaveText('2');
    expect(await sideways()).toEqual(none);
    await drawer.getByRole('button', { name: 'Decrease quantity of Clinical Scrubs (Powder Blue, XXL)' }).click();
    await expect(drawer.getByTestId('line-quantity').first()).toHaveText('1');
    expect(await sideways()).toEqual(none);
    // Tabbing on to Remove does not slide the list either.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect(drawer.getByRole('button', { name: /^Remove Clinical Scrubs/ })).toBeFocused();
    expect(await sideways()).toEqual(none);
  });

  test('the drawer works from the keyboard: Enter opens it, Escape closes it and gives focus back', async ({ page }) => {
    await addFromProductPage(page, 8, { quantity: 1 });
    await cartButton(page).focus();
    await page.keyboard.press('Enter');
    const drawer = page.getByRole('dialog', { name: 'Your cart' });
    await expect(drawer).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(drawer.getByRole('link', { name: 'Turmeric Face Soap' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await expect(cartButton(page)).toBeFocused();

    // Opened again, the Close button and a click on the backdrop close it too.
    await page.keyboard.press('Enter');
    await drawer.getByRole('button', { name: 'Close cart' }).click();
    await expect(drawer).toBeHidden();
    await expect(cartButton(page)).toBeFocused();
    // With the pointer, while the 'added' toast is still showing: toasts sit below the header, never over its button.
    await expect(page.getByRole('status').filter({ hasText: 'Turmeric Face Soap' })).toBeVisible();
    await cartButton(page).click();
    await expect(drawer).toBeVisible();
    await page.mouse.click(10, 400);
    await expect(drawer).toBeHidden();
    await expect(page.getByTestId('cart-count')).toHaveText('1');
  });

  test('a press on the cart button right after Escape opens the drawer again', async ({ page }) => {
    await addFromProductPage(page, 8, { quantity: 1 });
    await cartButton(page).click();
    const drawer = page.getByRole('dialog', { name: 'Your cart' });
    await expect(drawer).toBeVisible();
    // Escape closes the dialog at once but tells the page (its close event) a moment later; a press of the button in
    // between must still open it (CI: Escape, then Enter, left the drawer shut).
    await page.evaluate(() => {
      document.querySelector<HTMLDialogElement>('dialog.cart-drawer')?.close();
      document.querySelector<HTMLButtonElement>('.cart-badge')?.click();
    });
    await expect(drawer).toBeVisible();
    // The late close event does not shut it afterwards.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    await expect(drawer).toBeVisible();
    await drawer.getByRole('button', { name: 'Close cart' }).click();
    await expect(drawer).toBeHidden();
    await expect(cartButton(page)).toBeFocused();
  });

  test('signing in merges the guest cart into the saved one (quantities added, at most 5)', async ({
    page,
    browser,
    baseURL,
    signIn,
  }) => {
    const origin = baseURL ?? '';
    // The shopper filled a cart on another device earlier.
    const earlier = await browser.newContext({ baseURL: origin });
    const laptop = await earlier.newPage();
    const shopper = await signIn(laptop.request, 'Nadia');
    await addFromProductPage(laptop, 8, { quantity: 3 });
    await addFromProductPage(laptop, 3, { color: 'Blue', size: 'M', quantity: 1 });
    await expect.poll(() => savedCart(laptop.request)).toEqual(['3 × 8', '1 × 3-blue-M']);

    // Now, as a guest on this device: 4 more soaps and an oil, then log in through the dialog.
    await addFromProductPage(page, 8, { quantity: 4 });
    await addFromProductPage(page, 6, { quantity: 1 });
    await expect(page.getByTestId('cart-count')).toHaveText('5');
    await logIn(page, shopper.email, shopper.password);
    await expect(page.getByText('Welcome back!')).toBeVisible();

    // 3 + 4 soaps are capped at 5; the scrubs come from the saved cart; the oil from the guest cart.
    await expect(page.getByTestId('cart-count')).toHaveText('7');
    await openCart(page);
    expect(await drawerLines(page)).toEqual(['5 × Turmeric Face Soap', '1 × Clinical Scrubs (Blue, M)', '1 × Turmeric Body Oil']);
    await expect.poll(() => savedCart(page.request)).toEqual(['5 × 8', '1 × 3-blue-M', '1 × 6']);

    // The other device picks the merged cart up on its next page.
    await laptop.reload();
    await hydrated(laptop, '.cart-badge');
    await expect(laptop.getByTestId('cart-count')).toHaveText('7');
    await earlier.close();
  });

  test('a signed-in cart is saved 1 s after the last change, restored on another device, and emptied here at sign-out', async ({
    page,
    browser,
    baseURL,
    signIn,
  }) => {
    // Two devices, a sign-up, five page loads: 21 s at load 8 on 2 cores, 31 s at load 11. Time for all of it.
    test.slow();
    const origin = baseURL ?? '';
    const shopper = await signIn(page.request, 'Omar');
    const saves: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT' && new URL(r.url()).pathname === '/api/cart') saves.push(r.postData() ?? '');
    });
    await page.clock.install();
    await page.goto('/product/8');
    await hydrated(page, '.purchase');
    await hydrated(page, '.cart-badge');
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Omar');
    await expect.poll(() => savedCart(page.request)).toEqual([]);

    // Time stands still from here on, so the pause is measured exactly.
    await page.clock.pauseAt(Date.now() + 60_000);
    const add = page.getByRole('button', { name: 'Add to Cart' });
    await add.click();
    await page.clock.runFor(500);
    await add.click(); // a second change restarts the pause
    await page.clock.runFor(999);
    await page.evaluate(() => 0); // let any request the page made reach the test
    expect(saves).toEqual([]);
    await page.clock.runFor(1);
    await expect.poll(() => saves.length).toBe(1);
    expect(JSON.parse(saves[0] ?? '{}')).toEqual({
      lines: [{ productId: 8, quantity: 2, selectedColor: null, selectedSize: null }],
    });
    await expect.poll(() => savedCart(page.request)).toEqual(['2 × 8']);
    await page.clock.resume();

    // Another device signed in as the same shopper finds the cart.
    const phone = await otherDevice(browser, origin, shopper);
    await phone.page.goto('/');
    await hydrated(phone.page, '.cart-badge');
    await expect(phone.page.getByTestId('cart-count')).toHaveText('2');
    await openCart(phone.page);
    expect(await drawerLines(phone.page)).toEqual(['2 × Turmeric Face Soap']);

    // A change there comes back here on the next page.
    await phone.page.getByRole('button', { name: 'Increase quantity of Turmeric Face Soap' }).click();
    await expect.poll(() => savedCart(phone.page.request)).toEqual(['3 × 8']);
    await page.goto('/about');
    await hydrated(page, '.cart-badge');
    await expect(page.getByTestId('cart-count')).toHaveText('3');

    // Sign-out clears the cart in this browser, local storage included; the saved cart stays for the next sign-in.
    await hydrated(page, '.account-button');
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByTestId('online-indicator')).toHaveText('Guest');
    await expect(page.getByTestId('cart-count')).toHaveText('0');
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('aurelia:cart-')))).toEqual([]);
    await page.reload();
    await hydrated(page, '.cart-badge');
    await expect(page.getByTestId('cart-count')).toHaveText('0');
    expect(await savedCart(phone.page.request)).toEqual(['3 × 8']);
    await phone.context.close();
  });

  test('a shopper’s cart left in the browser disappears once the session has ended elsewhere', async ({
    page,
    baseURL,
    signIn,
  }) => {
    const origin = baseURL ?? '';
    await signIn(page.request, 'Lena');
    await addFromProductPage(page, 9, { quantity: 2 });
    await expect.poll(() => savedCart(page.request)).toEqual(['2 × 9']);
    // The session ends without this page taking part (another tab logged out, or the server's idle sign-out).
    await page.request.post('/api/auth/logout', { headers: { origin }, data: {} });
    await page.goto('/about');
    await hydrated(page, '.cart-badge');
    await expect(page.getByTestId('online-indicator')).toHaveText('Guest');
    await expect(page.getByTestId('cart-count')).toHaveText('0');
  });

  test('the cart API: guests get 401, a refused line gets 400 naming it and changes nothing, other sites get 403', async ({
    request,
    baseURL,
    signIn,
  }) => {
    const headers = { origin: baseURL ?? '' };
    const logInFirst = { error: { code: 'unauthenticated', message: 'Please log in to save your cart' } };
    expect((await request.get('/api/cart')).status()).toBe(401);
    expect(await (await request.get('/api/cart')).json()).toEqual(logInFirst);
    const guestPut = await request.put('/api/cart', { headers, data: { lines: [] } });
    expect(guestPut.status()).toBe(401);
    expect(await guestPut.json()).toEqual(logInFirst);

    await signIn(request, 'Ines');
    const good = await request.put('/api/cart', {
      headers,
      data: {
        lines: [
          { productId: 3, quantity: 2, selectedColor: 'black', selectedSize: 'XL' },
          { productId: 8, quantity: 1 },
        ],
      },
    });
    expect(good.status()).toBe(200);
    expect(await good.json()).toEqual({
      lines: [
        { cartId: '3-black-XL', productId: 3, quantity: 2, selectedColor: 'black', selectedSize: 'XL' },
        { cartId: '8', productId: 8, quantity: 1, selectedColor: null, selectedSize: null },
      ],
    });

    const refused: [unknown, string][] = [
      [
        {
          lines: [
            { productId: 8, quantity: 1 },
            { productId: 42, quantity: 1 },
          ],
        },
        'Line 2: product 42 is not in the catalogue.',
      ],
      [{ lines: [{ productId: 3, quantity: 1, selectedColor: 'blue' }] }, 'Line 1: Clinical Scrubs: please choose a size.'],
      [
        { lines: [{ productId: 3, quantity: 1, selectedColor: 'teal', selectedSize: 'M' }] },
        'Line 1: Clinical Scrubs does not come in the colour “teal”.',
      ],
      [
        { lines: [{ productId: 8, quantity: 6 }] },
        'Line 1: Turmeric Face Soap: the quantity must be a whole number from 1 to 5.',
      ],
      [
        { lines: [{ productId: 8, quantity: 0.5 }] },
        'Line 1: Turmeric Face Soap: the quantity must be a whole number from 1 to 5.',
      ],
      [{ lines: [{ productId: 8, quantity: '2' }] }, 'Line 1: quantity must be a number.'],
      [{ cart: [] }, 'Send the cart as {"lines": [{"productId", "quantity", "selectedColor", "selectedSize"}]}.'],
    ];
    for (const [data, message] of refused) {
      const res = await request.put('/api/cart', { headers, data });
      expect(res.status(), message).toBe(400);
      expect((await res.json()).error.message).toBe(message);
    }
    expect(await savedCart(request)).toEqual(['2 × 3-black-XL', '1 × 8']);

    const crossSite = await request.put('/api/cart', { headers: { origin: 'https://evil.example' }, data: { lines: [] } });
    expect(crossSite.status()).toBe(403);
    const notJson = await request.put('/api/cart', { headers: { ...headers, 'content-type': 'text/plain' }, data: 'lines' });
    expect(notJson.status()).toBe(415);
    expect(await savedCart(request)).toEqual(['2 × 3-black-XL', '1 × 8']);
  });

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    test(`the cart drawer has no WCAG 2.2 AA violations, with lines and empty, on ${viewport.name}`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await addFromProductPage(page, 3, { color: 'Black', size: 'XS', quantity: 5 });
      const drawer = await openCart(page);
      expect(await axeViolations(page, 'dialog')).toEqual([]);
      await drawer.getByRole('button', { name: /^Remove / }).click();
      await expect(drawer.getByText('Your cart is empty.')).toBeVisible();
      // The notice of the line taken out (with Undo) is judged too, once it has faded in: mid-animation its text is
      // still translucent, which axe measures as low contrast.
      await expect(page.locator('.toast', { hasText: 'was taken out of your cart.' })).toBeVisible();
      await page.waitForFunction(() => document.getAnimations().every((a) => a.playState === 'finished'));
      expect(await axeViolations(page, 'dialog')).toEqual([]);
    });
  }
});
