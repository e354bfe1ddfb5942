// The /wishlist page's own messages (spec sections 5 and 8), shared with the endpoints that answer it.

/** Product spec: wishlist actions without an account. */
export const LOGIN_TO_MANAGE = 'Please login to manage your wishlist';
/** Product spec: add to cart from the wishlist without an account. */
export const LOGIN_TO_ADD_TO_CART = 'Please login to add items to cart';
export const LOAD_FAILED = 'Failed to load favorites';
export const CLEAR_FAILED = 'Failed to clear favorites';
