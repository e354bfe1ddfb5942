import { clearCart } from '../cart/cart.store';
import { $authModal, $user } from './auth.store';

/** Browser-side sign-out: forgets the shopper, their cart and anything private (spec: sign-out clears cart and orders). */
export function clearPrivateState(): void {
  $user.set(null);
  clearCart();
  $authModal.set('closed');
}
