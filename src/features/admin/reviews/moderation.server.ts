import { z } from 'astro/zod';
import {
  DECISION_STATE,
  MAX_REVIEWS_PER_DECISION,
  type ModerationAnswer,
  type QueueReview,
  type ReviewDecision,
  type ReviewState,
} from '@/features/admin/reviews/moderation';
import type { CookieJar } from '@/server/auth/auth.port';
import type { Sql } from '@/server/db/database.server';
import { json, problem, readJson } from '@/server/http.server';
import { type Admin, type AdminDeps, recordAction, requireAdminOf } from '../admin.server';
import { type Cursor, isoText, type Page, seqOf, toPage } from '../paging.server';

// Review moderation. A review is pending (neither flag), approved (`is_approved`: everyone sees it and it
// counts in the product's rating) or rejected (`rejected_at`: nobody sees it, its author included). Decisions run as
// service_role; shoppers still cannot change a review at all (RLS and column grants, tests/db/rls.test.ts).

const PENDING = 'not r.is_approved and r.rejected_at is null';

/** How many reviews wait for a decision. */
export async function countPendingReviews(tx: Sql): Promise<number> {
  const [row] = await tx.query<{ n: number }>(`select count(*)::int as n from public.product_reviews r where ${PENDING}`);
  return row?.n ?? 0;
}

/** A page of the queue: pending reviews, newest first, after `cursor` (the previous page's last review). */
export async function pendingReviews(
  tx: Sql,
  { limit, after }: { limit: number; after?: Cursor | undefined },
): Promise<Page<QueueReview & { cursorAt: string }>> {
  const rows = await tx.query<{
    id: string;
    product_id: number;
    product_name: string;
    rating: number;
    comment: string;
    author: string;
    account_email: string | null;
    verified: boolean;
    created_at: string;
  }>(
    `select r.id::text, r.product_id, coalesce(p.name, 'Product ' || r.product_id) as product_name, r.rating::int as rating,
       r.comment, r.author, u.email as account_email, r.verified, ${isoText('r.created_at')} as created_at
     from public.product_reviews r
     left join public.products p on p.id = r.product_id
     left join auth.users u on u.id = r.user_id
     where ${PENDING} and ($1::text is null or (r.created_at, r.seq) < ($1::text::timestamptz, ${seqOf('public.product_reviews', '$2')}))
     order by r.created_at desc, r.seq desc
     limit $3`,
    [after?.at ?? null, after?.id ?? null, limit + 1],
  );
  return toPage(
    rows.map((r) => ({
      id: r.id,
      productId: r.product_id,
      productName: r.product_name,
      rating: r.rating,
      comment: r.comment,
      author: r.author,
      accountEmail: r.account_email,
      verified: r.verified,
      createdAt: new Date(r.created_at).toISOString(),
      cursorAt: r.created_at,
    })),
    limit,
    (r) => ({ at: r.cursorAt, id: r.id }),
  );
}

/** Why a decision was refused: the reviews asked about that do not exist. */
export class UnknownReviews extends Error {
  constructor(readonly ids: string[]) {
    super(`No such review: ${ids.join(', ')}`);
  }
}

/**
 * Approves or rejects reviews, each recorded as an admin action in the same transaction. A review already in the state
 * asked for is left alone and recorded nothing (a double click, two admins at once: the rows are locked first, so the
 * second decision sees the first one's result). Approving a rejected review publishes it; rejecting an approved one
 * withdraws it. Throws UnknownReviews, changing nothing, when any id is not a review.
 */
export async function decideReviews(
  tx: Sql,
  admin: Admin,
  ids: readonly string[],
  decision: ReviewDecision,
): Promise<ModerationAnswer> {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  // Locked in one order, so two admins deciding on overlapping sets cannot deadlock.
  const rows = await tx.query<{ id: string; is_approved: boolean; rejected: boolean }>(
    `select id::text, is_approved, rejected_at is not null as rejected from public.product_reviews
     where id = any($1::uuid[]) order by id for update`,
    [wanted],
  );
  const found = new Map(rows.map((r) => [r.id, stateOf(r)]));
  const missing = wanted.filter((id) => !found.has(id));
  if (missing.length > 0) throw new UnknownReviews(missing);

  const target = DECISION_STATE[decision];
  const changing = wanted.filter((id) => found.get(id) !== target);
  if (changing.length > 0) {
    await tx.query(
      decision === 'approve'
        ? 'update public.product_reviews set is_approved = true, rejected_at = null where id = any($1::uuid[])'
        : 'update public.product_reviews set is_approved = false, rejected_at = now() where id = any($1::uuid[])',
      [changing],
    );
    for (const id of changing)
      await recordAction(tx, admin, {
        action: `review.${decision}`,
        target: `review:${id}`,
        before: found.get(id),
        after: target,
      });
  }
  return { reviews: wanted.map((id) => ({ id, state: target, changed: changing.includes(id) })) };
}

function stateOf(row: { is_approved: boolean; rejected: boolean }): ReviewState {
  if (row.is_approved) return 'approved';
  return row.rejected ? 'rejected' : 'pending';
}

const decisionBody = z.object(
  {
    ids: z
      .array(z.guid({ error: 'Each review id must be a review’s id.' }), { error: 'ids must be a list of review ids.' })
      .min(1, { error: 'Choose at least one review.' })
      .max(MAX_REVIEWS_PER_DECISION, { error: `At most ${MAX_REVIEWS_PER_DECISION} reviews at a time.` }),
    decision: z.enum(['approve', 'reject'], { error: 'decision must be "approve" or "reject".' }),
  },
  { error: 'Send {"ids": [<review id>, …], "decision": "approve" | "reject"}.' },
);

/** POST /api/admin/reviews {ids, decision}: 200 with each review's state, 404 for a caller who is no admin. */
export async function decideReviewsRoute(deps: AdminDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, decisionBody);
  if ('response' in body) return body.response;
  try {
    return json(await me.run((tx) => decideReviews(tx, me.admin, body.data.ids, body.data.decision)));
  } catch (error) {
    if (error instanceof UnknownReviews)
      return problem(404, 'review_not_found', 'A review you chose no longer exists. Reload the page and try again.');
    throw error;
  }
}
