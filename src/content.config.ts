import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { productSchema } from '@/features/catalog/product.schema';

/**
 * The catalogue: one markdown file per product under content/products, validated at build time. A publish builds from
 * the catalogue as editors saved it, written out to a directory of its own (AURELIA_CATALOGUE_DIR; see
 * src/features/editor/publish-build.server.ts).
 */
const products = defineCollection({
  loader: glob({ pattern: '*.md', base: process.env.AURELIA_CATALOGUE_DIR ?? './content/products' }),
  schema: ({ image }) => productSchema(image()),
});

export const collections = { products };
