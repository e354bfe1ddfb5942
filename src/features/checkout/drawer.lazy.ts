// What the header's cart button loads when the drawer first opens: the drawer, with its discount code field. Pages
// where nobody opens the cart never download it. Saving a signed-in shopper's cart (../cart/cart.sync) is a chunk of
// its own, loaded once someone signs in, so a signed-in shopper's pages do not download the drawer before it opens.
// The badge and the drawer live in checkout, the flow that turns a cart into an order: the cart feature itself knows
// nothing of checkout.

export { default as CartDrawer } from './CartDrawer';
