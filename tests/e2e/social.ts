import { expect, type Page } from '@playwright/test';

/** Opens `path` and waits until the page knows the shopper is signed in (the header's online indicator). */
export async function openSignedIn(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.getByTestId('online-indicator')).toContainText('Online:');
}

/** A toast (or any text) shown exactly so. */
export function message(page: Page, text: string) {
  return page.getByText(text, { exact: true });
}

/** The home grid's card of a product, found by its name. */
export function card(page: Page, name: string) {
  return page.locator('.product-card', { has: page.locator('.card-name', { hasText: name }) });
}

/** Makes the next matching API call fail with a 500, as a server or database outage would. */
export async function failOnce(page: Page, url: string, method: string): Promise<void> {
  await page.route(
    url,
    (route) =>
      route.request().method() === method
        ? route.fulfill({ status: 500, json: { error: { code: 'unavailable', message: 'Service unavailable' } } })
        : route.fallback(),
    { times: 1 },
  );
}

/**
 * The shopper signs out in another tab while this page still shows them signed in. They are active here first, and
 * the page's activity report (sent at most once a minute, which would notice the sign-out and forget the shopper,
 * taking away the buttons under test) is let through before the sign-out, so what happens next is up to the island
 * under test. wishlist.spec.ts also signs out from a real second tab, report and all.
 */
export async function signOutInAnotherTab(page: Page, origin: string): Promise<void> {
  const report = page
    .waitForResponse((r) => r.url().endsWith('/api/auth/session') && r.request().method() === 'POST', { timeout: 2000 })
    .catch(() => null); // none due: one was sent (and answered) within the last minute
  await page.keyboard.press('Shift');
  await report;
  await page.request.post('/api/auth/logout', { headers: { origin } });
}
