import type { Page } from '@playwright/test';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { card, consoleErrors, failOnce, holdRequests, hydrated, message, openSignedIn, signOutInAnotherTab } from './journeys';

/** axe over the page as it is now: the wishlist's own states are checked here, the guest prompt in accessibility.spec.ts. */
async function expectNoViolations(page: Page) {
  expect(await axeViolations(page)).toEqual([]);
}

const items = (page: Page) => page.locator('.wishlist-item');

test.describe('wishlist', () => {
  test('guests see the Private Collection prompt, whose buttons open the account dialog', async ({ page }) => {
    await page.goto('/wishlist');
    await hydrated(page, '.private-prompt');
    await expect(page.getByRole('heading', { name: 'Private Collection' })).toBeVisible();

    await page.getByRole('button', { name: 'Enter Collection' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('button', { name: 'Log in', exact: true }).last()).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();

    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect(dialog.getByRole('button', { name: 'Create account', exact: true })).toBeVisible();
  });

  test('a shopper this browser saw signed in never sees the sign-in prompt while their list loads; a stale guess gives way', async ({
    page,
    baseURL,
    signIn,
  }) => {
    await signIn();
    const saved = await page.request.post('/api/favorites', { headers: { origin: baseURL ?? '' }, data: { productId: 2 } });
    expect(saved.status()).toBeLessThan(300);
    await openSignedIn(page, '/about');
    // The session's answer held back: until it comes, the page has only this browser's guess to go by.
    const answer = await holdRequests(page, '**/api/auth/session');
    await page.goto('/wishlist');
    await expect(page.getByRole('status').filter({ hasText: 'Loading…' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Private Collection' })).toBeHidden();
    answer();
    await expect(items(page)).toHaveCount(1);

    // Signed out elsewhere, the guess is stale: once the session answers, the prompt shows.
    await page.context().clearCookies({ name: 'aurelia_session' });
    await page.context().addCookies([{ name: 'aurelia_signed_in', value: '1', url: baseURL ?? '' }]);
    await page.goto('/wishlist');
    await expect(page.getByRole('heading', { name: 'Private Collection' })).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Loading…' })).toBeHidden();
  });

  test('guests are asked to sign in to save favorites, on cards and on product pages; the API refuses them', async ({
    page,
    baseURL,
  }) => {
    await page.goto('/');
    await hydrated(page, '.catalog');
    await card(page, 'Turmeric Body Oil').getByRole('button', { name: 'Add Turmeric Body Oil to Wishlist' }).click();
    await expect(message(page, 'Please create an account to save favorites')).toBeVisible();

    await page.goto('/product/2');
    await hydrated(page, '.purchase');
    await page.getByRole('button', { name: 'Add to Wishlist' }).click();
    await expect(message(page, 'Please login to save favorites')).toBeVisible();

    const headers = { origin: baseURL ?? '' };
    const answers = [
      [await page.request.get('/api/favorites'), 'Please login to manage your wishlist'],
      [await page.request.post('/api/favorites', { headers, data: { productId: 2 } }), 'Please login to save favorites'],
      [await page.request.delete('/api/favorites/2', { headers }), 'Please login to manage your wishlist'],
      [await page.request.delete('/api/favorites', { headers }), 'Please login to manage your wishlist'],
    ] as const;
    for (const [res, text] of answers) {
      expect(res.status()).toBe(401);
      expect(await res.json()).toEqual({ error: { code: 'unauthenticated', message: text } });
    }
  });

  test('save from a product page and from a card; the wishlist lists them newest first', async ({ page, signIn }) => {
    await signIn();
    // Nothing saved yet: a friendly empty state that leads back to the collection.
    await openSignedIn(page, '/wishlist');
    await expect(page.getByRole('heading', { name: 'Nothing saved yet' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Browse the collection' })).toHaveAttribute('href', '/#collections');
    await expectNoViolations(page);

    // From a product page: the button turns into Remove from Wishlist.
    await openSignedIn(page, '/product/2');
    await hydrated(page, '.purchase');
    await page.getByRole('button', { name: 'Add to Wishlist' }).click();
    await expect(page.getByRole('button', { name: 'Remove from Wishlist' })).toBeVisible();
    await expect(message(page, 'Added to your wishlist')).toBeVisible();

    // From a home card: the heart turns into Remove.
    await openSignedIn(page, '/');
    await hydrated(page, '.catalog');
    await card(page, 'Turmeric Body Oil').getByRole('button', { name: 'Add Turmeric Body Oil to Wishlist' }).click();
    await expect(page.getByRole('button', { name: 'Remove Turmeric Body Oil from Wishlist' })).toBeVisible();
    // The card knows what the product page saved.
    await expect(page.getByRole('button', { name: 'Remove Turmeric Body Butter from Wishlist' })).toBeVisible();

    // The scrubs need a colour and a size, so the wishlist sends the shopper to choose them.
    await openSignedIn(page, '/product/3');
    await hydrated(page, '.purchase');
    await page.getByRole('button', { name: 'Add to Wishlist' }).click();
    await expect(page.getByRole('button', { name: 'Remove from Wishlist' })).toBeVisible();

    await openSignedIn(page, '/wishlist');
    await expect(items(page).locator('.wishlist-name')).toHaveText([
      'Clinical Scrubs',
      'Turmeric Body Oil',
      'Turmeric Body Butter',
    ]);
    await expect(items(page).first().getByRole('link', { name: 'Choose options for Clinical Scrubs' })).toHaveAttribute(
      'href',
      '/product/3',
    );
    await expect(items(page).nth(2)).toContainText('$25.00');
    await expectNoViolations(page);
  });

  test('the wishlist adds to cart, removes one, and clears all after asking', async ({ page, baseURL, signIn }) => {
    const origin = baseURL ?? '';
    await signIn();
    // Saved oldest first: the butter, the oil, the scrubs.
    for (const productId of [2, 6, 3]) {
      expect((await page.request.post('/api/favorites', { headers: { origin }, data: { productId } })).status()).toBe(201);
    }
    await openSignedIn(page, '/wishlist');
    await expect(items(page).locator('.wishlist-name')).toHaveText([
      'Clinical Scrubs',
      'Turmeric Body Oil',
      'Turmeric Body Butter',
    ]);

    // Add to Cart puts one in the cart.
    await hydrated(page, '.cart-badge');
    await expect(page.getByTestId('cart-count')).toHaveText('0');
    await page.getByRole('button', { name: 'Add to Cart for Turmeric Body Butter' }).click();
    await expect(page.getByTestId('cart-count')).toHaveText('1');
    await expect(message(page, 'Added 1 × Turmeric Body Butter to your cart')).toBeVisible();

    // Remove one.
    await page.getByRole('button', { name: 'Remove Turmeric Body Oil from Wishlist' }).click();
    await expect(items(page).locator('.wishlist-name')).toHaveText(['Clinical Scrubs', 'Turmeric Body Butter']);
    await expect(page.locator('.wishlist-summary')).toBeFocused();

    // Clear all asks first; keeping them changes nothing.
    await page.getByRole('button', { name: 'Clear all' }).click();
    await expect(page.getByRole('group', { name: 'Remove all 2 from your wishlist?' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Keep them' })).toBeFocused();
    await expectNoViolations(page);
    await page.getByRole('button', { name: 'Keep them' }).click();
    await expect(items(page)).toHaveCount(2);
    await expect(page.getByRole('button', { name: 'Clear all' })).toBeFocused();

    await page.getByRole('button', { name: 'Clear all' }).click();
    await page.getByRole('button', { name: 'Yes, clear all' }).click();
    await expect(page.getByRole('heading', { name: 'Nothing saved yet' })).toBeVisible();
    await openSignedIn(page, '/wishlist');
    await expect(page.getByRole('heading', { name: 'Nothing saved yet' })).toBeVisible();
  });

  test('failures and a favorite saved meanwhile in another tab get the spec’s messages', async ({ page, baseURL, signIn }) => {
    await signIn();
    const headers = { origin: baseURL ?? '' };

    // Saved in another tab after this page loaded its favorites: the database's duplicate error says so.
    await openSignedIn(page, '/product/8');
    await hydrated(page, '.purchase');
    await expect(page.getByRole('button', { name: 'Add to Wishlist' })).toBeVisible();
    expect((await page.request.post('/api/favorites', { headers, data: { productId: 8 } })).status()).toBe(201);
    await page.getByRole('button', { name: 'Add to Wishlist' }).click();
    await expect(message(page, 'Item already in favorites')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Remove from Wishlist' })).toBeVisible();

    await failOnce(page, '**/api/favorites/8', 'DELETE');
    await page.getByRole('button', { name: 'Remove from Wishlist' }).click();
    await expect(message(page, 'Failed to remove from favorites')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Remove from Wishlist' })).toBeVisible();

    await openSignedIn(page, '/');
    await hydrated(page, '.catalog');
    await failOnce(page, '**/api/favorites', 'POST');
    await card(page, 'Vitamin C Body Cream').getByRole('button', { name: 'Add Vitamin C Body Cream to Wishlist' }).click();
    await expect(message(page, 'Failed to add to favorites')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add Vitamin C Body Cream to Wishlist' })).toBeVisible();

    await failOnce(page, '**/api/favorites', 'GET');
    await openSignedIn(page, '/wishlist');
    await expect(message(page, 'Failed to load favorites')).toBeVisible();
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect(items(page).locator('.wishlist-name')).toHaveText(['Turmeric Face Soap']);

    await failOnce(page, '**/api/favorites/8', 'DELETE');
    await page.getByRole('button', { name: 'Remove Turmeric Face Soap from Wishlist' }).click();
    await expect(message(page, 'Failed to remove from favorites')).toHaveCount(1);
    await expect(items(page)).toHaveCount(1);

    await failOnce(page, '**/api/favorites', 'DELETE');
    await page.getByRole('button', { name: 'Clear all' }).click();
    await page.getByRole('button', { name: 'Yes, clear all' }).click();
    await expect(message(page, 'Failed to clear favorites')).toBeVisible();
    await expect(items(page)).toHaveCount(1);
  });

  test('signed out in another tab, Add to Cart on the wishlist says “Please login to add items to cart” and stays', async ({
    page,
    context,
    baseURL,
    signIn,
  }) => {
    const origin = baseURL ?? '';
    await signIn();
    expect((await page.request.post('/api/favorites', { headers: { origin }, data: { productId: 2 } })).status()).toBe(201);
    await openSignedIn(page, '/wishlist');
    const add = page.getByRole('button', { name: 'Add to Cart for Turmeric Body Butter' });
    await expect(add).toBeVisible();

    // A second tab of the same browser signs out from the header. This tab has not been touched since it loaded, as
    // when the shopper comes back to it: its first click also reports activity, which finds the session gone.
    const other = await context.newPage();
    await openSignedIn(other, '/about');
    await hydrated(other, '.account-button');
    await other.getByRole('button', { name: 'Log out' }).click();
    await expect(other.getByTestId('online-indicator')).toHaveText('Guest');

    // The press reports activity, and the answer (session gone) comes back before the button is released: the page
    // still lets the click reach the button (CI: the wishlist had gone back to its sign-in prompt under the pointer).
    const report = page.waitForResponse((r) => r.url().endsWith('/api/auth/session'));
    await add.hover();
    await page.mouse.down();
    await report;
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    await page.mouse.up();
    await expect(message(page, 'Please login to add items to cart')).toBeVisible();
    await expect(page).toHaveURL(/\/wishlist$/);
    await expect(page.getByRole('heading', { name: 'Private Collection' })).toBeVisible();
    await expect(page.getByTestId('cart-count')).toHaveText('0');
  });

  test('a signed-in shopper’s wishlist hydrates without a mismatch, whether the session or the island is ready first', async ({
    page,
    signIn,
  }) => {
    await signIn();
    const errors = consoleErrors(page);
    for (let load = 1; load <= 8; load++) {
      // Every other load holds the wishlist's code back until the page knows the shopper: the order that made the
      // first client render differ from the build's HTML (React error #418) in about one load of four.
      const island = /\/_astro\/Wishlist[^/]*\.js$/;
      if (load % 2 === 0) {
        const sessionKnown = page.waitForResponse((r) => r.url().endsWith('/api/auth/session'));
        await page.route(island, async (route) => {
          await sessionKnown;
          await route.continue();
        });
      }
      await page.goto('/wishlist');
      await expect(page.getByRole('heading', { name: 'Nothing saved yet' })).toBeVisible();
      await expect(page.getByTestId('online-indicator')).toContainText('Online:');
      await page.unroute(island);
      expect(errors, `load ${load}`).toEqual([]);
    }
  });

  test('the API copies from the catalogue, answers duplicates with 409, keeps shoppers apart; ended sessions get the guest messages', async ({
    page,
    browser,
    baseURL,
    signIn,
  }) => {
    const origin = baseURL ?? '';
    const headers = { origin };
    const ann = await signIn(page.request, 'Ann');

    // Only the product id counts: a forged name or price is ignored.
    const saved = await page.request.post('/api/favorites', {
      headers,
      data: { productId: 1, name: 'Free cream', priceCents: 1, image: 'https://evil.example/x.png' },
    });
    expect(saved.status()).toBe(201);
    expect((await saved.json()).favorite).toMatchObject({
      productId: 1,
      name: 'Vitamin C Body Cream',
      priceCents: 3500,
      category: 'Body Cream',
      href: '/product/1',
      cart: 'add',
    });
    const duplicate = await page.request.post('/api/favorites', { headers, data: { productId: 1 } });
    expect(duplicate.status()).toBe(409);
    expect(await duplicate.json()).toEqual({ error: { code: 'duplicate', message: 'Item already in favorites' } });
    expect((await page.request.post('/api/favorites', { headers, data: { productId: 999 } })).status()).toBe(404);
    for (const data of [{ productId: '1' }, { productId: 1.5 }, { productId: 0 }, {}, []]) {
      const res = await page.request.post('/api/favorites', { headers, data });
      expect(res.status(), JSON.stringify(data)).toBe(400);
    }
    const notJson = await page.request.post('/api/favorites', {
      headers: { ...headers, 'content-type': 'text/plain' },
      data: 'productId=1',
    });
    expect(notJson.status()).toBe(415);
    expect((await page.request.delete('/api/favorites/abc', { headers })).status()).toBe(400);

    // Another shopper neither sees nor removes Ann's favorite, and clearing theirs leaves hers.
    const other = await browser.newContext({ baseURL: origin });
    await signIn(other.request, 'Ben');
    expect(await (await other.request.get('/api/favorites')).json()).toEqual({ favorites: [] });
    expect(await (await other.request.delete('/api/favorites/1', { headers })).json()).toEqual({ removed: false });
    await other.request.post('/api/favorites', { headers, data: { productId: 4 } });
    expect(await (await other.request.delete('/api/favorites', { headers })).json()).toEqual({ removed: 1 });
    await other.close();
    const annsList = (await (await page.request.get('/api/favorites')).json()).favorites;
    expect(annsList.map((f: { productId: number }) => f.productId)).toEqual([1]);

    // Ann signs out in another tab while this one shows her wishlist: every action here says to log in, and the
    // sign-in prompt returns.
    const logIn = () => page.request.post('/api/auth/login', { headers, data: { email: ann.email, password: ann.password } });
    const openThenEndSession = async () => {
      await openSignedIn(page, '/wishlist');
      await expect(items(page)).toHaveCount(1);
      await signOutInAnotherTab(page, origin);
    };

    await openThenEndSession();
    await page.getByRole('button', { name: 'Add to Cart for Vitamin C Body Cream' }).click();
    await expect(message(page, 'Please login to add items to cart')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Private Collection' })).toBeVisible();
    await expect(page.getByTestId('cart-count')).toHaveText('0');

    await logIn();
    await openThenEndSession();
    await page.getByRole('button', { name: 'Remove Vitamin C Body Cream from Wishlist' }).click();
    await expect(message(page, 'Please login to manage your wishlist')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Private Collection' })).toBeVisible();

    await logIn();
    await openThenEndSession();
    await page.getByRole('button', { name: 'Clear all' }).click();
    await page.getByRole('button', { name: 'Yes, clear all' }).click();
    await expect(message(page, 'Please login to manage your wishlist')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Private Collection' })).toBeVisible();

    // Nothing was removed by the refused requests.
    await logIn();
    expect((await (await page.request.get('/api/favorites')).json()).favorites).toHaveLength(1);
  });
});
