import { atom } from 'nanostores';

/** The order this page just placed, as every later place names it, and the paying browser's link to its page. */
export interface PlacedOrder {
  /** 'ORD-' and the id's last 6 characters, uppercased (orderNumber). */
  number: string;
  /** `/order?token=…`, or null when the server gave none. */
  url: string | null;
}

/** What confirms it, in the drawer and on the next page (kept here, small, for the cart drawer's bundle). */
export const PLACED_MESSAGES = {
  confirmation: (number: string) => `Thank you! Your order ${number} is placed.`,
  email: 'A confirmation e-mail is on its way.',
  viewOrder: 'View your order',
} as const;

/** Set once the order is recorded: the cart drawer then shows its confirmation instead of an empty cart. */
export const $placedOrder = atom<PlacedOrder | null>(null);
