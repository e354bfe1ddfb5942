import { createHash } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { allHydrated, hydrated, openCart } from './journeys';

/** Smallest tap target the shop gives a control (the menu button's size, WCAG 2.5.5's 44 × 44 CSS px). */
const TAP = 44;
const LONG_FIRST_NAME = 'Maximiliana-Josephine Alexandr'; // 30 characters

/** What a shopper would see go wrong in the header at the current viewport size. */
async function headerProblems(page: Page): Promise<string[]> {
  return page.evaluate((tap) => {
    const problems: string[] = [];
    const width = window.innerWidth;
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth) problems.push(`page scrolls sideways: ${doc.scrollWidth} > ${doc.clientWidth}`);
    const shown = (el: Element | null): el is HTMLElement => el instanceof HTMLElement && el.getClientRects().length > 0;
    const oneLine = (el: HTMLElement) => {
      const style = getComputedStyle(el);
      const content = el.clientHeight - Number.parseFloat(style.paddingTop) - Number.parseFloat(style.paddingBottom);
      return content < 1.5 * Number.parseFloat(style.lineHeight);
    };
    for (const selector of ['.cart-badge', '.menu-button', '.account-button']) {
      const el = document.querySelector(selector);
      if (!shown(el)) continue;
      const box = el.getBoundingClientRect();
      if (box.left < 0 || box.right > width) problems.push(`${selector} not fully on screen: ${box.left}–${box.right}`);
      if (box.width < tap || box.height < tap) problems.push(`${selector} is ${box.width} × ${box.height}`);
    }
    const greeting = document.querySelector('.online-indicator .greeting');
    if (!shown(greeting)) problems.push('no greeting');
    else if (!oneLine(greeting)) problems.push(`greeting wraps: ${greeting.clientHeight} px high`);
    for (const link of document.querySelectorAll('.nav-desktop a')) {
      if (shown(link) && !oneLine(link)) problems.push(`'${link.textContent}' wraps`);
    }
    return problems;
  }, TAP);
}

test.describe('site layout', () => {
  test('guests see Home, Collections, About and Contact, but not My Orders or Wishlist', async ({ page }) => {
    await page.goto('/about');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'About' })).toHaveAttribute('aria-current', 'page');
    for (const name of ['Home', 'Collections', 'About', 'Contact']) await expect(nav.getByRole('link', { name })).toBeVisible();
    await expect(nav.getByRole('link', { name: 'My Orders' })).toHaveCount(0);
    await expect(nav.getByRole('link', { name: 'Wishlist' })).toHaveCount(0);
    await expect(page.getByTestId('online-indicator')).toHaveText('Guest');
  });

  test('on a phone the menu opens, works and closes by itself after 3 s', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const start = new Date('2026-11-22T10:00:00Z');
    await page.clock.install({ time: start });
    await page.goto('/');
    await hydrated(page, '.menu-button');
    // Stop the page's clock so only runFor moves it: the test then measures the page's timer, not the machine's speed.
    await page.clock.pauseAt(new Date(start.getTime() + 60_000));
    const button = page.getByRole('button', { name: 'Menu' });
    const panel = page.locator('.nav-mobile');
    await expect(panel).toBeHidden();

    await button.click();
    await expect(button).toHaveAttribute('aria-expanded', 'true');
    await expect(panel.getByRole('link', { name: 'Contact' })).toBeVisible();
    await page.clock.runFor(2900);
    await expect(panel).toBeVisible();
    await page.clock.runFor(200);
    await expect(panel).toBeHidden();
    await expect(button).toHaveAttribute('aria-expanded', 'false');
  });

  test('a toast shows top-right, 356 px wide, for 4 s, and stays while the pointer holds it', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const start = new Date('2026-11-22T10:00:00Z');
    await page.clock.install({ time: start });
    await page.goto('/product/8');
    await hydrated(page, '.like-button');
    await hydrated(page, '.toaster');
    await page.clock.pauseAt(new Date(start.getTime() + 60_000));
    const like = page.getByRole('button', { name: /Like this product/ });
    const toast = page.getByRole('alert').filter({ hasText: 'Login to like products' });

    await like.click();
    await expect(toast).toBeVisible();
    const region = await page.getByRole('region', { name: 'Notifications' }).boundingBox();
    expect(region?.width).toBe(356);
    expect((region?.x ?? 0) + (region?.width ?? 0)).toBe(1280 - 16); // 1rem from the right edge
    expect(region?.y).toBeLessThan(100); // at the top, just below the header
    await page.clock.runFor(3900);
    await expect(toast).toBeVisible();
    await page.clock.runFor(200);
    await expect(toast).toBeHidden();

    // Pressed and held, a toast stays; let go, it gets its full 4 s again.
    await like.click();
    await expect(toast).toBeVisible();
    await toast.hover();
    await page.mouse.down();
    await page.clock.runFor(10_000);
    await expect(toast).toBeVisible();
    await page.mouse.up();
    await page.clock.runFor(3900);
    await expect(toast).toBeVisible();
    await page.clock.runFor(200);
    await expect(toast).toBeHidden();
  });

  test('the menu closes with Escape and gives focus back to its button', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/');
    await hydrated(page, '.menu-button');
    const button = page.getByRole('button', { name: 'Menu' });
    await button.focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('.nav-mobile')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.locator('.nav-mobile')).toBeHidden();
    await expect(button).toBeFocused();
  });

  test('the header fits a signed-in shopper with a long first name on a 320 px phone, a 390 px phone and a desktop', async ({
    page,
    signIn,
  }) => {
    await signIn(page.request, LONG_FIRST_NAME);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/about');
    await allHydrated(page);
    await expect(page.getByTestId('online-indicator')).toContainText(LONG_FIRST_NAME);
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 320, height: 640 },
      { width: 1280, height: 800 },
    ]) {
      await page.setViewportSize(viewport);
      expect(await headerProblems(page), `${viewport.width} px`).toEqual([]);
    }
    // Nor anywhere in between: the header switches layouts on the way.
    for (let width = 320; width <= 1440; width += 40) {
      await page.setViewportSize({ width, height: 800 });
      expect(await headerProblems(page), `${width} px`).toEqual([]);
    }
    // The whole name stays available to assistive technology (and as a tooltip) however short the greeting is cut.
    await page.setViewportSize({ width: 320, height: 640 });
    await expect(page.getByTestId('online-indicator')).toHaveAttribute('title', `Online: ${LONG_FIRST_NAME}`);

    // On a phone, Log out waits in the menu rather than crowding the row.
    await page.setViewportSize({ width: 390, height: 844 });
    const banner = page.getByRole('banner');
    await banner.getByRole('button', { name: 'Menu' }).click();
    await page.locator('.nav-mobile').getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByTestId('online-indicator')).toHaveText('Guest');
    await expect(page.locator('.nav-mobile')).toBeHidden();
    await expect(banner.getByRole('button', { name: 'Log in' })).toBeVisible();
  });

  test('the footer newsletter asks a guest to log in', async ({ page }) => {
    await page.goto('/about');
    await hydrated(page, '.newsletter');
    await page.getByLabel(/newsletter/).fill('someone@example.com');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await expect(page.getByText('Please log in to subscribe')).toBeVisible();
  });

  test('contact shows the e-mail and phone, and requires every field', async ({ page }) => {
    await page.goto('/contact');
    await expect(page.getByRole('main').getByRole('link', { name: 'hello@aurelia-care.com' })).toBeVisible();
    await expect(page.getByRole('main').getByRole('link', { name: '(404) 555-0143' })).toBeVisible();
    await hydrated(page, '.contact-form');
    await page.getByLabel('Name').fill('Ada');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await expect(page.getByRole('alert')).toHaveText('Please fill in all fields.');
    await page.getByLabel('Email').fill('ada@example');
    await page.getByLabel('Message').fill('Do you ship to Canada?');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await expect(page.getByRole('alert')).toHaveText('Please enter a valid email address');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await expect(page.getByRole('status')).toHaveText("Message sent! We'll get back to you soon.");
    await expect(page.getByLabel('Message')).toHaveValue('');
  });

  test('the wishlist greets guests with a sign-in prompt', async ({ page }) => {
    await page.goto('/wishlist');
    await expect(page.getByRole('heading', { name: 'Private Collection' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Enter Collection' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Create Account' })).toBeVisible();
  });

  test('serves a sitemap and robots.txt', async ({ request }) => {
    const robots = await (await request.get('/robots.txt')).text();
    expect(robots).toContain('Sitemap:');
    const index = await request.get('/sitemap-index.xml');
    expect(index.ok()).toBe(true);
    const sitemap = await (await request.get('/sitemap-0.xml')).text();
    for (let id = 1; id <= 9; id++) expect(sitemap).toContain(`/product/${id}</loc>`);
    expect(sitemap).not.toContain('/orders');
    // The admin is not to be found: it answers 404 to everyone but an admin.
    expect(sitemap).not.toContain('/admin');
  });
});

test('pages send a Content-Security-Policy and nothing a shopper does breaks it', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
  });
  const answer = await page.goto('/product/3');
  // Sent as the header, from the first byte of the page (not repeated in a <meta>, which would cost 0.9 KB a page).
  const csp = (await answer?.allHeaders())?.['content-security-policy'] ?? '';
  expect(csp).toContain("script-src 'self' 'sha256-");
  expect(csp).toContain("object-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  await expect(page.locator('meta[http-equiv="content-security-policy"]')).toHaveCount(0);
  await hydrated(page, '.purchase');
  await page.getByRole('radio', { name: 'Black' }).check();
  await page.getByRole('radio', { name: 'XL', exact: true }).check();
  await page.getByRole('button', { name: 'Add to Cart' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Added 1 × Clinical Scrubs (Black, XL) to your cart' })).toBeVisible();
  await page.getByRole('banner').getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  // The swatch keeps its colour (an SVG fill, since inline styles are not allowed).
  await expect(page.locator('.swatch-dot circle').first()).toHaveAttribute('fill', '#1f5fa8');
  expect(violations).toEqual([]);
});

test('an on-demand page’s policy lists the hashes of its own inline scripts and styles, and nothing it holds breaks', async ({
  page,
  signedIn,
}) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
  });
  const answer = await page.goto('/orders');
  const csp = (await answer?.allHeaders())?.['content-security-policy'] ?? '';
  const html = (await answer?.text()) ?? '';
  expect(answer?.url()).toMatch(/\/orders$/);
  expect(html).toContain('<title>My Orders');
  const listed = new Set(csp.match(/'sha256-[^']+'/g));
  const inline = new Set(
    [...html.matchAll(/<(script|style)\b([^>]*)>([\s\S]*?)<\/\1>/g)]
      .filter(([, tag, attributes]) => tag === 'style' || !/\ssrc=/.test(` ${attributes}`))
      .map(
        ([, , , text]) =>
          `'sha256-${createHash('sha256')
            .update(text ?? '')
            .digest('base64')}'`,
      ),
  );
  // Astro lists the whole site's hashes (23); the page is sent with the five to seven it holds.
  expect(inline.size).toBeGreaterThan(3);
  expect([...listed].sort()).toEqual([...inline].sort());
  expect(csp).toContain("frame-ancestors 'none'");
  await allHydrated(page);
  await expect(page.getByTestId('online-indicator')).toHaveText(`Online: ${signedIn.firstName}`);
  await openCart(page);
  expect(violations).toEqual([]);
});
