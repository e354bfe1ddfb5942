// What an order costs, by the spec's rules, in integer cents. The server computes every amount with these
// functions from the catalogue; the browser uses the same ones only to show the shopper what the server will charge.

/** What a parcel's weight needs of a line; the cart's lines (and later an order's) fit it without this module knowing them. */
export interface WeighedLine {
  productId: number;
  quantity: number;
}

/** Tax: 8.9% of the subtotal after discounts. */
export const TAX_RATE = 0.089;

/** Orders with a subtotal of at least $500 ship free. */
export const FREE_SHIPPING_FROM_CENTS = 50_000;

/** The parcel every order ships in, 10 × 8 × 4 inches. */
export const PARCEL = { length: 10, width: 8, height: 4, distanceUnit: 'in' } as const;

/** A product without a weight counts as 1 lb; a parcel weighs at least 0.5 lb. */
export const DEFAULT_ITEM_WEIGHT_LB = 1;
export const MIN_PARCEL_WEIGHT_LB = 0.5;

/** The heaviest parcel the shop sends or asks rates for (its one box holds far less). */
export const MAX_PARCEL_LB = 150;

/** The most one card payment can take: Stripe charges at most $999,999.99 in US dollars (its `amount` ≤ 99999999). */
export const MAX_CHARGE_CENTS = 99_999_999;

/** The least one card payment can take: Stripe's minimum charge in US dollars, $0.50. */
export const MIN_CHARGE_CENTS = 50;

/**
 * What the highest unit price keeps free for shipping: more than the shop's own rate for its heaviest parcel to any
 * state ($465 for 150 lb). An order at such prices ships free (from $500), so this is margin, never charged.
 */
export const SHIPPING_ALLOWANCE_CENTS = 100_000;

/**
 * The highest unit price, in cents, at which `quantity` of one item is still one card payment: the largest p with
 * quantity × p + tax on it + SHIPPING_ALLOWANCE_CENTS ≤ MAX_CHARGE_CENTS. For the cart's 5 a line: $183,471.07.
 */
export function maxUnitPriceCents(quantity: number): number {
  const charged = (p: number) => quantity * p + taxCents(quantity * p) + SHIPPING_ALLOWANCE_CENTS;
  // The bound without tax's rounding, then stepped to the last cent that still fits.
  let p = Math.floor((MAX_CHARGE_CENTS - SHIPPING_ALLOWANCE_CENTS) / (quantity * (1 + TAX_RATE)));
  while (charged(p + 1) <= MAX_CHARGE_CENTS) p++;
  while (charged(p) > MAX_CHARGE_CENTS) p--;
  return p;
}

/** States shipped at the lower fallback base rate (near the Georgia warehouse). */
export const NEARBY_STATES: readonly string[] = ['GA', 'FL', 'AL', 'SC', 'NC', 'TN'];

/** Tax on a subtotal, rounded to the cent. */
export function taxCents(subtotalCents: number): number {
  return Math.round(subtotalCents * TAX_RATE);
}

/** The parcel's weight in pounds: each item's weight (1 lb when unknown) times its quantity, at least 0.5 lb. */
export function parcelWeightLb(lines: readonly WeighedLine[], weightOf: (productId: number) => number | undefined): number {
  const total = lines.reduce((lb, l) => lb + (weightOf(l.productId) ?? DEFAULT_ITEM_WEIGHT_LB) * l.quantity, 0);
  // Rounded to the ounce's neighbourhood so floating sums (0.1 + 0.2) do not leak into prices.
  return Math.max(MIN_PARCEL_WEIGHT_LB, Math.round(total * 1000) / 1000);
}

/** Shipping shown before the shopper's state is known, by weight: up to 1 lb $10, 3 lb $15, 5 lb $25, 10 lb $35, else $45. */
export function estimatedShippingCents(weightLb: number): number {
  if (weightLb <= 1) return 1000;
  if (weightLb <= 3) return 1500;
  if (weightLb <= 5) return 2500;
  if (weightLb <= 10) return 3500;
  return 4500;
}

/** The rate when no carrier rate is available: $10 to nearby states, else $15, plus $3 per whole pound. */
export function fallbackShippingCents(state: string, weightLb: number): number {
  const base = NEARBY_STATES.includes(state.trim().toUpperCase()) ? 1000 : 1500;
  return base + 300 * Math.floor(weightLb);
}

/**
 * What shipping costs the shopper: nothing when the goods come to $500 or more, else the chosen rate. The goods are
 * what the shopper pays for them, after any discount (decision 009).
 */
export function shippingCents(goodsCents: number, rateCents: number): number {
  return goodsCents >= FREE_SHIPPING_FROM_CENTS ? 0 : rateCents;
}

export interface OrderTotals {
  subtotalCents: number;
  /** What discounts take off the goods (a code and the automatic offer): 0 to the subtotal. */
  discountCents: number;
  shippingCents: number;
  taxCents: number;
  totalCents: number;
}

/** What discounts did to an order, as the totals need it: the goods' discount, and whether shipping is waived. */
export interface TotalsDiscount {
  discountCents: number;
  freeShipping?: boolean;
}

/**
 * Subtotal, discount, shipping, tax and total = subtotal − discount + shipping + tax. Tax is on the discounted
 * subtotal; shipping is free from $500 of discounted subtotal, or with a free-shipping code. A discount is clamped to
 * 0..subtotal, so no total is ever below shipping and tax.
 */
export function orderTotals(subtotalCents: number, rateCents: number, discount?: TotalsDiscount): OrderTotals {
  const discountCents = Math.min(Math.max(0, discount?.discountCents ?? 0), Math.max(0, subtotalCents));
  const goods = subtotalCents - discountCents;
  const shipping = discount?.freeShipping ? 0 : shippingCents(goods, rateCents);
  const tax = taxCents(goods);
  return { subtotalCents, discountCents, shippingCents: shipping, taxCents: tax, totalCents: goods + shipping + tax };
}
