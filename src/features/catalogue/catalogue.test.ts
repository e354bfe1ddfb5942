import { describe, expect, it } from 'vitest';
import { averageRating, categoryLabel, filterByCategory, formatPrice, maskEmail, starCount } from './catalogue';

describe('formatPrice', () => {
  it('shows integer cents as dollars', () => {
    expect(formatPrice(3500)).toBe('$35.00');
    expect(formatPrice(999)).toBe('$9.99');
    expect(formatPrice(50000)).toBe('$500.00');
  });
});

describe('star rating', () => {
  it('rounds the average to the nearest whole star', () => {
    expect(starCount(4.4)).toBe(4);
    expect(starCount(4.5)).toBe(5);
    expect(starCount(3.49)).toBe(3);
  });

  it('always shows 1 to 5 stars', () => {
    expect(starCount(0.2)).toBe(1);
    expect(starCount(7)).toBe(5);
  });

  it('averages review ratings, and has no average without reviews', () => {
    expect(averageRating([{ rating: 5 }, { rating: 4 }, { rating: 4 }])).toBeCloseTo(13 / 3);
    expect(averageRating([])).toBeNull();
  });
});

describe('filterByCategory', () => {
  const products = [
    { id: 1, mainCategories: ['skincare' as const] },
    { id: 3, mainCategories: ['scrub set' as const, 'medical supplies' as const] },
    { id: 9, mainCategories: ['haircare' as const] },
  ];

  it("keeps everything for 'all', in catalogue order", () => {
    expect(filterByCategory(products, 'all').map((p) => p.id)).toEqual([1, 3, 9]);
  });

  it('keeps the products of one main category', () => {
    expect(filterByCategory(products, 'medical supplies').map((p) => p.id)).toEqual([3]);
    expect(filterByCategory(products, 'accessories')).toEqual([]);
  });

  it('labels chips in title case', () => {
    expect(categoryLabel('all')).toBe('All');
    expect(categoryLabel('scrub set')).toBe('Scrub Set');
  });
});

describe('maskEmail', () => {
  it('hides most of the local part', () => {
    expect(maskEmail('maya.t@example.com')).toBe('ma***@example.com');
    expect(maskEmail('jo@example.com')).toBe('j***@example.com');
    expect(maskEmail('a@example.com')).toBe('a***@example.com');
  });

  it('leaves names that are not e-mail addresses alone', () => {
    expect(maskEmail('Anonymous')).toBe('Anonymous');
  });
});
