// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { averageRating } from './rating';

interface ProductForLd {
  id: number;
  name: string;
  description: string;
  sku: string;
  priceCents: number;
  inStock: boolean;
  category: string;
  reviews: { author: string; rating: number; date: Date; comment: string }[];
}

/** schema.org Product with its Offer, and an AggregateRating when there are reviews. */
export function productJsonLd(p: ProductForLd, url: string, images: string[]): Record<string, unknown> {
  const avg = averageRating(p.reviews);
  return {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: p.name,
    description: p.description,
    sku: p.sku,
    category: p.category,
    image: images,
    brand: { '@type': 'Brand', name: 'Aurelia' },
    offers: {
      '@type': 'Offer',
      url,
      priceCurrency: 'USD',
      price: (p.priceCents / 100).toFixed(2),
      availability: p.inStock ? 'https://schema.org/InStock' : 'https://schema.org/OutOfStock',
    },
    ...(avg === null ? {} : { aggregateRating: aggregateRating(p.reviews.length, avg) }),
  };
}

/**
 * schema.org AggregateRating for `count` reviews averaging `average`. The page's static JSON-LD covers the catalogue's
 * reviews; the reviews island puts the same numbers it shows here once approved shopper reviews change them.
 */
export function aggregateRating(count: number, average: number): Record<string, unknown> {
  return {
    '@type': 'AggregateRating',
    ratingValue: Number(average.toFixed(1)),
    reviewCount: count,
    bestRating: 5,
    worstRating: 1,
  };
}

/** A page's JSON-LD text with its AggregateRating set to these numbers; '<' stays escaped, as Seo.astro writes it. */
export function withAggregateRating(ld: string, count: number, average: number): string {
  return JSON.stringify({ ...JSON.parse(ld), aggregateRating: aggregateRating(count, average) }).replace(/</g, '\\u003c');
}
