import { ORDER_ACTION_LABELS } from './order-admin';

/** What the navigation counts beside a section's name (see AdminLayout). */
export type NavCount = 'pendingReviews' | 'unreadMessages';

/** The admin's sections, in the order of its navigation, and what each counts (the work waiting there). */
export const ADMIN_SECTIONS: readonly { href: string; label: string; count?: { of: NavCount; what: string } }[] = [
  { href: '/admin', label: 'Overview' },
  { href: '/admin/orders', label: 'Orders' },
  { href: '/admin/reviews', label: 'Reviews', count: { of: 'pendingReviews', what: 'awaiting approval' } },
  { href: '/admin/messages', label: 'Messages', count: { of: 'unreadMessages', what: 'unread' } },
  { href: '/admin/subscribers', label: 'Subscribers' },
  { href: '/admin/activity', label: 'Activity' },
];

/** An admin action's name as the activity log shows it ('review.approve' → 'Review approved'). */
export const ACTION_LABELS: Record<string, string> = {
  'review.approve': 'Review approved',
  'review.reject': 'Review rejected',
  'message.read': 'Message marked read',
  'message.unread': 'Message marked unread',
  'subscribers.export': 'Subscribers exported',
  ...ORDER_ACTION_LABELS,
};

export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action;
}

/** A before/after value for the activity log: short, on one line. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

const TIME = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/**
 * A time as the admin shows it, in UTC (the same on the server and in the browser, so an island hydrates without a
 * mismatch): 'Nov 25, 2026, 9:30 AM UTC'.
 */
export function adminTime(iso: string): string {
  return `${TIME.format(new Date(iso))} UTC`;
}
