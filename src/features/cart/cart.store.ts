// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { persistentAtom } from '@nanostores/persistent';
import { $user } from '../auth/auth.store';
import { notify } from '../toasts/toast.store';
import {
  addLine,
  type CartLine,
  type CartLineInput,
  cartId,
  MAX_QUANTITY,
  MAX_QUANTITY_MESSAGE,
  onlyLeft,
  readLines,
} from './cart';

function decodeLines(text: string): CartLine[] {
  try {
    return readLines(JSON.parse(text));
  } catch {
    return [];
  }
}

/**
 * The shopper's cart, shared by every island. It lives in local storage, so a guest's cart survives a reload and
 * reaches new tabs, and tabs stay in step (a change in one reaches the others through the storage event).
 */
export const $cart = persistentAtom<CartLine[]>('aurelia:cart', [], { encode: JSON.stringify, decode: decodeLines });

/** Whose cart this browser holds: undefined for a guest's, else the signed-in shopper's id (see cart.sync.ts). */
export const $cartOwner = persistentAtom<string | undefined>('aurelia:cart-owner');

/** The owner's lines as last saved to or loaded from the server (JSON), so a page can tell unsaved changes apart. */
export const $cartSaved = persistentAtom<string | undefined>('aurelia:cart-saved');

/**
 * Adds the chosen variant and quantity to the cart and answers how many were added: a line holds at most
 * MAX_QUANTITY, and no more than `left` when the item is counted, so that can be fewer than asked (then the shopper is
 * told why), or none.
 */
export function addToCart(line: CartLineInput, left = MAX_QUANTITY): number {
  const id = cartId(line.productId, line.selectedColor, line.selectedSize);
  const had = $cart.get().find((l) => l.cartId === id)?.quantity ?? 0;
  const most = Math.min(MAX_QUANTITY, left);
  const added = Math.max(0, Math.min(line.quantity, most - had));
  if (added < line.quantity) notify.info(most < MAX_QUANTITY ? onlyLeft(left) : MAX_QUANTITY_MESSAGE);
  if (added > 0) $cart.set(addLine($cart.get(), line));
  return added;
}

/** Forgets the cart in this browser, local storage included (sign-out, as the product spec says). */
export function clearCart(): void {
  $cart.set([]);
  $cartOwner.set(undefined);
  $cartSaved.set(undefined);
}

// Signing out (or finding the session ended) empties the cart in this browser, as the product spec says. A page signed out
// before this store loaded still shows no stale cart: cart.sync.ts clears it once the server answers 401.
$user.listen((user) => {
  if (!user) clearCart();
});
