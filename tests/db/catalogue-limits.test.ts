import { describe, expect, it } from 'vitest';
import { productForm, type SaveResult, saveBody, saveProduct, undoSave } from '@/features/editor/catalogue-edit.server';
import type { EditorCaller } from '@/features/editor/editors.server';
import { asService } from '@/server/db/roles.server';
import { newShopper } from './shopper-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

// What an editor's save may not do to the money path and to what carts, stock counts and orders rely on, on a real
// database: a price or weight the checkout cannot charge or ship is refused in words; a colour's key never changes;
// a colour whose stock is counted is not removed; one in carts and orders is, and the save says what becomes of them.

const db = suiteDatabase();
const SCRUBS = '03-clinical-scrubs.md';
const OIL = '06-turmeric-body-oil.md';

let me: Promise<EditorCaller> | undefined;
/** An editor (the role's checks are catalogue-editor.test.ts's): their account, and the service role's way in. */
function editor(): Promise<EditorCaller> {
  me ??= newShopper(db, 'editor').then((claims) => ({
    editor: { id: claims.sub, email: claims.email ?? '', admin: false },
    run: (fn) => asService(db, fn),
  }));
  return me;
}

const service = <T extends object>(sql: string, params: unknown[] = []) => asService(db, (tx) => tx.query<T>(sql, params));
const revisions = async () => (await service<{ n: number }>('select count(*)::int as n from public.catalogue_revisions'))[0]?.n;
const formOf = (file: string) => asService(db, (tx) => productForm(tx, file));
type Colour = { name: string; value: string; hex: string; image?: { src: string; alt: string } };
const coloursOf = async (file = SCRUBS) => ((await formOf(file))?.fields.colors ?? []) as Colour[];

/** Saves `fields` into `file` over its latest save, as the form sends them. */
async function save(file: string, fields: Record<string, unknown>): Promise<SaveResult> {
  const form = await formOf(file);
  return saveProduct(await editor(), file, saveBody.parse({ base: form?.revision ?? 0, fields }));
}

/** A refused save: 400 with these words beside `field`, and nothing saved. */
async function refused(file: string, fields: Record<string, unknown>, field: string, message: string) {
  const before = await revisions();
  expect(await save(file, fields)).toEqual({
    ok: false,
    status: 400,
    code: 'invalid_product',
    message,
    problems: [{ field, message }],
  });
  expect(await revisions()).toBe(before);
}

describe(`prices and weights an editor saves, on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('a price of nothing, or more than five of it can be charged in one payment, is refused in words and saves nothing', async () => {
    for (const price of [0, -45]) await refused(OIL, { price }, 'price', 'Price must be more than $0.00.');
    for (const price of [1e-9, 0.001]) await refused(OIL, { price }, 'price', 'Price must be at least $0.01.');
    for (const price of [30_000_000, 1e20, 183_471.08]) {
      await refused(
        OIL,
        { price },
        'price',
        'Price can be at most $183,471.07: five of it, with tax and shipping, must fit in one card payment (at most $999,999.99).',
      );
    }
    expect(await save(OIL, { price: 183_471.07 })).toMatchObject({ ok: true, saved: true, summary: 'price $35.00 → $183471.07' });
    expect(await save(OIL, { price: 0.01 })).toMatchObject({ ok: true, saved: true });
  });

  it('a weight of nothing, or more than five of it fit in the shop’s parcel, is refused in words', async () => {
    for (const weight of [1e-9, 0, -1]) await refused(OIL, { weight }, 'weight', 'Shipping weight must be at least 0.01 lb.');
    for (const weight of [1e20, 30.5]) {
      await refused(
        OIL,
        { weight },
        'weight',
        'Shipping weight can be at most 30 lb: five of it must fit in one parcel (at most 150 lb).',
      );
    }
    expect(await save(OIL, { weight: 30 })).toMatchObject({ ok: true, saved: true });
  });
});

describe(`colour keys, on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('the name and swatch of a colour change; its key does not, even in a crafted request', async () => {
    const colours = await coloursOf();
    const [blue, ...rest] = colours;
    if (!blue) throw new Error('no colours');
    await refused(
      SCRUBS,
      { colors: [{ ...blue, value: 'blue-two' }, ...rest] },
      'colors',
      'Colour “Blue” keeps its key (blue): carts, stock counts and orders know the colour by it. Change its name or swatch instead; to sell another colour, add it as a new colour.',
    );
    expect(await save(SCRUBS, { colors: [{ ...blue, name: 'Cobalt', hex: '#2a5fb8' }, ...rest] })).toMatchObject({
      ok: true,
      saved: true,
    });
    expect((await coloursOf()).map((c) => c.value)).toEqual(colours.map((c) => c.value));
    await save(SCRUBS, { colors: colours });
  });

  it('a colour whose stock the shop counts is not removed: the save says why and saves nothing; once uncounted, it is', async () => {
    await service(
      `insert into public.stock_levels (product_id, color, size, on_hand) values (3, 'grey', 'M', 4), (3, 'grey', 'L', 0)`,
    );
    const colours = await coloursOf();
    const withoutGrey = colours.filter((c) => c.value !== 'grey');
    const message =
      '“Grey” cannot be removed while the shop counts its stock (4 on hand): the counts would apply to nothing. Ask the shop’s owner to clear its counts on the Stock page first, then remove it.';
    await refused(SCRUBS, { colors: withoutGrey }, 'colors', message);
    // Renaming is no way round it: the key is the colour.
    await refused(
      SCRUBS,
      { colors: colours.map((c) => (c.value === 'grey' ? { ...c, value: 'slate' } : c)) },
      'colors',
      'Colour “Grey” keeps its key (grey): carts, stock counts and orders know the colour by it. Change its name or swatch instead; to sell another colour, add it as a new colour.',
    );
    await service(`delete from public.stock_levels where product_id = 3 and color = 'grey'`);
    expect(await save(SCRUBS, { colors: withoutGrey })).toMatchObject({ ok: true, saved: true, notice: null });
    expect((await coloursOf()).map((c) => c.value)).not.toContain('grey');
  });

  it('a colour in shoppers’ carts and past orders may go: the save says what becomes of them', async () => {
    const shopper = await newShopper(db, 'cart');
    await service(
      `insert into public.user_carts (user_id, cart_id, product_id, quantity, selected_color, selected_size)
       values ($1, '3-black-M', 3, 2, 'black', 'M')`,
      [shopper.sub],
    );
    const [order] = await service<{ id: string }>(
      `insert into public.orders (customer_email, customer_name, subtotal_cents, shipping_cents, tax_cents, total_cents,
         payment_intent_id, shipping_address, shipping_method)
       values ('a@example.com', 'Ann', 4500, 1000, 401, 5901, 'pi_colour_keys', '{}', '{}') returning id`,
    );
    await service(
      `insert into public.order_items (order_id, product_id, product_name, product_category, price_cents, quantity,
         selected_color, selected_size, product_sku, image)
       values ($1, 3, 'Clinical Scrubs', 'scrubs', 4500, 1, 'black', 'S', 'AUR-SCRB-SET', '/x.svg')`,
      [order?.id],
    );
    const colours = await coloursOf();
    const result = await save(SCRUBS, { colors: colours.filter((c) => c.value !== 'black') });
    expect(result).toMatchObject({
      ok: true,
      saved: true,
      notice:
        'Black was removed. Once published: it is taken out of the 1 saved cart that holds it (its shopper is told), and the 1 order of it keeps it as bought.',
    });
    // Nothing is changed by the save itself: carts and orders keep their rows until the publish (and orders for ever).
    expect(await service('select 1 from public.user_carts where selected_color = $1', ['black'])).toHaveLength(1);
  });

  it('an undo is held to the same rule: it cannot take away a colour whose stock is counted since', async () => {
    const colours = await coloursOf();
    const added = await save(SCRUBS, { colors: [...colours, { name: 'Wine', value: 'wine', hex: '#6d1f2f' }] });
    if (!added.ok) throw new Error(added.message);
    await service(`insert into public.stock_levels (product_id, color, size, on_hand) values (3, 'wine', 'S', 6)`);
    const before = await revisions();
    expect(await undoSave(await editor(), added.revision)).toEqual({
      ok: false,
      status: 400,
      code: 'invalid_product',
      message:
        'This save cannot be undone now. “Wine” cannot be removed while the shop counts its stock (6 on hand): the counts would apply to nothing. Ask the shop’s owner to clear its counts on the Stock page first, then remove it.',
      problems: [
        {
          field: 'colors',
          message:
            '“Wine” cannot be removed while the shop counts its stock (6 on hand): the counts would apply to nothing. Ask the shop’s owner to clear its counts on the Stock page first, then remove it.',
        },
      ],
    });
    expect(await revisions()).toBe(before);
  });
});
