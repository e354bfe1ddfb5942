import { test as base, type Page, type Request } from '@playwright/test';
import { type FakeGeoapify, startFakeGeoapify } from '../mocks/geoapify';
import { axeViolations } from './axe';
import { expect } from './fixtures';
import { addFromProductPage, openCart } from './journeys';
import { type SecondShop, startSecondShop, testOn } from './second-shop';

// Address suggestions in the checkout's street field, end to end in Chromium. With Geoapify configured: a second
// built shop of its own, with a key and GEOAPIFY_API_BASE pointing its adapter at tests/mocks/geoapify.ts, a local
// server speaking Geoapify's wire format. Without: the main end-to-end server, on the embedded defaults, where the
// form is typed by hand and no suggestion list ever appears.

const API_KEY = 'aurelia0e2e0geoapify0key';

interface GeoapifyShop {
  origin: string;
  fake: FakeGeoapify;
}

/** The mock Geoapify, then the built shop configured for it (a key, GEOAPIFY_API_BASE at the mock). */
async function startGeoapifyShop(): Promise<GeoapifyShop & { stop: () => Promise<void> }> {
  const fake = await startFakeGeoapify({ apiKey: API_KEY });
  let shop: SecondShop | undefined;
  try {
    shop = await startSecondShop('geoapify', { GEOAPIFY_API_KEY: API_KEY, GEOAPIFY_API_BASE: fake.origin });
    // The server said which adapter it runs, and where its calls go.
    expect(shop.output()).toContain(`address suggestions: Geoapify (API at ${fake.origin}`);
  } catch (error) {
    await shop?.stop();
    await fake.stop();
    throw error;
  }
  const started = shop;
  return {
    origin: started.origin,
    fake,
    stop: async () => {
      await started.stop();
      await fake.stop();
    },
  };
}

const test = testOn(startGeoapifyShop, 180_000);

/** From a product page to the address stage; returns the form and its street field. */
async function toAddress(page: Page) {
  await addFromProductPage(page, 8);
  const drawer = await openCart(page);
  await drawer.getByRole('button', { name: 'Checkout' }).click();
  const form = page.getByRole('form', { name: 'Shipping address' });
  await expect(form).toBeVisible();
  return { form, street: form.getByLabel('Street address') };
}

/** Every request the page makes to the suggestion endpoint. */
function suggestionRequests(page: Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/address-suggestions') seen.push(r);
  });
  return seen;
}

test.describe('address suggestions with Geoapify (a mock Geoapify)', () => {
  test.describe.configure({ mode: 'default' });
  // Two cores shared with other work: the drawer and a second server can take more than the default 30 s.
  test.slow();

  test('typing a street lists 5 US addresses; the keyboard chooses one and it fills street, city, state and ZIP', async ({
    page,
    shop,
  }) => {
    const { fake } = shop;
    const sent = suggestionRequests(page);
    const browserToVendor: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(fake.origin) || r.url().includes(API_KEY)) browserToVendor.push(r.url());
    });
    await page.goto('/');
    const { form, street } = await toAddress(page);
    await expect(street).toHaveRole('combobox');
    await expect(street).toHaveAttribute('aria-expanded', 'false');

    await street.pressSequentially('100 Main', { delay: 40 });
    const list = form.getByRole('listbox', { name: 'Address suggestions' });
    await expect(list).toBeVisible();
    const options = list.getByRole('option');
    await expect(options).toHaveText([
      '100 Main Street, Springfield, IL 62701',
      '100 Main Street, Burlington, VT 05401',
      '100 Main Street, Columbia, SC 29201',
      '100 Main Street, Houston, TX 77002',
      '100 Main Street, Salt Lake City, UT 84101',
    ]);
    await expect(street).toHaveAttribute('aria-expanded', 'true');
    await expect(street).toHaveAttribute('aria-controls', (await list.getAttribute('id')) ?? '');
    // Debounced: a few requests for eight keystrokes, none under 3 characters, the last for the whole text.
    expect(sent.length).toBeLessThan(8);
    expect(sent.map((r) => new URL(r.url()).searchParams.get('text'))).not.toContain('10');
    expect(new URL(sent.at(-1)?.url() ?? '').searchParams.get('text')).toBe('100 Main');
    // The server asked the vendor with its key; the browser never saw the key or the vendor.
    expect(fake.requests.at(-1)?.query.get('apiKey')).toBe(API_KEY);
    expect(browserToVendor).toEqual([]);

    const ids = await options.evaluateAll((els) => els.map((el) => el.id));
    await street.press('ArrowDown');
    await expect(street).toHaveAttribute('aria-activedescendant', ids[0] ?? '');
    await expect(options.nth(0)).toHaveAttribute('aria-selected', 'true');
    await street.press('ArrowDown');
    await expect(street).toHaveAttribute('aria-activedescendant', ids[1] ?? '');
    await street.press('ArrowUp');
    await street.press('ArrowUp');
    // Up from the first wraps to the last.
    await expect(street).toHaveAttribute('aria-activedescendant', ids[4] ?? '');
    await street.press('ArrowDown');
    await expect(street).toHaveAttribute('aria-activedescendant', ids[0] ?? '');
    await street.press('Enter');

    await expect(list).toBeHidden();
    await expect(street).toHaveAttribute('aria-expanded', 'false');
    await expect(street).toHaveValue('100 Main Street');
    await expect(form.getByLabel('City')).toHaveValue('Springfield');
    await expect(form.getByLabel('State')).toHaveValue('IL');
    await expect(form.getByLabel('ZIP code')).toHaveValue('62701');
    await expect(street).toBeFocused();

    // The rest of the form, then Continue: the chosen address is the one shipped to.
    await form.getByLabel('Full name').fill('Ada Lovelace');
    await form.getByLabel('Email').fill('ada@example.com');
    await form.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByText('Ada Lovelace, 100 Main Street, Springfield, Illinois 62701')).toBeVisible();
  });

  test('a click chooses too; Escape closes the list but not the drawer; on a phone the list fits the screen', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/');
    const { form, street } = await toAddress(page);
    await street.pressSequentially('455 Mark', { delay: 40 });
    const list = form.getByRole('listbox', { name: 'Address suggestions' });
    await expect(list.getByRole('option')).toHaveText(['455 Market Street, San Francisco, CA 94105']);
    const box = await list.boundingBox();
    expect(box?.x ?? -1).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 999)).toBeLessThanOrEqual(390);
    // The open list passes axe, as the rest of the drawer does.
    expect(await axeViolations(page, '.cart-drawer')).toEqual([]);

    await street.press('Escape');
    await expect(list).toBeHidden();
    await expect(page.getByRole('dialog', { name: 'Checkout' })).toBeVisible();
    await expect(street).toHaveValue('455 Mark');

    // Down opens the list again; a click on an option chooses it.
    await street.press('ArrowDown');
    await expect(list).toBeVisible();
    await list.getByRole('option', { name: '455 Market Street, San Francisco, CA 94105' }).click();
    await expect(street).toHaveValue('455 Market Street');
    await expect(form.getByLabel('City')).toHaveValue('San Francisco');
    await expect(form.getByLabel('State')).toHaveValue('CA');
    await expect(form.getByLabel('ZIP code')).toHaveValue('94105');
    await expect(list).toBeHidden();
  });

  test('a newer keystroke makes the request before it stale: its answer, however late, never shows', async ({ page }) => {
    await page.goto('/');
    const { form, street } = await toAddress(page);
    // The answer about '100 Main' is held back until the shopper has moved on to another street.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/address-suggestions?*', async (route) => {
      if (new URL(route.request().url()).searchParams.get('text') === '100 Main') await held;
      await route.continue();
    });
    const staleAnswered = page.waitForResponse(
      (r) => r.url().includes('/api/address-suggestions') && new URL(r.url()).searchParams.get('text') === '100 Main',
    );
    await street.fill('100 Main');
    await page.waitForRequest((r) => r.url().includes('text=100+Main') || r.url().includes('text=100%20Main'));
    await street.fill('12 Bull');
    const list = form.getByRole('listbox', { name: 'Address suggestions' });
    await expect(list.getByRole('option')).toHaveText(['12 Bull Street, Savannah, GA 31401']);
    release();
    // The stale answer reaches the page (it was not aborted: it could still have said the shop has no suggestions)...
    const answer = await staleAnswered;
    expect(answer.status()).toBe(200);
    await answer.finished();
    // ...and, once the page has had a frame to show it, has not replaced the list.
    await page.evaluate(() => new Promise((shown) => requestAnimationFrame(() => requestAnimationFrame(shown))));
    await expect(list.getByRole('option')).toHaveText(['12 Bull Street, Savannah, GA 31401']);
  });

  test('when Geoapify fails no list appears, and the address is typed by hand', async ({ page, shop }) => {
    await page.goto('/');
    const { form, street } = await toAddress(page);
    shop.fake.failNext(500);
    const answered = page.waitForResponse((r) => r.url().includes('/api/address-suggestions'));
    await street.fill('100 Main');
    expect((await answered).status()).toBe(502);
    await expect(form.getByRole('listbox')).toBeHidden();
    await expect(street).toHaveAttribute('aria-expanded', 'false');
    await form.getByLabel('City').fill('Springfield');
    await expect(street).toHaveValue('100 Main');
  });
});

base.describe('address suggestions without a key (the embedded default)', () => {
  base('no suggestion list appears, the field asks once and then stops asking, and the form works by hand', async ({ page }) => {
    const sent = suggestionRequests(page);
    await page.goto('/');
    const { form, street } = await toAddress(page);
    const answered = page.waitForResponse((r) => r.url().includes('/api/address-suggestions'));
    await street.pressSequentially('12 Bull', { delay: 40 });
    const answer = await answered;
    expect(await answer.json()).toEqual({ enabled: false, suggestions: [] });
    await street.pressSequentially(' Street, Savannah', { delay: 40 });
    await form.getByLabel('City').fill('Savannah');
    await expect(form.getByRole('listbox')).toBeHidden();
    await expect(form.locator('[role="option"]')).toHaveCount(0);
    await expect(street).toHaveAttribute('aria-expanded', 'false');
    expect(sent).toHaveLength(1);
    await expect(street).toHaveValue('12 Bull Street, Savannah');
  });
});
