// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// What a cart is and its arithmetic, in plain TypeScript for the islands and the server. Every page loads this module
// (the header's badge counts the cart), so it stays small: everything else (editing, pricing, merging and
// checking lines) is in cart.rules.ts.
import { MAX_QUANTITY } from '@/lib/order-line';

/** A line in the cart: which product, which variant, how many. Prices are never trusted from here. */
export interface CartLine {
  cartId: string;
  productId: number;
  quantity: number;
  selectedColor: string | null;
  selectedSize: string | null;
}

/** A line as the browser sends it to be saved: the server works out the cartId itself. */
export type CartLineInput = Omit<CartLine, 'cartId'>;

/** What the cart rules need to know about a product; the server's CatalogueIndex entries fit. */
export interface CartRulesProduct {
  name: string;
  priceCents: number;
  /** False while the product is out of stock: no cart or checkout takes it. */
  inStock: boolean;
  /** Colour values on offer, empty when the product has none. */
  colors: readonly string[];
  sizes: readonly string[];
}

/** Products by id, as the rules read them. */
export type CartRulesCatalogue = ReadonlyMap<number, CartRulesProduct>;

/** What the drawer shows of a product (built on the server from the catalogue, passed to the header's island). */
export interface CartProduct extends CartRulesProduct {
  id: number;
  href: string;
  /** The main picture's URL. */
  image: string;
  colors: string[];
  sizes: string[];
  /** Colour value → its display name ('powder-blue' → 'Powder Blue'). */
  colorNames: Record<string, string>;
  /** Colour value → the picture of that colour, when there is one. */
  colorImages: Record<string, string>;
  /** Shipping weight in pounds (the drawer's shipping estimate). */
  weight: number;
}

/** Quantities the product page offers (product spec). */
export const QUANTITY_CHOICES = [1, 2, 3, 4, 5] as const;

/** The most of one line a cart holds (kept in lib, where the catalogue's schema reads it too). */
export { MAX_QUANTITY };

/** What the shopper is told when a line would grow past MAX_QUANTITY. */
export const MAX_QUANTITY_MESSAGE = `You can have up to ${MAX_QUANTITY} of each item in your cart.`;

/** What the product page and the cart say of a counted item with few left (stock.ts has the rest of stock's words). */
export const onlyLeft = (n: number) => `Only ${n} left`;

/** The cart key: the product id, or id-colour(-size) for products with variants. */
export function cartId(productId: number, color: string | null, size: string | null): string {
  return [String(productId), color, size].filter((part): part is string => Boolean(part)).join('-');
}

/** A quantity kept to at most MAX_QUANTITY. */
export const clamp = (quantity: number): number => Math.min(MAX_QUANTITY, quantity);

/** Adds a quantity of one variant: an existing line grows (up to MAX_QUANTITY), a new one is appended. */
export function addLine(lines: readonly CartLine[], line: CartLineInput): CartLine[] {
  const id = cartId(line.productId, line.selectedColor, line.selectedSize);
  const existing = lines.find((l) => l.cartId === id);
  if (existing) return lines.map((l) => (l.cartId === id ? { ...l, quantity: clamp(l.quantity + line.quantity) } : l));
  return [...lines, { ...line, quantity: clamp(line.quantity), cartId: id }];
}

/** Total number of items, as the header badge shows it. */
export function itemCount(lines: readonly CartLine[]): number {
  return lines.reduce((n, l) => n + l.quantity, 0);
}

const isVariant = (v: unknown) => v === null || typeof v === 'string';
const isLine = (l: Partial<CartLine> | null): l is CartLine =>
  Boolean(l) &&
  Number.isInteger(l?.productId) &&
  Number.isInteger(l?.quantity) &&
  (l?.quantity ?? 0) > 0 &&
  isVariant(l?.selectedColor) &&
  isVariant(l?.selectedSize);

/**
 * Reads lines kept in local storage, which anyone can edit: anything that is not a line is dropped, a quantity is kept
 * to MAX_QUANTITY, and the cartId is worked out again (addLine). The catalogue's own checks come later (knownLines).
 */
export function readLines(value: unknown): CartLine[] {
  return Array.isArray(value) ? value.filter(isLine).reduce(addLine, []) : [];
}
