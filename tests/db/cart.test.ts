/**
 * The saved cart against a real database (PGlite, or PostgreSQL when TEST_DATABASE_URL is set): the functions behind
 * GET and PUT /api/cart, run as the endpoints run them (as the shopper: RLS decides).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CartLine, type CartLineInput, cartId } from '@/features/cart/cart';
import { cartBody, loadCart, storeCart } from '@/features/cart/cart.server';
import type { Database } from '@/server/db/database.server';
import { asShopper, claimsSetting, type ShopperClaims } from '@/server/db/roles.server';
import { loadCatalogueIndex, withOutOfStock } from '../unit/load-catalogue';
import { freshDatabase, TEST_DATABASE_KIND } from './test-database';

const catalogue = loadCatalogueIndex();
const A: ShopperClaims = { sub: '00000000-0000-4000-8000-0000000000a1', email: 'ann@example.com', role: 'authenticated' };
const B: ShopperClaims = { sub: '00000000-0000-4000-8000-0000000000b1', email: 'ben@example.com', role: 'authenticated' };

let db: Database;
beforeAll(async () => {
  db = await freshDatabase();
  for (const user of [A, B]) await db.query('insert into auth.users (id, email) values ($1, $2)', [user.sub, user.email]);
}, 60_000);
afterAll(() => db?.close());
beforeEach(async () => {
  await db.query('delete from public.user_carts');
});

const line = (productId: number, quantity: number, color: string | null = null, size: string | null = null): CartLineInput => ({
  productId,
  quantity,
  selectedColor: color,
  selectedSize: size,
});
const withId = (l: CartLineInput): CartLine => ({ ...l, cartId: cartId(l.productId, l.selectedColor, l.selectedSize) });

const save = (who: ShopperClaims, lines: CartLineInput[]) => storeCart(db, who, lines, catalogue);
const load = (who: ShopperClaims) => asShopper(db, who, (tx) => loadCart(tx, catalogue));
/** Every cart row, as the superuser sees it (the ground truth, past RLS). */
const rows = () =>
  db.query<{ user_id: string; cart_id: string; quantity: number }>(
    'select user_id::text, cart_id, quantity from public.user_carts order by user_id, sort_order',
  );

const soap = line(8, 2);
const scrubs = line(3, 1, 'powder-blue', 'L');
const oil = line(6, 3);

describe(`the saved cart on ${TEST_DATABASE_KIND}`, () => {
  it('saves the lines and reads them back in the shopper’s order, with their keys', async () => {
    expect(await save(A, [soap, scrubs, oil])).toEqual({ ok: true, lines: [soap, scrubs, oil].map(withId) });
    expect(await load(A)).toEqual([soap, scrubs, oil].map(withId));
    expect((await rows()).map((r) => r.cart_id)).toEqual(['8', '3-powder-blue-L', '6']);
  });

  it('a save replaces the whole cart: nothing left over, nothing doubled', async () => {
    await save(A, [soap, scrubs]);
    await save(A, [oil, { ...soap, quantity: 5 }]);
    expect(await load(A)).toEqual([oil, { ...soap, quantity: 5 }].map(withId));
    expect(await rows()).toHaveLength(2);
    await save(A, []);
    expect(await load(A)).toEqual([]);
  });

  describe('a refused cart changes nothing', () => {
    const cases: [string, CartLineInput[], string][] = [
      ['an unknown product', [soap, line(999, 1)], 'Line 2: product 999 is not in the catalogue.'],
      ['scrubs without a size', [line(3, 1, 'blue', null)], 'Line 1: Clinical Scrubs: please choose a size.'],
      ['scrubs without a colour', [line(3, 1, null, 'M')], 'Line 1: Clinical Scrubs: please choose a colour.'],
      ['an unknown colour', [line(3, 1, 'red', 'M')], 'Line 1: Clinical Scrubs does not come in the colour “red”.'],
      ['an unknown size', [line(3, 1, 'blue', 'XXXL')], 'Line 1: Clinical Scrubs does not come in the size “XXXL”.'],
      ['a colour on a soap', [line(8, 1, 'blue')], 'Line 1: Turmeric Face Soap comes in one colour only; send no colour.'],
      ['quantity 0', [line(8, 0)], 'Line 1: Turmeric Face Soap: the quantity must be a whole number from 1 to 5.'],
      ['quantity 6', [oil, line(8, 6)], 'Line 2: Turmeric Face Soap: the quantity must be a whole number from 1 to 5.'],
      ['quantity 2.5', [line(8, 2.5)], 'Line 1: Turmeric Face Soap: the quantity must be a whole number from 1 to 5.'],
      ['the same variant twice', [soap, oil, soap], 'Line 3 repeats line 1; send each product, colour and size once.'],
    ];

    it.each(cases)('%s → %s', async (_what, lines, message) => {
      await save(A, [scrubs]);
      const before = await rows();
      expect(await save(A, lines)).toEqual({ ok: false, message });
      expect(await rows()).toEqual(before);
      expect(await load(A)).toEqual([withId(scrubs)]);
    });
  });

  it('reading deletes rows whose product, colour or size the catalogue no longer has, and leaves them out', async () => {
    await save(A, [soap, scrubs]);
    await save(B, [oil]);
    // Rows as an older catalogue (or a direct write with the public key) could have left them. Products 998 and 999
    // have left the catalogue, so the products table keeps them as no longer sold.
    await db.query(`insert into public.products (id, name) values (998, 'Old Oil'), (999, 'Old Soap')`);
    for (const [user, key, product, color, size] of [
      [A.sub, '999', 999, null, null],
      [A.sub, '3-red-M', 3, 'red', 'M'],
      [A.sub, '7-XL', 7, null, 'XL'],
      [A.sub, '9', 1, null, null], // a key that does not match its variant
      [B.sub, '998', 998, null, null],
    ] as const) {
      await db.query(
        `insert into public.user_carts (user_id, cart_id, product_id, quantity, selected_color, selected_size, sort_order)
         values ($1, $2, $3, 1, $4, $5, 9)`,
        [user, key, product, color, size],
      );
    }
    expect(await load(A)).toEqual([soap, scrubs].map(withId));
    expect((await rows()).filter((r) => r.user_id === A.sub).map((r) => r.cart_id)).toEqual(['8', '3-powder-blue-L']);
    // B's stale row is B's business: A's read does not touch it.
    expect((await rows()).filter((r) => r.user_id === B.sub).map((r) => r.cart_id)).toEqual(['6', '998']);
    expect(await load(B)).toEqual([withId(oil)]);
    expect((await rows()).filter((r) => r.user_id === B.sub).map((r) => r.cart_id)).toEqual(['6']);
  });

  describe('an out-of-stock product (here the soap, marked so in a copy of the catalogue)', () => {
    const soldOut = withOutOfStock(catalogue, 8);

    it('is refused in a save (PUT /api/cart answers 400 with the message), and the saved cart stays as it was', async () => {
      await save(A, [scrubs]);
      const before = await rows();
      const refused = await storeCart(db, A, [oil, soap], soldOut);
      expect(refused).toEqual({ ok: false, message: 'Line 2: Turmeric Face Soap is out of stock.' });
      expect(await rows()).toEqual(before);
      // The same cart is taken while the soap is in stock.
      expect(await save(A, [oil, soap])).toMatchObject({ ok: true });
    });

    it('a saved line whose product went out of stock since is deleted on read, like a retired colour', async () => {
      await save(A, [soap, scrubs, oil]);
      expect(await asShopper(db, A, (tx) => loadCart(tx, soldOut))).toEqual([scrubs, oil].map(withId));
      expect((await rows()).map((r) => r.cart_id)).toEqual(['3-powder-blue-L', '6']);
    });
  });

  it('a quantity above 5 written outside our endpoints is deleted on read too (the page could not show or change it)', async () => {
    await db.query(`insert into public.user_carts (user_id, cart_id, product_id, quantity) values ($1, '8', 8, 50)`, [A.sub]);
    expect(await load(A)).toEqual([]);
    expect(await rows()).toEqual([]);
  });

  it('one shopper can neither see nor change another’s cart through these functions', async () => {
    await save(B, [oil, scrubs]);
    const bRows = await rows();
    expect(await load(A)).toEqual([]);
    await save(A, [soap]);
    expect(await load(A)).toEqual([withId(soap)]);
    await save(A, []);
    expect((await rows()).filter((r) => r.user_id === B.sub)).toEqual(bRows);
    expect(await load(B)).toEqual([oil, scrubs].map(withId));
  });

  it('a guest has no saved cart: the database refuses the anonymous role outright', async () => {
    await expect(asShopper(db, null, (tx) => loadCart(tx, catalogue))).rejects.toThrow(/permission denied/);
    await expect(
      asShopper(db, null, (tx) =>
        tx.query(`insert into public.user_carts (user_id, cart_id, product_id, quantity) values ($1, '8', 8, 1)`, [A.sub]),
      ),
    ).rejects.toThrow(/permission denied/);
    expect(await rows()).toEqual([]);
  });

  // save_cart_as runs with the claims it is handed, so only the server may call it: a shopper who could would write
  // anyone's cart. Supabase's table API runs as these roles with the public key.
  it.each(['anon', 'authenticated', 'service_role'] as const)(
    'the save function is refused to %s: no one but the server names the claims',
    async (role) => {
      await save(B, [oil]);
      const before = await rows();
      const as = role === 'authenticated' ? A : null;
      const attack = asShopper(db, as, async (tx) => {
        if (role === 'service_role') await tx.query(`select set_config('role', 'service_role', true)`);
        return tx.query(`select app_private.save_cart_as($1, $2::text::jsonb)`, [
          claimsSetting(B),
          JSON.stringify([
            { cart_id: '8', product_id: 8, quantity: 5, selected_color: null, selected_size: null, sort_order: 0 },
          ]),
        ]);
      });
      await expect(attack).rejects.toThrow(/permission denied/);
      expect(await rows()).toEqual(before);
    },
  );

  it('a save that fails in the database after its delete leaves the old cart whole', async () => {
    await save(A, [soap, scrubs]);
    // A catalogue that sells a product the database has never heard of: the insert breaks the products foreign key,
    // after the statement has deleted the lines no longer in the cart.
    const known = catalogue.get(8);
    if (!known) throw new Error('product 8 is not in the catalogue');
    const ahead = new Map([...catalogue, [997, { ...known, id: 997 }]]) as typeof catalogue;
    await expect(storeCart(db, A, [line(997, 1)], ahead)).rejects.toThrow(/foreign key/);
    expect(await load(A)).toEqual([soap, scrubs].map(withId));
    expect(await rows()).toHaveLength(2);
  });

  it('two concurrent saves (two tabs) end with exactly one of the two carts, never a mix, an empty or a doubled cart', async () => {
    const first = [soap, scrubs, oil];
    const second = [line(1, 1), { ...soap, quantity: 4 }, line(3, 2, 'black', 'XS'), line(9, 1)];
    for (let round = 0; round < 12; round++) {
      const [x, y] = round % 2 === 0 ? [first, second] : [second, first];
      const results = await Promise.all([save(A, x), save(A, y)]);
      expect(results.every((r) => r.ok)).toBe(true);
      const after = await load(A);
      expect([x.map(withId), y.map(withId)]).toContainEqual(after);
      expect((await rows()).length).toBe(after.length);
    }
  });

  it('concurrent saves by two shoppers do not wait for or disturb each other', async () => {
    await Promise.all([save(A, [soap]), save(B, [oil]), save(A, [scrubs]), save(B, [soap, oil])]);
    expect([[withId(soap)], [withId(scrubs)]]).toContainEqual(await load(A));
    expect([[withId(oil)], [soap, oil].map(withId)]).toContainEqual(await load(B));
  });
});

describe('the PUT /api/cart body', () => {
  const parse = (body: unknown) => {
    const result = cartBody.safeParse(body);
    return result.success ? result.data : result.error.issues[0]?.message;
  };

  it('takes lines with productId, quantity and optional colour and size (empty means none)', () => {
    expect(
      parse({
        lines: [
          { productId: 8, quantity: 2 },
          { productId: 3, quantity: 1, selectedColor: 'blue', selectedSize: 'M' },
        ],
      }),
    ).toEqual({
      lines: [
        { productId: 8, quantity: 2, selectedColor: null, selectedSize: null },
        { productId: 3, quantity: 1, selectedColor: 'blue', selectedSize: 'M' },
      ],
    });
    expect(parse({ lines: [{ productId: 8, quantity: 1, selectedColor: '', selectedSize: null }] })).toEqual({
      lines: [{ productId: 8, quantity: 1, selectedColor: null, selectedSize: null }],
    });
    expect(parse({ lines: [] })).toEqual({ lines: [] });
  });

  it('names the line a wrongly typed field is on', () => {
    expect(
      parse({
        lines: [
          { productId: 8, quantity: 1 },
          { productId: '3', quantity: 1 },
        ],
      }),
    ).toBe('Line 2: productId must be a positive whole number.');
    expect(parse({ lines: [{ productId: 1.5, quantity: 1 }] })).toBe('Line 1: productId must be a positive whole number.');
    expect(parse({ lines: [{ productId: 8 }] })).toBe('Line 1: quantity must be a number.');
    expect(parse({ lines: [{ productId: 3, quantity: 1, selectedColor: 5 }] })).toBe(
      'Line 1: selectedColor must be text or null.',
    );
    expect(parse({ lines: [{ productId: 3, quantity: 1, selectedSize: 'M'.repeat(41) }] })).toBe(
      'Line 1: selectedSize is too long.',
    );
    expect(parse({ lines: ['soap'] })).toBe('Line 1 must be an object with productId and quantity.');
  });

  it('refuses a body without lines, and more lines than any cart needs', () => {
    expect(parse({})).toBe('Send the cart as {"lines": [{"productId", "quantity", "selectedColor", "selectedSize"}]}.');
    expect(parse({ lines: Array.from({ length: 101 }, (_, i) => ({ productId: i + 1, quantity: 1 })) })).toBe(
      'A cart holds at most 100 lines.',
    );
  });
});
