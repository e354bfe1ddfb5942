import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncCatalogue } from '@/features/catalogue/catalogue-sync.server';
import { openPglite } from '@/server/db/pglite.server';
import { asShopper } from '@/server/db/roles.server';
import { loadCatalogue } from '../unit/load-catalogue';
import { newShopper, sqlstate } from './shopper-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

const catalogue = loadCatalogue().map(({ product }) => ({ id: product.id, name: product.name }));

const products = () =>
  db.query<{ id: number; name: string | null; in_catalogue: boolean }>(
    'select id, name, in_catalogue from public.products order by id',
  );

describe(`the catalogue's products in the database, on ${TEST_DATABASE_KIND}`, () => {
  it('holds every catalogue product after a sync (the test database syncs as the server does on start)', async () => {
    expect(await products()).toEqual(catalogue.map((p) => ({ ...p, in_catalogue: true })));
  });

  it('a product that leaves the catalogue stays, no longer sold, with shoppers’ rows about it; it can come back', async () => {
    const ann = await newShopper(db, 'ann');
    await asShopper(db, ann, (tx) =>
      tx.query('insert into public.product_likes (product_id, user_id) values (9, $1)', [ann.sub]),
    );

    await syncCatalogue(db, [...catalogue.filter((p) => p.id !== 9), { id: 10, name: 'Rose Balm' }]);
    expect((await products()).filter((p) => p.id >= 8)).toEqual([
      { id: 8, name: catalogue[7]?.name, in_catalogue: true },
      { id: 9, name: catalogue[8]?.name, in_catalogue: false },
      { id: 10, name: 'Rose Balm', in_catalogue: true },
    ]);
    expect(await db.query('select product_id from public.product_likes where user_id = $1', [ann.sub])).toEqual([
      { product_id: 9 },
    ]);

    await syncCatalogue(db, catalogue);
    expect((await products()).filter((p) => p.id >= 9)).toEqual([
      { id: 9, name: catalogue[8]?.name, in_catalogue: true },
      { id: 10, name: 'Rose Balm', in_catalogue: false },
    ]);
  });

  it('a renamed product is renamed; syncing twice changes nothing', async () => {
    await syncCatalogue(
      db,
      catalogue.map((p) => (p.id === 1 ? { ...p, name: 'Vitamin C Cream' } : p)),
    );
    expect((await products())[0]).toEqual({ id: 1, name: 'Vitamin C Cream', in_catalogue: true });
    await syncCatalogue(db, catalogue);
    const before = await db.query('select xmin::text as version, id from public.products order by id');
    await syncCatalogue(db, catalogue);
    expect(await db.query('select xmin::text as version, id from public.products order by id')).toEqual(before);
  });

  it('a shopper cannot add a product, so cannot then review it', async () => {
    const ann = await newShopper(db, 'ann');
    const error = await asShopper(db, ann, (tx) =>
      tx.query(`insert into public.products (id, name, in_catalogue) values (500, 'Mine', true)`),
    ).catch((e: unknown) => e);
    expect(sqlstate(error)).toBe('42501');
  });
});

describe('upgrading a database that already holds shoppers’ rows (PGlite)', () => {
  const root = join(import.meta.dirname, '../../supabase');
  const sqlFiles = (dir: string) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.sql'))
      .sort()
      .map((f) => ({ name: f, sql: readFileSync(join(root, dir, f), 'utf8') }));

  it('gives rows of products the catalogue no longer has an unnamed, unsold product, so the foreign keys hold', async () => {
    const old = await openPglite(null);
    try {
      // The schema as it was just before this migration, with shoppers' rows in it.
      const migrations = sqlFiles('migrations');
      const at = migrations.findIndex((f) => f.name === '20261124120000_catalogue_products.sql');
      expect(at).toBeGreaterThan(0);
      const latest = migrations[at];
      for (const file of [...sqlFiles('bootstrap'), ...migrations.slice(0, at)]) await old.exec(file.sql);
      const user = '00000000-0000-4000-8000-0000000000a1';
      await old.query(`insert into auth.users (id, email) values ($1, 'ann@example.com')`, [user]);
      await old.query(`insert into public.product_likes (product_id, user_id) values (3, $1), (77, $1)`, [user]);
      await old.query(`insert into public.product_reviews (product_id, user_id, comment) values (88, $1, 'Lovely')`, [user]);

      await old.exec(latest?.sql ?? '');
      expect(await old.query('select id, name, in_catalogue from public.products order by id')).toEqual([
        { id: 3, name: null, in_catalogue: false },
        { id: 77, name: null, in_catalogue: false },
        { id: 88, name: null, in_catalogue: false },
      ]);
      await syncCatalogue(old, catalogue);
      expect(await old.query('select id from public.products where not in_catalogue order by id')).toEqual([
        { id: 77 },
        { id: 88 },
      ]);
    } finally {
      await old.close();
    }
  }, 60_000); // a cold PGlite of its own takes seconds on a busy machine
});
