// npm run restore -- [--from-another-shop] <file>: puts a backup made by npm run backup (or by the shop's schedule) back
// as the embedded database (PGLITE_DIR, default .data/pglite), for a stopped shop: it refuses while the shop runs. The
// file is checked whole and opened beside the data directory first; only then is the current directory moved aside
// (kept, and named here) and the backup put in its place. A damaged, cut-short or foreign file is refused and nothing
// changes: a backup is this shop's when it carries this shop's seal (src/server/db/shop-key.ts). --from-another-shop
// takes another shop's backup on purpose (a shop moved to a new machine); this shop keeps its own key.
import { join } from 'node:path';
import { migrationsIn, restoreBackup } from '../src/server/db/backup-files.ts';
import { CLOSED_MESSAGE, PRIVATE_UMASK } from '../src/server/db/private-dir.ts';
import { readShopKey } from '../src/server/db/shop-key.ts';

// The restored database is open to no other local account (PGlite itself unpacks it 0666: see private-dir.ts).
process.umask(PRIVATE_UMASK);

const root = new URL('..', import.meta.url).pathname;
const dataDir = process.env.PGLITE_DIR || '.data/pglite';

async function main() {
  const args = process.argv.slice(2);
  const fromAnotherShop = args.includes('--from-another-shop');
  const files = args.filter((arg) => arg !== '--from-another-shop');
  const file = files[0];
  if (!file || files.length > 1 || file.startsWith('--')) {
    throw new Error('Say which backup to restore: npm run restore -- [--from-another-shop] <file>');
  }
  if ((process.env.DATABASE_URL ?? '').trim() !== '') {
    throw new Error(
      "DATABASE_URL is set: this shop's data is in PostgreSQL. Restore it with pg_restore; see docs/operating.md, Backups.",
    );
  }
  const { manifest, keptAside } = await restoreBackup(file, dataDir, {
    knownMigrations: migrationsIn(join(root, 'supabase/migrations')),
    fromAnotherShop,
    onClosed: (dir, { opened }) => console.warn(`${dir}: ${CLOSED_MESSAGE} (${opened} files and directories were open).`),
  });
  const own = readShopKey(dataDir)?.id;
  const from = manifest.shop === own ? '' : `, made by another shop (shop ${manifest.shop ?? 'unknown: the file is not sealed'})`;
  console.log(`Restored ${dataDir} to the backup taken at ${manifest.createdAt}${from}.`);
  if (from) console.log(`This shop (shop ${own ?? 'not started here yet'}) keeps its own key: its backups from now on carry it.`);
  if (keptAside) console.log(`The database it replaced is kept in ${keptAside}: delete it once the shop runs as it should.`);
}

main().catch((error) => {
  console.error(`Nothing was restored: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
