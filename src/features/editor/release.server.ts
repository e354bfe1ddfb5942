// A release of the catalogue (decision 019): what shoppers are served for one catalogue with this server's code. The
// products, read from the files through the build's schema; the pages that show them (every page's header holds the
// cart's names and prices), rendered once by the running app for each stretch of time in which the same sales run;
// the pictures at addresses named by their bytes. Making one takes a second or two, not an `astro build`: the code is
// the server's own, and no module is loaded for it, so a server's memory does not grow with publishes.
import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import { saleChanges } from '@/features/catalogue/sale';
import type { CatalogueInUse, CatalogueRelease, ProductData } from '@/features/catalogue/served-catalogue.server';
import { PUBLIC_PAGES } from '@/features/catalogue/sitemap';
import type { ProductFiles } from './catalogue-files.server';
import { measurePicture, type PictureSize, readCatalogue } from './catalogue-read.server';
import { type CatalogueSnapshot, PublishError } from './catalogue-snapshot.server';
import type { RenderedFile } from './publish.server';

/** A file a release serves: its address, status, headers as the app gave them, and bytes (as the edge takes it). */
export type ReleaseFile = RenderedFile;

/** How the server renders one page of a catalogue through the app (its switch gives this: see ReleaseSwitch). */
export type RenderPage = (path: string, catalogue: CatalogueInUse) => Promise<ReleaseFile>;

/** The pages of a release for the time from `from` (ms since the epoch; null: from the release's start). */
export interface ReleasePhase {
  from: number | null;
  pages: ReleaseFile[];
}

export interface Release {
  /** A digest of the code that renders it and of the catalogue (files and pictures). */
  key: string;
  catalogue: CatalogueRelease;
  /** What it was read from: the product files, and each picture's size and address by name. */
  source: { files: ProductFiles; pictures: Map<string, PictureSource> };
  /** In time order: each holds from its `from` until the next one's. */
  phases: ReleasePhase[];
  pictures: ReleaseFile[];
  /** How long making it took. */
  ms: number;
}

/** A picture as a release knows it: its size (what the pages say), its address, its type. */
export interface PictureSource {
  size: PictureSize;
  path: string;
  type: string;
}

/** At most this many stretches of time are rendered ahead (sales that start and end make them); later ones on demand. */
export const MAX_PHASES = 24;

/** The pages rendered for each product besides the public ones: the rest of the shop is on demand (signed in, admin). */
const RELEASE_PAGES = [...PUBLIC_PAGES, '/wishlist', '/sitemap-index.xml', '/sitemap-0.xml'];

/** Every address a release renders for these products. */
export function releasePaths(products: readonly Pick<ProductData, 'id'>[]): string[] {
  return [...RELEASE_PAGES, ...products.map((p) => `/product/${p.id}`)];
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The address a picture is served at: its name with a digest of its bytes, so it may be kept for a year. */
export function pictureAddress(name: string, bytes: Uint8Array): string {
  const ext = extname(name);
  return `/pictures/${name.slice(0, name.length - ext.length)}.${sha256(bytes).slice(0, 12)}${ext.toLowerCase()}`;
}

const PICTURE_TYPES: Record<string, string> = {
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.gif': 'image/gif',
};

/** A picture's type, by its name. */
export const pictureType = (name: string) => PICTURE_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';

/**
 * The products of `files`, read through the build's schema with each picture's size and address from `pictures` (a
 * file the schema refuses fails the publish, naming the file and the field).
 */
export function readRelease(key: string, files: ProductFiles, pictures: ReadonlyMap<string, PictureSource>): CatalogueRelease {
  const read = readCatalogue(files, {
    sizeOf: (name) => pictures.get(name)?.size,
    url: (name) => pictures.get(name)?.path ?? '',
  });
  if (read.problems.length > 0)
    throw new PublishError(`The catalogue cannot be published: ${read.problems.join('; ').slice(0, 1500)}`);
  return { key, products: read.products };
}

/** The key a release of this catalogue has with this code. */
export function releaseKey(code: string, snapshot: Pick<CatalogueSnapshot, 'catalogueDigest'>): string {
  return sha256(`${code}\0${snapshot.catalogueDigest}`).slice(0, 24);
}

/**
 * Makes the release of `snapshot` with the server's code `code`: the products read through the build's schema (a file
 * it refuses fails the publish, naming the file and the field), and every page rendered by `render` for now and for
 * each moment a sale starts or ends (at most MAX_PHASES).
 */
export async function makeRelease(
  snapshot: Pick<CatalogueSnapshot, 'files' | 'pictures' | 'catalogueDigest'>,
  { code, render, now = new Date() }: { code: string; render: RenderPage; now?: Date },
): Promise<Release> {
  const started = performance.now();
  const sources = new Map<string, PictureSource>();
  const pictures: ReleaseFile[] = [];
  for (const [name, bytes] of snapshot.pictures) {
    const size = await measurePicture(name, bytes);
    if (!size) continue;
    const picture = { size, path: pictureAddress(name, bytes), type: pictureType(name) };
    sources.set(name, picture);
    pictures.push({ path: picture.path, status: 200, headers: { 'content-type': picture.type }, body: bytes });
  }
  const catalogue = readRelease(releaseKey(code, snapshot), snapshot.files, sources);
  const paths = releasePaths(catalogue.products);
  const froms = [
    null,
    ...saleChanges(
      catalogue.products.map((p) => p.sale),
      now,
    ).map((d) => d.getTime()),
  ].slice(0, MAX_PHASES);
  const phases: ReleasePhase[] = [];
  for (const from of froms) {
    const at = new Date(from ?? now.getTime());
    const pages: ReleaseFile[] = [];
    // One after another: a render is mostly the server's own CPU, and shoppers' requests come first.
    for (const path of paths) {
      const page = await render(path, { release: catalogue, at });
      if (page.status !== 200)
        throw new PublishError(`The shop could not make ${pageWords(path)} (it answered ${page.status}): publish again.`);
      pages.push(page);
    }
    phases.push({ from, pages });
  }
  // Only the pictures the products show (a release's pictures are what its pages may ask for).
  const shown = new Set(catalogue.products.flatMap(productPictures));
  return {
    key: catalogue.key,
    catalogue,
    source: { files: snapshot.files, pictures: sources },
    phases,
    pictures: pictures.filter((p) => shown.has(p.path)),
    ms: Math.round(performance.now() - started),
  };
}

/** A page in an editor's words ('the page of product 3'), not its address (which reads like a path on the server). */
export function pageWords(path: string): string {
  if (path === '/') return 'the home page';
  const product = /^\/product\/(\d+)$/.exec(path)?.[1];
  if (product) return `the page of product ${product}`;
  if (path.startsWith('/sitemap')) return 'the sitemap';
  return `the ${path.slice(1).replaceAll('-', ' ')} page`;
}

/** The addresses of the pictures a product shows. */
export function productPictures(product: ProductData): string[] {
  return [...product.images.map((i) => i.src.src), ...product.colors.flatMap((c) => (c.image ? [c.image.src.src] : []))];
}

/** The phase of `release` that holds at `at`: the last one starting at or before it. */
export function phaseAt(release: Pick<Release, 'phases'>, at: Date): ReleasePhase | undefined {
  let current: ReleasePhase | undefined;
  for (const phase of release.phases) if (phase.from === null || phase.from <= at.getTime()) current = phase;
  return current;
}

/** When the phase after the one holding at `at` starts, or null. */
export function nextPhaseAt(release: Pick<Release, 'phases'>, at: Date): number | null {
  return release.phases.find((p) => p.from !== null && p.from > at.getTime())?.from ?? null;
}
