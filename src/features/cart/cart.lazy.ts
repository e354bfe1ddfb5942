// What the header's cart button loads on first use, in one chunk: the drawer (when it first opens) and the saving of a
// signed-in shopper's cart (once someone signs in). Guests who never open the cart download neither.
export { default as CartDrawer } from './CartDrawer';
export { startCartSync } from './cart.sync';
