// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { dateFormat } from '@/lib/dates';
import { formatPrice } from '../catalog/catalog';
import { STATUS_LABELS, statusOf } from '../orders/orders';
import { ORDER_ACTION_LABELS } from './orders/order-admin';

/** What the navigation counts beside a section's name (see AdminLayout). */
export type NavCount = 'pendingReviews' | 'unreadMessages' | 'lowStock';

/** The admin's sections, in the order of its navigation, and what each counts (the work waiting there). */
export const ADMIN_SECTIONS: readonly { href: string; label: string; count?: { of: NavCount; what: string } }[] = [
  { href: '/admin', label: 'Overview' },
  { href: '/admin/sales', label: 'Sales' },
  { href: '/admin/orders', label: 'Orders' },
  { href: '/admin/stock', label: 'Stock', count: { of: 'lowStock', what: 'low' } },
  { href: '/admin/catalogue', label: 'Catalogue' },
  { href: '/admin/reviews', label: 'Reviews', count: { of: 'pendingReviews', what: 'awaiting approval' } },
  { href: '/admin/messages', label: 'Messages', count: { of: 'unreadMessages', what: 'unread' } },
  { href: '/admin/subscribers', label: 'Subscribers' },
  { href: '/admin/editors', label: 'Editors' },
  { href: '/admin/activity', label: 'Activity' },
];

/** An admin action's name as the activity log shows it ('review.approve' → 'Review approved'). */
export const ACTION_LABELS: Record<string, string> = {
  'review.approve': 'Review approved',
  'review.reject': 'Review rejected',
  'message.read': 'Message marked read',
  'message.unread': 'Message marked unread',
  'subscribers.export': 'Subscribers exported',
  'orders.export': 'Orders exported',
  'stock.set': 'Stock count set',
  'stock.threshold': 'Low-stock threshold set',
  'stock.restock': 'Items put back in stock',
  'editor.grant': 'Editor role granted',
  'editor.remove': 'Editor role removed',
  ...ORDER_ACTION_LABELS,
};

export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action;
}

const plural = (n: unknown, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** How the activity log says each field an action records, in words and dollars rather than JSON and cents. */
const FIELD_WORDS: Record<string, (value: unknown) => string> = {
  refundedCents: (v) => (typeof v === 'number' ? `${formatPrice(v)} refunded` : `refunded ${String(v)}`),
  status: (v) => STATUS_LABELS[statusOf(String(v))],
  refundStatus: (v) => `refund ${String(v)}`,
  refundId: (v) => `refund ${String(v)}`,
  rows: (v) => plural(v, 'row', 'rows'),
  // An export's range of days: none on a side means from the first order, or up to today.
  from: (v) => (v ? `from ${String(v)}` : 'from the first order'),
  to: (v) => (v ? `to ${String(v)}` : 'to today'),
  attempts: (v) => plural(v, 'attempt', 'attempts'),
  lastError: (v) => `last error: ${String(v)}`,
  job: (v) => String(v),
  onHand: (v) => (v === null ? 'unlimited' : `${String(v)} on hand`),
  lowStockThreshold: (v) => `low at ${String(v)} or fewer`,
  restocked: (v) => `put back: ${String(v)}`,
};

const STATES: Record<string, string> = {
  approved: 'Approved',
  rejected: 'Rejected',
  pending: 'Pending',
  read: 'Read',
  unread: 'Unread',
  ...STATUS_LABELS,
};

/**
 * A before/after value for the activity log, in words, short, on one line: `{ refundedCents: 4267, refundStatus:
 * 'succeeded' }` is '$42.67 refunded, refund succeeded'; a state such as 'approved' is 'Approved'.
 */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  let text: string;
  if (typeof value === 'string') text = STATES[value] ?? value;
  else if (typeof value === 'object' && !Array.isArray(value))
    text = Object.entries(value)
      .map(([key, v]) => FIELD_WORDS[key]?.(v) ?? `${key}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ');
  else text = JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

/**
 * A time as the admin shows it, in the shop's time zone and naming it (the same on the server and in the browser,
 * so an island hydrates without a mismatch): 'Nov 25, 2026, 4:30 AM EST'.
 */
export function adminTime(iso: string, timeZone: string): string {
  return dateFormat(timeZone, true).format(new Date(iso));
}

/** A day as the admin shows it, in the shop's time zone: 'Nov 25, 2026'. */
export function adminDay(iso: string, timeZone: string): string {
  return dateFormat(timeZone).format(new Date(iso));
}
