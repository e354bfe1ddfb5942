// npm run catalogue:export [-- --to <folder>]: writes the catalogue as editors saved it on the shop back into the
// repository (decision 018): every product file into content/products/ (the seed with the newest saves laid over it,
// byte for byte what the next publish would build) and the pictures editors uploaded that a product shows into
// content/products/images/. Only files whose bytes differ are written; it says which. Review with `git diff`, commit,
// deploy: the shop then finds its saves and the repository agreeing.
//
// Reads the same configuration as the server: DATABASE_URL (PostgreSQL, the shop may be running), else the embedded
// database in PGLITE_DIR (default .data/pglite), which is locked to one process: stop the shop first, or use the
// editor's download (Catalogue → Download the catalogue as saved). The database is only read: nothing is migrated.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runnerImport } from 'vite';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h') || (args.length > 0 && (args[0] !== '--to' || !args[1] || args.length > 2))) {
  console.error('Usage: npm run catalogue:export [-- --to <products folder>]   (default: content/products)');
  process.exit(args.includes('--help') || args.includes('-h') ? 0 : 2);
}
const to = resolve(args[1] ?? join(root, 'content/products'));

/** The server's own TypeScript modules, loaded through Vite as the build does (path aliases, bundled migrations). */
async function serverModule(path) {
  const { module } = await runnerImport(path, {
    root,
    configFile: false,
    logLevel: 'error',
    resolve: { alias: { '@': `${root}src` } },
  });
  return module;
}

const [{ loadConfig }, { pendingMigrations }, { openPglite }, { openPostgres }, { lockHolder }, exporter] = await Promise.all([
  serverModule('/src/server/config.server.ts'),
  serverModule('/src/server/db/migrate.server.ts'),
  serverModule('/src/server/db/pglite.server.ts'),
  serverModule('/src/server/db/postgres.server.ts'),
  serverModule('/src/server/db/data-dir-lock.ts'),
  serverModule('/src/features/editor/catalogue-export.server.ts'),
]);

let db;
try {
  const config = loadConfig();
  let where;
  if (config.database.kind === 'postgres') {
    db = openPostgres(config.database.url);
    where = 'PostgreSQL (DATABASE_URL)';
  } else {
    const dir = config.database.dir;
    if (!existsSync(join(dir, 'PG_VERSION')))
      throw new Error(`There is no shop database in ${dir} (PGLITE_DIR): nothing to export.`);
    const holder = lockHolder(dir);
    if (holder)
      throw new Error(
        `The shop (process ${holder}) is running on ${dir}: stop it first, or download the same files in the editor (Catalogue → Download the catalogue as saved).`,
      );
    db = await openPglite(dir);
    where = `the embedded database in ${dir}`;
  }
  const [{ found }] = await db.query("select to_regclass('supabase_migrations.schema_migrations') is not null as found");
  const pending = found ? await pendingMigrations(db) : ['all'];
  if (pending.length > 0)
    throw new Error(
      `The database in ${where} is behind this version of the shop (${pending.length} migration${pending.length === 1 ? '' : 's'} not applied): start this version of the shop on it once, then export again. Nothing was written.`,
    );
  const exported = await exporter.catalogueExport(db, root);
  const { written, unchanged } = await exporter.writeExport(exported, to);
  const saves = exported.upTo === 0 ? 'no saves yet' : `saves up to #${exported.upTo}`;
  console.log(`Exported the catalogue as saved in ${where} (${saves}) into ${to}:`);
  if (written.length === 0) console.log('  nothing changed: the folder already holds the catalogue as saved.');
  for (const name of written) console.log(`  wrote ${name}`);
  console.log(`  ${unchanged.length} file${unchanged.length === 1 ? '' : 's'} already as saved.`);
  if (written.length > 0) console.log('Review with `git diff`, then commit.');
} catch (error) {
  console.error(`No export: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await db?.close();
}
