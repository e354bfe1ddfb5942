// The catalogue guard: what no save of the catalogue gets past, wherever it is made. The shop's editor
// (catalogue-edit.server.ts, the catalogue as saved in the database) and the developers' Keystatic editor
// (editor/catalogue-guard.ts, the files on disk) both ask it, so there is one set of rules: every product file written
// passes the build's own schema, ids and SKUs stay unique across the catalogue, every picture a product names exists,
// a colour keeps its key (carts, stock counts and orders name it by it), and only product files and pictures are
// written, never a path outside the content folder.
import { z } from 'astro/zod';
import { load } from 'js-yaml';
import { productSchema } from '@/features/catalogue/product.schema';

/** Where the catalogue lives, relative to the project root (the glob loader in src/content.config.ts reads the same). */
export const PRODUCTS_DIR = 'content/products';
export const IMAGES_DIR = `${PRODUCTS_DIR}/images`;
/** A product file's name: `NN-slug.md` (the database's catalogue_revisions.file takes the same). */
export const PRODUCT_FILE = /^[a-z0-9][a-z0-9-]{0,99}\.md$/;
/** A picture's name in content/products/images/. */
export const IMAGE_NAME = /^[a-z0-9][a-z0-9._-]{0,99}\.(svg|png|jpe?g|webp|avif|gif)$/i;

/** The build's schema with image references checked as `./images/<file>` paths instead of through astro:assets. */
const schema = productSchema(z.string().regex(/^\.\/images\/[^/]+$/, { error: 'images are referenced as ./images/<file>' }));

/** The front matter block of a product file: its YAML text, where it starts, and the text after it. */
export function frontMatterBlock(text: string): { yaml: string; start: number; rest: string } | null {
  const match = /^---\r?\n([\s\S]*?\r?\n)?---(\r?\n|$)/.exec(text);
  if (!match) return null;
  const start = match[0].indexOf('\n') + 1;
  return { yaml: match[1] ?? '', start, rest: text.slice(match[0].length) };
}

/** The front matter of a product file, read as the build reads it (js-yaml), or an error naming why it cannot be. */
export function frontMatter(text: string): unknown {
  const block = frontMatterBlock(text);
  if (!block) throw new Error('the file does not start with a --- front matter block');
  return load(block.yaml);
}

/** A colour as the guard needs it: `value` is its key in carts, stock counts and orders. */
export type GuardedColour = { name: string; value: string; hex: string };

/** A product file as the guard needs it. */
export type GuardedProduct = {
  id: number;
  sku: string;
  name: string;
  priceCents: number;
  images: string[];
  colors: GuardedColour[];
};

/** One thing the build's schema refuses in a product file: where (`['images', 2, 'alt']`), its code and its message. */
export type SchemaIssue = { path: (string | number)[]; code: string; message: string; values?: readonly unknown[] };

/** A product file read as the build reads it: its front matter as data, and what the schema refuses in it. */
export function fileIssues(
  text: string,
): { unreadable: string } | { data: unknown; issues: SchemaIssue[]; product?: GuardedProduct } {
  let data: unknown;
  try {
    data = frontMatter(text);
  } catch (error) {
    return { unreadable: `the front matter is not valid YAML: ${(error as Error).message}` };
  }
  const result = schema.safeParse(data);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({
      path: i.path.filter((p) => typeof p !== 'symbol') as (string | number)[],
      code: i.code,
      message: i.message,
      ...('values' in i ? { values: i.values } : {}),
    }));
    return { data, issues };
  }
  const p = result.data;
  const images = [...p.images.map((i) => i.src), ...p.colors.flatMap((c) => (c.image ? [c.image.src] : []))];
  const colors = p.colors.map(({ name, value, hex }) => ({ name, value, hex }));
  return { data, issues: [], product: { id: p.id, sku: p.sku, name: p.name, priceCents: p.priceCents, images, colors } };
}

const issueLine = (i: SchemaIssue) => `${i.path.join('.') || 'product'}: ${i.message}`;

/** The problems of one product file, as 'field: message' lines (empty when the build would accept it). */
export function fileProblems(text: string): { problems: string[]; product?: GuardedProduct } {
  const read = fileIssues(text);
  if ('unreadable' in read) return { problems: [read.unreadable] };
  return read.product ? { problems: [], product: read.product } : { problems: read.issues.map(issueLine) };
}

/**
 * The colours a save takes away (their keys gone from the product), or why it may not: a colour whose key changes in
 * place, that is a colour gone whose name or swatch comes back under a new key. Keys are locked like the product's id:
 * carts, stock counts and orders name a colour by its key, and would no longer find it.
 */
export function colourChange(
  before: readonly GuardedColour[],
  after: readonly GuardedColour[],
): { removed: GuardedColour[]; problem: string | null; rekeyed?: GuardedColour } {
  const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  const kept = new Set(before.map((c) => c.value));
  const removed = before.filter((c) => !after.some((d) => d.value === c.value));
  const added = after.filter((c) => !kept.has(c.value));
  const rekeyed = removed.find((c) => added.some((d) => same(d.name, c.name) || same(d.hex, c.hex)));
  return {
    removed,
    ...(rekeyed ? { rekeyed } : {}),
    problem: rekeyed
      ? `colours: the key of “${rekeyed.name}” (${rekeyed.value}) cannot change: carts, stock counts and orders know the colour by it. Change its name or swatch instead; to sell another colour, add it as a new colour.`
      : null,
  };
}

/** What a save writes: files by their path from the project root, and paths it deletes. */
export type Update = { additions: { path: string; contents: Uint8Array }[]; deletions: { path: string }[] };

/** The catalogue a save is checked against. */
export interface Catalogue {
  /** Every product file as it is now, by its path (`content/products/<name>.md`) → text. */
  files: ReadonlyMap<string, string>;
  /** Whether a picture of this name is in content/products/images/ (or was uploaded). */
  pictureExists: (name: string) => boolean;
}

/** Where `path` may be written, or null: a product file or a picture, directly in their folders, nothing else. */
export function kindOfPath(path: string): 'product' | 'picture' | null {
  if (path.includes('\\') || path.split('/').some((part) => part === '..' || part === '.' || part === '')) return null;
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash);
  const name = path.slice(slash + 1);
  if (dir === IMAGES_DIR && IMAGE_NAME.test(name)) return 'picture';
  if (dir === PRODUCTS_DIR && PRODUCT_FILE.test(name)) return 'product';
  return null;
}

/**
 * Why the guard refuses a save, as data: the shop's editor says it in the shop's words beside the field
 * (refusal-words.ts), the developers' editor as one line (catalogueProblem). `file` is the product file's path.
 */
export type GuardRefusal =
  /** A path the editor may not write or delete, or a file that is not UTF-8. */
  | { kind: 'path'; path: string; message: string }
  | { kind: 'unreadable'; file: string; message: string }
  /** What the build's schema refuses; `data` is the front matter it read. */
  | { kind: 'schema'; file: string; issue: SchemaIssue; data: unknown }
  /** A picture the product names that is not there; `field` is where it is named (`['images', 2, 'src']`). */
  | { kind: 'picture'; file: string; field: (string | number)[]; src: string }
  /** An id or SKU another product has: `other` is its file, `otherName` its name. */
  | { kind: 'id'; file: string; id: number; other: string; otherName: string }
  | { kind: 'sku'; file: string; sku: string; other: string; otherName: string }
  /** A colour whose key changed in place (see colourChange). */
  | { kind: 'colourKey'; file: string; colour: GuardedColour; message: string };

/** A refusal as the developers' editor says it: 'content/products/x.md: sku: …'. */
function refusalLine(r: GuardRefusal): string {
  switch (r.kind) {
    case 'path':
      return `${r.path}: ${r.message}`;
    case 'unreadable':
      return `${r.file}: ${r.message}`;
    case 'schema':
      return `${r.file}: ${issueLine(r.issue)}`;
    case 'picture':
      return `${r.file}: images: ${r.src} is not in ${IMAGES_DIR}/ (upload it first).`;
    case 'id':
      return `${r.file}: id: ${r.id} is already the id of ${r.other}; ids must be unique.`;
    case 'sku':
      return `${r.file}: sku: ${r.sku} is already the SKU of ${r.other}; SKUs must be unique.`;
    case 'colourKey':
      return `${r.file}: ${r.message}`;
  }
}

/**
 * Why `update` must not be applied to `catalogue`, or null when it may, in one line naming the file and the field (the
 * first refusal of catalogueRefusals; a file the build's schema refuses, all that it refuses in it).
 */
export function catalogueProblem(catalogue: Catalogue, update: Update): string | null {
  const refusals = catalogueRefusals(catalogue, update);
  const [first] = refusals;
  if (!first) return null;
  if (first.kind !== 'schema') return refusalLine(first);
  const issues = refusals.flatMap((r) => (r.kind === 'schema' && r.file === first.file ? [issueLine(r.issue)] : []));
  return `${first.file}: ${issues.join('; ')}`;
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);

/** The pictures a product's front matter names, each with where: `['images', 0, 'src']`, `['colors', 1, 'image', 'src']`. */
function namedPictures(data: unknown): { field: (string | number)[]; src: string }[] {
  const d = (data && typeof data === 'object' ? data : {}) as { images?: unknown; colors?: unknown };
  const list = (v: unknown) => (Array.isArray(v) ? (v as unknown[]) : []);
  return [
    ...list(d.images).flatMap((im, i) => {
      const src = str((im as { src?: unknown } | null)?.src);
      return src ? [{ field: ['images', i, 'src'], src }] : [];
    }),
    ...list(d.colors).flatMap((c, i) => {
      const src = str((c as { image?: { src?: unknown } } | null)?.image?.src);
      return src ? [{ field: ['colors', i, 'image', 'src'], src }] : [];
    }),
  ];
}

/**
 * Every reason `update` must not be applied to `catalogue` (none: it may). The catalogue as it would be after the
 * update is checked as a whole: every changed product file against the schema, its pictures present, and no id or SKU
 * used twice. A changed file the schema refuses is still checked for its pictures, id and SKU as written, so an editor
 * hears of everything at once.
 */
export function catalogueRefusals(catalogue: Catalogue, update: Update): GuardRefusal[] {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const files = new Map(catalogue.files);
  const before = catalogue.files;
  const changed = new Set<string>();
  const newImages = new Set<string>();
  for (const { path } of update.deletions) {
    if (kindOfPath(path) !== 'product')
      return [{ kind: 'path', path, message: `the editor deletes only product files (${PRODUCTS_DIR}/<slug>.md).` }];
    files.delete(path);
  }
  for (const { path, contents } of update.additions) {
    const kind = kindOfPath(path);
    if (kind === 'picture') {
      newImages.add(path.slice(path.lastIndexOf('/') + 1));
    } else if (kind === 'product') {
      try {
        files.set(path, decoder.decode(contents));
      } catch {
        return [{ kind: 'path', path, message: 'the file is not UTF-8 text.' }];
      }
      changed.add(path);
    } else {
      return [
        {
          kind: 'path',
          path,
          message: `the editor writes only product files (${PRODUCTS_DIR}/<slug>.md) and pictures (${IMAGES_DIR}/<name>.svg, .png, .jpg, .webp).`,
        },
      ];
    }
  }
  const refusals: GuardRefusal[] = [];
  const products: (GuardedProduct & { file: string })[] = [];
  const written: { file: string; data: unknown; product?: GuardedProduct }[] = [];
  for (const [path, text] of files) {
    const read = fileIssues(text);
    if (changed.has(path)) {
      // A file the editor does not touch is the build's business; one it writes must be valid.
      if ('unreadable' in read) refusals.push({ kind: 'unreadable', file: path, message: read.unreadable });
      else {
        for (const issue of read.issues) refusals.push({ kind: 'schema', file: path, issue, data: read.data });
        written.push({ file: path, data: read.data, ...(read.product ? { product: read.product } : {}) });
      }
    }
    if (!('unreadable' in read) && read.product) products.push({ ...read.product, file: path });
  }
  for (const { file, data, product } of written) {
    const d = (data && typeof data === 'object' ? data : {}) as { id?: unknown; sku?: unknown };
    for (const { field, src } of namedPictures(data)) {
      const name = src.slice('./images/'.length);
      if (src.startsWith('./images/') && !newImages.has(name) && !catalogue.pictureExists(name))
        refusals.push({ kind: 'picture', file, field, src });
    }
    const sameId = typeof d.id === 'number' ? products.find((q) => q.file !== file && q.id === d.id) : undefined;
    if (sameId) refusals.push({ kind: 'id', file, id: sameId.id, other: sameId.file, otherName: sameId.name });
    const sameSku = str(d.sku) ? products.find((q) => q.file !== file && q.sku === d.sku) : undefined;
    if (sameSku) refusals.push({ kind: 'sku', file, sku: sameSku.sku, other: sameSku.file, otherName: sameSku.name });
    // A file that was there before (and could be read) keeps its colours' keys.
    const earlier = product && before.has(file) ? fileProblems(before.get(file) ?? '').product : undefined;
    const rekeyed = earlier && product ? colourChange(earlier.colors, product.colors) : null;
    if (rekeyed?.problem && rekeyed.rekeyed)
      refusals.push({ kind: 'colourKey', file, colour: rekeyed.rekeyed, message: rekeyed.problem });
  }
  return refusals;
}
