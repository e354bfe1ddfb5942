import { describe, expect, it } from 'vitest';
import {
  addFavorite,
  clearFavorites,
  insertFavorite,
  listFavorites,
  removeFavorite,
} from '@/features/favorites/favorites.server';
import { asService, asShopper, type ShopperClaims } from '@/server/db/roles.server';
import { loadCatalogueIndex, withOutOfStock } from '../unit/load-catalogue';
import { newShopper, sqlstate } from './shopper-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

const catalogue = loadCatalogueIndex();

const add = (claims: ShopperClaims | null, productId: number) =>
  addFavorite((fn) => asShopper(db, claims, fn), catalogue, productId);
const list = (claims: ShopperClaims | null) => asShopper(db, claims, (tx) => listFavorites(tx, catalogue));
const listedIds = async (claims: ShopperClaims) => (await list(claims)).map((f) => f.productId);
const remove = (claims: ShopperClaims | null, productId: number) => asShopper(db, claims, (tx) => removeFavorite(tx, productId));
const clear = (claims: ShopperClaims | null) => asShopper(db, claims, (tx) => clearFavorites(tx));

/** A shopper's stored rows, as the server's privileged role sees them. */
const storedFor = (claims: ShopperClaims) =>
  asService(db, (tx) =>
    tx.query<Record<string, unknown>>(
      `select product_id, product_name, product_image, product_price_cents, product_category
       from public.user_favorites where user_id = $1 order by product_id`,
      [claims.sub],
    ),
  );

describe(`favorites on ${TEST_DATABASE_KIND}`, () => {
  it('saves a product with its name, picture, price and category copied from the catalogue', async () => {
    const ann = await newShopper(db, 'ann');
    const butter = catalogue.get(2);
    if (!butter) throw new Error('product 2 is missing from the catalogue');
    const added = await add(ann, 2);
    expect(added).toEqual({
      ok: true,
      value: {
        productId: 2,
        name: butter.name,
        image: butter.image,
        priceCents: butter.priceCents,
        category: butter.category,
        addedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        href: '/product/2',
        cart: 'add',
      },
    });
    expect(await storedFor(ann)).toEqual([
      {
        product_id: 2,
        product_name: butter.name,
        product_image: butter.image,
        product_price_cents: butter.priceCents,
        product_category: butter.category,
      },
    ]);
    expect(await list(ann)).toEqual([added.ok ? added.value : null]);
  });

  it('lists newest first, also when several were saved in the same instant', async () => {
    const ann = await newShopper(db, 'ann');
    await add(ann, 4);
    await add(ann, 1);
    await add(ann, 7);
    expect(await listedIds(ann)).toEqual([7, 1, 4]);
    // One transaction: now() is the same for all three rows, so the order falls back to insertion order.
    await asShopper(db, ann, async (tx) => {
      for (const id of [9, 6, 8]) await insertFavorite(tx, catalogue, id);
    });
    expect(await listedIds(ann)).toEqual([8, 6, 9, 7, 1, 4]);
  });

  it('says how each favorite can go in the cart: at once, after choosing options, or not at all', async () => {
    const ann = await newShopper(db, 'ann');
    await add(ann, 3); // the scrubs: colour and size to choose
    await add(ann, 8);
    expect((await list(ann)).map((f) => [f.productId, f.cart])).toEqual([
      [8, 'add'],
      [3, 'choose'],
    ]);
    // A product that has left the catalogue stays listed (and removable) with the copies saved with it, but cannot be
    // bought; while it is in the catalogue, the catalogue's name, picture and price today are shown.
    const soap = catalogue.get(8);
    if (!soap) throw new Error('product 8 is missing from the catalogue');
    const changed = new Map(catalogue);
    changed.set(8, { ...soap, name: 'Turmeric Face Soap (new look)', image: '/_astro/soap.v2.svg', priceCents: 1200 });
    const current = await asShopper(db, ann, (tx) => listFavorites(tx, changed));
    expect(current[0]).toMatchObject({ name: 'Turmeric Face Soap (new look)', image: '/_astro/soap.v2.svg', priceCents: 1200 });
    const smaller = new Map(catalogue);
    smaller.delete(8);
    const listed = await asShopper(db, ann, (tx) => listFavorites(tx, smaller));
    expect(listed.map((f) => [f.productId, f.cart])).toEqual([
      [8, 'unavailable'],
      [3, 'choose'],
    ]);
    expect(listed[0]).toMatchObject({ name: soap.name, image: soap.image, priceCents: soap.priceCents, category: soap.category });
    // Out of stock, it stays listed with the catalogue's details, and the wishlist says so instead of offering Add to Cart.
    const soldOut = await asShopper(db, ann, (tx) => listFavorites(tx, withOutOfStock(catalogue, 8)));
    expect(soldOut.map((f) => [f.productId, f.cart])).toEqual([
      [8, 'out-of-stock'],
      [3, 'choose'],
    ]);
    expect(await remove(ann, 8)).toBe(true);
  });

  it('a second save of the same product is the database’s duplicate error 23505, answered as a duplicate', async () => {
    const ann = await newShopper(db, 'ann');
    await add(ann, 5);
    // The refusal is the table's unique key, not a check in our code: the insert itself fails with SQLSTATE 23505 …
    await expect(asShopper(db, ann, (tx) => insertFavorite(tx, catalogue, 5))).rejects.toSatisfy(
      (error) => sqlstate(error) === '23505',
    );
    // … which addFavorite answers as a duplicate, leaving the first save as it was.
    expect(await add(ann, 5)).toEqual({ ok: false, reason: 'duplicate' });
    expect(await listedIds(ann)).toEqual([5]);
    expect(await add(ann, 6)).toMatchObject({ ok: true, value: { productId: 6 } });
    expect(await listedIds(ann)).toEqual([6, 5]);
  });

  it('two saves of the same product at once (a double click, two tabs): one row, the other answered as a duplicate', async () => {
    const ann = await newShopper(db, 'ann');
    const results = await Promise.all([add(ann, 1), add(ann, 1)]);
    expect(results.map((r) => (r.ok ? 'saved' : r.reason)).sort()).toEqual(['duplicate', 'saved']);
    expect(await listedIds(ann)).toEqual([1]);
  });

  it('a product the catalogue does not have is not saved', async () => {
    const ann = await newShopper(db, 'ann');
    expect(await add(ann, 999)).toEqual({ ok: false, reason: 'not_found' });
    expect(await storedFor(ann)).toEqual([]);
  });

  it('removes one favorite; removing it again changes nothing', async () => {
    const ann = await newShopper(db, 'ann');
    await add(ann, 2);
    await add(ann, 9);
    expect(await remove(ann, 2)).toBe(true);
    expect(await remove(ann, 2)).toBe(false);
    expect(await listedIds(ann)).toEqual([9]);
  });

  it('another shopper can neither see nor remove my favorites, and clearing removes only the clearer’s', async () => {
    const [ann, ben] = [await newShopper(db, 'ann'), await newShopper(db, 'ben')];
    await add(ann, 1);
    await add(ann, 2);
    await add(ben, 2);

    expect(await listedIds(ben)).toEqual([2]);
    expect(await remove(ben, 1)).toBe(false);
    expect(await listedIds(ann)).toEqual([2, 1]);

    expect(await clear(ben)).toBe(1);
    expect(await listedIds(ben)).toEqual([]);
    expect(await listedIds(ann)).toEqual([2, 1]);

    expect(await clear(ann)).toBe(2);
    expect(await clear(ann)).toBe(0);
    expect(await storedFor(ann)).toEqual([]);
  });

  it('a shopper cannot save a favorite for someone else, even by writing the row directly', async () => {
    const [ann, ben] = [await newShopper(db, 'ann'), await newShopper(db, 'ben')];
    const forAnn = asShopper(db, ben, (tx) =>
      tx.query(
        `insert into public.user_favorites (user_id, product_id, product_name, product_image, product_price_cents, product_category)
         values ($1, 4, 'x', 'x', 0, 'x')`,
        [ann.sub],
      ),
    );
    await expect(forAnn).rejects.toSatisfy((error) => sqlstate(error) === '42501');
    expect(await storedFor(ann)).toEqual([]);
  });

  it('a guest is refused by the database itself (the endpoints answer 401 before it gets this far)', async () => {
    for (const attempt of [() => list(null), () => add(null, 2), () => remove(null, 2), () => clear(null)]) {
      await expect(attempt()).rejects.toSatisfy((error) => sqlstate(error) === '42501');
    }
  });
});
