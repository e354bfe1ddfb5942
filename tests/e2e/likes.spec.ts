import { expect, test } from './fixtures';
import { card, failOnce, hydrated, message, openSignedIn, signOutInAnotherTab } from './journeys';

test.describe('likes', () => {
  test('guests are asked to log in, and the API refuses them', async ({ page, baseURL }) => {
    await page.goto('/product/6');
    await hydrated(page, '.like-button');
    const count = page.getByTestId('like-count');
    await expect(count).toHaveText('36');
    await page.getByRole('button', { name: /Like this product/ }).click();
    await expect(message(page, 'Login to like products')).toBeVisible();
    await expect(count).toHaveText('36');

    const headers = { origin: baseURL ?? '' };
    for (const method of ['put', 'delete'] as const) {
      const res = await page.request[method]('/api/likes/6', { headers });
      expect(res.status()).toBe(401);
      expect(await res.json()).toEqual({ error: { code: 'unauthenticated', message: 'Login to like products' } });
    }
    const counts = await page.request.get('/api/likes');
    expect(counts.status()).toBe(200);
    expect(await counts.json()).toMatchObject({ liked: [] });
  });

  test('a shopper likes a product: +1 on its page and on its home card, and unliking takes it back', async ({ page, signIn }) => {
    await signIn();
    // Vitamin C Body Butter starts with 27 likes in the catalogue; no other test likes it.
    await openSignedIn(page, '/product/5');
    await hydrated(page, '.like-button');
    const like = page.getByRole('button', { name: /Like this product/ });
    const count = page.getByTestId('like-count');
    await expect(count).toHaveText('27');
    await expect(like).toHaveAttribute('aria-pressed', 'false');

    await like.click();
    await expect(count).toHaveText('28');
    await expect(like).toHaveAttribute('aria-pressed', 'true');

    // Stored: the home card agrees, and so does the product page after a reload.
    await openSignedIn(page, '/');
    await expect(card(page, 'Vitamin C Body Butter').locator('.card-likes')).toContainText('28');
    await openSignedIn(page, '/product/5');
    await hydrated(page, '.like-button');
    await expect(count).toHaveText('28');
    await expect(like).toHaveAttribute('aria-pressed', 'true');

    // The keyboard works too: unlike with Enter.
    await like.focus();
    await page.keyboard.press('Enter');
    await expect(count).toHaveText('27');
    await expect(like).toHaveAttribute('aria-pressed', 'false');
    await openSignedIn(page, '/');
    await expect(card(page, 'Vitamin C Body Butter').locator('.card-likes')).toContainText('27');
  });

  test('the likes API is idempotent, counted for everyone and strict about ids; a refused like goes back', async ({
    page,
    request,
    baseURL,
    signIn,
  }) => {
    await signIn();
    const headers = { origin: baseURL ?? '' };
    // Kojic Acid Soap: only this test likes it.
    const first = await page.request.put('/api/likes/7', { headers });
    expect(first.status()).toBe(200);
    expect(await first.json()).toEqual({ productId: 7, liked: true, count: 1 });
    const again = await page.request.put('/api/likes/7', { headers });
    expect(await again.json()).toEqual({ productId: 7, liked: true, count: 1 });

    const mine = await (await page.request.get('/api/likes')).json();
    expect(mine.liked).toContain(7);
    expect(mine.counts['7']).toBe(1);
    // A guest (`request` shares no cookies with the page) sees the count, and nobody's identity.
    const guestView = await (await request.get('/api/likes')).json();
    expect(guestView.counts['7']).toBe(1);
    expect(guestView.liked).toEqual([]);

    expect(await (await page.request.delete('/api/likes/7', { headers })).json()).toEqual({
      productId: 7,
      liked: false,
      count: 0,
    });
    expect((await page.request.delete('/api/likes/7', { headers })).status()).toBe(200);

    const unknown = await page.request.put('/api/likes/999', { headers });
    expect(unknown.status()).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: 'not_found', message: 'There is no such product.' } });
    for (const bad of ['abc', '07', '1e1', '-1', '0']) {
      const res = await page.request.put(`/api/likes/${bad}`, { headers });
      expect(res.status(), bad).toBe(400);
      expect((await res.json()).error.message, bad).toBe('The product id must be a positive whole number.');
    }
    const crossSite = await page.request.put('/api/likes/7', { headers: { origin: 'https://evil.example' } });
    expect(crossSite.status()).toBe(403);
    expect((await (await page.request.get('/api/likes')).json()).liked).not.toContain(7);

    await openSignedIn(page, '/product/9');
    await hydrated(page, '.like-button');
    const count = page.getByTestId('like-count');
    await expect(count).toHaveText('39');
    await failOnce(page, '**/api/likes/9', 'PUT');
    await page.getByRole('button', { name: /Like this product/ }).click();
    await expect(message(page, 'Failed to update like')).toBeVisible();
    await expect(count).toHaveText('39');
    await expect(page.getByRole('button', { name: /Like this product/ })).toHaveAttribute('aria-pressed', 'false');

    // Signed out in another tab: the next like is refused with the spec's words.
    await signOutInAnotherTab(page, baseURL ?? '');
    await page.getByRole('button', { name: /Like this product/ }).click();
    await expect(message(page, 'Login to like products')).toBeVisible();
    await expect(count).toHaveText('39');
  });
});
