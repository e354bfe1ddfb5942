// The checks a save of the shop's editor passes beyond the form's shape (decision 008): the catalogue guard asked of
// the catalogue as saved in the database, with the seed's pictures and the uploaded ones, and what taking colours away
// does to the carts, stock counts and orders that name them.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sql } from '@/server/db/database.server';
import { PICTURES_DIR, projectRoot, type SavedFile, SEED_PRODUCTS_DIR } from './catalogue-files.server';
import type { Refusal } from './catalogue-form';
import { catalogueRefusals, colourChange, fileProblems, type GuardedColour, IMAGE_NAME, PRODUCTS_DIR } from './catalogue-guard';
import { guardWords } from './refusal-words';

/** The names of the pictures editors uploaded. */
export async function uploadedNames(tx: Sql): Promise<Set<string>> {
  const rows = await tx.query<{ name: string }>('select name from public.catalogue_pictures');
  return new Set(rows.map((r) => r.name));
}

export const seedPictureExists = (name: string) =>
  IMAGE_NAME.test(name) && existsSync(join(projectRoot(), SEED_PRODUCTS_DIR, PICTURES_DIR, name));

/** Every picture a product may name: the seed's and the uploaded ones, sorted. */
export async function allPictures(tx: Sql): Promise<string[]> {
  const seed = (await readdir(join(projectRoot(), SEED_PRODUCTS_DIR, PICTURES_DIR))).filter((n) => IMAGE_NAME.test(n));
  return [...new Set([...seed, ...(await uploadedNames(tx))])].sort();
}

/**
 * The guard's question for the shop: the catalogue as saved, pictures in the seed's folder or uploaded. Its refusals
 * are said in the shop's words, each with the field of the product's form it is about (the editor is on that form);
 * `undo` words them as what an undo would bring back.
 */
export function guard(files: Map<string, SavedFile>, uploaded: Set<string>, file: string, text: string, undo = false): Refusal[] {
  const paths = new Map([...files].map(([name, f]) => [`${PRODUCTS_DIR}/${name}`, f.text]));
  const refusals = catalogueRefusals(
    { files: paths, pictureExists: (name) => uploaded.has(name) || seedPictureExists(name) },
    { additions: [{ path: `${PRODUCTS_DIR}/${file}`, contents: new TextEncoder().encode(text) }], deletions: [] },
  ).map((r) => guardWords(r, undo));
  // One message a field: a colour named '' has no name and so no key, and hearing it once is enough.
  return refusals.filter((r, i) => refusals.findIndex((q) => q.field === r.field) === i);
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * What taking colours away from a product does to what names them by their key, or why it may not. A colour whose
 * stock the shop counts stays: its counts would apply to nothing, and the owner sets them, not the editor. A colour in
 * shoppers' saved carts or in past orders may go: once published, carts drop it with a word to the shopper (as they
 * drop anything the catalogue no longer sells), and orders keep it as bought; the save says so.
 */
async function colourRemoval(
  tx: Sql,
  productId: number,
  removed: readonly GuardedColour[],
): Promise<{ problem: Refusal | null; notice: string | null }> {
  if (removed.length === 0) return { problem: null, notice: null };
  const keys = JSON.stringify(removed.map((c) => c.value));
  const [counted, carts, orders] = await Promise.all([
    tx.query<{ color: string; on_hand: number }>(
      `select color, sum(on_hand)::int as on_hand from public.stock_levels
        where product_id = $1 and color in (select jsonb_array_elements_text($2::text::jsonb)) group by color`,
      [productId, keys],
    ),
    tx.query<{ color: string; n: number }>(
      `select selected_color as color, count(distinct user_id)::int as n from public.user_carts
        where product_id = $1 and selected_color in (select jsonb_array_elements_text($2::text::jsonb))
        group by selected_color`,
      [productId, keys],
    ),
    tx.query<{ color: string; n: number }>(
      `select selected_color as color, count(distinct order_id)::int as n from public.order_items
        where product_id = $1 and selected_color in (select jsonb_array_elements_text($2::text::jsonb))
        group by selected_color`,
      [productId, keys],
    ),
  ]);
  const colour = (value: string) => removed.find((c) => c.value === value)?.name ?? value;
  const [count] = counted;
  if (count) {
    return {
      problem: {
        field: 'colors',
        message: `“${colour(count.color)}” cannot be removed while the shop counts its stock (${count.on_hand} on hand): the counts would apply to nothing. Ask the shop’s owner to clear its counts on the Stock page first, then remove it.`,
      },
      notice: null,
    };
  }
  const notes = removed.flatMap(({ name, value }) => {
    const inCarts = carts.find((r) => r.color === value)?.n ?? 0;
    const inOrders = orders.find((r) => r.color === value)?.n ?? 0;
    if (inCarts === 0 && inOrders === 0) return [];
    const what = [
      ...(inCarts > 0
        ? [
            `it is taken out of the ${plural(inCarts, 'saved cart that holds it', 'saved carts that hold it')} (${inCarts === 1 ? 'its shopper is' : 'their shoppers are'} told)`,
          ]
        : []),
      ...(inOrders > 0 ? [`the ${plural(inOrders, 'order of it keeps', 'orders of it keep')} it as bought`] : []),
    ];
    return [`${name} was removed. Once published: ${what.join(', and ')}.`];
  });
  return { problem: null, notice: notes.length > 0 ? notes.join(' ') : null };
}

/** The colours going from `before` to `after` take away, judged against what names them (see colourRemoval). */
export async function coloursTakenAway(
  tx: Sql,
  before: string,
  after: string,
): Promise<{ problem: Refusal | null; notice: string | null }> {
  const was = fileProblems(before).product;
  const now = fileProblems(after).product;
  if (!was || !now) return { problem: null, notice: null };
  return colourRemoval(tx, was.id, colourChange(was.colors, now.colors).removed);
}
