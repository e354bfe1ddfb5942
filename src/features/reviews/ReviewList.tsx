import { AWAITING_APPROVAL, mergeReviews, type ReviewView, reviewCount, reviewSummary, type ShopperReviews } from './reviews';
import { Stars } from './Stars';

interface Props {
  /** The catalogue's own reviews, authors already masked. */
  catalogue: ReviewView[];
  /** What GET /api/reviews answered; absent when the list is rendered at build time. */
  shopper?: ShopperReviews | undefined;
}

const dateFormat = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });

/**
 * The review summary and list, newest first. Rendered at build time from the catalogue alone (no JavaScript), and by
 * the reviews island once shopper reviews arrive: it then replaces the build's list (CSS hides that one). The rating by
 * the title (ProductRating) shows the same numbers from the same answer.
 * Review text is rendered as text, never as markup.
 */
export function ReviewList({ catalogue, shopper }: Props) {
  const { count, average } = reviewSummary(catalogue, shopper?.approved ?? { count: 0, ratingSum: 0 });
  const list = mergeReviews(catalogue, shopper?.reviews ?? []);

  return (
    <div className={shopper ? 'reviews-live' : 'reviews-static'}>
      {average !== null && (
        <p className="reviews-summary">
          <Stars rating={average} /> <span>Average of {reviewCount(count)}</span>
        </p>
      )}
      {list.length === 0 ? (
        <p className="muted">No reviews yet. Be the first to share how it worked for you.</p>
      ) : (
        <ul className="review-list">
          {list.map((r) => (
            <li key={r.id} className={r.pending ? 'review review-pending' : 'review'}>
              <div className="review-head">
                <Stars rating={r.rating} />
                <span className="review-author">{r.author}</span>
                {r.verified && <span className="badge">Verified purchase</span>}
                {r.pending && <span className="badge badge-pending">{AWAITING_APPROVAL}</span>}
                <time dateTime={r.date.slice(0, 10)}>{dateFormat.format(new Date(r.date))}</time>
              </div>
              <p>{r.comment}</p>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
