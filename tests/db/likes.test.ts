import { describe, expect, it } from 'vitest';
import { like, likesSummary, unlike } from '@/features/likes/likes.server';
import { asService, asShopper, type ShopperClaims } from '@/server/db/roles.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { newShopper, sqlstate } from './shopper-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

const catalogue = loadCatalogueIndex();
const ids = [...catalogue.keys()];

const summaryFor = (claims: ShopperClaims | null) => asShopper(db, claims, (tx) => likesSummary(tx, ids, claims !== null));
const likeAs = (claims: ShopperClaims | null, productId: number) => asShopper(db, claims, (tx) => like(tx, catalogue, productId));
const unlikeAs = (claims: ShopperClaims | null, productId: number) =>
  asShopper(db, claims, (tx) => unlike(tx, catalogue, productId));

/** Every stored like, as the server's privileged role sees it. */
const storedLikes = () =>
  asService(db, (tx) =>
    tx.query<{ product_id: number; user_id: string }>(
      'select product_id, user_id::text from public.product_likes order by product_id, user_id',
    ),
  );

describe(`likes on ${TEST_DATABASE_KIND}`, () => {
  it('before anyone likes anything: no shoppers’ likes, and a guest likes nothing', async () => {
    expect(await summaryFor(null)).toEqual({ counts: {}, liked: [] });
  });

  it('a like counts once however often it is sent, and unliking twice is no error either', async () => {
    const ann = await newShopper(db, 'ann');
    expect(await likeAs(ann, 5)).toEqual({ ok: true, value: { productId: 5, liked: true, count: 1 } });
    expect(await likeAs(ann, 5)).toEqual({ ok: true, value: { productId: 5, liked: true, count: 1 } });
    expect(await summaryFor(ann)).toEqual({ counts: { 5: 1 }, liked: [5] });

    expect(await unlikeAs(ann, 5)).toEqual({ ok: true, value: { productId: 5, liked: false, count: 0 } });
    expect(await unlikeAs(ann, 5)).toEqual({ ok: true, value: { productId: 5, liked: false, count: 0 } });
    expect(await summaryFor(ann)).toEqual({ counts: {}, liked: [] });
  });

  it('counts every shopper’s like; each shopper sees only their own as liked, a guest sees the counts', async () => {
    const [ann, ben, cy] = [await newShopper(db, 'ann'), await newShopper(db, 'ben'), await newShopper(db, 'cy')];
    await likeAs(ann, 1);
    await likeAs(ben, 1);
    await likeAs(ben, 8);
    expect(await likeAs(cy, 1)).toMatchObject({ ok: true, value: { count: 3 } });

    expect(await summaryFor(null)).toEqual({ counts: { 1: 3, 8: 1 }, liked: [] });
    expect(await summaryFor(ann)).toEqual({ counts: { 1: 3, 8: 1 }, liked: [1] });
    expect(await summaryFor(ben)).toEqual({ counts: { 1: 3, 8: 1 }, liked: [1, 8] });
    expect(JSON.stringify(await summaryFor(null))).not.toContain(ann.sub);

    for (const shopper of [ann, ben, cy]) await unlikeAs(shopper, 1);
    await unlikeAs(ben, 8);
    expect(await summaryFor(null)).toEqual({ counts: {}, liked: [] });
  });

  it('another shopper can neither see nor take back my like', async () => {
    const [ann, ben] = [await newShopper(db, 'ann'), await newShopper(db, 'ben')];
    await likeAs(ann, 3);
    const seenByBen = await asShopper(db, ben, (tx) => tx.query('select product_id, user_id from public.product_likes'));
    expect(seenByBen).toEqual([]);
    expect(await unlikeAs(ben, 3)).toEqual({ ok: true, value: { productId: 3, liked: false, count: 1 } });
    expect(await storedLikes()).toEqual([{ product_id: 3, user_id: ann.sub }]);
    await unlikeAs(ann, 3);
  });

  it('a product the catalogue does not have cannot be liked or unliked, and nothing is stored', async () => {
    const ann = await newShopper(db, 'ann');
    expect(await likeAs(ann, 999)).toEqual({ ok: false, reason: 'not_found' });
    expect(await unlikeAs(ann, 999)).toEqual({ ok: false, reason: 'not_found' });
    expect(await storedLikes()).toEqual([]);
  });

  it('a guest is refused by the database itself (the endpoint answers 401 before it gets this far)', async () => {
    await expect(likeAs(null, 2)).rejects.toSatisfy((error) => sqlstate(error) === '42501');
    await expect(unlikeAs(null, 2)).rejects.toSatisfy((error) => sqlstate(error) === '42501');
    expect(await storedLikes()).toEqual([]);
  });

  it('two likes sent at once (a double click, two tabs) store one row and both succeed', async () => {
    const ann = await newShopper(db, 'ann');
    const results = await Promise.all([likeAs(ann, 9), likeAs(ann, 9)]);
    for (const result of results) expect(result).toMatchObject({ ok: true, value: { liked: true } });
    expect(await storedLikes()).toEqual([{ product_id: 9, user_id: ann.sub }]);
    await unlikeAs(ann, 9);
  });
});
