/**
 * Makes a new embedded database in the directory given as its argument, then exits. The shop runs it as a process of
 * its own on its first start (pglite.server.ts): PGlite makes a database by running initdb in a second instance of
 * PostgreSQL beside the first and copying memory snapshots, which peaks near a gigabyte; here that peak is gone with the
 * process before the shop's own database opens.
 *
 * Loaded by Node itself (type stripping): erasable TypeScript only, relative imports with their `.ts`.
 */
import { PGlite } from '@electric-sql/pglite';
import { POSTGRES_SETTINGS } from './pglite-settings.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: pglite-init.ts <data directory>');
const pg = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, ...POSTGRES_SETTINGS] });
await pg.close();
