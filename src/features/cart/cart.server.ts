import { z } from 'astro/zod';
import type { Product } from '@/features/catalog/catalog.server';
import { productHref } from '@/features/catalog/catalog.server';
import type { Sql, Statement } from '@/server/db/database.server';
import { productIdValue } from '@/server/product-id.server';
import { type CartLine, type CartLineInput, type CartProduct, type CartRulesCatalogue, cartId } from './cart';
import { cartProblem, lineProblem } from './cart.rules';

/** Most lines a cart may hold: every variant of the catalogue fits many times over (the scrubs have 24). */
export const MAX_CART_LINES = 100;

/** "Line 2: …": which line of the request a type problem is on. */
function lineOf(path: readonly PropertyKey[]): string {
  const index = path[1];
  return typeof index === 'number' ? `Line ${index + 1}` : 'A line';
}

const variant = (what: string) =>
  z
    .string({ error: (iss) => `${lineOf(iss.path ?? [])}: ${what} must be text or null.` })
    .max(40, { error: (iss) => `${lineOf(iss.path ?? [])}: ${what} is too long.` })
    .nullable()
    .optional()
    .transform((v) => v || null);

/** The body of PUT /api/cart: only the shape is checked here; the catalogue's rules come after (cartProblem). */
export const cartBody = z.object({
  lines: z
    .array(
      z.object(
        {
          productId: productIdValue((iss) => `${lineOf(iss.path ?? [])}: productId must be a positive whole number.`),
          quantity: z.number({ error: (iss) => `${lineOf(iss.path ?? [])}: quantity must be a number.` }),
          selectedColor: variant('selectedColor'),
          selectedSize: variant('selectedSize'),
        },
        { error: (iss) => `${lineOf(iss.path ?? [])} must be an object with productId and quantity.` },
      ),
      { error: 'Send the cart as {"lines": [{"productId", "quantity", "selectedColor", "selectedSize"}]}.' },
    )
    .max(MAX_CART_LINES, { error: `A cart holds at most ${MAX_CART_LINES} lines.` }),
});

/** The compact catalogue the header's cart island receives: names, prices, pictures and variants, nothing more. */
export function cartProducts(products: readonly Product[]): CartProduct[] {
  return products.map((p) => ({
    id: p.id,
    name: p.name,
    priceCents: p.priceCents,
    inStock: p.inStock,
    href: productHref(p.id),
    image: p.images[0]?.src.src ?? '',
    colors: p.colors.map((c) => c.value),
    sizes: [...p.sizes],
    colorNames: Object.fromEntries(p.colors.map((c) => [c.value, c.name])),
    colorImages: Object.fromEntries(p.colors.flatMap((c) => (c.image ? [[c.value, c.image.src.src]] : []))),
    weight: p.weight,
  }));
}

interface CartRow {
  cart_id: string;
  product_id: number;
  quantity: number;
  selected_color: string | null;
  selected_size: string | null;
}

/** The shopper's cart lock, held until the transaction ends. */
const CART_LOCK = `pg_advisory_xact_lock(hashtextextended('user_carts:' || (select auth.uid())::text, 0))`;

/**
 * Serialises the cart work of one shopper: a second save (another tab, a retried request) waits until the first has
 * committed, so its delete sees the first one's rows and the cart ends up as exactly one of the two.
 */
async function lockCart(tx: Sql): Promise<void> {
  await tx.query(`select ${CART_LOCK}`);
}

/**
 * The signed-in shopper's saved cart (run as the shopper: RLS shows only their rows). Rows the catalogue no longer
 * accepts (a product that left it or went out of stock, a colour or size no longer made) are deleted and left out: a
 * saved line must be one the next save and the checkout accept (see knownLines in cart.rules.ts for why an
 * out-of-stock line goes rather than staying marked).
 */
export async function loadCart(tx: Sql, catalogue: CartRulesCatalogue): Promise<CartLine[]> {
  await lockCart(tx);
  const rows = await tx.query<CartRow>(
    `select cart_id, product_id, quantity, selected_color, selected_size from public.user_carts
     where user_id = (select auth.uid()) order by sort_order, cart_id`,
  );
  const lines: CartLine[] = [];
  const stale: string[] = [];
  for (const row of rows) {
    const line: CartLine = {
      cartId: cartId(row.product_id, row.selected_color, row.selected_size),
      productId: row.product_id,
      quantity: row.quantity,
      selectedColor: row.selected_color,
      selectedSize: row.selected_size,
    };
    // A row written with a key that does not match its variant (only possible outside our endpoints) is stale too.
    if (line.cartId !== row.cart_id || lineProblem(line, catalogue.get(line.productId))) stale.push(row.cart_id);
    else lines.push(line);
  }
  if (stale.length > 0) {
    await tx.query(
      `delete from public.user_carts where user_id = (select auth.uid())
       and cart_id in (select jsonb_array_elements_text($1::text::jsonb))`,
      [JSON.stringify(stale)],
    );
  }
  return lines;
}

/**
 * What replacing the signed-in shopper's saved cart with `input` takes, after checking every line against the
 * catalogue: the lines saved, and the statements that save them, to run together in one transaction as the shopper
 * (`saveCart`, or the endpoint's one-round-trip batch). A refused cart has no statements: it changes nothing. The old
 * rows go and the new ones come in the same transaction, serialised per shopper, so the cart is never seen empty,
 * doubled or half-written.
 */
export function cartSave(
  input: readonly CartLineInput[],
  catalogue: CartRulesCatalogue,
): { ok: true; lines: CartLine[]; statements: Statement[] } | { ok: false; message: string } {
  const problem = cartProblem(input, catalogue);
  if (problem) return { ok: false, message: problem };
  const lines: CartLine[] = input.map((l) => ({
    cartId: cartId(l.productId, l.selectedColor, l.selectedSize),
    productId: l.productId,
    quantity: l.quantity,
    selectedColor: l.selectedColor,
    selectedSize: l.selectedSize,
  }));
  const rows = JSON.stringify(
    lines.map((l, i) => ({
      cart_id: l.cartId,
      product_id: l.productId,
      quantity: l.quantity,
      selected_color: l.selectedColor,
      selected_size: l.selectedSize,
      sort_order: i,
    })),
  );
  // Known before the transaction begins, so they leave with it: the lock is held until commit, and every save of
  // this shopper waits for it, so no round trip should happen while it is held.
  const statements: Statement[] = [
    // A saved cart is a copy of what the browser holds: should the database crash, losing the last fraction of a
    // second of saves is harmless, so this transaction does not wait for its commit to reach the disk (that wait,
    // ~3 ms here, would otherwise be spent holding the lock).
    { text: `select set_config('synchronous_commit', 'off', true), ${CART_LOCK}` },
    // One statement: lines that are no longer in the cart go, the others are written (old and new rows are disjoint).
    // A line saved unchanged is left as it is: no new row version to write now and to clean up later.
    {
      text: `with l as (
         select * from jsonb_to_recordset($1::text::jsonb)
           as l (cart_id text, product_id integer, quantity integer, selected_color text, selected_size text, sort_order integer)
       ), gone as (
         delete from public.user_carts c
         where c.user_id = (select auth.uid()) and c.cart_id not in (select l.cart_id from l)
       )
       insert into public.user_carts as c (user_id, cart_id, product_id, quantity, selected_color, selected_size, sort_order)
       select (select auth.uid()), l.cart_id, l.product_id, l.quantity, l.selected_color, l.selected_size, l.sort_order from l
       on conflict (user_id, cart_id) do update set product_id = excluded.product_id, quantity = excluded.quantity,
         selected_color = excluded.selected_color, selected_size = excluded.selected_size, sort_order = excluded.sort_order
       where (c.product_id, c.quantity, c.selected_color, c.selected_size, c.sort_order)
         is distinct from (excluded.product_id, excluded.quantity, excluded.selected_color, excluded.selected_size, excluded.sort_order)`,
      params: [rows],
    },
  ];
  return { ok: true, lines, statements };
}

/** Replaces the signed-in shopper's saved cart with `input` in the caller's transaction (see cartSave). */
export async function saveCart(
  tx: Sql,
  input: readonly CartLineInput[],
  catalogue: CartRulesCatalogue,
): Promise<{ ok: true; lines: CartLine[] } | { ok: false; message: string }> {
  const save = cartSave(input, catalogue);
  if (!save.ok) return save;
  await Promise.all(save.statements.map((s) => tx.query(s.text, s.params)));
  return { ok: true, lines: save.lines };
}
