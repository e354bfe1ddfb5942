import { useStore } from '@nanostores/react';
import { useEffect } from 'react';
import { withAggregateRating } from '../catalogue/jsonld';
import { reviewCount, reviewSummary } from './reviews';
import { shopperReviews } from './reviews.store';
import { Stars } from './Stars';

interface Props {
  productId: number;
  /** The catalogue's review ratings: what the build shows, before shopper reviews are known. */
  ratings: number[];
}

/**
 * The rating by the product's title: the catalogue's numbers at first paint, then the same count and average as the
 * reviews section once GET /api/reviews has answered (approved shopper reviews count), without waiting for the
 * shopper to scroll down to the reviews. It also puts those numbers into the page's JSON-LD AggregateRating, since
 * Google renders scripts before reading structured data.
 */
export default function ProductRating({ productId, ratings }: Props) {
  const shopper = useStore(shopperReviews(productId), { ssr: 'initial' });
  const approved = shopper?.approved ?? { count: 0, ratingSum: 0 };
  const { count, average } = reviewSummary(
    ratings.map((rating) => ({ rating })),
    approved,
  );

  useEffect(() => {
    if (!approved.count || average === null) return;
    const ld = document.querySelector('script[type="application/ld+json"]');
    if (ld?.textContent) ld.textContent = withAggregateRating(ld.textContent, count, average);
  }, [approved.count, count, average]);

  if (average === null) return <span className="muted">No reviews yet</span>;
  return (
    <a href="#reviews">
      <Stars rating={average} /> <span>{reviewCount(count)}</span>
    </a>
  );
}
