// The editor's last check before it writes: every product file it saves must pass the build's own schema, and ids and
// SKUs must stay unique across the catalogue. The form checks most of this as the editor types; this guard is what a
// save cannot get past (a refused save writes nothing), and it names the problem in the editor's error banner.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'astro/zod';
import { load } from 'js-yaml';
import { productSchema } from '@/features/catalog/product.schema';

/** Where the catalogue lives, relative to the project root (the glob loader in src/content.config.ts reads the same). */
export const PRODUCTS_DIR = 'content/products';
export const IMAGES_DIR = `${PRODUCTS_DIR}/images`;
const IMAGE_NAME = /^[a-z0-9][a-z0-9._-]*\.(svg|png|jpe?g|webp|avif|gif)$/i;

/** The build's schema with image references checked as `./images/<file>` paths instead of through astro:assets. */
const schema = productSchema(z.string().regex(/^\.\/images\/[^/]+$/, { error: 'images are referenced as ./images/<file>' }));

/** The front matter of a product file, or an error naming why it cannot be read. */
export function frontMatter(text: string): unknown {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!match) throw new Error('the file does not start with a --- front matter block');
  return load(match[1] ?? '');
}

type Parsed = { file: string; id: number; sku: string; images: string[] };

/** The problems of one product file, as 'field: message' lines (empty when the build would accept it). */
export function fileProblems(text: string): { problems: string[]; product?: Parsed } {
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
  return { problems: [], product: { file: '', id: p.id, sku: p.sku, images } };
}

export type Update = { additions: { path: string; contents: Uint8Array }[]; deletions: { path: string }[] };

/**
 * Why the editor must not apply `update` to the catalogue in `root`, or null when it may. The catalogue as it would be
 * after the update is checked as a whole: every changed product file against the schema, its images present, and no id
 * or SKU used twice.
 */
export async function updateProblem(root: string, update: Update): Promise<string | null> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const files = new Map<string, string>();
  for (const name of await readdir(join(root, PRODUCTS_DIR))) {
    if (name.endsWith('.md')) files.set(`${PRODUCTS_DIR}/${name}`, await readFile(join(root, PRODUCTS_DIR, name), 'utf8'));
  }
  const changed = new Set<string>();
  const newImages = new Set<string>();
  for (const { path } of update.deletions) files.delete(path);
  for (const { path, contents } of update.additions) {
    const dir = path.slice(0, path.lastIndexOf('/'));
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (dir === IMAGES_DIR && IMAGE_NAME.test(name)) {
      newImages.add(name);
    } else if (dir === PRODUCTS_DIR && /^[a-z0-9-]+\.md$/.test(name)) {
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
  const products: Parsed[] = [];
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
      return !newImages.has(name) && !existsSync(join(root, IMAGES_DIR, name));
    });
    if (missing) return `${p.file}: images: ${missing} is not in ${IMAGES_DIR}/ (upload it first).`;
    const sameId = products.find((q) => q.file !== p.file && q.id === p.id);
    if (sameId) return `${p.file}: id: ${p.id} is already the id of ${sameId.file}; ids must be unique.`;
    const sameSku = products.find((q) => q.file !== p.file && q.sku === p.sku);
    if (sameSku) return `${p.file}: sku: ${p.sku} is already the SKU of ${sameSku.file}; SKUs must be unique.`;
  }
  return null;
}
