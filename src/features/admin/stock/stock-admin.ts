// The stock part of the admin, shared by the server (which enforces it) and the stock page's island: what a row of
// the page is, what saving answers, and how counts are written and read back.

/** The most a count may be: far more than the shop will ever have, small enough that no sum can overflow. */
export const MAX_COUNT = 1_000_000;

/** One way of buying a product (the product itself, or one colour × size of it) as the stock page lists it. */
export interface StockRow {
  /** The cart id of the item ('7', '3-blue-M'): the row's key on the page. */
  id: string;
  productId: number;
  selectedColor: string | null;
  selectedSize: string | null;
  /** 'Kojic Acid Soap', 'Clinical Scrubs (Blue, M)'. */
  label: string;
  /** The product's name, heading its group of rows. */
  product: string;
  /** null: not counted (unlimited). */
  onHand: number | null;
  /** Held by checkouts whose payment is open (the hold has not lapsed). */
  held: number;
  /** What shoppers can still buy (on hand less held, never below 0); null when not counted. */
  available: number | null;
}

/** What POST /api/admin/stock answers: every row as it is now, the threshold, and what the save did. */
export interface StockPageAnswer {
  rows: StockRow[];
  lowStockThreshold: number;
  /** How many counts (and the threshold) changed: 0 when everything already was as asked. */
  changed: number;
  message: string;
}

/**
 * A count as typed: '' is unlimited (null), a whole number from 0 to MAX_COUNT is itself; anything else is not a count
 * (undefined), and the page says so next to the field.
 */
export function parseCount(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  if (!/^\d{1,7}$/.test(t)) return undefined;
  const n = Number(t);
  return n <= MAX_COUNT ? n : undefined;
}

/** A count as the page's field shows it: blank when unlimited. */
export const countText = (count: number | null) => (count === null ? '' : String(count));

export const STOCK_ADMIN_MESSAGES = {
  notACount: `Enter a whole number from 0 to ${MAX_COUNT.toLocaleString('en-US')}, or leave it blank for unlimited.`,
  nothingChanged: 'Nothing to save: every count is as it was.',
} as const;
