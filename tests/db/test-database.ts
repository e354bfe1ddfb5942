import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, inject } from 'vitest';
import { lowerPasswordCostForTests } from '@/server/auth/password.server';
import type { Database } from '@/server/db/database.server';
import { openPglite } from '@/server/db/pglite.server';
import { openPostgres } from '@/server/db/postgres.server';
import { prepare } from './prepare-database';

// Every suite with a database signs shoppers up and in: their passwords are hashed at a test's cost (the shop's own
// is tested in src/server/auth/password.server.test.ts and by the scripts and servers the suites start).
lowerPasswordCostForTests();

/** Where the database suites run: PGlite in memory, or PostgreSQL when TEST_DATABASE_URL is set. */
export const TEST_DATABASE_KIND = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

/**
 * A freshly migrated database of its own for one test file, holding the catalogue's products: an in-memory PGlite
 * (a copy of the run's migrated snapshot, tests/setup/pglite-snapshot.ts), or a new database created on the
 * TEST_DATABASE_URL server (dropped again by `close`).
 */
export async function freshDatabase(): Promise<Database & { url?: string }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return migratedPglite();
  const name = `aurelia_test_${randomBytes(6).toString('hex')}`;
  const admin = openPostgres(url, { max: 1 });
  await admin.exec(`create database ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const db = openPostgres(target.href, { max: 4 });
  await prepare(db);
  return {
    ...db,
    url: target.href,
    async close() {
      await db.close();
      await admin.exec(`drop database if exists ${name} with (force)`);
      await admin.close();
    },
  };
}

/**
 * A migrated in-memory PGlite of its own, whatever TEST_DATABASE_URL says: a copy of the run's snapshot, or (without
 * one) a new database, migrated.
 */
export async function migratedPglite(): Promise<Database> {
  const snapshot = inject('migratedPglite');
  if (snapshot) return openPglite(null, { copyOf: readFileSync(snapshot) });
  const db = await openPglite(null);
  await prepare(db);
  return db;
}

/** Where a PostgreSQL test database answers, for a second connection to it (another server); undefined on PGlite. */
export function databaseUrl(db: Database): string | undefined {
  const url: unknown = Reflect.get(db, 'url');
  return typeof url === 'string' ? url : undefined;
}

/**
 * The database of one test file: fresh before its first test, closed after its last. Use it at the top of a file;
 * the handle forwards to the database the file's `beforeAll` opened.
 */
export function suiteDatabase(): Database {
  let db: Database | undefined;
  beforeAll(async () => {
    db = await freshDatabase();
  }, 60_000);
  afterAll(() => db?.close());
  const current = (): Database => {
    if (!db) throw new Error('The suite database opens in beforeAll: use it inside a test or a hook.');
    return db;
  };
  return new Proxy({} as Database, {
    get(_, key) {
      const value = Reflect.get(current(), key);
      return typeof value === 'function' ? value.bind(current()) : value;
    },
  });
}
