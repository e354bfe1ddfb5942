// The one limit on an order line that both the catalogue and the cart answer to: the catalogue's schema bounds a
// product's price and weight by a full line of it, and the cart never lets a line grow past it.

/** The most of one line a cart holds: the product page's largest quantity, so a line never outgrows what it offers. */
export const MAX_QUANTITY = 5;
