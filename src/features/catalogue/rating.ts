// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// Rating arithmetic, free of other catalogue code so an island can import it alone (re-exported by catalogue.ts).

/** The mean rating, or null when there are no reviews. */
export function averageRating(reviews: readonly { rating: number }[]): number | null {
  if (reviews.length === 0) return null;
  return reviews.reduce((sum, r) => sum + r.rating, 0) / reviews.length;
}

/** Stars shown for an average rating: rounded to the nearest whole star, always 1 to 5. */
export function starCount(average: number): number {
  return Math.min(5, Math.max(1, Math.round(average)));
}
