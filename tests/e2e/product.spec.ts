import { FINAL_SALE } from '@/features/catalogue/final-sale';
import { expect, test } from './fixtures';
import { hydrated } from './journeys';

test.describe('product page', () => {
  test('shows everything a shopper needs to decide', async ({ page }) => {
    await page.goto('/product/8');
    await expect(page.getByRole('heading', { level: 1, name: 'Turmeric Face Soap' })).toBeVisible();
    await expect(page.locator('.product-price')).toHaveText('$10.00');
    await expect(page.getByTestId('like-count')).toHaveText('42');
    for (const heading of ['About this product', 'How to use', 'Specifications', 'Ingredients', 'Reviews']) {
      await expect(page.getByRole('heading', { level: 2, name: heading })).toBeVisible();
    }
    await expect(page.locator('.review')).toHaveCount(3);
    await expect(page.locator('.review-author').first()).toContainText('***@example.com');
    await expect(page.getByText('Login to leave a review')).toBeVisible();
    const options = await page.getByLabel('Quantity').locator('option').allTextContents();
    expect(options).toEqual(['1', '2', '3', '4', '5']);
    await expect(page.getByRole('button', { name: 'Add to Cart' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add to Wishlist' })).toBeVisible();
  });

  test('a final-sale product says so just under Add to Cart, in the HTML as built; others do not', async ({ page, request }) => {
    expect(await (await request.get('/product/6')).text()).toContain(FINAL_SALE.notice);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/product/6');
    const note = page.locator('.final-sale-note');
    await expect(note).toHaveText(FINAL_SALE.notice);
    const add = await page.getByRole('button', { name: 'Add to Cart' }).boundingBox();
    const box = await note.boundingBox();
    expect(box && add && box.y > add.y && box.y - (add.y + add.height) < 80).toBe(true);
    await page.goto('/product/8');
    await expect(page.getByText(FINAL_SALE.label)).toHaveCount(0);
  });

  test('publishes Product JSON-LD with its offer and rating', async ({ page }) => {
    await page.goto('/product/8');
    const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}');
    expect(ld['@type']).toBe('Product');
    expect(ld.name).toBe('Turmeric Face Soap');
    expect(ld.offers).toMatchObject({ '@type': 'Offer', price: '10.00', priceCurrency: 'USD' });
    expect(ld.aggregateRating).toMatchObject({ '@type': 'AggregateRating', reviewCount: 3 });
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', /\/product\/8$/);
    await expect(page.locator('meta[property="og:title"]')).toHaveAttribute('content', 'Turmeric Face Soap | Aurelia');
  });

  test('the scrubs need a colour and a size; adding puts the chosen quantity in the cart', async ({ page }) => {
    await page.goto('/product/3');
    await hydrated(page, '.purchase');
    await hydrated(page, '.cart-badge');
    await expect(page.getByTestId('cart-count')).toHaveText('0');
    const add = page.getByRole('button', { name: 'Add to Cart' });

    await add.click();
    await expect(page.getByRole('alert')).toHaveText('Please choose a colour.');
    await page.getByRole('radio', { name: 'Powder Blue' }).check();
    await expect(page.locator('.gallery-main img')).toHaveAttribute('alt', /powder blue/i);
    await add.click();
    await expect(page.getByRole('alert')).toHaveText('Please choose a size.');

    // Keyboard: arrows move between sizes like any radio group.
    await page.getByRole('radio', { name: 'M', exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('radio', { name: 'L', exact: true })).toBeChecked();

    await page.getByLabel('Quantity').selectOption('3');
    await add.click();
    await expect(page.getByTestId('cart-count')).toHaveText('3');
    await expect(page.getByText('Added 3 × Clinical Scrubs (Powder Blue, L) to your cart')).toBeVisible();
  });

  test('a colour, size and quantity chosen before the page’s script has loaded are kept', async ({ page }) => {
    // Hold the islands' code back, as a slow phone would, while the shopper chooses.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\/_astro\/islands\.[\w-]+\.js$/, async (route) => {
      await gate;
      await route.continue();
    });
    await page.goto('/product/3');
    await page.getByRole('radio', { name: 'Grey' }).check();
    await page.getByRole('radio', { name: 'S', exact: true }).check();
    await page.getByLabel('Quantity').selectOption('2');
    release();
    await hydrated(page, '.purchase');
    await expect(page.locator('.purchase legend').first()).toHaveText('Colour: Grey');
    await expect(page.locator('.gallery-main img')).toHaveAttribute('alt', /grey/i);
    await page.getByRole('button', { name: 'Add to Cart' }).click();
    await expect(page.getByText('Added 2 × Clinical Scrubs (Grey, S) to your cart')).toBeVisible();
  });

  test('guests are asked to log in to like or save a product', async ({ page }) => {
    await page.goto('/product/1');
    await hydrated(page, '.purchase');
    await page.getByRole('button', { name: 'Add to Wishlist' }).click();
    await expect(page.getByText('Please login to save favorites')).toBeVisible();
    await hydrated(page, '.like-button');
    await page.getByRole('button', { name: /Like this product/ }).click();
    await expect(page.getByText('Login to like products')).toBeVisible();
  });

  test('an unknown product answers 404 with Product Not Found and a way home', async ({ page }) => {
    const response = await page.goto('/product/999');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Product Not Found' })).toBeVisible();
    await page.getByRole('link', { name: 'Return to Home' }).click();
    await expect(page).toHaveURL(/\/$/);
  });

  test('a product id is read as an integer and redirected to its canonical page', async ({ page }) => {
    await page.goto('/product/03');
    await expect(page).toHaveURL(/\/product\/3$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Clinical Scrubs' })).toBeVisible();
  });

  test('other unknown pages answer 404 too', async ({ request }) => {
    const response = await request.get('/no-such-page');
    expect(response.status()).toBe(404);
    expect(await response.text()).toContain('Page Not Found');
  });
});
