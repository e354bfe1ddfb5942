import { readFile } from 'node:fs/promises';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { hydrated, openReviews } from './journeys';

// The admin's reviews, messages and subscribers, through the built server. Tests run side by side on one database, so
// each acts only on rows it made itself: reviews are approved on product 1 only (no other journey counts its reviews)
// and never by "select all".

/** Product 1, Vitamin C Body Cream: its catalogue reviews are rated 5, 4 and 5. */
const CREAM = 1;

function postReview(request: APIRequestContext, baseURL: string | undefined, data: unknown) {
  return request.post('/api/reviews', { headers: { origin: baseURL ?? '' }, data });
}

/** The admin's review queue, hydrated, and the card of the review that says `comment`. */
async function queueCard(page: Page, comment: string) {
  await page.goto('/admin/reviews');
  await hydrated(page, '.admin-queue');
  return page.locator('.admin-item', { hasText: comment });
}

test.describe('admin: reviews', () => {
  test('a shopper’s review, approved in the queue, shows on the product page with the title’s rating updated', async ({
    page,
    browser,
    signIn,
    signInAdmin,
  }) => {
    // Two accounts and five page loads across three browsers.
    test.slow();
    await signIn(page.request, 'Rae');
    const reviews = await openReviews(page, CREAM);
    const form = reviews.locator('form');
    await form.getByRole('radio', { name: '1 star', exact: true }).check();
    const comment = `Stung a little on shaved legs. ${Date.now()}`;
    await form.getByLabel('Your review').fill(comment);
    await form.getByRole('button', { name: 'Submit Review' }).click();
    await expect(page.getByText('Review submitted! will reflect in a moment.')).toBeVisible();
    await expect(reviews.locator('.review', { hasText: comment }).getByText('Awaiting approval')).toBeVisible();

    const admin = await browser.newPage();
    await signInAdmin('reviews', admin.request);
    const card = await queueCard(admin, comment);
    await expect(card.getByRole('heading', { name: 'Vitamin C Body Cream' })).toBeVisible();
    await expect(card.getByRole('img', { name: '1 out of 5 stars' })).toBeVisible();
    await expect(card).toContainText(/ra\*\*\*@example\.com \(rae\.[0-9a-f]+@example\.com\)/);
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(admin.getByRole('status').filter({ hasText: 'Review approved' })).toBeVisible();
    await expect(card).toContainText('Approved: shown on the product page.');
    await expect(card.getByRole('button', { name: 'Reject instead' })).toBeVisible();
    await admin.close();

    // Everyone now sees it, without a rebuild: 5 + 4 + 5 + 1 = 15 over 4 reviews = 3.75 → 4 stars.
    const guest = await browser.newPage();
    const shown = await openReviews(guest, CREAM);
    const mine = shown.locator('.reviews-live .review', { hasText: comment });
    await expect(mine).toBeVisible();
    await expect(mine).not.toContainText('Awaiting approval');
    await expect(shown.locator('.reviews-live .reviews-summary')).toContainText('Average of 4 reviews');
    const top = guest.locator('.product-rating');
    await expect(top.getByRole('link', { name: /4 reviews/ })).toBeVisible();
    await expect(top.getByRole('link', { name: /4 reviews/ }).getByRole('img')).toHaveAccessibleName('4 out of 5 stars');
    const ld = JSON.parse((await guest.locator('script[type="application/ld+json"]').textContent()) ?? '{}');
    expect(ld.aggregateRating).toMatchObject({ ratingValue: 3.8, reviewCount: 4 });
    await guest.close();
  });

  test('a rejected review is shown to nobody, its author included, and leaves the queue', async ({
    page,
    browser,
    baseURL,
    signIn,
    signInAdmin,
  }) => {
    test.slow();
    await signIn(page.request, 'Tom');
    const comment = `Buy from my shop instead! ${Date.now()}`;
    expect((await postReview(page.request, baseURL, { productId: CREAM, rating: 1, comment })).status()).toBe(201);

    const admin = await browser.newPage();
    await signInAdmin('reviews-reject', admin.request);
    const card = await queueCard(admin, comment);
    await card.getByRole('button', { name: 'Reject', exact: true }).click();
    await expect(admin.getByRole('status').filter({ hasText: 'Review rejected' })).toBeVisible();
    await expect(card).toContainText('Rejected: shown to nobody.');
    // Reloaded, the queue no longer holds it (and may hold nothing at all, so there may be no island to wait for).
    await admin.goto('/admin/reviews');
    await expect(admin.getByRole('heading', { level: 1 })).toHaveText('Reviews');
    await expect(admin.locator('.admin-item', { hasText: comment })).toHaveCount(0);
    await admin.close();

    // Its author no longer sees it 'Awaiting approval' (nor at all); nor does anyone else.
    const reviews = await openReviews(page, CREAM);
    await expect(reviews.getByText(comment)).toHaveCount(0);
    expect(JSON.stringify(await (await page.request.get(`/api/reviews?productId=${CREAM}`)).json())).not.toContain(comment);
    const guest = await browser.newPage();
    const seen = await openReviews(guest, CREAM);
    await expect(seen.getByText(comment)).toHaveCount(0);
    await guest.close();
  });

  test('several ticked reviews are rejected at once', async ({ page, browser, baseURL, signIn, signInAdmin }) => {
    await signIn(page.request, 'Sal');
    const stamp = Date.now();
    const comments = [`First of two ${stamp}`, `Second of two ${stamp}`];
    for (const comment of comments)
      expect((await postReview(page.request, baseURL, { productId: 5, rating: 2, comment })).status()).toBe(201);

    const admin = await browser.newPage();
    await signInAdmin('reviews-bulk', admin.request);
    const cards = [];
    for (const comment of comments) cards.push(await queueCard(admin, comment));
    for (const card of cards) await card.getByRole('checkbox').check();
    await admin.getByRole('button', { name: 'Reject selected (2)' }).click();
    await expect(admin.getByRole('status').filter({ hasText: '2 reviews rejected' })).toBeVisible();
    for (const card of cards) await expect(card).toContainText('Rejected: shown to nobody.');
    await expect(admin.getByRole('button', { name: 'Reject selected (0)' })).toBeDisabled();
    await admin.close();
  });
});

test.describe('admin: messages', () => {
  test('a contact message is listed newest first and can be marked read, then unread', async ({
    page,
    request,
    baseURL,
    signInAdmin,
  }) => {
    const text = `Do you ship to Canada? ${Date.now()}`;
    const sent = await request.post('/api/contact', {
      headers: { origin: baseURL ?? '' },
      data: { name: 'Ada Lovelace', email: 'ada@example.com', message: text },
    });
    expect(sent.status()).toBe(201);

    await signInAdmin('messages');
    await page.goto('/admin');
    await expect(
      page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: /^Messages \d+ unread$/ }),
    ).toBeVisible();
    await page.getByRole('link', { name: /unread contact messages/ }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Messages');
    await hydrated(page, '.admin-queue');
    const card = page.locator('.admin-item', { hasText: text });
    await expect(card.getByRole('heading', { name: 'Ada Lovelace' })).toBeVisible();
    await expect(card.getByRole('link', { name: 'ada@example.com' })).toHaveAttribute('href', 'mailto:ada@example.com');
    await expect(card.getByText('Unread', { exact: true })).toBeVisible();

    await card.getByRole('button', { name: 'Mark as read' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Marked as read' })).toBeVisible();
    await expect(card.getByText('Unread', { exact: true })).toHaveCount(0);
    await page.reload();
    await hydrated(page, '.admin-queue');
    await expect(card.getByText('Unread', { exact: true })).toHaveCount(0);
    await card.getByRole('button', { name: 'Mark as unread' }).click();
    await expect(card.getByText('Unread', { exact: true })).toBeVisible();

    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Activity' }).click();
    await expect(page.getByRole('row').filter({ hasText: 'Message marked read' }).first()).toBeVisible();
  });
});

test.describe('admin: subscribers', () => {
  test('the newsletter list downloads as CSV', async ({ page, browser, baseURL, signIn, signInAdmin }) => {
    const shopper = await browser.newPage();
    const reader = await signIn(shopper.request, 'Una');
    const subscribed = await shopper.request.post('/api/newsletter', {
      headers: { origin: baseURL ?? '' },
      data: { email: reader.email },
    });
    expect(subscribed.status()).toBe(201);
    await shopper.close();

    await signInAdmin('subscribers');
    await page.goto('/admin/subscribers');
    await expect(page.getByText(/^\d+ newsletter subscribers?$/)).toBeVisible();
    await expect(page.getByRole('cell', { name: reader.email })).toBeVisible();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download all as CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^aurelia-subscribers-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('email,subscribed_at');
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${reader.email.replaceAll('.', '\\.')},\\d{4}-`)));
  });
});

test.describe('admin endpoints', () => {
  test('answer a guest and a shopper 404, and refuse an admin’s request from another site', async ({
    page,
    request,
    baseURL,
    signIn,
    signInAdmin,
  }) => {
    const origin = { origin: baseURL ?? '' };
    const calls = async (r: APIRequestContext) => [
      await r.post('/api/admin/reviews', { headers: origin, data: { ids: [], decision: 'approve' } }),
      await r.post('/api/admin/messages', { headers: origin, data: { ids: [1], read: true } }),
      await r.get('/api/admin/subscribers.csv'),
    ];
    for (const res of await calls(request)) expect(res.status(), res.url()).toBe(404);
    await signIn(page.request, 'Nia');
    for (const res of await calls(page.request)) {
      expect(res.status(), res.url()).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
    }

    const admin = await page.context().browser()?.newContext();
    if (!admin) throw new Error('no browser');
    await signInAdmin('endpoints', admin.request);
    const forged = await admin.request.post('/api/admin/messages', {
      headers: { origin: 'https://evil.example' },
      data: { ids: [1], read: true },
    });
    expect(forged.status()).toBe(403);
    await admin.close();
  });
});
