import { starCount } from '../catalogue/rating';

/** A rating as stars, rounded to whole ones, named for screen readers. */
export function Stars({ rating }: { rating: number }) {
  const n = starCount(rating);
  return (
    <span className="stars" role="img" aria-label={`${n} out of 5 stars`}>
      {'★'.repeat(n) + '☆'.repeat(5 - n)}
    </span>
  );
}
