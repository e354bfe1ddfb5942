// The review form's rules, shared by the form (loaded on demand) and the server, so both say the same thing.

/** The longest comment we store, in characters: the product_reviews column's check says the same. */
export const MAX_REVIEW_LENGTH = 2000;

export const REVIEW_MESSAGES = {
  empty: 'Review cannot be empty',
  tooLong: `Reviews can be at most ${MAX_REVIEW_LENGTH} characters.`,
  submitted: 'Review submitted! will reflect in a moment.',
  failed: 'Failed to submit review',
} as const;

/** Length as PostgreSQL's length() counts it (code points) after trimming, so the browser, server and column agree. */
export function reviewLength(comment: string): number {
  return [...comment.trim()].length;
}

/** The first problem with a comment, or null (product spec: a blank or whitespace-only comment is refused). */
export function reviewProblem(comment: string): string | null {
  const length = reviewLength(comment);
  if (length === 0) return REVIEW_MESSAGES.empty;
  if (length > MAX_REVIEW_LENGTH) return REVIEW_MESSAGES.tooLong;
  return null;
}
