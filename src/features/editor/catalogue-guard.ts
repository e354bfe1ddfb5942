// The catalogue guard: what no save of the catalogue gets past, wherever it is made. The shop's editor
// (catalogue-edit.server.ts, the catalogue as saved in the database) and the developers' Keystatic editor
// (editor/catalogue-guard.ts, the files on disk) both ask it, so there is one set of rules: every product file written
// passes the build's own schema, ids and SKUs stay unique across the catalogue, every picture a product names exists,
// a colour keeps its key (carts, stock counts and orders name it by it), and only product files and pictures are
// written, never a path outside the content folder.
import { z } from 'astro/zod';
import { load } from 'js-yaml';
import { productSchema } from '@/features/catalog/product.schema';

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

/** The problems of one product file, as 'field: message' lines (empty when the build would accept it). */
export function fileProblems(text: string): { problems: string[]; product?: GuardedProduct } {
  let data: unknown;
  try {
    data = frontMatter(text);
  } catch (error) {
    return { problems: [`the front matter is not valid YAML: ${(error as Error).message}`] };
  }
  const result = schema.safeParse(data);
  if (!result.success) {
    return { problems: result.error.issues.map((i) => `${i.path.join('.') || 'product'}: ${i.message}`) };
  }
  const p = result.data;
  const images = [...p.images.map((i) => i.src), ...p.colors.flatMap((c) => (c.image ? [c.image.src] : []))];
  const colors = p.colors.map(({ name, value, hex }) => ({ name, value, hex }));
  return { problems: [], product: { id: p.id, sku: p.sku, name: p.name, priceCents: p.priceCents, images, colors } };
}

/**
 * The colours a save takes away (their keys gone from the product), or why it may not: a colour whose key changes in
 * place, that is a colour gone whose name or swatch comes back under a new key. Keys are locked like the product's id:
 * carts, stock counts and orders name a colour by its key, and would no longer find it.
 */
export function colourChange(
  before: readonly GuardedColour[],
  after: readonly GuardedColour[],
): { removed: GuardedColour[]; problem: string | null } {
  const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  const kept = new Set(before.map((c) => c.value));
  const removed = before.filter((c) => !after.some((d) => d.value === c.value));
  const added = after.filter((c) => !kept.has(c.value));
  const rekeyed = removed.find((c) => added.some((d) => same(d.name, c.name) || same(d.hex, c.hex)));
  return {
    removed,
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
 * Why `update` must not be applied to `catalogue`, or null when it may. The catalogue as it would be after the update
 * is checked as a whole: every changed product file against the schema, its pictures present, and no id or SKU used
 * twice.
 */
export function catalogueProblem(catalogue: Catalogue, update: Update): string | null {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const files = new Map(catalogue.files);
  const before = catalogue.files;
  const changed = new Set<string>();
  const newImages = new Set<string>();
  for (const { path } of update.deletions) {
    if (kindOfPath(path) !== 'product') return `${path}: the editor deletes only product files (${PRODUCTS_DIR}/<slug>.md).`;
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
        return `${path}: the file is not UTF-8 text.`;
      }
      changed.add(path);
    } else {
      return `${path}: the editor writes only product files (${PRODUCTS_DIR}/<slug>.md) and pictures (${IMAGES_DIR}/<name>.svg, .png, .jpg, .webp).`;
    }
  }
  const products: (GuardedProduct & { file: string })[] = [];
  for (const [path, text] of files) {
    const { problems, product } = fileProblems(text);
    // A file the editor does not touch is the build's business; one it writes must be valid.
    if (!product) {
      if (changed.has(path)) return `${path}: ${problems.join('; ')}`;
      continue;
    }
    products.push({ ...product, file: path });
  }
  for (const p of products.filter((q) => changed.has(q.file))) {
    const missing = p.images.find((src) => {
      const name = src.slice('./images/'.length);
      return !newImages.has(name) && !catalogue.pictureExists(name);
    });
    if (missing) return `${p.file}: images: ${missing} is not in ${IMAGES_DIR}/ (upload it first).`;
    const sameId = products.find((q) => q.file !== p.file && q.id === p.id);
    if (sameId) return `${p.file}: id: ${p.id} is already the id of ${sameId.file}; ids must be unique.`;
    const sameSku = products.find((q) => q.file !== p.file && q.sku === p.sku);
    if (sameSku) return `${p.file}: sku: ${p.sku} is already the SKU of ${sameSku.file}; SKUs must be unique.`;
    // A file that was there before (and could be read) keeps its colours' keys.
    const earlier = before.has(p.file) ? fileProblems(before.get(p.file) ?? '').product : undefined;
    const rekeyed = earlier ? colourChange(earlier.colors, p.colors).problem : null;
    if (rekeyed) return `${p.file}: ${rekeyed}`;
  }
  return null;
}
