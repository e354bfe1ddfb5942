import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { addFromProductPage, checkoutTo, newShopper, openAccountDialog } from './journeys';

// A toast raised while a modal dialog is open (the login dialog, the cart drawer) was painted under the dialog and its
// backdrop: seen greyed, if at all, not closable, not announced. It must be the topmost thing where it is drawn.

test.use({ viewport: { width: 390, height: 844 } });

/** Whether the element a click at the toast's centre would reach is the toast (or something inside it). */
async function onTop(page: Page, toast: Locator): Promise<boolean> {
  const box = await toast.boundingBox();
  if (!box) return false;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  return page.evaluate(([cx, cy]) => Boolean(document.elementFromPoint(cx ?? 0, cy ?? 0)?.closest('.toast')), [x, y]);
}

test('a toast raised in the login dialog is on top, announced and closable', async ({ page }) => {
  await page.goto('/about');
  const dialog = await openAccountDialog(page, 'Log in');
  await dialog.getByLabel('Email').fill('nobody@example.com');
  await dialog.getByLabel('Password').fill('wrong-password');
  await dialog.getByRole('button', { name: 'Log in', exact: true }).last().click();
  const toast = page.locator('.toast', { hasText: 'Invalid login credentials' });
  await expect(toast).toBeVisible();
  // The pointer on it holds it, as a person's does on the way to its close button: on a busy machine the checks below
  // took longer than the 4 s it otherwise stays.
  await toast.hover({ force: true }); // at once: its entrance is still moving on a busy machine
  expect(await onTop(page, toast)).toBe(true);
  // Announced: an error is an alert, reachable in the accessibility tree while the dialog is open.
  await expect(page.getByRole('alert').filter({ hasText: 'Invalid login credentials' }).first()).toBeAttached();
  await toast.getByRole('button', { name: 'Close notification' }).click();
  await expect(toast).toHaveCount(0);
  await expect(dialog).toBeVisible();
});

test('after paying, the shopper is left looking at the order, by its number, with a link to it', async ({ page }) => {
  // The page's clock runs as usual, and jumps past a toast's 4 s below instead of the test waiting them out.
  await page.clock.install();
  await addFromProductPage(page, 7);
  const checkout = await checkoutTo(page, newShopper('Grace', { lastName: 'Hopper' }));
  await checkout.getByLabel('Card number').fill('4242 4242 4242 4242');
  await checkout.getByLabel(/Expir/).fill('12/34');
  await checkout.getByLabel(/CVC/).fill('123');
  await checkout.getByRole('button', { name: /^Pay / }).click();
  // The spec's toast, on top of the drawer.
  const toast = page.locator('.toast', { hasText: /^Order [0-9a-f]{8} placed! Thank you\./ });
  await expect(toast).toBeVisible();
  expect(await onTop(page, toast)).toBe(true);
  // The drawer confirms the order as the e-mail, the order page and the history name it, instead of an empty cart.
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  const confirmation = drawer.locator('.cart-placed');
  await expect(confirmation).toContainText(/Thank you! Your order ORD-[0-9A-F]{6} is placed\./);
  const number = /ORD-[0-9A-F]{6}/.exec((await confirmation.textContent()) ?? '')?.[0] ?? '';
  await expect(confirmation.getByRole('link', { name: 'View your order' })).toHaveAttribute('href', /^\/order\?token=/);

  // The spec's reload 2 s later: the next page still confirms it, until the shopper closes it.
  await page.waitForEvent('load');
  const after = page.locator('.toast', { hasText: `Thank you! Your order ${number} is placed.` });
  await expect(after).toBeVisible();
  expect(await onTop(page, after)).toBe(true);
  await page.clock.runFor(4_500); // longer than a toast's 4 s
  await expect(after).toBeVisible();
  await after.getByRole('link', { name: 'View your order' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Order ${number}`);
  // Said once: the order's page does not confirm it again.
  await expect(page.locator('.toast', { hasText: number })).toHaveCount(0);
});
