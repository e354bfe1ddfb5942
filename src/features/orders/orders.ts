// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// Order history rules shared by the /orders island and the server: the order number, the status mapping, the filters
// and sorting and what a reorder puts in the cart, as the product spec has them.

import type { CartLineInput } from '../cart/cart';
import type { OrderDiscount } from './discount-lines';

export const ORDER_MESSAGES = {
  loadFailed: 'Your orders could not be loaded just now. Please try again.',
  /** The product spec's wording. */
  nothingToReorder: 'No items found in this order to reorder.',
} as const;

/** One line of a past order, as the history shows it. */
export interface OrderItem {
  productId: number;
  name: string;
  image: string;
  priceCents: number;
  quantity: number;
  selectedColor: string | null;
  selectedSize: string | null;
  /** Whether the catalogue still sells this exact product, colour and size, so a reorder can add it. */
  available: boolean;
}

/** A past order as `GET /api/orders` answers it. */
export interface Order {
  id: string;
  /** ISO time. */
  createdAt: string;
  /** The stored status, as stored (see statusOf). */
  status: string | null;
  totalCents: number;
  /** The code and the automatic offer, as recorded (none on orders from before discounts). */
  discount?: OrderDiscount;
  trackingNumber: string | null;
  trackingUrl: string | null;
  /** ISO date. */
  estimatedDelivery: string | null;
  items: OrderItem[];
  /** What the shop has refunded of it (refunds pending or succeeded at the processor); 0 when nothing. */
  refundedCents?: number;
}

/** Where an order ships, as stored orders are read everywhere (street2 is '' when the address has none). */
export interface ShipTo {
  name: string;
  street1: string;
  street2: string;
  city: string;
  state: string;
  zip: string;
}

/** A ship-to address as it is written on a parcel: name, street, apartment or suite (when any), town, country. */
export function shipToLines(a: ShipTo): string[] {
  return [a.name, a.street1, ...(a.street2 ? [a.street2] : []), `${a.city}, ${a.state} ${a.zip}`, 'United States'];
}

/**
 * A stored link as one to follow, or null: only a web page (http or https, in any case) is; anything else stored (a
 * `javascript:` URL, say) is dropped. Tracking and label links are the carrier's, so every page and e-mail checks.
 */
export function webLink(value: string | null): string | null {
  if (!value) return null;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol) ? value : null;
  } catch {
    return null;
  }
}

/** An item's colour and size as one label ('powder-blue, M'), or null when it has neither. */
export function variantLabel(color: string | null | undefined, size: string | null | undefined): string | null {
  return [color, size].filter(Boolean).join(', ') || null;
}

/** How the history names an order: 'ORD-' and the id's last 6 characters, uppercased (product spec). */
export function orderNumber(id: string): string {
  return `ORD-${id.slice(-6).toUpperCase()}`;
}

export type StatusKey = 'processing' | 'shipped' | 'delivered' | 'cancelled';

const STATUS_ALIASES: Record<string, StatusKey> = {
  processing: 'processing',
  pending: 'processing',
  shipped: 'shipped',
  shipping: 'shipped',
  delivered: 'delivered',
  completed: 'delivered',
  cancelled: 'cancelled',
  canceled: 'cancelled',
};

export const STATUS_LABELS: Record<StatusKey, string> = {
  processing: 'Processing',
  shipped: 'Shipped',
  delivered: 'Delivered',
  cancelled: 'Cancelled',
};

/** The stored status read case-insensitively; anything unknown or missing shows as Processing (product spec). */
export function statusOf(stored: string | null | undefined): StatusKey {
  return STATUS_ALIASES[(stored ?? '').trim().toLowerCase()] ?? 'processing';
}

/** The estimated delivery date (ISO) to show as 'Arrives by…': only while the order is on its way, not once it has
 * been delivered or cancelled. */
export function arrivesBy(order: Pick<Order, 'status' | 'estimatedDelivery'>): string | null {
  const status = statusOf(order.status);
  return status === 'processing' || status === 'shipped' ? order.estimatedDelivery : null;
}

export type StatusFilter = 'all' | StatusKey;
export type DateFilter = 'all' | 'last30' | 'last90' | 'thisYear' | 'lastYear';
export type SortOrder = 'newest' | 'oldest' | 'highest' | 'lowest';

export interface HistoryView {
  status: StatusFilter;
  date: DateFilter;
  sort: SortOrder;
}

export const DEFAULT_VIEW: HistoryView = { status: 'all', date: 'all', sort: 'newest' };

export const STATUS_FILTERS: readonly [StatusFilter, string][] = [
  ['all', 'All statuses'],
  ...(Object.entries(STATUS_LABELS) as [StatusKey, string][]),
];
export const DATE_FILTERS: readonly [DateFilter, string][] = [
  ['all', 'Any time'],
  ['last30', 'Last 30 days'],
  ['last90', 'Last 90 days'],
  ['thisYear', 'This year'],
  ['lastYear', 'Last year'],
];
export const SORT_ORDERS: readonly [SortOrder, string][] = [
  ['newest', 'Newest first'],
  ['oldest', 'Oldest first'],
  ['highest', 'Highest value'],
  ['lowest', 'Lowest value'],
];

const DAY_MS = 86_400_000;

/** Whether an order placed at `at` falls in the date filter, seen from `now` (calendar years in the shopper's time zone). */
function inDateRange(at: Date, filter: DateFilter, now: Date): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'last30':
      return now.getTime() - at.getTime() <= 30 * DAY_MS;
    case 'last90':
      return now.getTime() - at.getTime() <= 90 * DAY_MS;
    case 'thisYear':
      return at.getFullYear() === now.getFullYear();
    case 'lastYear':
      return at.getFullYear() === now.getFullYear() - 1;
  }
}

const COMPARE: Record<SortOrder, (a: Order, b: Order) => number> = {
  newest: (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt),
  oldest: (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt),
  highest: (a, b) => b.totalCents - a.totalCents || COMPARE.newest(a, b),
  lowest: (a, b) => a.totalCents - b.totalCents || COMPARE.newest(a, b),
};

/** The orders the history shows for a choice of filters and sorting. */
export function viewOrders(orders: readonly Order[], view: HistoryView, now: Date): Order[] {
  return orders
    .filter((o) => view.status === 'all' || statusOf(o.status) === view.status)
    .filter((o) => inDateRange(new Date(o.createdAt), view.date, now))
    .sort(COMPARE[view.sort]);
}

/** What a reorder adds to the cart: every line the catalogue still sells, with its quantity, colour and size. */
export function reorderLines(order: Order): CartLineInput[] {
  return order.items
    .filter((item) => item.available)
    .map(({ productId, quantity, selectedColor, selectedSize }) => ({ productId, quantity, selectedColor, selectedSize }));
}
