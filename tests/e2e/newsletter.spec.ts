import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { failOnce, hydrated, message, openSignedIn } from './journeys';

/** The footer's form, once its island has hydrated and asked whether the shopper is subscribed. */
async function newsletterForm(page: Page) {
  const status = page.waitForResponse((r) => r.url().endsWith('/api/newsletter') && r.request().method() === 'GET');
  await hydrated(page, '.newsletter');
  await status;
  const form = page.locator('form.newsletter');
  return {
    email: form.getByRole('textbox'),
    subscribe: form.getByRole('button', { name: /^Subscribe/ }),
    unsubscribe: form.getByRole('button', { name: 'Unsubscribe' }),
  };
}

test.describe('newsletter', () => {
  test('a shopper subscribes with their own e-mail; the form stays disabled, also after a reload, until they unsubscribe', async ({
    page,
    signedIn: shopper,
  }) => {
    await openSignedIn(page, '/about');
    const form = await newsletterForm(page);

    // The spec's checks, in order, before anything is sent.
    await form.subscribe.click();
    await expect(message(page, 'Please enter your email address')).toBeVisible();
    await form.email.fill('not-an-address');
    await form.subscribe.click();
    await expect(message(page, 'Please enter a valid email address')).toBeVisible();
    await form.email.fill('someone.else@example.com');
    await form.subscribe.click();
    await expect(message(page, 'Email mismatch')).toBeVisible();
    await expect(message(page, 'You can only subscribe with your account email address.')).toBeVisible();

    // The account's e-mail, in any case.
    await form.email.fill(shopper.email.toUpperCase());
    await form.subscribe.click();
    await expect(message(page, 'You’re subscribed! New launches and routines will reach your inbox.')).toBeVisible();
    await expect(form.email).toBeDisabled();
    await expect(page.locator('form.newsletter').getByRole('button', { name: 'Subscribed' })).toBeDisabled();

    await openSignedIn(page, '/contact');
    const again = await newsletterForm(page);
    await expect(again.email).toBeDisabled();
    await expect(page.getByText('You’re subscribed to our newsletter')).toBeVisible();

    await again.unsubscribe.click();
    await expect(message(page, 'You’re unsubscribed. You will get no more newsletters.')).toBeVisible();
    await expect(again.email).toBeEnabled();
    await expect(again.subscribe).toBeEnabled();
  });

  test('subscribed in another tab meanwhile: the spec’s info message, and the form is disabled', async ({
    page,
    baseURL,
    signedIn: shopper,
  }) => {
    await openSignedIn(page, '/about');
    const form = await newsletterForm(page);
    const other = await page.request.post('/api/newsletter', {
      headers: { origin: baseURL ?? '' },
      data: { email: shopper.email },
    });
    expect(other.status()).toBe(201);

    await form.email.fill(shopper.email);
    await form.subscribe.click();
    await expect(message(page, 'You are already subscribed!')).toBeVisible();
    await expect(form.email).toBeDisabled();
  });

  test('a failure says so with the server’s message and leaves the form as it was', async ({ page, signedIn: shopper }) => {
    await openSignedIn(page, '/about');
    const form = await newsletterForm(page);
    await failOnce(page, '**/api/newsletter', 'POST');
    await form.email.fill(shopper.email);
    await form.subscribe.click();
    await expect(message(page, 'Subscription failed')).toBeVisible();
    await expect(message(page, 'Service unavailable')).toBeVisible();
    await expect(form.email).toBeEnabled();
    expect(await (await page.request.get('/api/newsletter')).json()).toEqual({ subscribed: false });
  });

  test('the API: guests are refused, only the account’s e-mail is accepted, a second subscription is a 409', async ({
    page,
    request,
    baseURL,
    signIn,
  }) => {
    const headers = { origin: baseURL ?? '' };
    expect(await (await request.get('/api/newsletter')).json()).toEqual({ subscribed: false });
    for (const res of [
      await request.post('/api/newsletter', { headers, data: { email: 'guest@example.com' } }),
      await request.delete('/api/newsletter', { headers }),
    ]) {
      expect(res.status()).toBe(401);
      expect(await res.json()).toEqual({ error: { code: 'unauthenticated', message: 'Please log in to subscribe' } });
    }

    const shopper = await signIn();
    const post = (data: unknown) => page.request.post('/api/newsletter', { headers, data });
    const mismatch = await post({ email: 'someone.else@example.com' });
    expect(mismatch.status()).toBe(400);
    expect((await mismatch.json()).error.message).toBe('Email mismatch: You can only subscribe with your account email address.');
    expect((await post({ mail: shopper.email })).status()).toBe(400);
    expect((await page.request.get('/api/newsletter')).ok()).toBe(true);
    expect(await (await page.request.get('/api/newsletter')).json()).toEqual({ subscribed: false });

    expect((await post({ email: shopper.email })).status()).toBe(201);
    const twice = await post({ email: shopper.email });
    expect(twice.status()).toBe(409);
    expect(await twice.json()).toEqual({ error: { code: 'already_subscribed', message: 'This email is already subscribed' } });
    expect(await (await page.request.get('/api/newsletter')).json()).toEqual({ subscribed: true });
    // Another shopper's status is their own.
    expect(await (await request.get('/api/newsletter')).json()).toEqual({ subscribed: false });

    const left = await page.request.delete('/api/newsletter', { headers });
    expect(await left.json()).toEqual({ subscribed: false, removed: true });
  });
});
