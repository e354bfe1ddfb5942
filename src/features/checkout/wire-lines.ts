// The cart's lines as the server's endpoints take them, in a module of its own: the cart drawer's discount check needs
// it without the checkout's rules (addresses, states, ZIP codes), which load only when the shopper checks out.
import type { CartLine } from '../cart/cart';

/** The body the server prices: product ids, quantities and variants only; never a price. */
export const wireLines = (lines: readonly CartLine[]) =>
  lines.map(({ productId, quantity, selectedColor, selectedSize }) => ({ productId, quantity, selectedColor, selectedSize }));
