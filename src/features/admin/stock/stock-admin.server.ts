import { z } from 'astro/zod';
import { cartId } from '@/features/cart/cart';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { describeItems, itemLabel, type StockKey, takenBy, variantKeys } from '@/features/stock/stock.server';
import type { CookieJar } from '@/server/auth/auth.port';
import type { Sql } from '@/server/db/database.server';
import { json, problem, readJson } from '@/server/http.server';
import { productIdValue } from '@/server/product-id.server';
import { type AdminCaller, type AdminDeps, recordAction, requireAdminOf } from '../admin.server';
import { MAX_COUNT, type StockPageAnswer, type StockRow } from './stock-admin';

// The owner's stock: how many of each product, and of each colour × size, are on hand (blank: unlimited), and the
// low-stock threshold of the overview. Read and written as service_role through the admin's `run`; every change is an
// admin_actions row in the same transaction. A count is set with a compare-and-set on the count the owner saw, so a
// sale (or another admin) in between is never overwritten unknowingly.

interface LevelRow {
  product_id: number;
  color: string;
  size: string;
  on_hand: number;
  held: number;
}

const keyId = (k: StockKey) => cartId(k.productId, k.color || null, k.size || null);

/** Every way of buying every product in the catalogue, in catalogue order, with its count, what is held and available. */
export async function stockRows(tx: Sql, catalogue: CatalogueIndex): Promise<StockRow[]> {
  const levels = await tx.query<LevelRow>(
    `select s.product_id, s.color, s.size, s.on_hand,
       coalesce((select sum(h.quantity)::int from public.stock_holds h
          where h.product_id = s.product_id and h.color = s.color and h.size = s.size and h.expires_at > now()), 0) as held
     from public.stock_levels s`,
  );
  const byId = new Map(levels.map((l) => [keyId({ productId: l.product_id, color: l.color, size: l.size }), l]));
  return [...catalogue.values()].flatMap((product) =>
    variantKeys(product.id, product).map((key): StockRow => {
      const level = byId.get(keyId(key));
      return {
        id: keyId(key),
        productId: key.productId,
        selectedColor: key.color || null,
        selectedSize: key.size || null,
        label: itemLabel(catalogue, key),
        product: product.name,
        onHand: level ? level.on_hand : null,
        held: level?.held ?? 0,
        available: level ? Math.max(0, level.on_hand - level.held) : null,
      };
    }),
  );
}

/**
 * An order's stock, for its admin page: what it took from the counts and whether that is back (null when nothing of
 * it was counted), and, for an order paid after its items sold out, what was missing.
 */
export async function orderStock(tx: Sql, orderId: string) {
  const taken = await takenBy(tx, orderId);
  const [row] = await tx.query<{ labels: string[] | null }>(
    `select (select json_agg(e ->> 'label') from jsonb_array_elements(o.sold_out) e) as labels
       from public.orders o where o.id = $1`,
    [orderId],
  );
  return {
    stock: taken.length > 0 ? { items: describeItems(taken), returned: taken.every((t) => t.returnedAt !== null) } : null,
    soldOut: row?.labels ?? null,
  };
}

/** The overview's low-stock threshold. */
export async function lowStockThreshold(tx: Sql): Promise<number> {
  const [row] = await tx.query<{ threshold: number }>(`select low_stock_threshold as threshold from public.stock_settings`);
  return row?.threshold ?? 0;
}

/** The counted items shoppers can buy no more than the threshold of, fewest first (sold out ones first of all). */
export async function lowStock(tx: Sql, catalogue: CatalogueIndex): Promise<{ threshold: number; rows: StockRow[] }> {
  const threshold = await lowStockThreshold(tx);
  const rows = (await stockRows(tx, catalogue))
    .filter((r) => r.available !== null && r.available <= threshold)
    .sort((a, b) => (a.available ?? 0) - (b.available ?? 0));
  return { threshold, rows };
}

/** How many counted items are at or below the low-stock threshold (the navigation's number beside Stock). */
export async function countLowStock(tx: Sql): Promise<number> {
  const [row] = await tx.query<{ n: number }>(
    `select count(*)::int as n from public.stock_available() a, public.stock_settings t
      where a.available <= t.low_stock_threshold`,
  );
  return row?.n ?? 0;
}

const count = z
  .int({ error: `A count must be a whole number from 0 to ${MAX_COUNT}, or null for unlimited.` })
  .min(0, { error: 'A count cannot be below 0.' })
  .max(MAX_COUNT, { error: `A count can be at most ${MAX_COUNT}.` })
  .nullable();

const variant = (what: string) =>
  z
    .string({ error: `${what} must be text or null.` })
    .max(40, { error: `${what} is too long.` })
    .nullable()
    .optional()
    .transform((v) => v || null);

/** The body of POST /api/admin/stock. */
export const stockBody = z
  .object(
    {
      counts: z
        .array(
          z.object(
            {
              productId: productIdValue(),
              selectedColor: variant('selectedColor'),
              selectedSize: variant('selectedSize'),
              /** The new count; null: not counted (unlimited). */
              onHand: count,
              /** The count the owner saw: when it is no longer so (a sale, another admin), nothing is changed. */
              from: count.optional(),
            },
            { error: 'Each count is {"productId", "selectedColor", "selectedSize", "onHand", "from"}.' },
          ),
          { error: 'counts must be a list.' },
        )
        .max(500, { error: 'At most 500 counts at a time.' })
        .optional(),
      lowStockThreshold: z
        .int({ error: `The low-stock threshold must be a whole number from 0 to ${MAX_COUNT}.` })
        .min(0, { error: 'The low-stock threshold cannot be below 0.' })
        .max(MAX_COUNT, { error: `The low-stock threshold can be at most ${MAX_COUNT}.` })
        .optional(),
    },
    { error: 'Send {"counts": [{"productId", "selectedColor", "selectedSize", "onHand", "from"}], "lowStockThreshold"}.' },
  )
  .refine((b) => b.counts !== undefined || b.lowStockThreshold !== undefined, {
    error: 'Send counts, a lowStockThreshold, or both.',
  });
export type StockBody = z.infer<typeof stockBody>;

type CountChange = NonNullable<StockBody['counts']>[number];

/** Why the catalogue refuses to count this item, or null: the product must exist, and be counted the way it is sold. */
function itemProblem(catalogue: CatalogueIndex, c: CountChange): string | null {
  const product = catalogue.get(c.productId);
  if (!product) return `There is no product ${c.productId}.`;
  const { selectedColor: color, selectedSize: size } = c;
  if (product.colors.length > 0 && !color) return `${product.name} is counted by colour: choose one.`;
  if (product.sizes.length > 0 && !size) return `${product.name} is counted by size: choose one.`;
  if (product.colors.length === 0 && color) return `${product.name} comes in one colour only; send no colour.`;
  if (product.sizes.length === 0 && size) return `${product.name} comes in one size only; send no size.`;
  if (color && !product.colors.includes(color)) return `${product.name} does not come in the colour “${color}”.`;
  if (size && !product.sizes.includes(size)) return `${product.name} does not come in the size “${size}”.`;
  return null;
}

/** A count the owner saw that is no longer so: the whole save is refused, and the page is to be reloaded. */
export class StockChanged extends Error {
  constructor(
    readonly label: string,
    readonly now: number | null,
  ) {
    super(
      `${label} has changed since the page was loaded (it is ${now === null ? 'unlimited' : now} now, after a sale or another admin’s change). Nothing was saved: reload the page and try again.`,
    );
  }
}

export type StockSaveResult = { ok: true; changed: number } | { ok: false; status: 400 | 409; code: string; message: string };

/**
 * Sets counts (and the threshold) in one transaction, each change recorded as an admin action: all or nothing. A count
 * with `from` changes only if it still is `from`. Items are taken in one order (the order every stock path locks in),
 * so a save and the checkouts holding the same items queue up rather than deadlock.
 */
export async function saveStock(me: AdminCaller, catalogue: CatalogueIndex, body: StockBody): Promise<StockSaveResult> {
  const counts = [...(body.counts ?? [])];
  const seen = new Set<string>();
  for (const [i, c] of counts.entries()) {
    const refused = itemProblem(catalogue, c);
    if (refused) return { ok: false, status: 400, code: 'invalid_item', message: `Count ${i + 1}: ${refused}` };
    const id = cartId(c.productId, c.selectedColor, c.selectedSize);
    if (seen.has(id)) return { ok: false, status: 400, code: 'invalid_item', message: `Count ${i + 1} repeats an item.` };
    seen.add(id);
  }
  const key = (c: CountChange): StockKey => ({
    productId: c.productId,
    color: c.selectedColor ?? '',
    size: c.selectedSize ?? '',
  });
  counts.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return (
      x.productId - y.productId ||
      (x.color < y.color ? -1 : x.color > y.color ? 1 : 0) ||
      (x.size < y.size ? -1 : x.size > y.size ? 1 : 0)
    );
  });
  try {
    const changed = await me.run(async (tx) => {
      // The counted ones among them, locked first in the order every stock path locks in.
      await tx.query(
        `select 1 from public.stock_levels s
           join jsonb_to_recordset($1::text::jsonb) as w (product_id integer, color text, size text)
             on s.product_id = w.product_id and s.color = w.color and s.size = w.size
          order by s.product_id, s.color collate "C", s.size collate "C"
          for update of s`,
        [JSON.stringify(counts.map((c) => ({ product_id: c.productId, color: key(c).color, size: key(c).size })))],
      );
      let n = 0;
      for (const c of counts) if (await setCount(tx, me, catalogue, key(c), c)) n++;
      if (body.lowStockThreshold !== undefined && (await setThreshold(tx, me, body.lowStockThreshold))) n++;
      return n;
    });
    return { ok: true, changed };
  } catch (error) {
    if (error instanceof StockChanged) return { ok: false, status: 409, code: 'stock_changed', message: error.message };
    throw error;
  }
}

async function setCount(tx: Sql, me: AdminCaller, catalogue: CatalogueIndex, k: StockKey, c: CountChange): Promise<boolean> {
  const where = 'product_id = $1 and color = $2 and size = $3';
  const params = [k.productId, k.color, k.size];
  const [row] = await tx.query<{ on_hand: number }>(`select on_hand from public.stock_levels where ${where} for update`, params);
  const before = row ? row.on_hand : null;
  const label = itemLabel(catalogue, k);
  if (c.from !== undefined && c.from !== before) throw new StockChanged(label, before);
  if (before === c.onHand) return false;
  if (c.onHand === null) {
    await tx.query(`delete from public.stock_levels where ${where}`, params);
  } else if (before === null) {
    // Counted from now on. Should another admin have counted it since the read above, that is a change too.
    const [inserted] = await tx.query(
      `insert into public.stock_levels (product_id, color, size, on_hand) values ($1, $2, $3, $4)
       on conflict (product_id, color, size) do nothing returning on_hand`,
      [...params, c.onHand],
    );
    if (!inserted) {
      const [now] = await tx.query<{ on_hand: number }>(`select on_hand from public.stock_levels where ${where}`, params);
      throw new StockChanged(label, now?.on_hand ?? null);
    }
  } else {
    await tx.query(`update public.stock_levels set on_hand = $4, updated_at = now() where ${where}`, [...params, c.onHand]);
  }
  await recordAction(tx, me.admin, {
    action: 'stock.set',
    target: label,
    before: { onHand: before },
    after: { onHand: c.onHand },
  });
  return true;
}

async function setThreshold(tx: Sql, me: AdminCaller, threshold: number): Promise<boolean> {
  const [row] = await tx.query<{ threshold: number }>(
    `select low_stock_threshold as threshold from public.stock_settings for update`,
  );
  if (row?.threshold === threshold) return false;
  await tx.query(`update public.stock_settings set low_stock_threshold = $1, updated_at = now()`, [threshold]);
  await recordAction(tx, me.admin, {
    action: 'stock.threshold',
    target: 'low-stock threshold',
    before: { lowStockThreshold: row?.threshold ?? null },
    after: { lowStockThreshold: threshold },
  });
  return true;
}

/** The page's rows and threshold as they are now. */
async function current(me: AdminCaller, catalogue: CatalogueIndex) {
  return me.run(async (tx) => ({ rows: await stockRows(tx, catalogue), lowStockThreshold: await lowStockThreshold(tx) }));
}

/** GET /api/admin/stock: every row and the threshold; 404 for anyone who is no admin. */
export async function adminStockGet(deps: AdminDeps, jar: CookieJar, catalogue: CatalogueIndex): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  return json(await current(me, catalogue));
}

/**
 * POST /api/admin/stock {counts?, lowStockThreshold?}: 200 with every row as it is now (StockAnswer); 400 for a bad
 * item or count, naming it; 409 when a count moved since the owner saw it (nothing saved); 404 for anyone who is no
 * admin, before the body is read.
 */
export async function adminStockSave(
  deps: AdminDeps,
  request: Request,
  jar: CookieJar,
  catalogue: CatalogueIndex,
): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, stockBody);
  if ('response' in body) return body.response;
  const result = await saveStock(me, catalogue, body.data);
  if (!result.ok) return problem(result.status, result.code, result.message);
  const now = await current(me, catalogue);
  const answer: StockPageAnswer = {
    ...now,
    changed: result.changed,
    message:
      result.changed === 0
        ? 'Nothing changed: every count was already as saved.'
        : `Saved ${result.changed} change${result.changed === 1 ? '' : 's'}.`,
  };
  return json(answer);
}
