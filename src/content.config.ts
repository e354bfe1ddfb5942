import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { productSchema } from '@/features/catalogue/product.schema';

/**
 * The catalogue's seed: one markdown file per product under content/products, validated at build time (a file the
 * schema refuses fails `npm run build`). The dev server and tests read the catalogue from here; the running shop serves
 * releases of the catalogue as editors publish it, made from these files with the saves laid over them (decision 018).
 */
const products = defineCollection({
  loader: glob({ pattern: '*.md', base: './content/products' }),
  schema: ({ image }) => productSchema(image()),
});

export const collections = { products };
