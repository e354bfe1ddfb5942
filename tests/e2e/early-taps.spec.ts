import type { Page } from '@playwright/test';
import { orderNumber } from '@/features/orders/orders';
import { expect, test } from './fixtures';
import { buy, cartButton, hydrated, message } from './journeys';

// A shopper on a slow network taps a button the page already shows, before the code behind it has arrived. The tap
// must not be lost: the page holds it and the island acts on it, once, as soon as it is live.

/** Every island's code arrives 2 s late, as on a slow phone network. */
async function slowIslands(page: Page) {
  await page.route('**/_astro/*.js', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await route.continue();
  });
}

/** Every CSP violation the page reports: the inline script that holds the taps must be allowed by hash. */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
  });
  return violations;
}

/** The island around `selector`, which must still be waiting for its code when the test taps. */
function island(page: Page, selector: string) {
  return page.locator('astro-island', { has: page.locator(selector) }).last();
}

/** What the guest's cart holds in local storage, as `quantity × cartId`. */
async function storedCart(page: Page) {
  return page.evaluate(() =>
    (JSON.parse(localStorage.getItem('aurelia:cart') ?? '[]') as { cartId: string; quantity: number }[]).map(
      (l) => `${l.quantity} × ${l.cartId}`,
    ),
  );
}

test.describe('a tap before the page’s code has loaded', () => {
  test('Add to Cart, tapped twice at once on a phone, adds the product once with its toast', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const csp = await watchCsp(page);
    await slowIslands(page);
    await page.goto('/product/8');
    await expect(island(page, '.purchase')).toHaveAttribute('ssr', '');
    const add = page.getByRole('button', { name: 'Add to Cart' });
    await add.click();
    await add.click();
    // The button says it is working on it while the code loads.
    await expect(add).toHaveAttribute('aria-busy', 'true');

    await expect(message(page, 'Added 1 × Turmeric Face Soap to your cart')).toBeVisible();
    await expect(page.getByTestId('cart-count')).toHaveText('1');
    await expect(add).not.toHaveAttribute('aria-busy', /.*/);
    expect(await storedCart(page)).toEqual(['1 × 8']);
    // Nothing more arrives later: one toast, one item.
    await hydrated(page, '.toaster');
    await expect(message(page, 'Added 1 × Turmeric Face Soap to your cart')).toHaveCount(1);
    expect(await storedCart(page)).toEqual(['1 × 8']);

    // From now on a tap is an ordinary tap.
    await add.click();
    await expect(page.getByTestId('cart-count')).toHaveText('2');
    expect(csp).toEqual([]);
  });

  test('the header’s cart button opens the drawer on a phone', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await slowIslands(page);
    await page.goto('/about');
    await expect(island(page, '.cart-badge')).toHaveAttribute('ssr', '');
    await cartButton(page).click();
    const drawer = page.getByRole('dialog', { name: 'Your cart' });
    await expect(drawer).toBeVisible();
    await expect(drawer.getByText('Your cart is empty.')).toBeVisible();
  });

  test('Like asks a guest to log in', async ({ page }) => {
    await slowIslands(page);
    await page.goto('/product/6');
    await expect(island(page, '.like-button')).toHaveAttribute('ssr', '');
    await page.getByRole('button', { name: /Like this product/ }).click();
    await expect(message(page, 'Login to like products')).toBeVisible();
    await expect(page.getByTestId('like-count')).toHaveText('36');
  });

  test('a signed-in shopper’s Like and Add to Wishlist count, once, for them', async ({ page, signIn }) => {
    await signIn();
    await slowIslands(page);
    // Vitamin C Trio Set: no other test likes it.
    await page.goto('/product/4');
    const count = page.getByTestId('like-count');
    const before = Number(await count.textContent());
    await expect(island(page, '.like-button')).toHaveAttribute('ssr', '');
    await page.getByRole('button', { name: /Like this product/ }).click();
    await page.getByRole('button', { name: 'Add to Wishlist' }).click();

    await expect(count).toHaveText(String(before + 1));
    await expect(page.getByRole('button', { name: /Like this product/ })).toHaveAttribute('aria-pressed', 'true');
    await expect(message(page, 'Added to your wishlist')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Remove from Wishlist' })).toBeVisible();
    await expect(message(page, 'Login to like products')).toHaveCount(0);

    const favorites = await page.request.get('/api/favorites');
    expect(((await favorites.json()) as { favorites: { productId: number }[] }).favorites.map((f) => f.productId)).toEqual([4]);
    const likes = (await (await page.request.get('/api/likes')).json()) as { liked: number[] };
    expect(likes.liked).toEqual([4]);
  });

  test('a card’s heart on the home page asks a guest to sign up', async ({ page }) => {
    await slowIslands(page);
    await page.goto('/');
    await expect(island(page, '.catalog')).toHaveAttribute('ssr', '');
    await page.getByRole('button', { name: 'Add Turmeric Body Butter to Wishlist' }).click();
    await expect(message(page, 'Please create an account to save favorites')).toBeVisible();
  });

  test('Reorder on a history that came with the page puts the order back in the cart, once', async ({
    page,
    baseURL,
    signIn,
  }) => {
    await signIn();
    const order = await buy(page.request, baseURL ?? '', [{ productId: 8, quantity: 2 }]);
    await slowIslands(page);
    await page.goto('/orders');
    // The order's card is in the page as the server sent it; its island is still waiting for its code.
    await expect(island(page, '.orders-list')).toHaveAttribute('ssr', '');
    await page.getByRole('button', { name: 'Reorder' }).click();
    await expect(message(page, `Added 2 items from ${orderNumber(order.id)} to your cart`)).toBeVisible();
    await expect(page.getByTestId('cart-count')).toHaveText('2');
    await hydrated(page, '.toaster');
    await expect(page.getByTestId('cart-count')).toHaveText('2');
  });

  test('a filter chosen on the history before its code has loaded is kept', async ({ page, baseURL, signIn }) => {
    await signIn();
    await buy(page.request, baseURL ?? '', [{ productId: 8, quantity: 1 }]);
    await slowIslands(page);
    await page.goto('/orders');
    await expect(island(page, '.orders-list')).toHaveAttribute('ssr', '');
    const status = page.getByLabel('Status');
    await status.selectOption('Delivered');
    await hydrated(page, '.orders-list, .orders-empty');
    // The island takes the choice over: the select still says Delivered, and the list agrees with it.
    await expect(status).toHaveValue('delivered');
    await expect(page.getByText('No orders match these filters.')).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Showing' })).toHaveText('Showing 0 of 1 order');
  });
});
