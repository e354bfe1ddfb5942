// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// Favorites rules and messages shared by the islands and the server (no zod here: islands must stay small).
// Only what the cards and product pages show lives here: the bundler ships a module whole to every page that uses any
// of it, and those pages are on a JavaScript budget. The wishlist page's own messages are in wishlist.ts.

/** Product spec: a guest tapping a card's heart. */
export const SIGN_UP_TO_SAVE = 'Please create an account to save favorites';
/** Product spec: a guest pressing Add to Wishlist on a product page. */
export const LOGIN_TO_SAVE = 'Please login to save favorites';
/** Product spec: the database refused a second row for the same product (SQLSTATE 23505). */
export const ALREADY_FAVORITE = 'Item already in favorites';
export const ADD_FAILED = 'Failed to add to favorites';
export const REMOVE_FAILED = 'Failed to remove from favorites';

/**
 * How the wishlist can put a favorite in the cart: straight away (one of it), only after choosing a colour or size
 * on the product page, or not at all: out of stock (for now), or no longer in the catalogue ('unavailable').
 */
export type CartAction = 'add' | 'choose' | 'out-of-stock' | 'unavailable';

/** A saved favorite as the server answers it (name, picture, price and category: see toFavorite in favorites.server.ts). */
export interface Favorite {
  productId: number;
  name: string;
  image: string;
  priceCents: number;
  category: string;
  /** ISO time the shopper saved it. */
  addedAt: string;
  href: string;
  cart: CartAction;
}

/** What the catalogue says about putting a product in the cart from the wishlist. */
export function cartAction(
  item: { inStock: boolean; colors: readonly string[]; sizes: readonly string[] } | undefined,
): CartAction {
  if (!item) return 'unavailable';
  if (!item.inStock) return 'out-of-stock';
  return item.colors.length > 0 || item.sizes.length > 0 ? 'choose' : 'add';
}
