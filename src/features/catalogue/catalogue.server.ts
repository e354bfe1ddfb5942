// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { type CollectionEntry, getCollection } from 'astro:content';
import { type CatalogueIndex, catalogueIndex, type ProductCard } from './catalogue';
import { type PriceAt, pricedAt, saleRuns } from './sale';
import { type CatalogueRelease, catalogueInUse } from './served-catalogue.server';

/** A product as the shop sells it now: `priceCents` is what it sells for at that moment, `wasCents` set in a sale. */
export type Product = CollectionEntry<'products'>['data'] & PriceAt;

/** A release's products priced for the sales running at one moment: the same array while the same sales run. */
interface Priced {
  onSale: string;
  products: Product[];
  index?: Promise<CatalogueIndex>;
}
const pricedReleases = new WeakMap<CatalogueRelease, Priced>();

/** `release` priced for `at` (which sales run then), made once per release and set of sales running. */
function pricedFor(release: CatalogueRelease, at: Date): Priced {
  const onSale = release.products
    .filter((p) => saleRuns(p.sale, at))
    .map((p) => p.id)
    .join(',');
  let priced = pricedReleases.get(release);
  if (priced?.onSale !== onSale) {
    priced = { onSale, products: release.products.map((p) => pricedAt(p, at)) };
    pricedReleases.set(release, priced);
  }
  return priced;
}

/**
 * Every product, ordered by id, priced for now (or for the moment a release is being rendered for). The single source
 * of names, prices, weights and variants for pages and the server: the release this server serves (decision 019),
 * which its request keeps to its end; under the dev server and in tests, the build's own catalogue (content/products).
 */
export async function getProducts(): Promise<Product[]> {
  const inUse = catalogueInUse();
  return pricedFor(inUse?.release ?? (await builtCatalogue()), inUse?.at ?? new Date()).products;
}

/**
 * The build's own catalogue, read once (each getCollection call copies every entry to resolve its pictures); under the
 * dev server on every call, so that a product file saved (by Keystatic, or by hand) shows at once.
 */
let built: Promise<CatalogueRelease> | undefined;
function builtCatalogue(): Promise<CatalogueRelease> {
  if (import.meta.env.DEV) return readBuilt();
  built ??= readBuilt().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

async function readBuilt(): Promise<CatalogueRelease> {
  const entries = await getCollection('products');
  const products = entries.map((e) => e.data).sort((a, b) => a.id - b.id);
  const seen = new Set<number>();
  for (const p of products) {
    if (seen.has(p.id)) throw new Error(`Two product files share id ${p.id}`);
    seen.add(p.id);
  }
  return { key: 'built', products };
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
    wasCents: p.wasCents,
    description: p.description,
    likes: p.likes,
    inStock: p.inStock,
    href: productHref(p.id),
    image: { src: first.src.src, width: first.src.width, height: first.src.height, alt: first.alt },
  };
}

const indexOf = (products: Product[]) => catalogueIndex(products, (p) => p.images[0]?.src.src ?? '');

/** The catalogue index the API validates and prices against: made once per release and set of sales running. */
export async function getCatalogueIndex(): Promise<CatalogueIndex> {
  const inUse = catalogueInUse();
  const priced = pricedFor(inUse?.release ?? (await builtCatalogue()), inUse?.at ?? new Date());
  priced.index ??= Promise.resolve(indexOf(priced.products));
  return priced.index;
}
