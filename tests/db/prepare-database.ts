import { syncCatalogue } from '@/features/catalogue/catalogue-sync.server';
import type { Database } from '@/server/db/database.server';
import { migrate } from '@/server/db/migrate.server';
import { loadCatalogue } from '../unit/load-catalogue';

/** Migrates, then records the catalogue's products, as the server does on start (shoppers' rows refer to them). */
export async function prepare(db: Database): Promise<void> {
  await migrate(db);
  await syncCatalogue(
    db,
    loadCatalogue().map(({ product }) => product),
  );
}
