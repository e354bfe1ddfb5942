import { type CatalogueIndex, maskEmail } from '@/features/catalogue/catalogue';
import type { Sql } from '@/server/db/database.server';
import { LOGIN_TO_REVIEW } from './login-message';
import type { ReviewView, ShopperReviews } from './reviews';
import { REVIEW_MESSAGES as FORM_MESSAGES, reviewProblem } from './reviews.rules';

/** How many shopper reviews a list answer carries, newest first (the totals still count every approved one). */
export const REVIEW_PAGE_SIZE = 100;

/** Every message the reviews endpoints answer with: the form's own, and the server's. */
export const REVIEW_MESSAGES = {
  ...FORM_MESSAGES,
  loginRequired: LOGIN_TO_REVIEW,
  badRating: 'Rating must be a whole number from 1 to 5.',
  badCharacters: 'The review contains characters we cannot store.',
  unknownProduct: 'Product not found.',
  tooMany: 'You have sent several reviews in a short time. Please wait a few minutes and try again.',
} as const;

/** A stored author as shown: the database keeps it masked already; anything else (e.g. a raw e-mail) is masked here. */
export function displayAuthor(author: string): string {
  return /^[^@]{1,2}\*\*\*@/.test(author) ? author : maskEmail(author);
}

// Every function here runs inside `asShopper`: row-level security decides which reviews a query sees (approved ones,
// and the caller's own pending ones) and allows inserting only unapproved reviews as oneself. The database fills in the
// masked author and the verified flag, so nothing here (or in the request) can set them.

interface ReviewRow {
  id: string;
  author: string;
  rating: number;
  comment: string;
  verified: boolean;
  is_approved: boolean;
  created_at: Date | string;
}

const COLUMNS = 'id::text, author, rating::int as rating, comment, verified, is_approved, created_at';

function toView(row: ReviewRow): ReviewView {
  return {
    id: row.id,
    author: displayAuthor(row.author),
    rating: row.rating,
    comment: row.comment,
    date: new Date(row.created_at).toISOString(),
    verified: row.verified,
    pending: !row.is_approved,
  };
}

/** The shopper reviews of a product the caller may see, newest first, with totals over every approved one. */
export async function listReviews(tx: Sql, productId: number): Promise<ShopperReviews> {
  const rows = await tx.query<ReviewRow>(
    `select ${COLUMNS} from public.product_reviews where product_id = $1 order by created_at desc, seq desc limit $2`,
    [productId, REVIEW_PAGE_SIZE],
  );
  const [totals] = await tx.query<{ count: number; rating_sum: number }>(
    `select count(*)::int as count, coalesce(sum(rating), 0)::int as rating_sum
     from public.product_reviews where product_id = $1 and is_approved`,
    [productId],
  );
  return { reviews: rows.map(toView), approved: { count: totals?.count ?? 0, ratingSum: totals?.rating_sum ?? 0 } };
}

export interface ReviewInput {
  productId: number;
  rating: number;
  comment: string;
}

/** Why a review was refused: the HTTP status and the message the shopper reads. */
export type ReviewRefusal = { status: 400 | 401 | 404; code: string; message: string };

/** The first reason to refuse a review before touching the database, or null. */
export function reviewRefusal(catalogue: CatalogueIndex, input: ReviewInput): ReviewRefusal | null {
  if (!catalogue.has(input.productId)) return { status: 404, code: 'unknown_product', message: REVIEW_MESSAGES.unknownProduct };
  if (!Number.isInteger(input.rating) || input.rating < 1 || input.rating > 5)
    return { status: 400, code: 'invalid_rating', message: REVIEW_MESSAGES.badRating };
  const problem = reviewProblem(input.comment);
  if (problem)
    return { status: 400, code: problem === REVIEW_MESSAGES.empty ? 'empty_review' : 'review_too_long', message: problem };
  // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the driver.
  if (input.comment.includes('\u0000'))
    return { status: 400, code: 'invalid_characters', message: REVIEW_MESSAGES.badCharacters };
  return null;
}

/**
 * Stores a review by the signed-in caller, unapproved (product spec: it appears once approved). The comment is
 * stored trimmed. Returns the stored review as its author sees it (pending), or why it was refused; a refusal stores
 * nothing.
 */
export async function submitReview(
  tx: Sql,
  catalogue: CatalogueIndex,
  input: ReviewInput,
): Promise<{ ok: true; review: ReviewView } | { ok: false; refusal: ReviewRefusal }> {
  const refusal = reviewRefusal(catalogue, input);
  if (refusal) return { ok: false, refusal };
  const [me] = await tx.query<{ uid: string | null }>('select auth.uid()::text as uid');
  if (!me?.uid) return { ok: false, refusal: { status: 401, code: 'unauthenticated', message: REVIEW_MESSAGES.loginRequired } };
  const [row] = await tx.query<ReviewRow>(
    `insert into public.product_reviews (product_id, user_id, rating, comment) values ($1, $2, $3, $4) returning ${COLUMNS}`,
    [input.productId, me.uid, input.rating, input.comment.trim()],
  );
  if (!row) throw new Error('insert into product_reviews returned no row');
  return { ok: true, review: toView(row) };
}
