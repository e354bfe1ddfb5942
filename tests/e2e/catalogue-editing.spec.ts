import AxeBuilder from '@axe-core/playwright';
import { editorEmail } from './admin-accounts';
import { expect, test } from './fixtures';
import { allHydrated, hydrated, signedInShopper } from './journeys';

// An editor changes the catalogue on the running shop. Saves are drafts until a publish, so nothing here changes a
// shopper's page; the spec never presses Publish (other specs share this server), and its last save (an undo) leaves
// the product's text as the seed's.

const EDITOR_PAGES = ['/admin/catalogue', '/admin/catalogue/03-clinical-scrubs', '/admin/editors'];
const SCRUBS = '/admin/catalogue/03-clinical-scrubs';

test.describe('the catalogue editor', () => {
  test('does not exist for a guest or a shopper, nor for a request another site made', async ({ page, signIn }) => {
    for (const path of EDITOR_PAGES) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(404);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
    }
    await signIn(page.request, 'Shopper');
    for (const path of EDITOR_PAGES) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(404);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
    }
  });

  test('an admin grants the role; the editor changes a price, sees it saved and in the history, has a bad price refused, undoes the change, and sees nothing else of the admin', async ({
    page,
    browser,
    baseURL,
    signInAdmin,
  }) => {
    test.slow();
    const editorContext = await browser.newContext();
    const editor = await editorContext.newPage();
    // An ordinary account of its own: the admin grants it the role below.
    await signedInShopper(editor.request, baseURL ?? '', 'Editor', editorEmail('catalogue'));
    // Before the role, the editor is a shopper: the 404.
    expect((await editor.goto('/admin/catalogue'))?.status()).toBe(404);

    await signInAdmin('editors');
    await page.goto('/admin');
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Editors' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Editors');
    await hydrated(page, '.editor-roles');
    await page.getByLabel('E-mail address of their account').fill(editorEmail('catalogue'));
    await page.getByRole('button', { name: 'Grant the editor role' }).click();
    await expect(page.locator('.editor-roles [role="status"]')).toHaveText(
      `${editorEmail('catalogue')} can now edit the catalogue.`,
    );
    await expect(page.getByRole('listitem').filter({ hasText: editorEmail('catalogue') })).toBeVisible();
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Activity' }).click();
    await expect(page.getByText('Editor role granted').first()).toBeVisible();

    // The editor: the catalogue, and only the catalogue.
    const list = await editor.goto('/admin/catalogue');
    expect(list?.status()).toBe(200);
    expect(list?.headers()['cache-control']).toBe('private, no-store');
    await expect(editor.getByRole('heading', { level: 1 })).toHaveText('Catalogue');
    await expect(editor.getByRole('navigation', { name: 'Catalogue editor' }).getByRole('link')).toHaveText(['Catalogue']);
    await editor.getByRole('link', { name: 'Clinical Scrubs' }).click();
    await expect(editor.getByRole('heading', { level: 1 })).toHaveText('Clinical Scrubs');
    await hydrated(editor, '.editor-product');
    // The id, the file and the likes are shown, not editable.
    await expect(editor.getByText('3 (/product/3)')).toBeVisible();
    await expect(editor.getByText('03-clinical-scrubs.md')).toBeVisible();
    await expect(editor.getByRole('textbox', { name: /id|likes|file/i })).toHaveCount(0);
    // A colour's key is shown, not editable: carts, stock counts and orders know the colour by it.
    const key = editor.getByLabel('Colour 1: key in carts and stock counts');
    await expect(key).toHaveValue('blue');
    await expect(key).toHaveJSProperty('readOnly', true);

    const price = editor.getByLabel('Price (dollars)');
    await expect(price).toHaveValue('45.00');
    await price.fill('47.00');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    const status = editor.locator('.editor-status');
    await expect(status).toHaveText(
      /^Saved at .*: price \$45\.00 → \$47\.00\. Shoppers see it once the catalogue is published\.$/,
    );
    const history = editor.getByRole('region', { name: 'History' });
    await expect(history.getByRole('listitem')).toHaveCount(1);
    await expect(history.getByRole('listitem').first()).toContainText('price $45.00 → $47.00');
    await expect(history.getByRole('listitem').first()).toContainText(`by ${editorEmail('catalogue')} · not yet published`);

    // Remembered: the page opened again shows the saved price and its history; the list marks the product.
    await editor.reload();
    await hydrated(editor, '.editor-product');
    await expect(price).toHaveValue('47.00');
    await expect(status).toHaveText('Saved, not yet published.');
    await expect(history.getByRole('listitem')).toHaveCount(1);
    await editor.goto('/admin/catalogue');
    await expect(editor.getByRole('row', { name: /Clinical Scrubs/ })).toContainText('$47.00');
    await expect(editor.getByRole('row', { name: /Clinical Scrubs/ })).toContainText('Unpublished changes');
    // A shopper still sees the published price.
    await editor.goto('/product/3');
    await expect(editor.getByRole('main').getByText('$45.00').first()).toBeVisible();

    // A price the schema refuses: its message, and nothing saved.
    await editor.goto(SCRUBS);
    await hydrated(editor, '.editor-product');
    await price.fill('29.999');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(status).toHaveText('Not saved: price: price must have at most two decimals');
    await expect(status).toHaveAttribute('role', 'alert');
    await expect(price).toHaveAttribute('aria-invalid', 'true');
    // A price of nothing would give the item away: refused beside the field, in words.
    await price.fill('0.00');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(status).toHaveText('Not saved: price: price must be at least $0.01');
    await expect(price).toHaveAttribute('aria-invalid', 'true');
    await editor.reload();
    await hydrated(editor, '.editor-product');
    await expect(price).toHaveValue('47.00');
    await expect(history.getByRole('listitem')).toHaveCount(1);

    // A picture that could run script in the shop is refused by the upload, whatever its name says.
    await editor.getByLabel('Upload a picture (SVG, PNG, JPEG or WebP, up to 1 MB)').setInputFiles({
      name: 'scrubs-side.png',
      mimeType: 'image/png',
      buffer: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" onload="fetch(\'/api/orders\')"><rect width="4" height="4"/></svg>',
      ),
    });
    await expect(status).toHaveText(/^Not uploaded: This SVG contains an event handler attribute/);
    await expect(editor.getByRole('combobox', { name: /^Picture \d+$/ })).toHaveCount(3);

    // Undo: a new save with the text before, in the history too.
    await history.getByRole('button', { name: /^Undo/ }).first().click();
    await expect(status).toHaveText(/^Undone and saved at .*: undo of “price \$45\.00 → \$47\.00”: price \$47\.00 → \$45\.00\./);
    await expect(price).toHaveValue('45.00');
    await expect(history.getByRole('listitem')).toHaveCount(2);
    await editor.goto('/admin/catalogue');
    await expect(editor.getByRole('row', { name: /Clinical Scrubs/ })).toContainText('Published');

    // Nothing else of the admin: the stranger's 404, pages and endpoints alike.
    for (const path of ['/admin', '/admin/orders', '/admin/editors', '/admin/messages']) {
      const response = await editor.goto(path);
      expect(response?.status(), path).toBe(404);
      await expect(editor.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
    }
    const orders = await editor.request.get('/api/admin/orders.csv');
    expect(orders.status()).toBe(404);
    // A request another site's page made, with the editor's cookie: refused.
    const crossSite = await editor.request.get('/admin/catalogue', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status()).toBe(404);
    const crossPost = await editor.request.post('/api/admin/catalogue/products/03-clinical-scrubs', {
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      data: { base: 0, fields: { price: 1 } },
    });
    expect(crossPost.status()).toBe(403);
    await editorContext.close();
  });

  test('adds nothing to a shopper’s page: none of its code, and its styles are a file only its pages link', async ({
    page,
    signInAdmin,
  }) => {
    for (const path of ['/', '/product/3', '/about']) {
      const scripts: string[] = [];
      page.on('response', async (response) => {
        if (response.request().resourceType() === 'script') scripts.push(await response.text());
      });
      await page.goto(path);
      await page.locator('footer').scrollIntoViewIfNeeded();
      await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
      expect(scripts.length, path).toBeGreaterThan(0);
      for (const code of scripts) expect(code, path).not.toMatch(/api\/admin\/catalogue|Undo|editor role/);
      expect(await page.locator('link[rel="stylesheet"][href*="editor"]').count(), path).toBe(0);
      page.removeAllListeners('response');
    }
    await signInAdmin('catalogue-css');
    await page.goto('/admin/catalogue');
    const sheet = page.locator('link[rel="stylesheet"][href*="/_astro/editor."]');
    await expect(sheet).toHaveCount(1);
    expect((await page.request.get((await sheet.getAttribute('href')) ?? '')).headers()['content-type']).toMatch(/^text\/css/);
  });

  test('the editor’s pages fit a phone and have no WCAG 2.2 AA violations', async ({ page, signInAdmin }) => {
    test.slow();
    await signInAdmin('catalogue-axe');
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of EDITOR_PAGES) {
      await page.goto(path);
      await allHydrated(page);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      const results = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
        .analyze();
      expect(results.violations.map((v) => `${path} ${v.id}: ${v.help}`)).toEqual([]);
    }
  });
});
