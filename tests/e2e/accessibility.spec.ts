import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { allHydrated, hydrated, openAccountDialog } from './journeys';

// /orders sends guests home; its signed-in history is checked in orders.spec.ts.

// axe runs its rules in the page: about 1 s on a quiet machine, over 20 s measured on a 2-core one at load 17. What a
// test waits for is what a shopper sees (allHydrated), never a pause; the time allowed (3 × 30 s) is for axe.
test.slow();

const PAGES = [
  '/',
  '/about',
  '/contact',
  '/wishlist',
  '/product/999',
  '/reset-password',
  // As a reset link opens it: the same form, with the token in the address.
  '/reset-password?token=x',
  ...Array.from({ length: 9 }, (_, i) => `/product/${i + 1}`),
];

for (const path of PAGES) {
  for (const viewport of [
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    test(`${path} has no WCAG 2.2 AA violations on ${viewport.name}`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await page.goto(path);
      await allHydrated(page);
      expect(await axeViolations(page)).toEqual([]);
    });
  }
}

for (const pane of ['Log in', 'Sign up'] as const) {
  test(`the ${pane} dialog has no WCAG 2.2 AA violations`, async ({ page }) => {
    await page.goto('/');
    const dialog = await openAccountDialog(page, pane);
    await expect(
      dialog.getByRole('button', { name: pane === 'Log in' ? 'Log in' : 'Create account', exact: true }).last(),
    ).toBeVisible();
    expect(await axeViolations(page, 'dialog')).toEqual([]);
  });
}

test('the reset form refusing an expired link has no WCAG 2.2 AA violations', async ({ page }) => {
  await page.goto('/reset-password?token=x');
  await allHydrated(page);
  await page.getByLabel('New password', { exact: true }).fill('a new password 1');
  await page.getByLabel('Confirm new password').fill('a new password 1');
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByRole('alert')).toHaveText('This link is invalid or has expired. Please request a new one.');
  expect(await axeViolations(page)).toEqual([]);
});

test('toasts on screen (an error and a success) have no WCAG 2.2 AA violations', async ({ page }) => {
  await page.goto('/product/8');
  await hydrated(page, '.purchase');
  await hydrated(page, '.like-button');
  await page.getByRole('button', { name: /Like this product/ }).click();
  await page.getByRole('button', { name: 'Add to Cart' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Login to like products' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Added 1 × Turmeric Face Soap to your cart' })).toBeVisible();
  expect(await axeViolations(page, '.toaster')).toEqual([]);
});
