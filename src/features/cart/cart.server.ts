// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { z } from 'astro/zod';
import type { Product } from '@/features/catalogue/catalogue.server';
import { productHref } from '@/features/catalogue/catalogue.server';
import type { Database, Sql } from '@/server/db/database.server';
import { claimsSetting, type ShopperClaims } from '@/server/db/roles.server';
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

/** The shopper's cart lock, held until the transaction ends: the same key app_private.save_cart_as takes. */
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
 * Replaces the signed-in shopper's saved cart with `input`, after checking every line against the catalogue: the
 * lines saved, or the first problem ('Line 1: Rose Oil is out of stock.'), which changes nothing. One statement, its
 * own transaction: `app_private.save_cart_as` takes the shopper's role and claims first, so row-level security
 * decides every row, then the cart lock, then the old rows go and the new ones come, so the cart is never seen
 * empty, doubled or half-written (supabase/migrations/20261127090000_cart_save_function.sql).
 */
export async function storeCart(
  db: Database,
  claims: ShopperClaims,
  input: readonly CartLineInput[],
  catalogue: CartRulesCatalogue,
): Promise<{ ok: true; lines: CartLine[] } | { ok: false; message: string }> {
  const problem = cartProblem(input, catalogue);
  if (problem) return { ok: false, message: problem };
  const lines: CartLine[] = input.map((l) => ({
    cartId: cartId(l.productId, l.selectedColor, l.selectedSize),
    productId: l.productId,
    quantity: l.quantity,
    selectedColor: l.selectedColor,
    selectedSize: l.selectedSize,
  }));
  const rows = lines.map((l, i) => ({
    cart_id: l.cartId,
    product_id: l.productId,
    quantity: l.quantity,
    selected_color: l.selectedColor,
    selected_size: l.selectedSize,
    sort_order: i,
  }));
  await db.statement(`select app_private.save_cart_as($1, $2::text::jsonb)`, [claimsSetting(claims), JSON.stringify(rows)]);
  return { ok: true, lines };
}
