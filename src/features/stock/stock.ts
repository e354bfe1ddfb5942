// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// Stock as shoppers meet it: how many of an item can still be bought, and what the cart, the product page and the
// checkout say about it. Plain TypeScript shared by the islands and the server; the pages load it only with the cart
// drawer (the product page and the grid read the store, stock.store.ts, and say OUT_OF_STOCK).
import { type CartLine, cartId, onlyLeft } from '../cart/cart';
import { formatPrice } from '../catalogue/catalogue';

/** What GET /api/stock answers. */
export interface StockAnswer {
  /** Every counted item by its cart id ('7', '3-blue-M'): how many can still be bought (on hand less what is held). */
  available: Record<string, number>;
  /** Products none of which can be bought: counted at 0, or every colour × size of them counted at 0. */
  soldOut: number[];
}

/** An item that cannot be had in the quantity wanted. `label` names it as the shop does: 'Clinical Scrubs (Blue, M)'. */
export interface Shortfall {
  label: string;
  wanted: number;
  /** How many can be bought (0: none). */
  available: number;
}

export const STOCK_MESSAGES = {
  /** Beside an item in the cart, and by the product page's quantity. */
  onlyLeft,
  /** The cart was holding more than there is: it now holds what there is. */
  capped: (label: string, n: number) => `Only ${n} of ${label} left: your cart now holds ${n}.`,
  soldOutRemoved: (label: string) => `${label} is out of stock and was taken out of your cart.`,
  /** Why a checkout was refused before any payment. */
  short: ({ label, available }: Pick<Shortfall, 'label' | 'available'>) =>
    available <= 0
      ? `${label} is out of stock. Please remove it from your cart.`
      : `Only ${available} of ${label} left. Please lower the quantity in your cart.`,
  /**
   * Why a checkout was refused when the shopper already holds `held` of the item in another checkout and one shopper
   * may hold `cap` at a time (HOLD_CAP).
   */
  heldElsewhere: ({ label, held, cap }: { label: string; held: number; cap: number }) =>
    held >= cap
      ? `You already have ${held} of ${label} set aside in another checkout, the most we hold for one shopper at a time. ` +
        'Please finish that checkout first, or try again when it lapses, within 15 minutes.'
      : `You already have ${held} of ${label} set aside in another checkout, and we hold up to ${cap} for one shopper at ` +
        `a time. Please lower the quantity in your cart to ${cap - held}, or finish that checkout first.`,
  /**
   * Why a checkout was refused when the other checkouts from the shopper's client address (guests' and accounts')
   * already hold `held` of the item and one address may hold `cap` at a time (HOLD_CAP × ADDRESS_LIMIT_FACTOR).
   */
  heldAtAddress: ({ label, held, cap }: { label: string; held: number; cap: number }) => {
    const already = `${held} of ${label} ${held === 1 ? 'is' : 'are'} already set aside in other checkouts from your network`;
    return held >= cap
      ? `${already}, the most we hold for one network at a time. Please try again when they lapse, within 15 minutes.`
      : `${already}, and we hold up to ${cap} for one network at a time. Please lower the quantity in your cart to ` +
          `${cap - held}, or try again within 15 minutes.`;
  },
  /** A payment that went through after its hold lapsed, for items that were gone by then: refunded, never kept. */
  lateSoldOut: (labels: readonly string[], totalCents: number) =>
    `${labels.join(', ')} sold out while your payment was going through, so we could not place this order. ` +
    `Your payment of ${formatPrice(totalCents)} is being refunded in full; you will get an e-mail when it is on its way.`,
} as const;

/** The message for a checkout that cannot be held: every item short, in cart order. */
export function shortfallMessage(shortfalls: readonly Shortfall[]): string {
  return shortfalls.map(STOCK_MESSAGES.short).join(' ');
}

/** How many of this line's item can be bought, or undefined when the item is not counted (unlimited). */
export function availableFor(stock: StockAnswer, line: Pick<CartLine, 'productId' | 'selectedColor' | 'selectedSize'>) {
  const left = stock.available[cartId(line.productId, line.selectedColor, line.selectedSize)];
  return left === undefined ? undefined : Math.max(0, left);
}

/**
 * The cart kept within what can be bought: a line wanting more than there is holds what there is, a line of an item
 * there is none of leaves the cart; each change comes with what the shopper is told. Unchanged lines stay as they are
 * (the same objects), so a cart within stock comes back equal.
 */
export function withinStock(
  lines: readonly CartLine[],
  stock: StockAnswer,
  labelOf: (line: CartLine) => string,
): { lines: CartLine[]; notices: string[] } {
  const notices: string[] = [];
  const kept: CartLine[] = [];
  for (const line of lines) {
    const left = availableFor(stock, line);
    if (left === undefined || line.quantity <= left) kept.push(line);
    else if (left === 0) notices.push(STOCK_MESSAGES.soldOutRemoved(labelOf(line)));
    else {
      kept.push({ ...line, quantity: left });
      notices.push(STOCK_MESSAGES.capped(labelOf(line), left));
    }
  }
  return { lines: kept, notices };
}
