// The catalogue a release is made from (decision 018): the product files as they stood at a save (the seed with the
// saves laid over it) and the pictures they show, with a digest of both; and how a publish that fails says why.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Database } from '@/server/db/database.server';
import {
  catalogueFiles,
  PICTURES_DIR,
  type ProductFiles,
  projectRoot,
  SEED_PRODUCTS_DIR,
  uploadedPictures,
} from './catalogue-files.server';
import { frontMatter, IMAGE_NAME, PRODUCT_FILE } from './catalogue-guard';

/** The catalogue a release is made from: product files, pictures by name, and a digest of both. */
export interface CatalogueSnapshot {
  files: ProductFiles;
  pictures: Map<string, Uint8Array>;
  catalogueDigest: string;
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * The pictures the product files show (`./images/<name>` anywhere in their front matter: images, colours' images), by
 * name. A file whose front matter cannot be read (the build will refuse it) counts with every `./images/` it mentions.
 */
export function picturesShown(files: ProductFiles): Set<string> {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      const name = /^(?:\.\/)?images\/([^/\\]+)$/.exec(value.trim())?.[1];
      if (name) names.add(name);
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') Object.values(value).forEach(visit);
  };
  for (const text of files.values()) {
    try {
      visit(frontMatter(text));
    } catch {
      for (const [, name = ''] of text.matchAll(/\.\/images\/([^\s'"`/\\]+)/g)) names.add(name);
    }
  }
  return names;
}

/**
 * The catalogue as of save `upTo`: the seed with the saves laid over it, and the pictures its products show (the
 * seed's, and those uploaded). A picture no product shows is left out: it changes nothing on the shop's pages, so it
 * must not change the digest (an upload not yet used would make every server make the release again).
 */
export async function catalogueSnapshot(db: Database, upTo: number, root = projectRoot()): Promise<CatalogueSnapshot> {
  const files = await catalogueFiles(db, upTo, root);
  const shown = picturesShown(files);
  const pictures = await uploadedPictures(db, shown);
  const seedPictures = join(root, SEED_PRODUCTS_DIR, PICTURES_DIR);
  for (const name of await readdir(seedPictures))
    if (shown.has(name)) pictures.set(name, await readFile(join(seedPictures, name)));
  const hash = createHash('sha256');
  for (const [name, text] of files) hash.update(`${name}\0${sha256(text)}\0`);
  for (const name of [...pictures.keys()].sort()) hash.update(`${PICTURES_DIR}/${name}\0${sha256(pictures.get(name) ?? '')}\0`);
  return { files, pictures, catalogueDigest: hash.digest('hex') };
}

/** What a release's pages are made with besides the catalogue: the shop's code and configuration. */
const CODE = ['src', 'public', 'astro.config.mjs', 'package-lock.json', 'tsconfig.json'];

/**
 * A digest of the shop's code, read as a server starts (its build was made from it): a release is made by, and served
 * by, servers of one code, so a rolling update never serves pages of one code with the other's scripts.
 */
export async function codeDigest(root = projectRoot()): Promise<string> {
  const files = async (path: string): Promise<string[]> => {
    const info = await stat(path).catch(() => null);
    if (!info) return [];
    if (!info.isDirectory()) return [path];
    const names = await readdir(path);
    return (await Promise.all(names.map((name) => files(join(path, name))))).flat();
  };
  const paths = (await Promise.all(CODE.map((entry) => files(join(root, entry))))).flat();
  const lines = await Promise.all(paths.map(async (path) => `${relative(root, path)}\0${sha256(await readFile(path))}\0`));
  const hash = createHash('sha256');
  for (const line of lines.sort()) hash.update(line);
  return hash.digest('hex');
}

/** Why a publish failed, in the words the editor is shown (no path on the server: see withoutPaths). */
export class PublishError extends Error {}

/** What stands for a file on the server in what an editor reads. */
const SERVER_FILE = 'a file on the server';

/** An absolute path in a text (`/srv/…`, `C:\…`, `file:///…`): one starting a word, not `./images/…` or `https://…`. */
const ABSOLUTE_PATH = /(?<=^|[\s'"`(=])(?:file:\/\/|[A-Za-z]:[\\/]|\/(?=[^\s/]))[^\s'"`<>]*/g;

/**
 * `text` without a path on the server: an absolute path (`/srv/shop/…`, `C:\shop\…`, `file:///…`, with any
 * `:line:column`) becomes the name of the picture or product file it is (`jar-64d14e0fc1a8.png`,
 * `03-clinical-scrubs.md`: what the editor knows it by), or "a file on the server". The editor needs the words, not
 * where the server keeps its files (which would tell anyone who can publish how the machine is laid out); the server
 * logs the detail. `places` are directories the text may name (the project, the builds folder): taken out first,
 * spaces in them included. Relative references (`./images/x.svg`) and web addresses are left as they are.
 */
export function withoutPaths(text: string, places: readonly string[] = []): string {
  let said = text;
  const known = [...places, process.cwd(), homedir()]
    .map((place) => place.replace(/[\\/]+$/, ''))
    .filter((place) => place.length > 1)
    .sort((a, b) => b.length - a.length);
  for (const place of known) {
    said = said.split(pathToFileURL(place).href).join('file:///server').split(place).join('/server');
  }
  return said
    .replace(ABSOLUTE_PATH, (token) => {
      const trail = /[.,;:)]*$/.exec(token)?.[0] ?? '';
      const path = token.slice(0, token.length - trail.length).replace(/(?::\d+)+$/, '');
      const name = path.split(/[\\/]/).pop() ?? '';
      return `${IMAGE_NAME.test(name) || PRODUCT_FILE.test(name) ? name : SERVER_FILE}${trail}`;
    })
    .replace(new RegExp(`(['"\`])${SERVER_FILE}\\1`, 'g'), SERVER_FILE);
}
