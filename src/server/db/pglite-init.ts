/**
 * Makes a new embedded database in the directory given as its argument, then exits. The shop runs it as a process of
 * its own on its first start (pglite.server.ts): PGlite makes a database by running initdb in a second instance of
 * PostgreSQL beside the first and copying memory snapshots, which peaks near a gigabyte; here that peak is gone with the
 * process before the shop's own database opens.
 *
 * initdb's result is the same empty cluster each time, so the first one made on a machine is kept (a gzipped tar of
 * its files, 4.5 MB, in node_modules/.cache/aurelia/, named for the PGlite version and settings it was made with) and
 * every later new database is unpacked from it: 1.5 CPU-seconds instead of 4.3, and a lower peak. It holds nothing of
 * any shop (no tables, no rows; the shop's key is a file of its own, made by the server). A copy that cannot be written
 * (a read-only install) is not kept, and one that cannot be read is made again.
 *
 * Loaded by Node itself (type stripping): erasable TypeScript only, relative imports with their `.ts`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { POSTGRES_SETTINGS } from './pglite-settings.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: pglite-init.ts <data directory>');
const startParams = [...PGlite.defaultStartParams, ...POSTGRES_SETTINGS];

/** Where the empty cluster made with this PGlite and these settings is kept: PGLITE_CACHE_DIR, else node_modules'. */
function templatePath(): string {
  const root = new URL('../../../', import.meta.url).pathname;
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'));
  const key = createHash('sha256')
    .update(JSON.stringify([version, startParams]))
    .digest('hex')
    .slice(0, 16);
  return join(process.env.PGLITE_CACHE_DIR || join(root, 'node_modules/.cache/aurelia'), `pglite-empty-${key}.tar.gz`);
}

/** The kept cluster's tar, or null when there is none or it cannot be read (unpacked here: a damaged one throws here). */
function readTemplate(path: string): Blob | null {
  try {
    return new Blob([gunzipSync(readFileSync(path))], { type: 'application/x-tar' });
  } catch {
    return null;
  }
}

/** Keeps `pg`'s cluster, as made, for the next new database; where that cannot be written, nothing is kept. */
async function keepTemplate(pg: PGlite, path: string): Promise<void> {
  const tar = new Uint8Array(await (await pg.dumpDataDir('gzip')).arrayBuffer());
  const partial = `${path}.${process.pid}.partial`;
  try {
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(partial, tar, { mode: 0o600 });
    // Whole or not at all: two shops making their first database at once each write their own and rename it.
    renameSync(partial, path);
  } catch {
    try {
      rmSync(partial, { force: true });
    } catch {
      // Nothing was written.
    }
  }
}

const template = templatePath();
const kept = readTemplate(template);
let pg: PGlite | null = null;
if (kept) {
  try {
    pg = await PGlite.create(dir, { startParams, loadDataDir: kept });
  } catch {
    // A tar PGlite cannot use: made again below, on a directory emptied of what the failed unpacking left.
    for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
  }
}
if (!pg) {
  pg = await PGlite.create(dir, { startParams });
  await keepTemplate(pg, template);
}
await pg.close();
