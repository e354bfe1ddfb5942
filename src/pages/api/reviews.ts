import type { APIRoute } from 'astro';
import { z } from 'astro/zod';
import { requireShopper, shopper } from '@/app/shopper.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { listReviews, REVIEW_MESSAGES, reviewRefusal, submitReview } from '@/features/reviews/reviews.server';
import { json, problem, readJson } from '@/server/http.server';
import { productIdParam, productIdValue } from '@/server/product-id.server';
import { hit, LIMITS } from '@/server/ratelimit.server';

export const prerender = false;

const BAD_ID = 'productId must be a product id.';

const listQuery = z.object({ productId: productIdParam(BAD_ID) });

// Shapes only: the rules (known product, rating 1 to 5, blank, length) are the feature's, shared with the page.
const reviewBody = z.object({
  productId: productIdValue(BAD_ID),
  rating: z.number({ error: REVIEW_MESSAGES.badRating }).int({ error: REVIEW_MESSAGES.badRating }).default(5),
  comment: z.string({ error: (issue) => (issue.input === undefined ? REVIEW_MESSAGES.empty : 'comment must be text.') }),
});

/** The shopper reviews of a product the caller may see: approved ones, and the caller's own pending ones. */
export const GET: APIRoute = async ({ request, cookies, url }) => {
  const query = listQuery.safeParse({ productId: url.searchParams.get('productId') ?? undefined });
  if (!query.success) return problem(400, 'invalid_request', BAD_ID);
  if (!(await getCatalogueIndex()).has(query.data.productId))
    return problem(404, 'unknown_product', REVIEW_MESSAGES.unknownProduct);
  const { run } = await shopper({ request, cookies });
  return json(await run((tx) => listReviews(tx, query.data.productId)));
};

/** Stores a signed-in shopper's review, unapproved: 201 with the pending review, or why it was refused. */
export const POST: APIRoute = async ({ request, cookies }) => {
  const body = await readJson(request, reviewBody);
  if ('response' in body) return body.response;
  const me = await requireShopper({ request, cookies }, REVIEW_MESSAGES.loginRequired);
  if (me instanceof Response) return me;
  const { services, session, run } = me;
  const catalogue = await getCatalogueIndex();
  // Checked before the rate limit too, so a refused review does not use up the shopper's allowance.
  const refusal = reviewRefusal(catalogue, body.data);
  if (refusal) return problem(refusal.status, refusal.code, refusal.message);
  const limited = await hit(services.db, `review:user:${session.user.id}`, LIMITS.reviewsPerShopper);
  if (!limited.ok) return problem(429, 'rate_limited', REVIEW_MESSAGES.tooMany, { 'retry-after': String(limited.retryAfter) });
  const result = await run((tx) => submitReview(tx, catalogue, body.data));
  if (!result.ok) return problem(result.refusal.status, result.refusal.code, result.refusal.message);
  return json({ review: result.review }, 201);
};
