import { expect, type Page } from '@playwright/test';
import { hydrated } from './islands';

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
