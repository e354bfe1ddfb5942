// A new embedded database (src/server/db/pglite-init.ts, run as the shop runs it on its first start): the first made
// on a machine is kept, empty, and later ones are unpacked from it. Each test keeps its copies in a directory of its
// own (PGLITE_CACHE_DIR), so the suites running beside it keep using the machine's.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';

const init = createRequire(import.meta.url).resolve('#pglite-init');
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aurelia-pglite-init-'));
  made.push(dir);
  return dir;
}

/** Makes a new database in `dir` (created 0700 first, as the server does), keeping copies in `cache`. */
async function makeDatabase(dir: string, cache: string): Promise<void> {
  mkdirSync(dir, { mode: 0o700 });
  await promisify(execFile)(process.execPath, ['--liftoff-only', init, dir], {
    env: { ...process.env, PGLITE_CACHE_DIR: cache },
  });
}

/** The cluster's identity, which initdb draws at random: two databases that share it are copies of one. */
async function identity(dir: string): Promise<string> {
  const pg = await PGlite.create(dir);
  try {
    await pg.exec('create table t (n int); insert into t values (1)');
    const [row] = (await pg.query<{ id: string }>('select system_identifier::text as id from pg_control_system()')).rows;
    return row?.id ?? '';
  } finally {
    await pg.close();
  }
}

describe('a new embedded database', () => {
  it("is unpacked from the machine's first one, empty, and works", async () => {
    const root = scratch();
    const cache = join(root, 'cache');
    await makeDatabase(join(root, 'first'), cache);
    const kept = readdirSync(cache);
    expect(kept).toEqual([expect.stringMatching(/^pglite-empty-[0-9a-f]{16}\.tar\.gz$/)]);
    // The shop's alone, like its data directory.
    expect(statSync(join(cache, kept[0] ?? '')).mode & 0o077).toBe(0);
    expect(statSync(cache).mode & 0o077).toBe(0);

    await makeDatabase(join(root, 'second'), cache);
    // Each opens, takes a table and a row (identity() writes them), and the second is the first's empty cluster.
    expect(await identity(join(root, 'second'))).toBe(await identity(join(root, 'first')));
    expect(readdirSync(cache)).toEqual(kept);
  }, 60_000);

  it('is made afresh, and kept again, when the kept one is damaged', async () => {
    const root = scratch();
    const cache = join(root, 'cache');
    await makeDatabase(join(root, 'first'), cache);
    const [name = ''] = readdirSync(cache);
    writeFileSync(join(cache, name), 'not a tar');

    await makeDatabase(join(root, 'second'), cache);
    expect(await identity(join(root, 'second'))).not.toBe(await identity(join(root, 'first')));
    expect(statSync(join(cache, name)).size).toBeGreaterThan(1_000_000);
  }, 60_000);

  it('is made where no copy can be kept', async () => {
    const root = scratch();
    // A file where the cache's directory would be: nothing can be written under it.
    const blocked = join(root, 'a-file');
    writeFileSync(blocked, '');
    await makeDatabase(join(root, 'db'), join(blocked, 'cache'));
    expect(await identity(join(root, 'db'))).toMatch(/^\d+$/);
  }, 60_000);
});
