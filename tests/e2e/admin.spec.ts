import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { signedInAdmin } from './admins';
import { allHydrated } from './islands';
import { signedInShopper } from './session';

const ADMIN_PAGES = ['/admin', '/admin/activity', '/admin/orders'];

test.describe('admin', () => {
  test('does not exist for a guest or a shopper: the site’s 404 page, never cached', async ({ page, baseURL }) => {
    for (const path of ADMIN_PAGES) {
      const response = await page.goto(path);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
      expect(response?.headers()['cache-control']).toBe('private, no-store');
    }
    await signedInShopper(page.request, baseURL ?? '', 'Shopper');
    for (const path of ADMIN_PAGES) {
      const response = await page.goto(path);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
      expect(response?.headers()['cache-control']).toBe('private, no-store');
    }
  });

  test('an admin sees the overview and the activity log, never cached or indexed', async ({ page, baseURL }) => {
    await signedInAdmin(page.request, baseURL ?? '', 'owner');
    const response = await page.goto('/admin');
    expect(response?.status()).toBe(200);
    expect(response?.headers()['cache-control']).toBe('private, no-store');
    expect(response?.headers()['x-robots-tag']).toBe('noindex');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Overview');
    await expect(page.getByText('Signed in as owner@admins.aurelia.test.')).toBeVisible();
    await expect(page.getByText('reviews awaiting approval')).toBeVisible();
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Activity' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Activity');
  });

  test('fits a phone and has no WCAG 2.2 AA violations', async ({ page, baseURL }) => {
    // axe on every admin page, one after another.
    test.slow();
    await signedInAdmin(page.request, baseURL ?? '', 'a11y');
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ADMIN_PAGES) {
      await page.goto(path);
      await allHydrated(page);
      const admin = page.locator('.admin');
      expect(await admin.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      const results = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
        .analyze();
      expect(results.violations.map((v) => `${path} ${v.id}: ${v.help}`)).toEqual([]);
    }
  });
});
