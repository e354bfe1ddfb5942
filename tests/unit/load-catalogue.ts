import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'astro/zod';
import yaml from 'js-yaml';
import { catalogueIndex } from '@/features/catalogue/catalogue';
import { productSchema } from '@/features/catalogue/product.schema';

export const PRODUCTS_DIR = join(import.meta.dirname, '../../content/products');

/** The frontmatter of a markdown file. */
export function frontmatter(source: string): unknown {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(source);
  if (!match?.[1]) throw new Error('no frontmatter');
  return yaml.load(match[1]);
}

/** Reads and validates every product file the way the build does (images as plain paths, since getCollection() is empty under Vitest). */
export function loadCatalogue() {
  const schema = productSchema(z.string());
  return readdirSync(PRODUCTS_DIR)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((file) => ({ file, product: schema.parse(frontmatter(readFileSync(join(PRODUCTS_DIR, file), 'utf8'))) }));
}

/** The catalogue index the server uses, built from the real product files (image URLs are the file paths). */
export function loadCatalogueIndex() {
  return catalogueIndex(
    loadCatalogue().map((c) => c.product),
    (p) => p.images[0]?.src ?? '',
  );
}

/** A copy of `catalogue` with one product marked `inStock: false` (no real product is out of stock today). */
export function withOutOfStock<C extends ReadonlyMap<number, { inStock: boolean }>>(catalogue: C, id: number): C {
  const product = catalogue.get(id);
  if (!product) throw new Error(`product ${id} is not in the catalogue`);
  return new Map([...catalogue, [id, { ...product, inStock: false }]]) as unknown as C;
}
