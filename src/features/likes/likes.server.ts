import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import type { Sql } from '@/server/db/database.server';
import type { LikeAnswer, LikesSummary } from './likes';

/** A like or unlike of a product the catalogue does not have. */
export type LikeResult = { ok: true; value: LikeAnswer } | { ok: false; reason: 'not_found' };

/**
 * Shoppers' likes of every product in `productIds`, and (for a signed-in shopper) the ones they like themselves.
 * The counts come from public.product_like_count, a SECURITY DEFINER function that returns a number and nothing
 * else, so no query here can see who liked what: row-level security shows a shopper only their own likes.
 */
export async function likesSummary(tx: Sql, productIds: readonly number[], signedIn: boolean): Promise<LikesSummary> {
  const counts = await tx.query<{ id: number; n: number }>(
    'select id, public.product_like_count(id) as n from unnest($1::integer[]) as id',
    [productIds],
  );
  // Guests hold no privilege on product_likes at all, so they are not asked.
  const liked = signedIn
    ? await tx.query<{ product_id: number }>(
        'select product_id from public.product_likes where user_id = (select auth.uid()) order by product_id',
      )
    : [];
  return {
    counts: Object.fromEntries(counts.filter((c) => c.n > 0).map((c) => [c.id, c.n])),
    liked: liked.map((l) => l.product_id),
  };
}

async function countOf(tx: Sql, productId: number): Promise<number> {
  const [row] = await tx.query<{ n: number }>('select public.product_like_count($1) as n', [productId]);
  return row?.n ?? 0;
}

/** The signed-in shopper likes a catalogue product. Idempotent: the table's primary key makes a second like a no-op. */
export async function like(tx: Sql, catalogue: CatalogueIndex, productId: number): Promise<LikeResult> {
  if (!catalogue.has(productId)) return { ok: false, reason: 'not_found' };
  await tx.query(
    'insert into public.product_likes (product_id, user_id) values ($1, (select auth.uid())) on conflict (product_id, user_id) do nothing',
    [productId],
  );
  return { ok: true, value: { productId, liked: true, count: await countOf(tx, productId) } };
}

/** The signed-in shopper takes back their like of a catalogue product. Idempotent: unliking twice changes nothing. */
export async function unlike(tx: Sql, catalogue: CatalogueIndex, productId: number): Promise<LikeResult> {
  if (!catalogue.has(productId)) return { ok: false, reason: 'not_found' };
  await tx.query('delete from public.product_likes where product_id = $1 and user_id = (select auth.uid())', [productId]);
  return { ok: true, value: { productId, liked: false, count: await countOf(tx, productId) } };
}
