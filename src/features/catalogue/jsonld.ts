// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { averageRating } from './rating';

interface ProductForLd {
  id: number;
  name: string;
  description: string;
  sku: string;
  /** What it sells for when the page was built; `wasCents` the regular price while a sale runs (else null). */
  priceCents: number;
  wasCents: number | null;
  sale: { endsAt: Date } | null;
  inStock: boolean;
  category: string;
  reviews: { author: string; rating: number; date: Date; comment: string }[];
}

const dollars = (cents: number) => (cents / 100).toFixed(2);

/**
 * During a sale: the day the sale price is last offered (the day of the sale's last moment, UTC) and the regular price
 * as schema.org's strikethrough price, as search engines read a sale.
 */
function saleTerms(p: ProductForLd): Record<string, unknown> {
  if (p.wasCents === null || !p.sale) return {};
  return {
    priceValidUntil: new Date(p.sale.endsAt.getTime() - 1).toISOString().slice(0, 10),
    priceSpecification: {
      '@type': 'UnitPriceSpecification',
      priceType: 'https://schema.org/StrikethroughPrice',
      price: dollars(p.wasCents),
      priceCurrency: 'USD',
    },
  };
}

/** schema.org Product with its Offer (a sale's price with its end), and an AggregateRating when there are reviews. */
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
      price: dollars(p.priceCents),
      ...saleTerms(p),
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
