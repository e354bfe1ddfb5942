// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { type CollectionEntry, getCollection } from 'astro:content';
import { type CatalogueIndex, catalogueIndex, type ProductCard } from './catalog';

export type Product = CollectionEntry<'products'>['data'];

/**
 * Every product, ordered by id. The single source of names, prices, weights and variants for pages and the server.
 * Read once per build: a build's catalogue never changes (a publish loads another build), and each getCollection call
 * copies every entry to resolve its pictures (about a tenth of a millisecond, on every page rendered on demand).
 */
let products: Promise<Product[]> | undefined;
export function getProducts(): Promise<Product[]> {
  products ??= readProducts().catch((error: unknown) => {
    products = undefined;
    throw error;
  });
  return products;
}

async function readProducts(): Promise<Product[]> {
  const entries = await getCollection('products');
  const all = entries.map((e) => e.data).sort((a, b) => a.id - b.id);
  const seen = new Set<number>();
  for (const p of all) {
    if (seen.has(p.id)) throw new Error(`Two product files share id ${p.id}`);
    seen.add(p.id);
  }
  return all;
}

/** One product by id, or undefined. */
export async function getProduct(id: number): Promise<Product | undefined> {
  return (await getProducts()).find((p) => p.id === id);
}

/** The product's public URL. */
export function productHref(id: number): string {
  return `/product/${id}`;
}

/** The serialisable card view an island receives. */
export function toCard(p: Product): ProductCard {
  const [first] = p.images;
  if (!first) throw new Error(`Product ${p.id} has no image`);
  return {
    id: p.id,
    name: p.name,
    category: p.category,
    mainCategories: p.mainCategories,
    priceCents: p.priceCents,
    description: p.description,
    likes: p.likes,
    inStock: p.inStock,
    href: productHref(p.id),
    image: { src: first.src.src, width: first.src.width, height: first.src.height, alt: first.alt },
  };
}

/** The catalogue index the API validates and prices against (built once per process). */
let index: Promise<CatalogueIndex> | undefined;
export function getCatalogueIndex(): Promise<CatalogueIndex> {
  index ??= getProducts().then((products) => catalogueIndex(products, (p) => p.images[0]?.src.src ?? ''));
  return index;
}
