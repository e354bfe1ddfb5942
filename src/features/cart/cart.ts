/** A line in the cart: which product, which variant, how many. Prices are never trusted from here. */
export interface CartLine {
  cartId: string;
  productId: number;
  quantity: number;
  selectedColor: string | null;
  selectedSize: string | null;
}

/** Quantities the product page offers (spec section 9). */
export const QUANTITY_CHOICES = [1, 2, 3, 4, 5] as const;

/** The cart key: the product id, or id-colour(-size) for products with variants. */
export function cartId(productId: number, color: string | null, size: string | null): string {
  return [String(productId), color, size].filter((part): part is string => Boolean(part)).join('-');
}

/** Adds a quantity of one variant: an existing line grows, a new one is appended. */
export function addLine(lines: readonly CartLine[], line: Omit<CartLine, 'cartId'>): CartLine[] {
  const id = cartId(line.productId, line.selectedColor, line.selectedSize);
  const existing = lines.find((l) => l.cartId === id);
  if (existing) return lines.map((l) => (l.cartId === id ? { ...l, quantity: l.quantity + line.quantity } : l));
  return [...lines, { ...line, cartId: id }];
}

/** Total number of items, as the header badge shows it. */
export function itemCount(lines: readonly CartLine[]): number {
  return lines.reduce((n, l) => n + l.quantity, 0);
}
