import { useStore } from '@nanostores/react';
import { useEffect, useState } from 'react';
import { $authModal } from '../auth/auth.store';
import { useUser } from '../auth/use-user';
import { LOGIN_TO_REVIEW } from './login-message';
import type { ReviewView } from './reviews';
import { addOwnReview, shopperReviews } from './reviews.store';
import './reviews.css';

interface Props {
  productId: number;
  /** The catalogue's own reviews, authors already masked (the build renders them; the live list merges them in). */
  reviews: ReviewView[];
}

type Parts = typeof import('./reviews.lazy');

/**
 * The reviews island: shows the shopper reviews the caller may see (reviews.store.ts) and the review form or, to a guest,
 * 'Login to leave a review'. The list and the form are loaded on first use (reviews.lazy.ts), which keeps this small.
 */
export default function Reviews({ productId, reviews }: Props) {
  const user = useUser();
  // The same answer the rating by the title reads (reviews.store.ts): one request for both.
  const shopper = useStore(shopperReviews(productId));
  const [parts, setParts] = useState<Parts | null>(null);
  const needParts = Boolean(user || shopper?.reviews.length);

  useEffect(() => {
    if (needParts && !parts) import('./reviews.lazy').then(setParts);
  }, [needParts, parts]);

  return (
    <>
      {parts && shopper && shopper.reviews.length > 0 && <parts.ReviewList catalogue={reviews} shopper={shopper} />}
      <div className="review-form-place">
        <h3>Write a review</h3>
        {!user ? (
          <>
            <p>{LOGIN_TO_REVIEW}</p>
            <button type="button" className="btn btn-outline" onClick={() => $authModal.set('login')}>
              Log in
            </button>
          </>
        ) : (
          parts && <parts.ReviewForm productId={productId} onSubmitted={(review) => addOwnReview(productId, review)} />
        )}
      </div>
    </>
  );
}
