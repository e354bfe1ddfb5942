// The catalogue as files: the seed (content/products in the project, what the repository holds) with the saves editors
// made on the running shop laid over it (public.catalogue_revisions: the newest save of a file is its text), and the
// pictures they uploaded (public.catalogue_pictures). A publish builds from exactly this; the editor's form reads it.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';

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

/**
 * The product files as of save `upTo` (every save when omitted): the seed, each file replaced by its newest save at or
 * before it, and files that exist only as saves added.
 */
export async function catalogueFiles(db: Database, upTo?: number, root = projectRoot()): Promise<ProductFiles> {
  const files = await seedFiles(root);
  const rows = await serviceStatement<{ file: string; contents: string }>(
    db,
    `select distinct on (file) file, contents from public.catalogue_revisions
      where $1::bigint is null or id <= $1::bigint
      order by file, id desc`,
    [upTo ?? null],
  );
  for (const { file, contents } of rows) files.set(file, contents);
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}

/** The newest save's id (0 when nothing was saved): what a publish started now includes. */
export async function newestSave(db: Database): Promise<number> {
  const [row] = await serviceStatement<{ id: string | number | null }>(
    db,
    'select max(id) as id from public.catalogue_revisions',
  );
  return Number(row?.id ?? 0);
}

/** The pictures editors uploaded, by name. Names never change their bytes (see the migration), so every one is taken. */
export async function uploadedPictures(db: Database): Promise<Map<string, Uint8Array>> {
  const rows = await serviceStatement<{ name: string; bytes: Uint8Array }>(
    db,
    'select name, bytes from public.catalogue_pictures order by name',
  );
  return new Map(rows.map((row) => [row.name, new Uint8Array(row.bytes)]));
}
