import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { allHydrated } from './journeys';

const ADMIN_PAGES = [
  '/admin',
  '/admin/orders',
  '/admin/stock',
  '/admin/discounts',
  '/admin/discounts/new',
  '/admin/reviews',
  '/admin/messages',
  '/admin/subscribers',
  '/admin/activity',
];

test.describe('admin', () => {
  test('does not exist for a guest or a shopper: the site’s 404 page, never cached', async ({ page, signIn }) => {
    for (const path of ADMIN_PAGES) {
      const response = await page.goto(path);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
      expect(response?.headers()['cache-control']).toBe('private, no-store');
    }
    await signIn(page.request, 'Shopper');
    for (const path of ADMIN_PAGES) {
      const response = await page.goto(path);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
      expect(response?.headers()['cache-control']).toBe('private, no-store');
    }
  });

  test('an admin sees the overview and the activity log, never cached', async ({ page, signInAdmin }) => {
    await signInAdmin('owner');
    const response = await page.goto('/admin');
    expect(response?.status()).toBe(200);
    expect(response?.headers()['cache-control']).toBe('private, no-store');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Overview');
    await expect(page.getByText('Signed in as owner@admins.aurelia.test.')).toBeVisible();
    await expect(page.getByText('reviews awaiting approval')).toBeVisible();
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Activity' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Activity');
  });

  test('the shop’s header links a signed-in admin to the admin, and no one else', async ({
    page,
    browser,
    signIn,
    signInAdmin,
  }) => {
    await signInAdmin('header');
    await page.goto('/about');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(page.getByTestId('online-indicator')).toHaveText('Online: Admin');
    await nav.getByRole('link', { name: 'Admin', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Overview');
    // On the next page the link is there from the first paint (no layout shift while the session is asked).
    await page.goto('/contact');
    await expect(nav.getByRole('link', { name: 'Admin', exact: true })).toBeVisible();

    const shopper = await browser.newContext();
    const shopperPage = await shopper.newPage();
    await signIn(shopperPage.request, 'Shopper');
    await shopperPage.goto('/about');
    await expect(shopperPage.getByTestId('online-indicator')).toHaveText('Online: Shopper');
    await expect(
      shopperPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin', exact: true }),
    ).toBeHidden();
    await shopper.close();
  });

  test('fits a phone and has no WCAG 2.2 AA violations', async ({ page, browser, baseURL, signIn, signInAdmin }) => {
    // Five pages, each swept by axe on a busy two-core machine.
    test.slow();
    // Something in each list: a pending review (on a product no journey counts reviews of) and a contact message.
    const shopper = await browser.newPage();
    await signIn(shopper.request, 'Lia');
    const headers = { origin: baseURL ?? '' };
    const comment = `A long review without spaces: ${'x'.repeat(300)}`;
    expect((await shopper.request.post('/api/reviews', { headers, data: { productId: 5, comment } })).status()).toBe(201);
    const message = { name: 'Lia', email: 'lia@example.com', message: 'Hello!\nTwo lines.' };
    expect((await shopper.request.post('/api/contact', { headers, data: message })).status()).toBe(201);
    await shopper.close();
    await signInAdmin('a11y');
    // An export is recorded: the activity log has a row too.
    expect((await page.request.get('/api/admin/subscribers.csv')).status()).toBe(200);
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ADMIN_PAGES) {
      await page.goto(path);
      await allHydrated(page);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await axeViolations(page), path).toEqual([]);
    }
  });
});
