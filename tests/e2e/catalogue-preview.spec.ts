import type { APIRequestContext, Page } from '@playwright/test';
import { editorEmail } from './admin-accounts';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { allHydrated, consoleErrors, hydrated, signedInShopper } from './journeys';

// Previewing the catalogue before it is published (issue 44, part 2): an editor saves a price on a desktop, previews the
// product page and the home grid as shoppers will see them, and sends a signed link that someone without an account
// opens on a phone. The shared server is never published to: the editor's last save (an undo) leaves the product's
// text as the seed's. Link signing, expiry and tampering in depth: preview-link.server.test.ts and
// tests/db/catalogue-preview.test.ts.

const BUTTER = '/admin/catalogue/05-vitamin-c-body-butter';

/** What a preview's answer must say about itself: not stored, not indexed, its address not sent on. */
async function expectPrivate(request: APIRequestContext, path: string, status = 200) {
  const response = await request.get(path, { maxRedirects: 0 });
  expect(response.status(), path).toBe(status);
  expect(response.headers()['cache-control'], path).toBe('private, no-store');
  expect(response.headers()['x-robots-tag'], path).toBe('noindex, nofollow');
  if (status === 200 && response.headers()['content-type']?.startsWith('text/html')) {
    expect(response.headers()['referrer-policy'], path).toBe('no-referrer');
    expect(await response.text(), path).toContain('<meta name="robots" content="noindex, nofollow">');
  }
}

const banner = (page: Page) => page.getByRole('complementary', { name: /^Preview — not published/ });

test.describe('previewing the catalogue before it is published', () => {
  test('an editor previews a saved price on a desktop and sends a link that a visitor without an account opens on a phone', async ({
    page,
    browser,
    baseURL,
    signInAdmin,
  }) => {
    test.slow();
    // Nobody without a session or a link gets anything: the admin's stranger's 404.
    for (const path of ['/preview', '/preview/product/5']) {
      await expectPrivate(page.request, path, 404);
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
    }
    const robots = await (await page.request.get('/robots.txt')).text();
    expect(robots).toContain('Disallow: /preview\n');
    expect(await (await page.request.get('/sitemap-0.xml')).text()).not.toContain('/preview');

    // The owner grants the editor the role.
    await signInAdmin('preview');
    const editorContext = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const editor = await editorContext.newPage();
    await signedInShopper(editor.request, baseURL ?? '', 'Editor', editorEmail('preview'));
    const granted = await page.request.post('/api/admin/editors', {
      headers: { origin: baseURL ?? '' },
      data: { email: editorEmail('preview'), editor: true },
    });
    expect(granted.status()).toBe(200);

    // The editor saves a new price: a draft, not what shoppers see.
    await editor.goto(BUTTER);
    await hydrated(editor, '.editor-product');
    await editor.getByLabel('Price (dollars)').fill('27.50');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(editor.locator('.editor-status')).toHaveText(/^Saved at .*: price \$30\.00 → \$27\.50\./);

    // Preview: the product page as it will be, in a tab of its own, with the banner and the price the checkout charges.
    const errors = consoleErrors(editor);
    await hydrated(editor, '.editor-preview');
    const [preview] = await Promise.all([
      editorContext.waitForEvent('page'),
      editor.getByRole('link', { name: 'Preview', exact: true }).click(),
    ]);
    const previewErrors = consoleErrors(preview);
    await expect(banner(preview)).toContainText('Preview — not published · made ');
    await expect(banner(preview)).toContainText(
      'Checkout charges $27.50 for Vitamin C Body Butter once published (shoppers pay $30.00 today), before tax, shipping and discounts.',
    );
    await expect(preview.getByRole('heading', { level: 1 })).toHaveText('Vitamin C Body Butter');
    await expect(preview.locator('.product-price')).toHaveText('$27.50');
    await expect(preview.getByRole('button', { name: 'Add to Cart' })).toBeVisible();
    await allHydrated(preview);
    // The gallery is the shop's own: its pictures load from the preview.
    const picture = preview.locator('.gallery-main img');
    await expect(picture).toHaveAttribute('src', /^\/preview\/pictures\/[a-z0-9-]+\.svg$/);
    await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    expect(await axeViolations(preview)).toEqual([]);
    await preview.evaluate(() => window.scrollTo(0, 0));
    await preview.screenshot({ path: test.info().outputPath('editor-product-desktop.png') });
    await expectPrivate(editor.request, '/preview/product/5');
    await expectPrivate(editor.request, (await picture.getAttribute('src')) ?? '');

    // The home page's grid as it will be; the live pages keep the published price meanwhile.
    await banner(preview).getByRole('link', { name: 'Preview of the home page' }).click();
    // Among others: catalogue-editing.spec saves other products on this server meanwhile (and undoes them after).
    await expect(banner(preview)).toContainText(/Not yet published: (?:.+, )?Vitamin C Body Butter[,.]/);
    const card = preview.locator('.product-card', { hasText: 'Vitamin C Body Butter' });
    await expect(card.locator('.card-price')).toHaveText('$27.50');
    await expect(card.getByRole('link')).toHaveAttribute('href', '/preview/product/5');
    await preview.screenshot({ path: test.info().outputPath('editor-home-desktop.png') });
    await expectPrivate(editor.request, '/preview');
    await page.goto('/product/5');
    await expect(page.locator('.product-price')).toHaveText('$30.00');
    await page.goto('/');
    await expect(page.locator('.product-card', { hasText: 'Vitamin C Body Butter' }).locator('.card-price')).toHaveText('$30.00');
    expect([...errors, ...previewErrors]).toEqual([]);

    // Copy preview link: a day by default, on the clipboard and in a box, and in the owner's activity log.
    await editor.bringToFront();
    await expect(editor.getByLabel('Link works for')).toHaveValue('24');
    await editor.getByRole('button', { name: 'Copy preview link' }).click();
    const box = editor.getByLabel('Preview link', { exact: true });
    await expect(box).toHaveValue(/^http:\/\/127\.0\.0\.1:\d+\/preview\/product\/5\?link=5\.\d{10}\.[0-9a-f-]{36}\.[\w-]{43}$/);
    await expect(editor.getByRole('status').filter({ hasText: 'Copied.' })).toContainText(
      /Anyone with this link can see the preview of Vitamin C Body Butter \(and of the home page\) until .+, without an account\./,
    );
    const link = await box.inputValue();
    expect(await editor.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await editor.locator('.editor-preview').screenshot({ path: test.info().outputPath('editor-copy-link.png') });
    await page.goto('/admin/activity');
    await expect(page.getByRole('row', { name: /Preview link made: Vitamin C Body Butter/ })).toContainText(
      editorEmail('preview'),
    );

    // Someone without an account opens the link on a phone.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const visitor = await phone.newPage();
    const visitorErrors = consoleErrors(visitor);
    const url = new URL(link);
    await visitor.goto(`${url.pathname}${url.search}`);
    await expect(banner(visitor)).toContainText('Preview — not published');
    await expect(banner(visitor)).toContainText(/This link works until [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M/);
    await expect(banner(visitor).getByRole('link', { name: 'Back to the editor' })).toHaveCount(0);
    await expect(visitor.locator('.product-price')).toHaveText('$27.50');
    await allHydrated(visitor);
    expect(await visitor.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await visitor.evaluate(() => window.scrollTo(0, 0));
    await visitor.screenshot({ path: test.info().outputPath('link-product-phone.png') });
    await expectPrivate(visitor.request, `${url.pathname}${url.search}`);
    // The home page's preview, by the same link; the card leads back to the link's product.
    await banner(visitor).getByRole('link', { name: 'Preview of the home page' }).click();
    const visitorCard = visitor.locator('.product-card', { hasText: 'Vitamin C Body Butter' });
    await expect(visitorCard.locator('.card-price')).toHaveText('$27.50');
    expect(await visitor.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await visitor.screenshot({ path: test.info().outputPath('link-home-phone.png') });
    await visitorCard.getByRole('link').click();
    await expect(visitor).toHaveURL(`${url.pathname}${url.search}`);
    expect(visitorErrors).toEqual([]);

    // The link opens nothing else: not another product, not a changed link, not the admin, not an endpoint.
    const token = url.searchParams.get('link') ?? '';
    await visitor.goto(`/preview/product/3?link=${token}`);
    await expect(visitor.getByRole('heading', { level: 1 })).toHaveText('This preview link is for another product');
    await expect(visitor.getByRole('main')).not.toContainText('Clinical Scrubs');
    await expectPrivate(visitor.request, `/preview/product/3?link=${token}`, 403);
    const changed = token.replace(/^5\./, '3.');
    await visitor.goto(`/preview/product/3?link=${changed}`);
    await expect(visitor.getByRole('heading', { level: 1 })).toHaveText('This preview link is not valid');
    await visitor.screenshot({ path: test.info().outputPath('link-refused-phone.png') });
    const later = token.replace(/^(5\.)(\d{10})/, (_, p, s) => `${p}${Number(s) + 86_400}`);
    await expectPrivate(visitor.request, `/preview/product/5?link=${later}`, 403);
    for (const path of ['/admin', '/admin/catalogue', `/admin/catalogue/05-vitamin-c-body-butter`]) {
      const response = await visitor.goto(`${path}?link=${token}`);
      expect(response?.status(), path).toBe(404);
      await expect(visitor.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
    }
    for (const path of ['/api/admin/catalogue/products', '/api/admin/catalogue/publish', '/api/admin/orders.csv'])
      expect((await visitor.request.get(`${path}?link=${token}`)).status(), path).toBe(404);
    const post = await visitor.request.post(`/api/admin/catalogue/preview-links?link=${token}`, {
      headers: { origin: baseURL ?? '' },
      data: { file: '03-clinical-scrubs.md', hours: 168 },
    });
    expect(post.status()).toBe(404);
    await phone.close();

    // The editor takes the change back: the product's text is the seed's again, as this shared shop started.
    await editor.goto(BUTTER);
    await hydrated(editor, '.editor-product');
    await editor.getByRole('region', { name: 'History' }).getByRole('button', { name: /^Undo/ }).first().click();
    await expect(editor.getByLabel('Price (dollars)')).toHaveValue('30.00');
    await editorContext.close();
  });
});
