import type { Browser, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { card, hydrated, openCart, signedInAdmin } from './journeys';

// Stock as the owner sets it and a shopper meets it, on the built server: no rebuild between the two. The owner counts
// two colours and sizes of the scrubs that no other test buys (Grey XL, Blue XL), and makes them unlimited again after.

const GREY_XL = 'On hand: Clinical Scrubs (Grey, XL)';
const BLUE_XL = 'On hand: Clinical Scrubs (Blue, XL)';

async function ownerPage(browser: Browser, baseURL: string): Promise<Page> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signedInAdmin(page.request, baseURL, 'stock');
  return page;
}

/** Sets counts on the owner's stock page, as the owner does, and waits for the server's answer. */
async function setCounts(owner: Page, counts: Record<string, string>) {
  await owner.goto('/admin/stock');
  await hydrated(owner, '.admin-stock');
  for (const [label, value] of Object.entries(counts)) await owner.getByLabel(label, { exact: true }).fill(value);
  await owner.getByRole('button', { name: 'Save counts' }).click();
  await expect(owner.getByRole('status').filter({ hasText: /^Saved \d changes?\./ })).toBeVisible();
}

test('the owner sets a colour and size to 0 and another to 1: the shopper sees Out of stock, then Only 1 left in the cart', async ({
  page,
  browser,
  baseURL,
}) => {
  test.slow(); // an admin signed up through the mailbox, two browsers
  const owner = await ownerPage(browser, baseURL ?? '');
  try {
    await setCounts(owner, { [GREY_XL]: '0', [BLUE_XL]: '1' });
    // What a bad count does: nothing is saved, and the page says why.
    await owner.getByLabel(BLUE_XL, { exact: true }).fill('two');
    await owner.getByRole('button', { name: 'Save counts' }).click();
    await expect(owner.getByRole('alert')).toHaveText(/Enter a whole number from 0 to 1,000,000/);
    await expect(owner.getByLabel(BLUE_XL, { exact: true })).toBeFocused();
    await owner.goto('/admin');
    await expect(owner.locator('.admin-low-stock')).toContainText('Clinical Scrubs (Grey, XL): out of stock');
    await expect(owner.locator('.admin-low-stock')).toContainText('Clinical Scrubs (Blue, XL): 1 left');

    // The shopper, on the page built before any of this.
    await page.goto('/product/3');
    await hydrated(page, '.purchase');
    await hydrated(page, '.cart-badge');
    await page.getByRole('radio', { name: 'Grey', exact: true }).check();
    await page.getByRole('radio', { name: 'XL', exact: true }).check();
    const button = page.locator('.purchase-actions .btn').first();
    await expect(button).toHaveText('Out of stock');
    await expect(button).toBeDisabled();
    await page.getByRole('radio', { name: 'Blue', exact: true }).check();
    await expect(button).toHaveText('Add to Cart');
    await expect(page.getByLabel('Quantity · Only 1 left')).toBeVisible();
    await page.getByLabel(/^Quantity/).selectOption('2');
    await button.click();
    await expect(page.getByRole('status').filter({ hasText: 'Added 1 × Clinical Scrubs (Blue, XL) to your cart' })).toBeVisible();

    const drawer = await openCart(page);
    const line = drawer.getByTestId('cart-line').filter({ hasText: 'Clinical Scrubs' });
    await expect(line.getByTestId('line-stock')).toHaveText('Only 1 left');
    await expect(line.getByTestId('line-quantity')).toHaveText('1');
    const more = line.getByRole('button', { name: 'Increase quantity of Clinical Scrubs (Blue, XL)' });
    await expect(more).toHaveAttribute('aria-disabled', 'true');
    await more.focus();
    await page.keyboard.press('Enter'); // refused, and the shopper is told why
    await expect(page.getByRole('status').filter({ hasText: /^Only 1 left$/ })).toBeVisible();
    await expect(line.getByTestId('line-quantity')).toHaveText('1');
    await page.keyboard.press('Escape');

    // The last one sells (here: the owner counts it at 0): the drawer, opened again, takes it out and says so.
    await setCounts(owner, { [BLUE_XL]: '0' });
    await openCart(page);
    await expect(
      page.getByRole('status').filter({ hasText: 'Clinical Scrubs (Blue, XL) is out of stock and was taken out of your cart.' }),
    ).toBeVisible();
    await expect(page.getByRole('dialog', { name: 'Your cart' }).getByTestId('cart-line')).toHaveCount(0);
  } finally {
    await setCounts(owner, { [GREY_XL]: '', [BLUE_XL]: '' });
    await owner.context().close();
  }
});

test('a product nobody can buy any more says Out of stock on its card, without a rebuild', async ({ page }) => {
  // The shop's answer for a butter counted at 0 (the answer itself: tests/reliability/stock.test.ts); the real counts of
  // this shared server stay as they are for the tests running beside this one.
  await page.route('**/api/stock', (route) => route.fulfill({ json: { available: { '2': 0 }, soldOut: [2] } }));
  await page.goto('/');
  await hydrated(page, '.product-grid');
  await expect(card(page, 'Turmeric Body Butter').getByText('Out of stock', { exact: true })).toBeVisible();
  await expect(card(page, 'Vitamin C Body Cream').getByText('Out of stock', { exact: true })).toHaveCount(0);
});
