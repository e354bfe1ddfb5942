import type { Database } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';

/** What public.products keeps of a catalogue product. */
export interface CatalogueRow {
  id: number;
  name: string;
}

/**
 * Records the catalogue's products in public.products (at start-up, as service_role, in one transaction), so the
 * schema's foreign keys refuse reviews, likes, favorites and cart lines for products that never existed. A product
 * that has left the catalogue keeps its row, marked `in_catalogue = false`: shoppers' rows about it stay, and start-up
 * never fails because of them. Rows are written only when something changed, so a restart costs two reads' worth.
 */
export async function syncCatalogue(db: Database, products: readonly CatalogueRow[]): Promise<void> {
  await asService(db, async (tx) => {
    await tx.query(
      `insert into public.products (id, name, in_catalogue)
       select p.id, p.name, true from jsonb_to_recordset($1::text::jsonb) as p (id integer, name text)
       on conflict (id) do update set name = excluded.name, in_catalogue = true
       where (products.name, products.in_catalogue) is distinct from (excluded.name, true)`,
      [JSON.stringify(products.map(({ id, name }) => ({ id, name })))],
    );
    await tx.query('update public.products set in_catalogue = false where in_catalogue and id <> all($1::integer[])', [
      products.map((p) => p.id),
    ]);
  });
}
