// The catalogue as saved, back into the repository (decision 018): the product files and the uploaded pictures exactly
// as the next publish would build them (catalogueSnapshot, up to the newest save), for `npm run catalogue:export`
// (written into content/products, for a developer to review with git diff and commit) and for the editor's download
// (a .zip of the same files under content/products/). Names are checked again before any is written or zipped: only
// a product file's or a picture's name, never a path.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import { PICTURES_DIR, projectRoot, SEED_PRODUCTS_DIR } from './catalogue-files.server';
import { IMAGE_NAME, PRODUCT_FILE } from './catalogue-guard';
import { catalogueSnapshot } from './catalogue-snapshot.server';
import { type ZipEntry, zip } from './zip.server';

/** The catalogue as saved: every product file, and the uploaded pictures its products show. */
export interface CatalogueExport {
  /** The newest save it includes (0: none, the seed alone). */
  upTo: number;
  files: Map<string, string>;
  /** Pictures editors uploaded that a product shows (the repository's own pictures are already in it). */
  pictures: Map<string, Uint8Array>;
}

/** A name that is not a product file's or a picture's: never written, never zipped. */
export class UnsafeName extends Error {}

/** `name`, when it is a plain name of its kind (a product file's, a picture's): never a path. */
export function checkedName(name: string, kind: 'product' | 'picture'): string {
  const pattern = kind === 'product' ? PRODUCT_FILE : IMAGE_NAME;
  if (!pattern.test(name) || name.includes('..') || /[/\\]/.test(name))
    throw new UnsafeName(`${JSON.stringify(name)} is not a ${kind === 'product' ? 'product file' : 'picture'}'s name`);
  return name;
}

/** `name` joined to `dir`, when it is a plain name of its kind that stays inside `dir`. */
export function safePath(dir: string, name: string, kind: 'product' | 'picture'): string {
  const path = resolve(dir, checkedName(name, kind));
  if (path !== resolve(dir) + sep + name) throw new UnsafeName(`${JSON.stringify(name)} is not inside ${dir}`);
  return path;
}

/** The catalogue as the next publish would build it, from `db`, laid over the seed in `root`. */
export async function catalogueExport(db: Database, root = projectRoot()): Promise<CatalogueExport> {
  const [row] = await serviceStatement<{ up_to: string | number }>(
    db,
    'select coalesce(max(id), 0) as up_to from public.catalogue_revisions',
  );
  const upTo = Number(row?.up_to ?? 0);
  const snapshot = await catalogueSnapshot(db, upTo, root);
  const seedPictures = join(root, SEED_PRODUCTS_DIR, PICTURES_DIR);
  const pictures = new Map(
    [...snapshot.pictures].filter(([name]) => !(IMAGE_NAME.test(name) && existsSync(join(seedPictures, name)))),
  );
  return { upTo, files: new Map(snapshot.files), pictures };
}

/** What an export wrote: names relative to the products folder ('03-clinical-scrubs.md', 'images/x.png'). */
export interface Written {
  written: string[];
  unchanged: string[];
}

/** Writes the export into `dir` (a products folder: content/products): only files whose bytes differ. */
export async function writeExport(exported: CatalogueExport, dir: string): Promise<Written> {
  const out: Written = { written: [], unchanged: [] };
  const put = async (path: string, label: string, bytes: Uint8Array) => {
    const now = await readFile(path).catch(() => null);
    if (now && Buffer.compare(now, bytes) === 0) out.unchanged.push(label);
    else {
      await writeFile(path, bytes);
      out.written.push(label);
    }
  };
  // Every name is checked before anything is written.
  const files = [...exported.files].map(([name, text]) => [safePath(dir, name, 'product'), name, text] as const);
  const pictureDir = join(dir, PICTURES_DIR);
  const pictures = [...exported.pictures].map(
    ([name, bytes]) => [safePath(pictureDir, name, 'picture'), `${PICTURES_DIR}/${name}`, bytes] as const,
  );
  await mkdir(dir, { recursive: true });
  for (const [path, label, text] of files) await put(path, label, Buffer.from(text, 'utf8'));
  if (pictures.length > 0) await mkdir(pictureDir, { recursive: true });
  for (const [path, label, bytes] of pictures) await put(path, label, bytes);
  return out;
}

/** The export as a .zip: content/products/<file>.md and content/products/images/<picture>, to unzip at the project's root. */
export function exportZip(exported: CatalogueExport, at = new Date()): Uint8Array {
  const entries: ZipEntry[] = [];
  for (const [name, text] of exported.files) {
    entries.push({ path: `${SEED_PRODUCTS_DIR}/${checkedName(name, 'product')}`, bytes: new TextEncoder().encode(text) });
  }
  for (const [name, bytes] of exported.pictures) {
    entries.push({ path: `${SEED_PRODUCTS_DIR}/${PICTURES_DIR}/${checkedName(name, 'picture')}`, bytes });
  }
  return zip(entries, at);
}
