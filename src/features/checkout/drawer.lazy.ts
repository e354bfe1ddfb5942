// What the header's cart button loads on first use, in one chunk: the drawer (when it first opens) and the saving of a
// signed-in shopper's cart (once someone signs in). Guests who never open the cart download neither. The badge and the
// drawer live in checkout, the flow that turns a cart into an order: the cart feature itself knows nothing of checkout.

export { startCartSync } from '../cart/cart.sync';
export { default as CartDrawer } from './CartDrawer';
