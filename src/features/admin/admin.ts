import { ORDER_ACTION_LABELS } from './order-admin';

/** The admin's sections, in the order of its navigation. */
export const ADMIN_SECTIONS = [
  { href: '/admin', label: 'Overview' },
  { href: '/admin/orders', label: 'Orders' },
  { href: '/admin/activity', label: 'Activity' },
] as const;

/** An admin action's name as the activity log shows it ('review.approve' → 'Review approved'). */
export const ACTION_LABELS: Record<string, string> = { ...ORDER_ACTION_LABELS };

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
