// What the reviews list needs, shared by the product page, its island and the server (no zod: islands stay small).

export const AWAITING_APPROVAL = 'Awaiting approval';

/** A review as the page shows it: the author already masked, the date as ISO text. */
export interface ReviewView {
  id: string;
  author: string;
  rating: number;
  comment: string;
  /** ISO 8601. */
  date: string;
  verified: boolean;
  /** Not approved yet: only its author ever receives it. */
  pending: boolean;
}

/** What GET /api/reviews answers: the newest shopper reviews the caller may see, and totals over every approved one. */
export interface ShopperReviews {
  reviews: ReviewView[];
  approved: { count: number; ratingSum: number };
}

/** The catalogue's reviews and the shopper reviews as one list, newest first (the same id is listed once). */
export function mergeReviews(catalogue: readonly ReviewView[], shopper: readonly ReviewView[]): ReviewView[] {
  const byId = new Map([...catalogue, ...shopper].map((r) => [r.id, r]));
  return [...byId.values()].sort((a, b) => Date.parse(b.date) - Date.parse(a.date));
}

/** Count and mean rating of the approved reviews (catalogue + approved shopper reviews); average null when none. */
export function reviewSummary(
  catalogue: readonly { rating: number }[],
  approved: ShopperReviews['approved'],
): { count: number; average: number | null } {
  const count = catalogue.length + approved.count;
  const sum = catalogue.reduce((s, r) => s + r.rating, approved.ratingSum);
  return { count, average: count === 0 ? null : sum / count };
}

/** "1 review", "3 reviews". */
export function reviewCount(count: number): string {
  return `${count} ${count === 1 ? 'review' : 'reviews'}`;
}
