import type { Page } from '@playwright/test';
import { type E2EAdmin, editorEmail } from './admin-accounts';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { allHydrated, hydrated, signedInShopper } from './journeys';

// An editor changes the catalogue on the running shop. Saves are drafts until a publish, so nothing here changes a
// shopper's page; the spec never presses Publish (other specs share this server), and its last save (an undo) leaves
// the product's text as the seed's.

const EDITOR_PAGES = ['/admin/catalogue', '/admin/catalogue/03-clinical-scrubs', '/admin/editors'];
const SCRUBS = '/admin/catalogue/03-clinical-scrubs';

test.describe('the catalogue editor', () => {
  test('does not exist for a guest or a shopper, nor for a request another site made', async ({ page, signIn }) => {
    // Nor does the page that tells an editor they have catalogue access only.
    for (const path of [...EDITOR_PAGES, '/admin/catalogue-only']) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(404);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
    }
    await signIn(page.request, 'Shopper');
    for (const path of [...EDITOR_PAGES, '/admin/catalogue-only', '/admin/orders']) {
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
      `${editorEmail('catalogue')} can now edit the catalogue. They are e-mailed the link to it.`,
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
    await expect(status).toHaveText('Not saved: one thing to fix, each said beside its field.');
    await expect(status).toHaveAttribute('role', 'alert');
    await expect(price).toHaveAttribute('aria-invalid', 'true');
    await expect(price).toHaveAccessibleDescription(
      'Price can have at most two decimals (whole cents), for example 29.99. At most two decimals, for example 45.00.',
    );
    await expect(price).toBeFocused();
    // A price of nothing would give the item away: refused beside the field, in words.
    await price.fill('0.00');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(price).toHaveAccessibleDescription(/^Price must be more than \$0\.00\. /);
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

    // Nothing else of the admin: /admin is the catalogue; every other page and endpoint says it is the owner's.
    await editor.goto('/admin');
    await expect(editor).toHaveURL(/\/admin\/catalogue$/);
    for (const path of ['/admin/orders', '/admin/editors', '/admin/messages']) {
      const response = await editor.goto(path);
      expect(response?.status(), path).toBe(403);
      await expect(editor.getByRole('heading', { level: 1 })).toHaveText('You have catalogue access only');
    }
    await editor.getByRole('link', { name: 'Go to the catalogue' }).click();
    await expect(editor.getByRole('heading', { level: 1 })).toHaveText('Catalogue');
    const orders = await editor.request.get('/api/admin/orders.csv');
    expect(orders.status()).toBe(403);
    expect(await orders.json()).toMatchObject({ error: { code: 'catalogue_only' } });
    // A request another site's page made, with the editor's cookie: refused. A link the editor followed from another
    // site (the role's e-mail, read in a webmail) is theirs.
    const crossSite = await editor.request.get('/admin/catalogue', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status()).toBe(404);
    const followed = await editor.request.get('/admin/catalogue', {
      headers: {
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'navigate',
        'sec-fetch-dest': 'document',
        'sec-fetch-user': '?1',
      },
    });
    expect(followed.status()).toBe(200);
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
      expect(await axeViolations(page), path).toEqual([]);
    }
  });

  for (const { device, admin, slug, viewport } of [
    { device: 'a desktop', admin: 'words', slug: '04-vitamin-c-trio-set', viewport: null },
    { device: 'a 390 px phone', admin: 'words-phone', slug: '09-12-herb-hair-oil', viewport: { width: 390, height: 844 } },
  ] as const) {
    test(`on ${device}: refusals beside their fields with the focus on the first, fixed and saved; pictures put in order by their buttons; two tabs keep what each typed`, async ({
      page,
      signInAdmin,
    }, testInfo) => {
      test.slow();
      if (viewport) await page.setViewportSize(viewport);
      await signInAdmin(admin as E2EAdmin);
      await editorJourney(page, slug, testInfo.outputPath.bind(testInfo));
    });
  }
});

/** An editor's day on `slug`'s form; it ends by undoing its first save, so the product's text is the seed's again. */
async function editorJourney(page: Page, slug: string, shot: (name: string) => string) {
  await page.goto(`/admin/catalogue/${slug}`);
  await hydrated(page, '.editor-product');
  const save = page.getByRole('button', { name: 'Save', exact: true });
  const status = page.locator('.editor-status');
  const price = page.getByLabel('Price (dollars)');
  const alt = page.getByLabel('Picture 2: what it shows');
  const firstPicture = page.getByRole('combobox', { name: 'Picture 1', exact: true });
  const [mainPicture, secondPicture] = [
    await firstPicture.inputValue(),
    await page.getByRole('combobox', { name: 'Picture 2', exact: true }).inputValue(),
  ];

  // A price of nothing and a picture nobody described: both said beside their fields, the focus on the first.
  await price.fill('0');
  await alt.fill('');
  await save.click();
  await expect(status).toHaveText('Not saved: 2 things to fix, each said beside its field.');
  await expect(price).toBeFocused();
  await expect(price).toHaveAttribute('aria-invalid', 'true');
  await expect(price).toHaveAccessibleDescription(/^Price must be more than \$0\.00\./);
  await expect(alt).toHaveAttribute('aria-invalid', 'true');
  await expect(alt).toHaveAccessibleDescription('Picture 2 needs a description for people who cannot see it.');
  // Beside the field, not only by Save: the message sits between the field's label and the field.
  const message = page.getByText('Picture 2 needs a description for people who cannot see it.').first();
  const [said, field] = [await message.boundingBox(), await alt.boundingBox()];
  const gap = (field?.y ?? 0) - ((said?.y ?? 0) + (said?.height ?? 0));
  expect(gap).toBeGreaterThanOrEqual(0);
  expect(gap).toBeLessThan(20);
  await page.screenshot({ path: shot('refused.png'), fullPage: false });
  expect(await axeViolations(page, '.editor-product')).toEqual([]);
  // The list by Save links to each field.
  const fix = page.getByRole('region', { name: 'To fix before saving' });
  await expect(fix.getByRole('link')).toHaveText([
    'Price must be more than $0.00.',
    'Picture 2 needs a description for people who cannot see it.',
  ]);
  await fix.screenshot({ path: shot('fix-list.png') });
  await fix.getByRole('link', { name: /^Picture 2/ }).click();
  await expect(alt).toBeFocused();

  // Fixed, each message goes as its field changes; then saved.
  await alt.fill('The box from above, its three jars in a row');
  await expect(alt).not.toHaveAttribute('aria-invalid', 'true');
  await expect(fix.getByRole('link')).toHaveText(['Price must be more than $0.00.']);
  await price.fill('31.00');
  await expect(fix).toHaveCount(0);
  await save.click();
  await expect(status).toHaveText(/^Saved at .*: price \$\d+\.00 → \$31\.00; /);

  // Pictures in order by keyboard: Move down on the main picture; the focus follows it to its new place.
  await page.getByRole('button', { name: 'Move down picture 1' }).focus();
  await page.keyboard.press('Enter');
  await expect(firstPicture).toHaveValue(secondPicture);
  await expect(page.getByRole('combobox', { name: 'Picture 2', exact: true })).toHaveValue(mainPicture);
  await expect(page.getByRole('button', { name: 'Move up picture 2' })).toBeFocused();
  await expect(page.getByText('Picture 1 moved down: it is now picture 2. Save to keep the order.')).toBeAttached();
  await page.screenshot({ path: shot('moved.png') });
  await save.click();
  await expect(status).toHaveText(/^Saved at .*: pictures reordered\./);
  await page.reload();
  await hydrated(page, '.editor-product');
  await expect(firstPicture).toHaveValue(secondPicture);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()?.width ?? 0);

  // Two tabs on the product. The first saves a description and a category label; the history shows the text's words.
  const other = await page.context().newPage();
  await other.setViewportSize(page.viewportSize() ?? { width: 1280, height: 720 });
  await other.goto(`/admin/catalogue/${slug}`);
  await hydrated(other, '.editor-product');
  const description = page.getByLabel('Short description');
  const theirs = `${await description.inputValue()} Now in a <b>recyclable</b> case.`;
  await description.fill(theirs);
  await page.getByLabel('Category label').fill('Gift Box');
  await save.click();
  await expect(status).toHaveText(/^Saved at .*: category “.+” → “Gift Box”; description changed\./);
  const history = page.getByRole('region', { name: 'History' });
  const latest = history.getByRole('listitem').first();
  await expect(latest.locator('ins')).toHaveText('[put in:  Now in a <b>recyclable</b> case.]');
  await latest.screenshot({ path: shot('history.png') });

  // The second tab typed over the form it opened: its save is refused, and nothing typed is lost.
  const mine = 'Made for gifting: every piece is wrapped in tissue.';
  const steps = '1. Open the box.\n2. Enjoy each piece in turn.';
  await other.getByLabel('Short description').fill(mine);
  await other.getByLabel('How to use').fill(steps);
  await other.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(other.locator('.editor-status')).toHaveText(
    'Not saved: someone saved this product since you opened it. What you typed is kept: choose below what to keep.',
  );
  const crossed = other.getByRole('region', { name: 'Someone saved this product while you were editing' });
  await expect(crossed.getByRole('heading')).toBeFocused();
  await expect(crossed).toContainText(/saved at .*: category “.+” → “Gift Box”; description changed\./);
  await expect(other.getByLabel('Short description')).toHaveValue(mine);
  await expect(other.getByLabel('How to use')).toHaveValue(steps);
  // Each difference, with both versions: what the tab changed is kept by default, what only the other changed is taken.
  await expect(crossed.getByRole('group')).toHaveText([
    /^Category label \(they changed it\)/,
    /^Short description \(you both changed it\)/,
    /^How to use \(you changed it\)/,
  ]);
  const category = crossed.getByRole('group', { name: /^Category label/ });
  await expect(category.getByRole('radio', { name: /^Take the newer save/ })).toBeChecked();
  await expect(category.getByRole('radio', { name: /^Take the newer save/ })).toHaveAccessibleName(/Gift Box$/);
  const both = crossed.getByRole('group', { name: /^Short description/ });
  await expect(both.getByRole('radio', { name: /^Keep mine/ })).toBeChecked();
  await expect(both).toContainText(theirs);
  await crossed.screenshot({ path: shot('crossed.png') });
  expect(await axeViolations(other, '.editor-product')).toEqual([]);
  await crossed.getByRole('button', { name: 'Save with these choices' }).click();
  await expect(other.locator('.editor-status')).toHaveText(/^Saved at .*: description changed; usage changed\./);
  await expect(other.getByLabel('Category label')).toHaveValue('Gift Box');
  await expect(other.getByLabel('Short description')).toHaveValue(mine);
  await expect(other.getByLabel('How to use')).toHaveValue(steps);
  await other.close();

  // A new product with a SKU another has: refused beside the SKU, nothing created.
  await page.goto('/admin/catalogue');
  await hydrated(page, '.editor-new');
  await page.getByText('New product', { exact: true }).click();
  await page.getByLabel('Name', { exact: true }).fill('Rose Scrubs');
  const sku = page.getByLabel('SKU', { exact: true });
  await sku.fill('AUR-SCRB-SET');
  await page.getByRole('button', { name: 'Create product' }).click();
  await expect(sku).toBeFocused();
  await expect(sku).toHaveAttribute('aria-invalid', 'true');
  await expect(sku).toHaveAccessibleDescription(/^This SKU is already used by Clinical Scrubs\. /);
  await expect(page).toHaveURL(/\/admin\/catalogue$/);

  // Back to the seed's text: undo the journey's first save (the text before it).
  await page.goto(`/admin/catalogue/${slug}`);
  await hydrated(page, '.editor-product');
  await history.getByRole('button', { name: /^Undo/ }).last().click();
  await expect(status).toHaveText(/^Undone and saved at /);
  await expect(firstPicture).toHaveValue(mainPicture);
}
