// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { dateFormat } from '@/lib/dates';
import { formatPrice } from '../catalogue/catalogue';
import { STATUS_LABELS, statusOf } from '../orders/orders';
import { DISCOUNT_ACTION_LABELS, DISCOUNT_FIELD_WORDS, DISCOUNT_STATES } from './discounts/discounts-admin';
import { NOTE_ACTION_LABELS } from './notes/notes';
import { ORDER_ACTION_LABELS } from './orders/order-admin';
import { ORDER_OPS_ACTION_LABELS } from './orders/order-ops';
import { RETURN_ACTION_LABELS, RETURN_FIELD_WORDS } from './returns/returns-admin';

/** What an editor is told where they meet a part of the admin that is the owner's (a page or an endpoint). */
export const CATALOGUE_ONLY =
  'You have catalogue access only: this part of the admin is for the shop’s owner. The catalogue editor is at /admin/catalogue.';

/** What the navigation counts beside a section's name (see AdminLayout). */
export type NavCount = 'pendingReviews' | 'unreadMessages' | 'lowStock' | 'waitingReturns';

/** The admin's sections, in the order of its navigation, and what each counts (the work waiting there). */
export const ADMIN_SECTIONS: readonly { href: string; label: string; count?: { of: NavCount; what: string } }[] = [
  { href: '/admin', label: 'Overview' },
  { href: '/admin/sales', label: 'Sales' },
  { href: '/admin/orders', label: 'Orders' },
  { href: '/admin/returns', label: 'Returns', count: { of: 'waitingReturns', what: 'to handle' } },
  { href: '/admin/customers', label: 'Customers' },
  { href: '/admin/stock', label: 'Stock', count: { of: 'lowStock', what: 'low' } },
  { href: '/admin/discounts', label: 'Discounts' },
  { href: '/admin/catalogue', label: 'Catalogue' },
  { href: '/admin/reviews', label: 'Reviews', count: { of: 'pendingReviews', what: 'awaiting approval' } },
  { href: '/admin/messages', label: 'Messages', count: { of: 'unreadMessages', what: 'unread' } },
  { href: '/admin/subscribers', label: 'Subscribers' },
  { href: '/admin/editors', label: 'Editors' },
  { href: '/admin/activity', label: 'Activity' },
];

/**
 * The catalogue editors' actions (src/features/editor/catalogue-log.server.ts). Each is recorded with a sentence, kept
 * as its `after`, which the log shows whole after who did it (`sentenceOf`).
 */
const CATALOGUE_ACTION_LABELS: Record<string, string> = {
  'catalogue.save': 'Product saved',
  'catalogue.undo': 'Save undone',
  'catalogue.create': 'Product created',
  'catalogue.picture': 'Picture uploaded',
  'catalogue.publish': 'Publish requested',
  'catalogue.published': 'Catalogue published',
  'catalogue.published-again': 'Earlier publish served again',
  'catalogue.publish-failed': 'Publish failed',
  'catalogue.publish-scheduled': 'Publish scheduled',
  'catalogue.schedule-cancelled': 'Scheduled publish cancelled',
  'catalogue.repository-changed': 'Changed in the repository',
  'catalogue.repository-kept': 'Saved version kept over the repository’s',
  'catalogue.repository-taken': 'Repository’s version taken',
  'catalogue.repository-settled': 'Repository agrees with the saves again',
};

/** The sentence an action was recorded with ('changed the price of Turmeric Body Oil $35.00 → $29.99'), or null. */
export function sentenceOf(action: { action: string; after: unknown }): string | null {
  return action.action in CATALOGUE_ACTION_LABELS && typeof action.after === 'string' ? action.after : null;
}

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
  'catalogue.preview_link': 'Preview link made',
  ...CATALOGUE_ACTION_LABELS,
  ...ORDER_ACTION_LABELS,
  ...ORDER_OPS_ACTION_LABELS,
  ...DISCOUNT_ACTION_LABELS,
  ...NOTE_ACTION_LABELS,
  ...RETURN_ACTION_LABELS,
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
  note: (v) => `“${String(v)}”`,
  address: (v) => String(v),
  ...DISCOUNT_FIELD_WORDS,
  ...RETURN_FIELD_WORDS,
};

const STATES: Record<string, string> = {
  approved: 'Approved',
  rejected: 'Rejected',
  pending: 'Pending',
  read: 'Read',
  unread: 'Unread',
  ...DISCOUNT_STATES,
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
