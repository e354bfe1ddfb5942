// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// The cart's rules beyond the core in cart.ts: editing, pricing and merging lines, and the catalogue's checks on them,
// shared by the islands and the server (which refuses a cart that breaks them). Plain TypeScript, no zod: islands
// import it. Pages load it only when the cart drawer opens or a shopper signs in, so it costs nothing up front.
import {
  addLine,
  type CartLine,
  type CartLineInput,
  type CartRulesCatalogue,
  type CartRulesProduct,
  cartId,
  clamp,
  MAX_QUANTITY,
  MAX_QUANTITY_MESSAGE,
} from './cart';

/** The pause after the last change before a signed-in shopper's cart is saved (product spec: 'Cart save pause 1 s'). */
export const CART_SAVE_PAUSE_MS = 1000;

export const CART_MESSAGES = {
  signInToSave: 'Please log in to save your cart',
  maxQuantity: MAX_QUANTITY_MESSAGE,
  saveFailed: 'Your cart could not be saved',
  loadFailed: 'Your saved cart could not be loaded',
  empty: 'Your cart is empty.',
  removed: (label: string) => `${label} was taken out of your cart.`,
  /** What the cart, the product page and the checkout say of a product the catalogue marks `inStock: false`. */
  outOfStock: (name: string) => `${name} is out of stock.`,
} as const;

/** Sets one line's quantity (at most MAX_QUANTITY); 0 or less removes the line (product spec). */
export function setQuantity(lines: readonly CartLine[], id: string, quantity: number): CartLine[] {
  if (quantity <= 0) return removeLine(lines, id);
  return lines.map((l) => (l.cartId === id ? { ...l, quantity: clamp(quantity) } : l));
}

/** Removes one line. */
export function removeLine(lines: readonly CartLine[], id: string): CartLine[] {
  return lines.filter((l) => l.cartId !== id);
}

/** The subtotal in cents, from the catalogue's prices (a line the catalogue does not know adds nothing). */
export function subtotal(lines: readonly CartLine[], catalogue: CartRulesCatalogue): number {
  return lines.reduce((sum, l) => sum + (catalogue.get(l.productId)?.priceCents ?? 0) * l.quantity, 0);
}

/**
 * The cart after sign-in: the saved lines in their order, then the guest's new ones; a variant in both gets the sum of
 * the two quantities, capped at MAX_QUANTITY (what the product page allows).
 */
export function merge(guestLines: readonly CartLine[], savedLines: readonly CartLine[]): CartLine[] {
  return guestLines.reduce(addLine, [...savedLines]);
}

/** Whether two carts hold the same lines in the same order. */
export function sameLines(a: readonly CartLine[], b: readonly CartLine[]): boolean {
  return a.length === b.length && a.every((l, i) => l.cartId === b[i]?.cartId && l.quantity === b[i]?.quantity);
}

/** Why the catalogue refuses a line (without naming it), or null when the line is fine. */
export function lineProblem(line: CartLineInput, product: CartRulesProduct | undefined): string | null {
  if (!product) return `product ${line.productId} is not in the catalogue.`;
  if (!product.inStock) return CART_MESSAGES.outOfStock(product.name);
  const { quantity, selectedColor: color, selectedSize: size } = line;
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    return `${product.name}: the quantity must be a whole number from 1 to ${MAX_QUANTITY}.`;
  }
  if (product.colors.length === 0 && color) return `${product.name} comes in one colour only; send no colour.`;
  if (product.colors.length > 0 && !color) return `${product.name}: please choose a colour.`;
  if (color && !product.colors.includes(color)) return `${product.name} does not come in the colour “${color}”.`;
  if (product.sizes.length === 0 && size) return `${product.name} comes in one size only; send no size.`;
  if (product.sizes.length > 0 && !size) return `${product.name}: please choose a size.`;
  if (size && !product.sizes.includes(size)) return `${product.name} does not come in the size “${size}”.`;
  return null;
}

/** The first problem with a cart as a whole, naming its line ('Line 2: …'), or null when every line is fine. */
export function cartProblem(lines: readonly CartLineInput[], catalogue: CartRulesCatalogue): string | null {
  const seen = new Map<string, number>();
  for (const [i, line] of lines.entries()) {
    const problem = lineProblem(line, catalogue.get(line.productId));
    if (problem) return `Line ${i + 1}: ${problem}`;
    const id = cartId(line.productId, line.selectedColor, line.selectedSize);
    const first = seen.get(id);
    if (first !== undefined) return `Line ${i + 1} repeats line ${first}; send each product, colour and size once.`;
    seen.set(id, i + 1);
  }
  return null;
}

/**
 * The lines the catalogue accepts: a product that left the catalogue or is out of stock, or a colour or size no longer
 * made, drops out. An out-of-stock line is dropped like a retired colour rather than kept and marked: the catalogue
 * changes only with a rebuild, and a kept line nobody can buy would make the server refuse every save of the cart
 * (PUT /api/cart takes only lines it could sell) and the checkout, so the shopper could change nothing until they
 * found and removed it. The product page and the cards say 'Out of stock' in its place.
 */
export function knownLines<L extends CartLineInput>(lines: readonly L[], catalogue: CartRulesCatalogue): L[] {
  return lines.filter((l) => lineProblem(l, catalogue.get(l.productId)) === null);
}

/**
 * The lines the catalogue still sells (knownLines), and what the shopper is told of those that left, or null when
 * none did: a line must not vanish from a cart without a word.
 */
export function withoutUnsold<L extends CartLineInput>(
  lines: readonly L[],
  catalogue: CartRulesCatalogue,
): { known: L[]; notice: string | null } {
  const known = knownLines(lines, catalogue);
  const removed = lines.filter((l) => !known.includes(l));
  const [line] = removed;
  if (!line) return { known, notice: null };
  if (removed.length > 1) {
    return { known, notice: `${removed.length} items are no longer available and were taken out of your cart.` };
  }
  const product = catalogue.get(line.productId);
  if (product && !product.inStock) {
    return { known, notice: `${product.name} is out of stock and was taken out of your cart.` };
  }
  // A product still sold, in a colour or size that no longer is.
  const variant = [line.selectedColor, line.selectedSize].filter(Boolean).join(', ');
  const what = product ? `${product.name}${variant ? ` (${variant})` : ''}` : 'An item';
  return { known, notice: `${what} is no longer available and was taken out of your cart.` };
}

/** What this browser knows when a shopper signs in (or a signed-in page loads). */
export interface SignInState {
  /** The signed-in shopper. */
  userId: string;
  /** Whose cart the browser holds: undefined for a guest's cart, else the id of the shopper it belongs to. */
  owner: string | undefined;
  /** The browser's lines. */
  local: readonly CartLine[];
  /** The lines as this browser last saved or loaded them for `owner`, if any. */
  lastSaved: readonly CartLine[] | undefined;
  /** The shopper's saved cart, just read from the server. */
  saved: readonly CartLine[];
}

/**
 * Which cart a signed-in shopper continues with, and whether it must be saved:
 * - a guest's cart is merged into the saved one (the guest's choices are not lost);
 * - the shopper's own cart, changed here since it was last saved (the page closed within the save pause), wins;
 * - the shopper's own cart, unchanged here, gives way to the saved one (another device may have changed it);
 * - another shopper's leftover cart is never merged into this account: the saved cart is used.
 */
export function cartAfterSignIn(state: SignInState): { lines: CartLine[]; save: boolean } {
  const { userId, owner, local, lastSaved, saved } = state;
  if (owner === undefined) {
    const lines = merge(local, saved);
    return { lines, save: !sameLines(lines, saved) };
  }
  if (owner === userId && lastSaved && !sameLines(local, lastSaved)) return { lines: [...local], save: !sameLines(local, saved) };
  return { lines: [...saved], save: false };
}
