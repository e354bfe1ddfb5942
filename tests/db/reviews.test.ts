import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listReviews, type ReviewInput, submitReview } from '@/features/reviews/reviews.server';
import type { Database } from '@/server/db/database.server';
import { asService, asShopper, type ShopperClaims } from '@/server/db/roles.server';
import { hit, LIMITS } from '@/server/ratelimit.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { attempt, outcomeOf } from './rls-fixtures';
import { freshDatabase, TEST_DATABASE_KIND } from './test-database';

const catalogue = loadCatalogueIndex();

const ann = { sub: '00000000-0000-4000-8000-0000000000a1', email: 'ann.lee@example.com', role: 'authenticated' } as const;
const ben = { sub: '00000000-0000-4000-8000-0000000000b1', email: 'ben@example.com', role: 'authenticated' } as const;

let db: Database;
beforeAll(async () => {
  db = await freshDatabase();
  for (const user of [ann, ben]) await db.query('insert into auth.users (id, email) values ($1, $2)', [user.sub, user.email]);
  // Ann bought the turmeric face soap (product 8): her reviews of it are verified purchases.
  const [order] = await db.query<{ id: string }>(
    `insert into public.orders (user_id, customer_email, customer_name, subtotal_cents, shipping_cents, tax_cents,
       total_cents, payment_intent_id, shipping_address, shipping_method)
     values ($1, $2, 'Ann Lee', 1000, 1000, 89, 2089, 'pi_reviews_test', '{}', '{}') returning id::text`,
    [ann.sub, ann.email],
  );
  await db.query(
    `insert into public.order_items (order_id, product_id, product_name, product_category, price_cents, quantity, product_sku, image)
     values ($1, 8, 'Turmeric Face Soap', 'Face Soap', 1000, 1, 'TFS-001', '/soap.svg')`,
    [order?.id],
  );
}, 60_000);
afterAll(() => db?.close());

const as = <T>(who: ShopperClaims | null, fn: Parameters<typeof asShopper<T>>[2]) => asShopper(db, who, fn);
const list = (who: ShopperClaims | null, productId: number) => as(who, (tx) => listReviews(tx, productId));
const submit = (who: ShopperClaims | null, input: ReviewInput) => as(who, (tx) => submitReview(tx, catalogue, input));
const approve = (id: string) =>
  asService(db, (tx) => tx.query('update public.product_reviews set is_approved = true where id = $1', [id]));
const storedCount = async () =>
  (await asService(db, (tx) => tx.query<{ n: number }>('select count(*)::int as n from public.product_reviews')))[0]?.n;

describe(`reviews on ${TEST_DATABASE_KIND}`, () => {
  it('a new review is stored unapproved, masked and verified; only its author sees it, marked pending', async () => {
    const result = await submit(ann, { productId: 8, rating: 4, comment: '  Gentle and bright.  ' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.review).toMatchObject({
      author: 'an***@example.com',
      rating: 4,
      comment: 'Gentle and bright.',
      verified: true,
      pending: true,
    });

    const mine = await list(ann, 8);
    expect(mine.reviews.map((r) => [r.id, r.pending])).toEqual([[result.review.id, true]]);
    // Pending reviews count in nobody's numbers, not even the author's.
    expect(mine.approved).toEqual({ count: 0, ratingSum: 0 });
    for (const other of [ben, null]) expect(await list(other, 8)).toEqual({ reviews: [], approved: { count: 0, ratingSum: 0 } });
  });

  it('once approved (as service_role, as the admin’s review queue does) everyone sees it and the totals count it', async () => {
    const first = await submit(ben, { productId: 2, rating: 2, comment: 'Too rich for me.' });
    const second = await submit(ben, { productId: 2, rating: 5, comment: 'Changed my mind in winter.' });
    if (!first.ok || !second.ok) throw new Error('submit failed');
    await approve(first.review.id);

    for (const viewer of [null, ann]) {
      const seen = await list(viewer, 2);
      expect(seen.reviews).toEqual([{ ...first.review, pending: false }]);
      expect(seen.approved).toEqual({ count: 1, ratingSum: 2 });
    }
    // Ben sees his approved review and, newest first, his own still-pending one.
    const bens = await list(ben, 2);
    expect(bens.reviews.map((r) => [r.id, r.pending])).toEqual([
      [second.review.id, true],
      [first.review.id, false],
    ]);
    expect(bens.approved).toEqual({ count: 1, ratingSum: 2 });
  });

  it('verified comes from the shopper’s own orders, never from the request', async () => {
    const anns = await submit(ann, { productId: 1, rating: 5, comment: 'Not bought here.' });
    const bens = await submit(ben, { productId: 8, rating: 5, comment: 'Ann bought it, not me.' });
    expect(anns.ok && anns.review.verified).toBe(false);
    expect(bens.ok && bens.review.verified).toBe(false);
    expect(bens.ok && bens.review.author).toBe('be***@example.com');
  });

  it('another shopper’s review cannot be changed, approved or deleted, and a shopper cannot approve their own', async () => {
    const result = await submit(ann, { productId: 6, rating: 3, comment: 'Nice oil.' });
    if (!result.ok) throw new Error('submit failed');
    const id = result.review.id;
    for (const [who, sql] of [
      ['B', "update public.product_reviews set comment = 'spam' where id = $1"],
      ['B', 'update public.product_reviews set is_approved = true where id = $1'],
      ['B', 'delete from public.product_reviews where id = $1'],
      ['A', 'update public.product_reviews set is_approved = true where id = $1'],
      ['anon', 'delete from public.product_reviews where id = $1'],
    ] as const) {
      expect(outcomeOf(await attempt(db, who, sql, [id])), `${who}: ${sql}`).toBe('permission denied');
    }
    const [row] = await asService(db, (tx) =>
      tx.query<{ comment: string; is_approved: boolean }>(
        'select comment, is_approved from public.product_reviews where id = $1',
        [id],
      ),
    );
    expect(row).toEqual({ comment: 'Nice oil.', is_approved: false });
  });

  it('refuses bad input with the reason, and stores nothing', async () => {
    const good: ReviewInput = { productId: 9, rating: 5, comment: 'Lovely scent.' };
    const cases: [ReviewInput, number, string][] = [
      [{ ...good, productId: 999 }, 404, 'Product not found.'],
      [{ ...good, comment: '' }, 400, 'Review cannot be empty'],
      [{ ...good, comment: ' \n\t ' }, 400, 'Review cannot be empty'],
      [{ ...good, comment: 'x'.repeat(2001) }, 400, 'Reviews can be at most 2000 characters.'],
      [{ ...good, rating: 0 }, 400, 'Rating must be a whole number from 1 to 5.'],
      [{ ...good, rating: 6 }, 400, 'Rating must be a whole number from 1 to 5.'],
      [{ ...good, rating: 4.5 }, 400, 'Rating must be a whole number from 1 to 5.'],
      [{ ...good, comment: 'nul \u0000 inside' }, 400, 'The review contains characters we cannot store.'],
    ];
    const before = await storedCount();
    for (const [input, status, message] of cases) {
      const result = await submit(ann, input);
      expect(result, JSON.stringify(input).slice(0, 80)).toEqual({
        ok: false,
        refusal: expect.objectContaining({ status, message }),
      });
    }
    // A guest is asked to log in, whatever they send.
    expect(await submit(null, good)).toEqual({
      ok: false,
      refusal: expect.objectContaining({ status: 401, message: 'Login to leave a review' }),
    });
    expect(await storedCount()).toBe(before);
  });

  it('takes exactly 2000 characters, counted as PostgreSQL counts them (an emoji is one)', async () => {
    for (const comment of ['a'.repeat(2000), '🌿'.repeat(2000)]) {
      const result = await submit(ben, { productId: 4, rating: 5, comment });
      expect(result.ok && result.review.comment).toBe(comment);
    }
  });

  it('stores markup as plain text: the page renders it as text', async () => {
    const comment = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    const result = await submit(ben, { productId: 7, rating: 1, comment });
    expect(result.ok && result.review.comment).toBe(comment);
    expect((await list(ben, 7)).reviews[0]?.comment).toBe(comment);
  });

  it('lists the newest 100 but counts every approved review in the totals', async () => {
    await asService(db, (tx) =>
      tx.query(
        `insert into public.product_reviews (product_id, user_id, author, rating, comment, is_approved, created_at)
         select 5, null, 'Anonymous', 1 + (n % 5), 'Review ' || n, true, now() - make_interval(mins => n)
         from generate_series(1, 105) as n`,
      ),
    );
    const seen = await list(null, 5);
    expect(seen.reviews).toHaveLength(100);
    expect(seen.reviews[0]?.comment).toBe('Review 1');
    expect(seen.reviews.at(-1)?.comment).toBe('Review 100');
    // Ratings 1 + (n % 5) for n = 1..105: 21 full rounds of 2+3+4+5+1.
    expect(seen.approved).toEqual({ count: 105, ratingSum: 21 * 15 });
  });

  it('the review rate limit allows 5 reviews per shopper in 10 minutes', async () => {
    const bucket = `review:user:${ann.sub}`;
    for (let i = 0; i < 5; i++) expect(await hit(db, bucket, LIMITS.reviewsPerShopper)).toEqual({ ok: true });
    const refused = await hit(db, bucket, LIMITS.reviewsPerShopper);
    expect(refused.ok).toBe(false);
    expect(await hit(db, `review:user:${ben.sub}`, LIMITS.reviewsPerShopper)).toEqual({ ok: true });
  });
});
