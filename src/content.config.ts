import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { productSchema } from '@/features/catalog/product.schema';

/** The catalogue: one markdown file per product under content/products, validated at build time. */
const products = defineCollection({
  loader: glob({ pattern: '*.md', base: './content/products' }),
  schema: ({ image }) => productSchema(image()),
});

export const collections = { products };
