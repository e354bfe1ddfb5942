// Vitest's global setup: one migrated PGlite database holding the catalogue, made once per run, whose snapshot every
// database suite then opens a copy of (tests/db/test-database.ts). Making and migrating an empty PGlite takes seconds
// (its initdb alone is about 1.7 s on a quiet 2-core machine); opening a copy of the snapshot takes about 0.3 s, and
// the suites open one per file. A copy is the same database: what each test file changes stays in its own copy.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openPglite } from '@/server/db/pglite.server';
import { prepare } from '../db/prepare-database';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated snapshot's file (a tar of PGlite's data directory); absent when the suites run on PostgreSQL. */
    migratedPglite: string | undefined;
  }
}

export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('migratedPglite', undefined);
    return;
  }
  const db = await openPglite(null);
  let snapshot: Uint8Array;
  try {
    await prepare(db);
    if (!db.snapshot) throw new Error('PGlite takes snapshots');
    snapshot = await db.snapshot();
  } finally {
    await db.close();
  }
  const dir = mkdtempSync(join(tmpdir(), 'aurelia-pglite-snapshot-'));
  const file = join(dir, 'migrated.tar');
  writeFileSync(file, snapshot);
  project.provide('migratedPglite', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
