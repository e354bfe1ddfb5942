import type { APIRequestContext, Page } from '@playwright/test';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { hydrated, openReviews } from './journeys';

// These journeys stop at "pending": the shop owner approves or rejects in the admin, and
// tests/e2e/admin-content.spec.ts follows a review through /admin/reviews onto the product page (on product 1, which
// no journey here counts the reviews of). The last two tests here feed the page an approved review through a routed
// answer, to check how it shows one without touching the shared database.

/** The review form of a signed-in shopper (loaded on first use). */
async function reviewForm(page: Page) {
  const form = page.locator('#reviews form');
  await expect(form.getByRole('group', { name: 'Your rating' })).toBeVisible();
  return form;
}

function postReview(request: APIRequestContext, baseURL: string | undefined, data: unknown) {
  return request.post('/api/reviews', { headers: { origin: baseURL ?? '' }, data });
}

test.describe('reviews', () => {
  test('a guest is asked to log in to leave a review, and the button opens the login dialog', async ({ page }) => {
    const reviews = await openReviews(page, 8);
    await expect(reviews.getByText('Login to leave a review')).toBeVisible();
    await expect(reviews.locator('form')).toHaveCount(0);
    await reviews.getByRole('button', { name: 'Log in' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel('Email')).toBeVisible();
  });

  test('a signed-in shopper submits a review: toast, then shown to them alone as awaiting approval', async ({
    page,
    browser,
    signIn,
    signedIn: shopper,
  }) => {
    const reviews = await openReviews(page, 2);
    const form = await reviewForm(page);

    // The rating defaults to 5 and is a keyboard-operable radio group.
    await expect(form.getByRole('radio', { name: '5 stars' })).toBeChecked();
    await form.getByRole('radio', { name: '5 stars' }).focus();
    await page.keyboard.press('ArrowLeft');
    await expect(form.getByRole('radio', { name: '4 stars' })).toBeChecked();

    const comment = `Rich but it sinks in fast. ${Date.now()}`;
    await form.getByLabel('Your review').fill(comment);
    await form.getByRole('button', { name: 'Submit Review' }).click();
    await expect(page.getByText('Review submitted! will reflect in a moment.')).toBeVisible();
    await expect(form.getByLabel('Your review')).toHaveValue('');

    const mine = reviews.locator('.reviews-live .review', { hasText: comment });
    await expect(mine).toBeVisible();
    await expect(mine.getByText('Awaiting approval')).toBeVisible();
    await expect(mine.getByRole('img', { name: '4 out of 5 stars' })).toBeVisible();
    await expect(mine.locator('.review-author')).toHaveText(`${shopper.email.slice(0, 2)}***@example.com`);
    // Pending reviews count in nobody's numbers: still the catalogue's two reviews.
    await expect(reviews.locator('.reviews-live .reviews-summary')).toContainText('Average of 2 reviews');
    await expect(page.locator('.product-rating')).toContainText('2 reviews');

    // Still there, still pending, after a reload (now from GET /api/reviews).
    await openReviews(page, 2);
    await expect(mine.getByText('Awaiting approval')).toBeVisible();

    // A guest and another shopper never see it.
    const guest = await browser.newPage();
    const guestReviews = await openReviews(guest, 2);
    await expect(guestReviews.getByText(comment)).toHaveCount(0);
    await expect(guestReviews.locator('.review')).toHaveCount(2);
    await guest.close();

    const other = await browser.newPage();
    await signIn(other.request, 'Ben');
    const otherReviews = await openReviews(other, 2);
    await reviewForm(other);
    await expect(otherReviews.getByText(comment)).toHaveCount(0);
    const answer = await (await other.request.get('/api/reviews?productId=2')).json();
    expect(JSON.stringify(answer)).not.toContain(comment);
    await other.close();
  });

  test('the form checks the comment before sending: empty, whitespace, over 2000 characters', async ({ page, signIn }) => {
    await signIn();
    await openReviews(page, 9);
    const form = await reviewForm(page);
    let posts = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/reviews')) posts++;
    });
    const submit = form.getByRole('button', { name: 'Submit Review' });

    await submit.click();
    await expect(form.getByRole('alert')).toHaveText('Review cannot be empty');
    await form.getByLabel('Your review').fill('   \n  ');
    await submit.click();
    await expect(form.getByRole('alert')).toHaveText('Review cannot be empty');
    await form.getByLabel('Your review').fill('a'.repeat(2001));
    await expect(form.getByText('2001 / 2000 characters')).toBeVisible();
    await submit.click();
    await expect(form.getByRole('alert')).toHaveText('Reviews can be at most 2000 characters.');
    await expect(form.getByLabel('Your review')).toHaveAttribute('aria-invalid', 'true');
    expect(posts).toBe(0);
  });

  test('markup in a review is shown as text and never runs', async ({ page, signIn }) => {
    const dialogs: string[] = [];
    page.on('dialog', async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    await signIn();
    const reviews = await openReviews(page, 7);
    const form = await reviewForm(page);
    const comment = '<img src=x onerror=alert(1)> <script>alert(2)</script> <b>bold</b>';
    await form.getByLabel('Your review').fill(comment);
    await form.getByRole('button', { name: 'Submit Review' }).click();
    await expect(page.getByText('Review submitted! will reflect in a moment.')).toBeVisible();

    for (const pass of ['just submitted', 'after a reload']) {
      if (pass === 'after a reload') await openReviews(page, 7);
      const mine = reviews.locator('.reviews-live .review', { hasText: 'onerror' });
      await expect(mine.locator('p'), pass).toHaveText(comment);
      await expect(mine.locator('img, script, b'), pass).toHaveCount(0);
    }
    expect(dialogs).toEqual([]);
  });

  test('a failed submission says so: the sixth review in ten minutes is refused', async ({ page, baseURL, signIn }) => {
    await signIn();
    for (let i = 1; i <= 5; i++) {
      const res = await postReview(page.request, baseURL, { productId: 4, comment: `Review number ${i}` });
      expect(res.status()).toBe(201);
    }
    await openReviews(page, 4);
    const form = await reviewForm(page);
    await form.getByLabel('Your review').fill('One more');
    await form.getByRole('button', { name: 'Submit Review' }).click();
    await expect(page.getByText('Failed to submit review')).toBeVisible();
    await expect(page.getByText('You have sent several reviews in a short time.', { exact: false })).toBeVisible();
    // What was typed is kept for a later try.
    await expect(form.getByLabel('Your review')).toHaveValue('One more');
  });

  test('the API answers every case with the right status and message, and stores only good reviews', async ({
    page,
    request,
    baseURL,
    signIn,
  }) => {
    // A guest (the plain request context has no session).
    const guest = await postReview(request, baseURL, { productId: 8, comment: 'Nice' });
    expect(guest.status()).toBe(401);
    expect(await guest.json()).toEqual({ error: { code: 'unauthenticated', message: 'Login to leave a review' } });

    await signIn();
    const cases: [unknown, number, string][] = [
      [{ productId: 999, comment: 'Nice' }, 404, 'Product not found.'],
      [{ productId: 8, comment: '' }, 400, 'Review cannot be empty'],
      [{ productId: 8, comment: ' \n\t ' }, 400, 'Review cannot be empty'],
      [{ productId: 8 }, 400, 'Review cannot be empty'],
      [{ productId: 8, comment: 'x'.repeat(2001) }, 400, 'Reviews can be at most 2000 characters.'],
      [{ productId: 8, rating: 7, comment: 'Nice' }, 400, 'Rating must be a whole number from 1 to 5.'],
      [{ productId: 8, rating: 4.5, comment: 'Nice' }, 400, 'Rating must be a whole number from 1 to 5.'],
      [{ productId: 'eight', comment: 'Nice' }, 400, 'productId must be a product id.'],
    ];
    for (const [data, status, message] of cases) {
      const res = await postReview(page.request, baseURL, data);
      expect(res.status(), JSON.stringify(data).slice(0, 60)).toBe(status);
      expect((await res.json()).error.message).toBe(message);
    }
    expect((await (await page.request.get('/api/reviews?productId=8')).json()).reviews).toEqual([]);

    // The rating defaults to 5; the answer is the stored, pending review.
    const created = await postReview(page.request, baseURL, { productId: 8, comment: '  Clean, not tight.  ' });
    expect(created.status()).toBe(201);
    const { review } = await created.json();
    expect(review).toMatchObject({ rating: 5, comment: 'Clean, not tight.', pending: true, verified: false });
    expect(review.author).toMatch(/^ma\*\*\*@example\.com$/);
    const listed = await (await page.request.get('/api/reviews?productId=8')).json();
    expect(listed).toEqual({ reviews: [review], approved: { count: 0, ratingSum: 0 } });

    expect((await request.get('/api/reviews?productId=999')).status()).toBe(404);
    expect((await request.get('/api/reviews?productId=x')).status()).toBe(400);
  });

  test('the signed-in review form, a pending review and a form error have no WCAG 2.2 AA violations', async ({
    page,
    baseURL,
    signIn,
  }) => {
    await signIn();
    await postReview(page.request, baseURL, { productId: 6, rating: 3, comment: 'Absorbs quickly, subtle scent.' });
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      const reviews = await openReviews(page, 6);
      const form = await reviewForm(page);
      await expect(reviews.getByText('Awaiting approval')).toBeVisible();
      await form.getByRole('button', { name: 'Submit Review' }).click();
      await expect(form.getByRole('alert')).toBeVisible();
      expect(await axeViolations(page, '#reviews')).toEqual([]);
    }
  });

  test('approved shopper reviews join the list, and the summary by the title and the JSON-LD follow (routed answer)', async ({
    page,
  }) => {
    // Product 8's catalogue reviews are rated 5, 4 and 5. The answer below is what GET /api/reviews returns once a
    // 1-star shopper review is approved (its real counterpart is checked in tests/db/reviews.test.ts).
    await page.route('**/api/reviews?productId=8', (route) =>
      route.fulfill({
        json: {
          reviews: [
            {
              id: '3f0c2a9e-1111-4c1e-9a53-5a6b7c8d9e01',
              author: 'jo***@example.com',
              rating: 1,
              comment: 'Dried my skin out, sadly.',
              date: '2026-11-20T09:30:00.000Z',
              verified: true,
              pending: false,
            },
          ],
          approved: { count: 1, ratingSum: 1 },
        },
      }),
    );
    const reviews = await openReviews(page, 8);
    const live = reviews.locator('.reviews-live');
    // 5 + 4 + 5 + 1 = 15 over 4 reviews = 3.75 → 4 stars.
    await expect(live.locator('.reviews-summary')).toContainText('Average of 4 reviews');
    await expect(live.locator('.reviews-summary').getByRole('img')).toHaveAccessibleName('4 out of 5 stars');
    await expect(live.locator('.review')).toHaveCount(4);
    await expect(live.locator('.review').first()).toContainText('Dried my skin out, sadly.');
    await expect(live.locator('.review').first()).toContainText('Verified purchase');
    await expect(live.locator('.review').first()).not.toContainText('Awaiting approval');
    // The build's list steps aside for the live one.
    await expect(reviews.locator('.reviews-static')).toBeHidden();

    const top = page.locator('.product-rating');
    await expect(top.getByRole('link', { name: /4 reviews/ })).toBeVisible();
    await expect(top.getByRole('link', { name: /3 reviews/ })).toBeHidden();
    await expect(top.getByRole('link', { name: /4 reviews/ }).getByRole('img')).toHaveAccessibleName('4 out of 5 stars');

    const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}');
    expect(ld.aggregateRating).toEqual({
      '@type': 'AggregateRating',
      ratingValue: 3.8,
      reviewCount: 4,
      bestRating: 5,
      worstRating: 1,
    });
    expect(ld.name).toBe('Turmeric Face Soap');
  });

  test('the rating by the title follows approved reviews without scrolling, from the one request the list uses too', async ({
    page,
    request,
  }) => {
    // The build's page carries the catalogue's numbers (5, 4 and 5), so that is the first paint.
    const html = await (await request.get('/product/8')).text();
    expect(html).toMatch(/class="product-rating"[\s\S]*?3 reviews/);

    const asked: string[] = [];
    await page.route('**/api/reviews?productId=8', (route) => {
      asked.push(route.request().url());
      return route.fulfill({
        json: {
          reviews: [
            {
              id: '5b1d3c7e-2222-4c1e-9a53-5a6b7c8d9e02',
              author: 'ra***@example.com',
              rating: 1,
              comment: 'Too drying for me.',
              date: '2026-11-21T08:00:00.000Z',
              verified: false,
              pending: false,
            },
          ],
          approved: { count: 1, ratingSum: 1 },
        },
      });
    });
    await page.goto('/product/8');
    const top = page.locator('.product-rating');
    // 5 + 4 + 5 + 1 = 15 over 4 reviews = 3.75 → 4 stars; the reviews section is still far below the fold.
    await expect(top.getByRole('link', { name: /4 reviews/ })).toBeVisible();
    await expect(top.getByRole('link', { name: /4 reviews/ }).getByRole('img')).toHaveAccessibleName('4 out of 5 stars');
    await expect(top.getByText('3 reviews')).toHaveCount(0);
    await expect(page.locator('#reviews')).not.toBeInViewport();
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}');
    expect(ld.aggregateRating).toMatchObject({ ratingValue: 3.8, reviewCount: 4 });

    // Scrolling down to the reviews shows the same numbers, without asking again.
    await hydrated(page, '.review-form-place');
    await expect(page.locator('.reviews-live .reviews-summary')).toContainText('Average of 4 reviews');
    await expect(page.locator('.reviews-live .review').first()).toContainText('Too drying for me.');
    expect(asked).toHaveLength(1);
  });
});
