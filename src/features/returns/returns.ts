// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// What a return may be, as the shopper's form, the server and the admin all read it: the 30-day window and the date it
// counts from, the reasons, the steps, and how many units of each line can still be asked back (decision 011). Pure:
// the server enforces every rule here; the order page shows the same answer before anyone asks.

/** Days after delivery (or shipping, for an order never marked delivered) in which items can be returned. */
export const RETURN_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

/** Why a shopper returns something: a fixed list, so the owner can count them. */
export const RETURN_REASONS = {
  damaged: 'Arrived damaged or leaking',
  wrong_item: 'Not what I ordered',
  not_as_described: 'Not as described',
  fit: 'Does not fit',
  skin: 'Did not suit my skin or hair',
  changed_mind: 'Changed my mind',
  other: 'Something else',
} as const;
export type ReturnReason = keyof typeof RETURN_REASONS;
export const REASON_KEYS = Object.keys(RETURN_REASONS) as [ReturnReason, ...ReturnReason[]];

/**
 * Where a return stands: requested → approved → received → refunded (an exchange: → replacement sent), or declined
 * (with the owner's reason).
 */
export type ReturnStatus = 'requested' | 'approved' | 'received' | 'refunded' | 'exchanged' | 'declined';
export const RETURN_STEPS = ['requested', 'approved', 'received', 'refunded'] as const;
export const EXCHANGE_STEPS = ['requested', 'approved', 'received', 'exchanged'] as const;
export const RETURN_STATUS_LABELS: Record<ReturnStatus, string> = {
  requested: 'Requested',
  approved: 'Approved',
  received: 'Received',
  refunded: 'Refunded',
  exchanged: 'Replacement sent',
  declined: 'Declined',
};

/** A return gives the money back; an exchange sends the same product in another colour or size instead. */
export type ReturnKind = 'return' | 'exchange';

/** The steps a return of `kind` goes through (a declined one stops where it was). */
export const stepsOf = (kind: ReturnKind) => (kind === 'exchange' ? EXCHANGE_STEPS : RETURN_STEPS);
export const RETURN_STATUSES = Object.keys(RETURN_STATUS_LABELS) as [ReturnStatus, ...ReturnStatus[]];

/** The return number shopper and owner use: 'RMA-1001'. */
export const returnNumber = (number: number | string) => `RMA-${number}`;

/** The longest comment a shopper may add to a request, and the longest reason an owner gives for declining. */
export const MAX_RETURN_TEXT = 500;

/** What the window of an order is, seen from a moment: open or closed, and from which date it counts. */
export type ReturnWindow =
  | { state: 'open' | 'closed'; from: 'delivery' | 'shipping'; startedAt: string; closesAt: string }
  | { state: 'not_shipped' | 'cancelled' };

/** The order as the window reads it: its status as stored, and when it shipped and was delivered (ISO, or null). */
export interface WindowOrder {
  status: string | null;
  shippedAt: string | null;
  deliveredAt: string | null;
}

/**
 * The order's return window at `now`: 30 days from delivery, or from shipping when it was never marked delivered;
 * none before it ships, nor once it is cancelled. Open up to and including the moment it closes.
 */
export function returnWindow(order: WindowOrder, now: Date): ReturnWindow {
  const status = (order.status ?? '').trim().toLowerCase();
  if (status === 'cancelled' || status === 'canceled') return { state: 'cancelled' };
  const from = order.deliveredAt ? 'delivery' : order.shippedAt ? 'shipping' : null;
  const startedAt = order.deliveredAt ?? order.shippedAt;
  if (!from || !startedAt) return { state: 'not_shipped' };
  const closes = Date.parse(startedAt) + RETURN_WINDOW_DAYS * DAY_MS;
  return {
    state: now.getTime() <= closes ? 'open' : 'closed',
    from,
    startedAt,
    closesAt: new Date(closes).toISOString(),
  };
}

/** Why a return cannot be asked for now, in the shopper's words, or null when it can (the window is open). */
export function windowProblem(window: ReturnWindow, day: (iso: string) => string): string | null {
  switch (window.state) {
    case 'open':
      return null;
    case 'not_shipped':
      return 'Items can be returned once the order has shipped.';
    case 'cancelled':
      return 'This order was cancelled, so there is nothing to return.';
    case 'closed':
      return `The ${RETURN_WINDOW_DAYS}-day return window closed on ${day(window.closesAt)} (${RETURN_WINDOW_DAYS} days from ${window.from === 'delivery' ? 'delivery' : 'shipping'} on ${day(window.startedAt)}).`;
  }
}

/** What the order page says of the window: until when, and from which date it counts. */
export function windowNote(window: ReturnWindow, day: (iso: string) => string): string | null {
  if (window.state !== 'open') return windowProblem(window, day);
  const since =
    window.from === 'delivery'
      ? `delivery on ${day(window.startedAt)}`
      : `shipping on ${day(window.startedAt)}, as the order has not been marked delivered`;
  return `You can return items until ${day(window.closesAt)}: ${RETURN_WINDOW_DAYS} days from ${since}.`;
}

/** A line of the order as a return reads it. */
export interface ReturnableLine {
  itemId: string;
  productId: number;
  name: string;
  variant: string | null;
  /** Units bought. */
  quantity: number;
  /** Units in returns that were not declined (asked for, approved, received or refunded). */
  inReturns: number;
  /** Units refunded by the owner outside any return (a refund of lines on the order's page). */
  refundedApart: number;
  /** Marked final sale: it cannot be returned. */
  finalSale: boolean;
  /** The colour and size bought ('' for none), as the catalogue keys them. */
  color: string;
  size: string;
  /**
   * What it can be exchanged for: the product's colours (value and name) and sizes as the catalogue sells them now;
   * null when it comes in one kind only or is no longer sold (it can then be returned for a refund, not exchanged).
   */
  options: { colors: { value: string; name: string }[]; sizes: string[] } | null;
}

/** Another colour or size of the same product ('' for a product without one). */
export interface Variant {
  color: string;
  size: string;
}

/** Units of a line that can still be asked back: what was bought less what is in returns or refunded apart. */
export function unitsLeft(line: ReturnableLine): number {
  if (line.finalSale) return 0;
  return Math.max(0, line.quantity - line.inReturns - line.refundedApart);
}

/** Units of a line a shopper asks back, and for an exchange what they want instead. */
export interface WantedUnits {
  itemId: string;
  quantity: number;
  exchangeFor?: Variant | undefined;
}

/** Why a line cannot be exchanged for `wanted`, in words, or null when it can. */
export function exchangeProblem(line: ReturnableLine, wanted: Variant): string | null {
  const options = line.options;
  if (!options) return `${line.name} cannot be exchanged (it comes in one kind, or is no longer sold): return it for a refund.`;
  const colorOk = options.colors.length === 0 ? wanted.color === '' : options.colors.some((c) => c.value === wanted.color);
  const sizeOk = options.sizes.length === 0 ? wanted.size === '' : options.sizes.includes(wanted.size);
  if (!colorOk || !sizeOk) return `Choose a colour and size ${line.name} comes in.`;
  if (wanted.color === line.color && wanted.size === line.size)
    return `Choose another colour or size of ${line.name} than yours.`;
  return null;
}

/**
 * Why a request for `wanted` cannot be made, in words naming the line, or null when it can: every line must be one of
 * the order's, named once, not final sale, and ask for 1 to what is left of it.
 */
export function requestProblem(
  lines: readonly ReturnableLine[],
  wanted: readonly WantedUnits[],
  kind: ReturnKind = 'return',
): string | null {
  if (wanted.length === 0)
    return kind === 'exchange' ? 'Choose at least one item to exchange.' : 'Choose at least one item to return.';
  const seen = new Set<string>();
  for (const want of wanted) {
    const line = lines.find((l) => l.itemId === want.itemId);
    if (!line) return 'One of the items is not part of this order.';
    if (seen.has(line.itemId)) return `${line.name} is listed twice.`;
    seen.add(line.itemId);
    if (line.finalSale) return `${line.name} is final sale and cannot be returned.`;
    const left = unitsLeft(line);
    if (!Number.isInteger(want.quantity) || want.quantity < 1 || want.quantity > left)
      return left === 0
        ? `${line.name} is already being returned or was refunded.`
        : `At most ${left} of ${line.name} can be returned.`;
    if (kind === 'exchange') {
      const problem = want.exchangeFor ? exchangeProblem(line, want.exchangeFor) : `Choose what to exchange ${line.name} for.`;
      if (problem) return problem;
    } else if (want.exchangeFor) return 'A return for a refund names no colour or size to exchange for.';
  }
  return null;
}

/** Most returns one order may have: a bound on what a guest's link can create (declined returns free their units). */
export const MAX_RETURNS_PER_ORDER = 20;

/** What a return's refund gives back, in cents: the lines, the shipping in it, the total, and whether it was capped. */
export interface ReturnRefund {
  amountCents: number;
  /** The part of `amountCents` that is shipping (0 unless the owner ticked it). */
  shippingCents: number;
  /** Less than the lines and shipping come to: only that much was left to refund of the order. */
  capped: boolean;
}

/**
 * A return's refund: what was paid for its lines (their price less their share of the discount, with their tax:
 * priceLineRefund, as any refund of lines), plus the order's shipping when the owner ticks it (what earlier returns
 * have not given back of it), never more than is left to refund of the order. Lines first: when capped, the shipping
 * is what gives way.
 */
export function returnRefund({
  linesCents,
  includeShipping,
  shippingLeftCents,
  leftCents,
}: {
  linesCents: number;
  includeShipping: boolean;
  shippingLeftCents: number;
  leftCents: number;
}): ReturnRefund {
  const shipping = includeShipping ? Math.max(0, shippingLeftCents) : 0;
  const wanted = Math.max(0, linesCents) + shipping;
  const amountCents = Math.min(wanted, Math.max(0, leftCents));
  return {
    amountCents,
    shippingCents: Math.min(shipping, Math.max(0, amountCents - Math.max(0, linesCents))),
    capped: amountCents < wanted,
  };
}
