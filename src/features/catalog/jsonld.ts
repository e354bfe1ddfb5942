import { averageRating } from './catalog';

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
    ...(avg === null
      ? {}
      : {
          aggregateRating: {
            '@type': 'AggregateRating',
            ratingValue: Number(avg.toFixed(1)),
            reviewCount: p.reviews.length,
            bestRating: 5,
            worstRating: 1,
          },
        }),
  };
}
