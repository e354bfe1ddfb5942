// The catalogue as files: the seed (content/products in the project, what the repository holds) with the saves editors
// made on the running shop laid over it (public.catalogue_revisions: the newest save of a file is its text), and the
// pictures they uploaded (public.catalogue_pictures). A publish builds from exactly this; the editor's form reads it.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database, Sql } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';

/** Where the catalogue's seed lives, relative to the project root (the build's glob loader reads it by default). */
export const SEED_PRODUCTS_DIR = 'content/products';
/** Where product files refer to their pictures: `./images/<name>` beside them. */
export const PICTURES_DIR = 'images';

/** The project root: the server runs from it (npm start, scripts/serve.mjs), as do the tests. */
export function projectRoot(): string {
  return process.cwd();
}

/** Product file name → text. */
export type ProductFiles = Map<string, string>;

/** The seed's product files (`NN-slug.md` → text). */
export async function seedFiles(root = projectRoot()): Promise<ProductFiles> {
  const dir = join(root, SEED_PRODUCTS_DIR);
  const names = (await readdir(dir)).filter((name) => name.endsWith('.md')).sort();
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as const)));
}

/** The digest a save records of the seed text it descends from (decision 018). */
export const seedDigest = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A save's seed when the product had none (a new product). */
export const NO_SEED = 'none';

/** A product file as saved: its text, and the save it comes from (0: the seed's). */
export interface SavedFile {
  text: string;
  revision: number;
  /**
   * The seed it descends from (seedDigest, or NO_SEED), which a new save of it inherits; the seed's own for the seed;
   * null for a save made before this was recorded (decision 018).
   */
  seed: string | null;
}

/**
 * The product files as of save `upTo` (every save when omitted; what is live: liveRevision), read through `sql`, a
 * service_role connection or transaction: the seed, each file replaced by its newest save at or before `upTo`, and
 * files that exist only as saves (new products) added. Sorted by name.
 */
export async function savedCatalogue(sql: Sql, upTo?: number, root = projectRoot()): Promise<Map<string, SavedFile>> {
  const files = new Map<string, SavedFile>(
    [...(await seedFiles(root))].map(([name, text]) => [name, { text, revision: 0, seed: seedDigest(text) }]),
  );
  const rows = await sql.query<{ file: string; contents: string; id: string | number; seed_sha256: string | null }>(
    `select distinct on (file) file, contents, id, seed_sha256 from public.catalogue_revisions
      where $1::bigint is null or id <= $1::bigint order by file, id desc`,
    [upTo ?? null],
  );
  for (const row of rows) files.set(row.file, { text: row.contents, revision: Number(row.id), seed: row.seed_sha256 });
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}

/** The product files' texts as of save `upTo` (see savedCatalogue), as service_role. */
export async function catalogueFiles(db: Database, upTo?: number, root = projectRoot()): Promise<ProductFiles> {
  const saved = await asService(db, (tx) => savedCatalogue(tx, upTo, root));
  return new Map([...saved].map(([name, { text }]) => [name, text]));
}

/** The newest save that is live (what shoppers see); 0 while the seed is. */
export async function liveRevision(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ up_to_revision: string | number }>(
    `select up_to_revision from public.catalogue_publishes where status = 'live' order by id desc limit 1`,
  );
  return Number(row?.up_to_revision ?? 0);
}

/**
 * The pictures editors uploaded, by name (only those named in `only`, when given). Names never change their bytes (see
 * the migration), so every one is taken.
 */
export async function uploadedPictures(db: Database, only?: Iterable<string>): Promise<Map<string, Uint8Array>> {
  const rows = await serviceStatement<{ name: string; bytes: Uint8Array }>(
    db,
    'select name, bytes from public.catalogue_pictures where $1::text[] is null or name = any($1::text[]) order by name',
    [only ? [...only] : null],
  );
  return new Map(rows.map((row) => [row.name, new Uint8Array(row.bytes)]));
}
