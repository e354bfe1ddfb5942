// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// Likes rules shared by the islands and the server (no zod here: islands must stay small).

/** Product spec: liking and unliking need an account. */
export const LOGIN_TO_LIKE = 'Login to like products';

/** Shown when the server could not record a like or an unlike (the count goes back to what it was). */
export const LIKE_FAILED = 'Failed to update like';

/** What GET /api/likes answers: shoppers' likes per product id (the catalogue's own count not included) and the ids this shopper likes. */
export interface LikesSummary {
  counts: Record<string, number>;
  liked: number[];
}

/** What PUT and DELETE /api/likes/{productId} answer: the shopper's like now, and the shoppers' likes of that product. */
export interface LikeAnswer {
  productId: number;
  liked: boolean;
  count: number;
}

/** The count a card or product page shows: the catalogue's starting count plus shoppers' likes. */
export function shownLikes(catalogueLikes: number, summary: LikesSummary, productId: number): number {
  return catalogueLikes + (summary.counts[productId] ?? 0);
}

/** The summary after this shopper's like of one product changed to `liked`, with `count` shoppers' likes. */
export function withLike(summary: LikesSummary, productId: number, liked: boolean, count: number): LikesSummary {
  const others = summary.liked.filter((id) => id !== productId);
  return {
    counts: { ...summary.counts, [productId]: Math.max(0, count) },
    liked: liked ? [...others, productId] : others,
  };
}
