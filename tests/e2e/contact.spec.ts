import { expect, test } from './fixtures';
import { hydrated } from './journeys';

test.describe('contact', () => {
  test('a shopper sending too fast is told to wait, in the server’s words, and can send once it lets them', async ({ page }) => {
    // The real limit is per address, shared by every test on this machine: the 429 is the endpoint's answer, replayed.
    const wait = 'Too many messages. Please wait a moment and try again.';
    await page.route(
      '**/api/contact',
      (route) =>
        route.fulfill({
          status: 429,
          headers: { 'retry-after': '600' },
          json: { error: { code: 'rate_limited', message: wait } },
        }),
      { times: 1 },
    );
    await page.goto('/contact');
    await hydrated(page, '.contact-form');
    await page.getByLabel('Name').fill('Ada');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Message').fill('Do you ship to Canada?');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await expect(page.getByRole('alert')).toHaveText(wait);
    // Nothing typed is lost, so sending again later needs no retyping.
    await expect(page.getByLabel('Message')).toHaveValue('Do you ship to Canada?');

    await page.getByRole('button', { name: 'Send Message' }).click();
    await expect(page.getByRole('status')).toHaveText("Message sent! We'll get back to you soon.");
  });
});
