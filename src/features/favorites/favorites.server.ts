import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import type { Sql } from '@/server/db/database.server';
import { cartAction, type Favorite } from './favorites';

export type AddFavoriteResult = { ok: true; value: Favorite } | { ok: false; reason: 'not_found' | 'duplicate' };

interface FavoriteRow {
  product_id: number;
  product_name: string;
  product_image: string;
  product_price_cents: number;
  product_category: string;
  created_at: Date | string;
}

const COLUMNS = 'product_id, product_name, product_image, product_price_cents, product_category, created_at';

/**
 * A stored row as the shopper sees it. While the product is in the catalogue, its name, picture and price are the
 * catalogue's today (picture URLs change with each build's content hash; the cart charges today's price); the copies
 * saved with the row stand in once the product has left the catalogue.
 */
function toFavorite(row: FavoriteRow, catalogue: CatalogueIndex): Favorite {
  const current = catalogue.get(row.product_id);
  return {
    productId: row.product_id,
    name: current?.name ?? row.product_name,
    image: current?.image ?? row.product_image,
    priceCents: current?.priceCents ?? row.product_price_cents,
    category: current?.category ?? row.product_category,
    addedAt: new Date(row.created_at).toISOString(),
    href: `/product/${row.product_id}`,
    cart: cartAction(current),
  };
}

/** SQLSTATE 23505: a unique constraint refused the row. */
function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === '23505';
}

/** The signed-in shopper's favorites, newest first (row-level security shows nobody else's). */
export async function listFavorites(tx: Sql, catalogue: CatalogueIndex): Promise<Favorite[]> {
  const rows = await tx.query<FavoriteRow>(
    `select ${COLUMNS} from public.user_favorites where user_id = (select auth.uid()) order by created_at desc, id desc`,
  );
  return rows.map((row) => toFavorite(row, catalogue));
}

/** Runs `fn` in one transaction as the shopper (what `shopper(ctx).run` and the tests' `asShopper` give). */
export type RunAsShopper = <T>(fn: (tx: Sql) => Promise<T>) => Promise<T>;

/**
 * Inserts a favorite for the signed-in shopper, with name, picture, price and category copied from the catalogue,
 * never from the request. A second row for the same product is refused by the table's unique key: the statement
 * fails with SQLSTATE 23505 and takes the transaction with it (see addFavorite).
 */
export async function insertFavorite(
  tx: Sql,
  catalogue: CatalogueIndex,
  productId: number,
): Promise<{ ok: true; value: Favorite } | { ok: false; reason: 'not_found' }> {
  const product = catalogue.get(productId);
  if (!product) return { ok: false, reason: 'not_found' };
  const [row] = await tx.query<FavoriteRow>(
    `insert into public.user_favorites (user_id, product_id, product_name, product_image, product_price_cents, product_category)
     values ((select auth.uid()), $1, $2, $3, $4, $5) returning ${COLUMNS}`,
    [product.id, product.name, product.image, product.priceCents, product.category],
  );
  if (!row) throw new Error('insert into user_favorites returned no row');
  return { ok: true, value: toFavorite(row, catalogue) };
}

/**
 * Saves a catalogue product as a favorite of the signed-in shopper, in a transaction of its own. The database is
 * the judge of duplicates (two tabs or a double click race any check we could make first): its duplicate error,
 * SQLSTATE 23505, ends the transaction, and is answered here as 'duplicate'.
 */
export async function addFavorite(run: RunAsShopper, catalogue: CatalogueIndex, productId: number): Promise<AddFavoriteResult> {
  try {
    return await run((tx) => insertFavorite(tx, catalogue, productId));
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, reason: 'duplicate' };
    throw error;
  }
}

/** Removes one product from the signed-in shopper's favorites; whether there was one to remove. */
export async function removeFavorite(tx: Sql, productId: number): Promise<boolean> {
  const rows = await tx.query(
    'delete from public.user_favorites where user_id = (select auth.uid()) and product_id = $1 returning product_id',
    [productId],
  );
  return rows.length > 0;
}

/** Removes every favorite of the signed-in shopper (and only theirs); how many there were. */
export async function clearFavorites(tx: Sql): Promise<number> {
  const rows = await tx.query('delete from public.user_favorites where user_id = (select auth.uid()) returning product_id');
  return rows.length;
}
