import { atom, computed } from 'nanostores';
import { addLine, type CartLine, itemCount } from './cart';

/** The shopper's cart, shared by every island on the page. */
export const $cart = atom<CartLine[]>([]);

/** Number of items for the header badge. */
export const $cartCount = computed($cart, itemCount);

/** Adds the chosen variant and quantity to the cart. */
export function addToCart(line: Omit<CartLine, 'cartId'>): void {
  $cart.set(addLine($cart.get(), line));
}
