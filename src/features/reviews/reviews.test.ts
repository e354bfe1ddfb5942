import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateRating, withAggregateRating } from '../catalogue/jsonld';
import { starCount } from '../catalogue/rating';
import { mergeReviews, type ReviewView, reviewCount, reviewSummary } from './reviews';
import { MAX_REVIEW_LENGTH, REVIEW_MESSAGES, reviewLength, reviewProblem } from './reviews.rules';
import { displayAuthor, reviewRefusal, REVIEW_MESSAGES as SERVER_MESSAGES } from './reviews.server';

const review = (id: string, date: string, rating = 5, pending = false): ReviewView => ({
  id,
  author: 'ni***@example.com',
  rating,
  comment: `comment ${id}`,
  date,
  verified: false,
  pending,
});

describe('the spec’s review messages', () => {
  it('are worded as the spec says', () => {
    expect(SERVER_MESSAGES.loginRequired).toBe('Login to leave a review');
    expect(REVIEW_MESSAGES.empty).toBe('Review cannot be empty');
    expect(REVIEW_MESSAGES.submitted).toBe('Review submitted! will reflect in a moment.');
    expect(REVIEW_MESSAGES.failed).toBe('Failed to submit review');
    expect(REVIEW_MESSAGES.tooLong).toContain(String(MAX_REVIEW_LENGTH));
  });
});

describe('reviewProblem', () => {
  it('refuses a blank or whitespace-only comment', () => {
    for (const blank of ['', ' ', '   ', '\n\t  \n', '\u00a0\u2003']) expect(reviewProblem(blank)).toBe('Review cannot be empty');
  });

  it('takes up to 2000 characters after trimming, and names the limit beyond', () => {
    expect(reviewProblem('Lovely.')).toBeNull();
    expect(reviewProblem(`  ${'a'.repeat(2000)}  `)).toBeNull();
    expect(reviewProblem('a'.repeat(2001))).toBe('Reviews can be at most 2000 characters.');
  });

  it('counts characters as PostgreSQL does (an emoji is one), so the column’s check never refuses what we accept', () => {
    expect(reviewLength('🌿'.repeat(2000))).toBe(2000);
    expect(reviewProblem('🌿'.repeat(2000))).toBeNull();
    expect(reviewProblem('🌿'.repeat(2001))).toBe(REVIEW_MESSAGES.tooLong);
  });
});

describe('mergeReviews', () => {
  const catalogue = [review('r-1', '2026-01-16T00:00:00.000Z'), review('r-2', '2026-08-09T00:00:00.000Z')];

  it('lists the catalogue’s and the shopper reviews together, newest first', () => {
    const shopper = [review('u-2', '2026-11-20T10:00:00.000Z'), review('u-1', '2026-05-01T09:30:00.000Z')];
    expect(mergeReviews(catalogue, shopper).map((r) => r.id)).toEqual(['u-2', 'r-2', 'u-1', 'r-1']);
  });

  it('keeps the caller’s own pending review in the list, marked', () => {
    const merged = mergeReviews(catalogue, [review('u-3', '2026-11-21T00:00:00.000Z', 2, true)]);
    expect(merged[0]).toMatchObject({ id: 'u-3', pending: true });
  });

  it('lists a review once even if it arrives twice (submitted, then listed again)', () => {
    const mine = review('u-4', '2026-11-22T00:00:00.000Z');
    expect(mergeReviews(catalogue, [mine, mine]).map((r) => r.id)).toEqual(['u-4', 'r-2', 'r-1']);
  });

  it('is always sorted newest first and loses nothing (property)', () => {
    const day = fc.integer({ min: 0, max: 4000 }).map((d) => new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString());
    fc.assert(
      fc.property(fc.array(day, { maxLength: 12 }), fc.array(day, { maxLength: 12 }), (a, b) => {
        const merged = mergeReviews(
          a.map((d, i) => review(`c${i}`, d)),
          b.map((d, i) => review(`s${i}`, d)),
        );
        expect(merged).toHaveLength(a.length + b.length);
        for (let i = 1; i < merged.length; i++)
          expect(Date.parse(merged[i - 1]?.date ?? '')).toBeGreaterThanOrEqual(Date.parse(merged[i]?.date ?? ''));
      }),
    );
  });
});

describe('reviewSummary and the stars it shows', () => {
  const catalogue = [{ rating: 5 }, { rating: 4 }, { rating: 5 }];

  it('is the catalogue’s numbers when no shopper review is approved', () => {
    const s = reviewSummary(catalogue, { count: 0, ratingSum: 0 });
    expect(s.count).toBe(3);
    expect(s.average).toBeCloseTo(14 / 3);
    expect(starCount(s.average ?? 0)).toBe(5);
  });

  it('counts approved shopper reviews in the count and the average', () => {
    // 5 + 4 + 5 + 1 + 1 = 16 over 5 reviews = 3.2 → 3 stars.
    const s = reviewSummary(catalogue, { count: 2, ratingSum: 2 });
    expect(s).toEqual({ count: 5, average: 3.2 });
    expect(starCount(3.2)).toBe(3);
    // 4.5 rounds up to 5 stars; 4.49 down to 4.
    expect(starCount(reviewSummary([{ rating: 5 }, { rating: 4 }], { count: 0, ratingSum: 0 }).average ?? 0)).toBe(5);
    expect(starCount(4.49)).toBe(4);
  });

  it('has no average without reviews, and at least one star with any', () => {
    expect(reviewSummary([], { count: 0, ratingSum: 0 })).toEqual({ count: 0, average: null });
    expect(starCount(reviewSummary([], { count: 1, ratingSum: 1 }).average ?? 0)).toBe(1);
  });

  it('says "1 review" and "N reviews"', () => {
    expect(reviewCount(1)).toBe('1 review');
    expect(reviewCount(4)).toBe('4 reviews');
  });
});

describe('JSON-LD AggregateRating', () => {
  it('carries the numbers the page shows', () => {
    expect(aggregateRating(5, 3.2)).toEqual({
      '@type': 'AggregateRating',
      ratingValue: 3.2,
      reviewCount: 5,
      bestRating: 5,
      worstRating: 1,
    });
    expect(aggregateRating(3, 14 / 3)).toMatchObject({ ratingValue: 4.7, reviewCount: 3 });
  });

  it('replaces the rating in the page’s JSON-LD and keeps everything else, with "<" still escaped', () => {
    const ld = JSON.stringify({
      '@type': 'Product',
      name: 'Soap </script>',
      aggregateRating: aggregateRating(3, 14 / 3),
    }).replace(/</g, '\\u003c');
    const updated = withAggregateRating(ld, 5, 3.2);
    expect(updated).not.toContain('<');
    expect(JSON.parse(updated)).toEqual({ '@type': 'Product', name: 'Soap </script>', aggregateRating: aggregateRating(5, 3.2) });
  });
});

describe('displayAuthor (masking)', () => {
  it('keeps an author the database already masked', () => {
    expect(displayAuthor('ma***@example.com')).toBe('ma***@example.com');
    expect(displayAuthor('a***@example.com')).toBe('a***@example.com');
  });

  it('masks a raw address and leaves a name alone', () => {
    expect(displayAuthor('maya.t@example.com')).toBe('ma***@example.com');
    expect(displayAuthor('Anonymous')).toBe('Anonymous');
  });
});

describe('reviewRefusal', () => {
  const catalogue = new Map([
    [
      8,
      {
        id: 8,
        name: 'Turmeric Face Soap',
        category: 'Face Soap',
        priceCents: 1000,
        sku: 'TFS-001',
        weight: 0.3,
        inStock: true,
        finalSale: false,
        colors: [],
        colorNames: {},
        sizes: [],
        image: '/soap.svg',
      },
    ],
  ]);
  const ok = { productId: 8, rating: 5, comment: 'Lovely' };

  it('accepts a good review', () => {
    expect(reviewRefusal(catalogue, ok)).toBeNull();
  });

  it('answers 404 for a product not in the catalogue, 400 for a bad rating or comment', () => {
    expect(reviewRefusal(catalogue, { ...ok, productId: 99 })).toMatchObject({ status: 404, message: 'Product not found.' });
    for (const rating of [0, 6, 4.5, Number.NaN])
      expect(reviewRefusal(catalogue, { ...ok, rating })).toMatchObject({ status: 400, code: 'invalid_rating' });
    expect(reviewRefusal(catalogue, { ...ok, comment: '  ' })).toMatchObject({ status: 400, message: 'Review cannot be empty' });
    expect(reviewRefusal(catalogue, { ...ok, comment: 'x'.repeat(2001) })).toMatchObject({
      status: 400,
      message: 'Reviews can be at most 2000 characters.',
    });
    expect(reviewRefusal(catalogue, { ...ok, comment: 'a\u0000b' })).toMatchObject({ status: 400, code: 'invalid_characters' });
  });
});
