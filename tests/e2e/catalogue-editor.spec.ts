import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { frontMatter } from '../../editor/catalogue-guard';
import { expect, test } from './fixtures';

// A content editor changes the catalogue in the browser (docs/catalogue.md). The editor (`npm run editor`) runs on a
// copy of the project, so the shop under test and its content files are never touched; the copy's dev server is the
// shop itself, so its product page shows what the build makes of the saved file.

const PROJECT = resolve('.');
const COPIED = ['astro.config.mjs', 'package.json', 'tsconfig.json', 'content', 'editor', 'public', 'scripts', 'src'];
const FILE = 'content/products/03-clinical-scrubs.md';
const port = Number(process.env.E2E_PORT ?? 4391) + 2;
const origin = `http://127.0.0.1:${port}`;

let copy = '';
let editor: ChildProcess | undefined;
let output = '';

const saved = () => readFileSync(join(copy, FILE), 'utf8');
const data = (text: string) => frontMatter(text) as Record<string, unknown> & { colors: { value: string }[] };

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  copy = mkdtempSync(join(tmpdir(), 'aurelia-editor-'));
  for (const entry of COPIED) cpSync(join(PROJECT, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(PROJECT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  editor = spawn(
    process.execPath,
    [join(PROJECT, 'node_modules/astro/bin/astro.mjs'), 'dev', '--config', 'editor/astro.config.mjs'],
    {
      cwd: copy,
      env: { PATH: process.env.PATH ?? '', EDITOR_PORT: String(port), ASTRO_TELEMETRY_DISABLED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  editor.stdout?.on('data', collect);
  editor.stderr?.on('data', collect);
  await expect
    .poll(
      () =>
        fetch(`${origin}/keystatic`).then(
          (r) => r.status,
          () => 0,
        ),
      { timeout: 120_000, message: output },
    )
    .toBe(200);
});

test.afterAll(() => {
  editor?.kill();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

test('an editor changes a price and adds a colour; the file and the product page follow', async ({ page }) => {
  test.setTimeout(120_000);
  const before = saved();
  await page.goto(`${origin}/keystatic/collection/products/item/03-clinical-scrubs`);
  await page.getByRole('textbox', { name: 'Price (dollars)', exact: true }).fill('47.5');

  await page.getByRole('group', { name: 'Colours' }).getByRole('button', { name: 'Add' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('textbox', { name: 'Colour name' }).fill('Teal');
  await dialog.getByRole('textbox', { name: 'Value' }).fill('teal');
  // A colour needs its hex: the schema's message shows next to the field, and the colour is not added.
  await dialog.getByRole('textbox', { name: 'Hex' }).fill('teal');
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(dialog.getByText('hex must look like #1f5fa8')).toBeVisible();
  await dialog.getByRole('textbox', { name: 'Hex' }).fill('#008080');
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole('button', { name: 'Save' }).click();
  await expect.poll(saved).not.toBe(before);
  const old = data(before);
  const now = data(saved());
  // Exactly the two changes, and every other field as it was.
  expect(now).toEqual({ ...old, price: 47.5, colors: [...old.colors, { name: 'Teal', value: 'teal', hex: '#008080' }] });

  // The shop's own product page, rendered by the editor's dev server from the saved file, shows the new price. Read as
  // HTML: the page's islands would make Vite bundle the shop's packages and reload the page half-way. The dev server
  // reloads the catalogue when its file watcher sees the change, a moment after the save (a busy machine read the old
  // price once): the page is asked again until then.
  await expect
    .poll(async () => (await page.request.get(`${origin}/product/3`)).text(), { timeout: 45_000 })
    .toMatch(/class="product-price[^"]*"[^>]*>\$47\.50</);
});

test('an invalid value is refused with its message and the file is left as it was', async ({ page }) => {
  test.setTimeout(90_000);
  const before = saved();
  await page.goto(`${origin}/keystatic/collection/products/item/03-clinical-scrubs`);

  // The form's own check: a price below one cent is not saved.
  const price = page.getByRole('textbox', { name: 'Price (dollars)', exact: true });
  await price.fill('0');
  await price.blur();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Price (dollars) must be at least 0.01')).toBeVisible();
  await price.fill('47.5');

  // The save guard's check: a SKU another product has is refused by the server, with the reason.
  await page.getByRole('textbox', { name: 'SKU' }).fill('AUR-VCBC-8OZ');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(
    page.getByText(/sku: AUR-VCBC-8OZ is already the SKU of content\/products\/01-vitamin-c-body-cream\.md/),
  ).toBeVisible();
  expect(saved()).toBe(before);
});
