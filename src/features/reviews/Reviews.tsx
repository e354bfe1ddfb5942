import { useEffect, useState } from 'react';
import { api } from '@/lib/api';
import { $authModal, $user } from '../auth/auth.store';
import { useUser } from '../auth/use-user';
import { LOGIN_TO_REVIEW } from './login-message';
import type { ReviewView, ShopperReviews } from './reviews';
import './reviews.css';

interface Props {
  productId: number;
  /** The catalogue's own reviews, authors already masked (the build renders them; the live list merges them in). */
  reviews: ReviewView[];
}

type Parts = typeof import('./ReviewParts');

/**
 * The reviews island: asks for the shopper reviews the caller may see and shows the review form or, to a guest,
 * 'Login to leave a review'. The list and the form are loaded on first use (see ReviewParts), which keeps this small.
 */
export default function Reviews({ productId, reviews }: Props) {
  const user = useUser();
  const [shopper, setShopper] = useState<ShopperReviews | null>(null);
  const [parts, setParts] = useState<Parts | null>(null);
  const needParts = Boolean(user || shopper?.reviews.length);

  // Who is asking decides what comes back (their own pending reviews): ask again whenever the shopper changes.
  useEffect(() => {
    let viewer: string | null | undefined;
    let latest = 0;
    const stop = $user.subscribe((u) => {
      if ((u?.id ?? null) === viewer) return;
      viewer = u?.id ?? null;
      const call = ++latest;
      api<ShopperReviews>(`/api/reviews?productId=${productId}`).then((r) => {
        if (call === latest && r.ok) setShopper(r.data);
      });
    });
    return () => {
      stop();
      latest = -1;
    };
  }, [productId]);

  useEffect(() => {
    if (needParts && !parts) import('./ReviewParts').then(setParts);
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
          parts && (
            <parts.ReviewForm
              productId={productId}
              onSubmitted={(review) =>
                setShopper((s) => ({
                  reviews: [review, ...(s?.reviews ?? [])],
                  approved: s?.approved ?? { count: 0, ratingSum: 0 },
                }))
              }
            />
          )
        )}
      </div>
    </>
  );
}
