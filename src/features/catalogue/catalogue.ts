// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import type { MainCategory } from './categories';
import { priceAt, type Sale } from './sale';

/** What the grid, cards and islands need of a product: serialisable, no astro:assets types. */
export interface ProductCard {
  id: number;
  name: string;
  category: string;
  mainCategories: MainCategory[];
  /** What it sells for now (the sale price during a sale). */
  priceCents: number;
  /** During a sale, the regular price (shown struck through); else null. */
  wasCents: number | null;
  description: string;
  likes: number;
  /** False: the card says OUT_OF_STOCK. */
  inStock: boolean;
  href: string;
  image: { src: string; width: number; height: number; alt: string };
}

/** What a card, the wishlist and the product page show (in place of Add to Cart) for a product marked `inStock: false`. */
export const OUT_OF_STOCK = 'Out of stock';

/** A chip's value: every product, or one main category. */
export type CategoryFilter = 'all' | MainCategory;

/** How many cards the home grid shows before (and after each) 'Load More Products'. */
export const PAGE_SIZE = 6;

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** Formats integer cents as US dollars for display: 3500 -> "$35.00". */
export function formatPrice(cents: number): string {
  return usd.format(cents / 100);
}

/** The products a chip selects, in catalogue order. */
export function filterByCategory<T extends Pick<ProductCard, 'mainCategories'>>(
  products: readonly T[],
  filter: CategoryFilter,
): T[] {
  return filter === 'all' ? [...products] : products.filter((p) => p.mainCategories.includes(filter));
}

// Rating arithmetic lives in its own module so the reviews island can use it without this module's formatter.
export { averageRating, starCount } from './rating';

/** A review author as shown to other shoppers: "maya.t@example.com" -> "ma***@example.com". */
export function maskEmail(author: string): string {
  const at = author.lastIndexOf('@');
  if (at < 1) return author;
  const local = author.slice(0, at);
  return `${local.slice(0, Math.min(2, local.length - 1) || 1)}***${author.slice(at)}`;
}

/** Chip label for a main category. */
export function categoryLabel(filter: CategoryFilter): string {
  return filter === 'all' ? 'All' : filter.replace(/\b\w/g, (c) => c.toUpperCase());
}

/** What the server needs of a product to validate and price a request: never taken from the client. */
export interface CatalogueItem {
  id: number;
  name: string;
  category: string;
  /** What the checkout charges for one (the sale price while a sale runs). */
  priceCents: number;
  sku: string;
  /** Pounds. */
  weight: number;
  inStock: boolean;
  /** Marked final sale by an editor: it cannot be returned. */
  finalSale: boolean;
  /** Colour values (slugs) on offer, empty when the product has none. */
  colors: string[];
  /** Colour value → the name the shop shows ('powder-blue' → 'Powder Blue'). */
  colorNames: Record<string, string>;
  sizes: string[];
  /** URL of the main picture. */
  image: string;
}

/** The catalogue by product id. */
export type CatalogueIndex = ReadonlyMap<number, CatalogueItem>;

/** The fields of a product the index reads (the content collection's type, or a test's). */
export type IndexableProduct = Omit<CatalogueItem, 'colors' | 'colorNames' | 'sizes' | 'image'> & {
  colors: { value: string; name: string }[];
  sizes: readonly string[];
  sale?: Sale | null;
};

/**
 * Builds the index from products as the content collection (or a test) gives them; `imageUrl` finds a product's main
 * picture. With `at`, each is priced for that moment (its sale price while its sale runs); without, `priceCents` is
 * taken as what is charged (the build's products are priced already).
 */
export function catalogueIndex<P extends IndexableProduct>(
  products: readonly P[],
  imageUrl: (product: P) => string,
  at?: Date,
): CatalogueIndex {
  return new Map(
    products.map((p) => [
      p.id,
      {
        id: p.id,
        name: p.name,
        category: p.category,
        priceCents: at ? priceAt(p, at).priceCents : p.priceCents,
        sku: p.sku,
        weight: p.weight,
        inStock: p.inStock,
        finalSale: p.finalSale,
        colors: p.colors.map((c) => c.value),
        colorNames: Object.fromEntries(p.colors.map((c) => [c.value, c.name])),
        sizes: [...p.sizes],
        image: imageUrl(p),
      },
    ]),
  );
}

/**
 * Whether the catalogue marks product `productId` final sale (it cannot be returned). A product no longer in the
 * catalogue is not: what an order recorded (`order_items.final_sale`) is what counts for a line already bought.
 */
export function isFinalSale(catalogue: CatalogueIndex, productId: number): boolean {
  return catalogue.get(productId)?.finalSale === true;
}
