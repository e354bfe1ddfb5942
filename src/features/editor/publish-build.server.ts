// Building the shop for a publish: the catalogue as it stood at a revision (product files and pictures), the code it is
// built with, and one `astro build` of both into a directory of its own, named by their digests so a build made before
// is found again. Queueing publishes and switching shoppers to a build is publish.server.ts.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, setPriority } from 'node:os';
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

/** The catalogue a build is made from: product files, pictures by name, and a digest of both. */
export interface CatalogueSnapshot {
  files: ProductFiles;
  pictures: Map<string, Uint8Array>;
  digest: string;
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
 * must not change the build's digest (an upload not yet used would make every server build again, not reuse its build).
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
  return { files, pictures, digest: hash.digest('hex') };
}

/** What a build is made of besides the catalogue: the project's code and configuration. */
const CODE = ['src', 'scripts', 'public', 'astro.config.mjs', 'package-lock.json', 'tsconfig.json'];

/** A digest of the shop's code, so that a build is only reused for the code it was built from. */
export async function codeDigest(root = projectRoot()): Promise<string> {
  // Every file read at once (about 350: a tenth of a second one after the other, before the server listens).
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

/**
 * Why a publish failed, in the words the editor is shown (no path on the server: see withoutPaths); `detail` is what
 * the server logs besides (the build's own output, the path it could not write).
 */
export class PublishError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

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

/** The longest a build may take before it is stopped (this machine builds the shop in about 7 s). */
const BUILD_TIMEOUT_MS = 10 * 60_000;

/**
 * The part of a failed build's output that says why, for the editor: the error and the lines that follow it, without
 * colours, times, the error's code name, stack lines, or the pointers meant for developers (hint, reference, location).
 */
export function buildFailure(output: string, places: readonly string[] = []): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences of a terminal's colours
  const lines = output.replace(/\x1b\[[0-9;]*m/g, '').split(/\r?\n/);
  const first = lines.findIndex((line) => /error/i.test(line));
  const said: string[] = [];
  for (const line of first >= 0 ? lines.slice(first) : lines.slice(-12)) {
    const text = line
      .replace(/^\d\d:\d\d:\d\d\s+/, '')
      .replace(/\[(ERROR|[A-Z][A-Za-z]*)\]\s*/g, '')
      .trim();
    if (/^(Stack trace|Hint|Error reference|Location):?/i.test(text)) break;
    if (text !== '' && !/^at\s/.test(text)) said.push(text);
    if (said.length === 12) break;
  }
  return withoutPaths(`The build failed: ${said.join(' ').slice(0, 1500) || 'it stopped without saying why.'}`, places);
}

/** A file system error in words. */
function diskProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC') return 'the disk is full.';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'it may not write there.';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a file is in the way of the folder.';
  return error instanceof Error ? error.message : String(error);
}

/** The marker a finished build leaves in its directory. */
interface BuiltMarker {
  key: string;
  catalogue: string;
  code: string;
  builtAt: string;
  ms: number;
}
const MARKER = 'built.json';
/** Where in a build's directory Astro writes the build (client/ and server/, as in dist/). */
export const OUT_DIR = 'out';

/** A finished build of `key` in `buildsDir`, or null. */
async function findBuild(buildsDir: string, key: string): Promise<string | null> {
  const names = await readdir(buildsDir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(`${key}-`))) {
    const marker = await readFile(join(buildsDir, name, MARKER), 'utf8').catch(() => null);
    if (marker && (JSON.parse(marker) as BuiltMarker).key === key) return join(buildsDir, name);
  }
  return null;
}

/** Runs `astro build` for the catalogue in `catalogueDir` into `outDir`, at a lower priority than the server's. */
function astroBuild(root: string, env: Record<string, string>, signal: AbortSignal): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(root, 'node_modules/astro/bin/astro.mjs'), 'build'], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      signal,
      timeout: BUILD_TIMEOUT_MS,
    });
    // Shoppers' requests first: the build takes what the server leaves (where the system lets a process be lowered).
    try {
      if (child.pid) setPriority(child.pid, 10);
    } catch {}
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-64_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const places = [root, ...Object.values(env)];
    child.on('error', (error) =>
      reject(new PublishError(`The build could not run: ${withoutPaths(error.message, places)}`, error.message)),
    );
    child.on('close', (code, signal) => {
      if (code === 0) resolvePromise();
      else if (signal)
        reject(new PublishError(`The build was stopped (${signal}): the server is stopping, or it took too long.`));
      else reject(new PublishError(buildFailure(output, places), output.slice(-8000)));
    });
  });
}

/** What a finished build is: where, what it holds, and whether it was already on disk. */
export interface Build {
  dir: string;
  key: string;
  ms: number;
  reused: boolean;
}

/** Builds the shop for `snapshot` with code `code` into a new directory of `buildsDir`, or finds the build already made. */
export async function buildShop(
  snapshot: CatalogueSnapshot,
  { root, buildsDir, code, signal }: { root: string; buildsDir: string; code: string; signal: AbortSignal },
): Promise<Build> {
  const key = sha256(`${code}\0${snapshot.digest}`).slice(0, 24);
  const existing = await findBuild(buildsDir, key);
  if (existing) return { dir: existing, key, ms: 0, reused: true };
  const started = performance.now();
  const dir = join(buildsDir, `${key}-${randomUUID().slice(0, 8)}`);
  const catalogueDir = join(dir, 'catalogue', 'products');
  try {
    await mkdir(join(catalogueDir, PICTURES_DIR), { recursive: true });
    for (const [name, text] of snapshot.files) await writeFile(join(catalogueDir, name), text);
    for (const [name, bytes] of snapshot.pictures) await writeFile(join(catalogueDir, PICTURES_DIR, name), bytes);
  } catch (error) {
    throw new PublishError(
      `The server cannot write the build into its builds folder (BUILDS_DIR): ${withoutPaths(diskProblem(error), [buildsDir, root])}`,
      `${buildsDir}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    await astroBuild(
      root,
      { AURELIA_CATALOGUE_DIR: catalogueDir, AURELIA_OUT_DIR: join(dir, OUT_DIR), AURELIA_CACHE_DIR: join(dir, 'cache') },
      signal,
    );
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const ms = Math.round(performance.now() - started);
  const marker: BuiltMarker = { key, catalogue: snapshot.digest, code, builtAt: new Date().toISOString(), ms };
  await writeFile(join(dir, MARKER), JSON.stringify(marker));
  return { dir, key, ms, reused: false };
}
