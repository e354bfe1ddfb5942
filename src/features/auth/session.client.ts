import { $authModal, $user } from './auth.store';

/**
 * Browser-side sign-out: forgets the shopper and closes the modal. What each feature keeps privately (the cart,
 * orders, favorites) follows $user going to null in that feature's own store, so accounts need not know them.
 */
export function clearPrivateState(): void {
  $user.set(null);
  $authModal.set('closed');
}
