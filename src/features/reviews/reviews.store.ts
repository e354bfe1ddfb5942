import { atom, onMount, type ReadableAtom, type WritableAtom } from 'nanostores';
import { api } from '@/lib/api';
import { $user } from '../auth/auth.store';
import { knownUser } from '../auth/session.client';
import type { ReviewView, ShopperReviews } from './reviews';

const stores = new Map<number, WritableAtom<ShopperReviews | null>>();

function load(productId: number, $reviews: WritableAtom<ShopperReviews | null>): () => void {
  let viewer: string | null | undefined;
  let latest = 0;
  let stop = () => {};
  // Who is asking decides what comes back (their own pending reviews): ask once the page knows the shopper, not
  // first as a guest and again a moment later, and again whenever the shopper signs in or out.
  knownUser().then(() => {
    if (latest < 0) return;
    stop = $user.subscribe((u) => {
      if ((u?.id ?? null) === viewer) return;
      viewer = u?.id ?? null;
      const call = ++latest;
      api<ShopperReviews>(`/api/reviews?productId=${productId}`).then((r) => {
        if (call === latest && r.ok) $reviews.set(r.data);
      });
    });
  });
  return () => {
    stop();
    latest = -1;
  };
}

/**
 * The shopper reviews of a product the visitor may see (GET /api/reviews), with the totals of the approved ones: null
 * until the answer arrives. The rating by the product's title and its reviews section both read it, so one request
 * serves both, and the title shows the same numbers as the list without the shopper scrolling down to it.
 */
export function shopperReviews(productId: number): ReadableAtom<ShopperReviews | null> {
  let $reviews = stores.get(productId);
  if (!$reviews) {
    const store = atom<ShopperReviews | null>(null);
    onMount(store, () => load(productId, store));
    stores.set(productId, store);
    $reviews = store;
  }
  return $reviews;
}

/** Shows a review its author just submitted (pending, so it changes no totals) at the top of the list. */
export function addOwnReview(productId: number, review: ReviewView): void {
  const $reviews = stores.get(productId);
  const now = $reviews?.get();
  $reviews?.set({ reviews: [review, ...(now?.reviews ?? [])], approved: now?.approved ?? { count: 0, ratingSum: 0 } });
}
