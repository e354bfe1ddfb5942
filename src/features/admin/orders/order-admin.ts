// The orders part of the admin: which status changes are allowed, how the list's search and filters are read from
// its address, and the words the admin sees. Pure, shared by the server (which enforces them) and the islands.

import { STATUS_LABELS, type StatusKey, statusOf } from '@/features/orders/orders';
import { isFilterDay } from '../sales/sales';

/**
 * Where an order may go from each status: processing → shipped → delivered, or processing → cancelled (with a
 * refund). Delivered and cancelled are final; nothing goes back.
 */
export const NEXT_STATUSES: Readonly<Record<StatusKey, readonly StatusKey[]>> = {
  processing: ['shipped', 'cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
};

/** The statuses an admin sets with a status change; cancelling goes through 'Cancel and refund'. */
export const SETTABLE_STATUSES = ['shipped', 'delivered'] as const;
export type SettableStatus = (typeof SETTABLE_STATUSES)[number];

const label = (status: StatusKey) => STATUS_LABELS[status];

/** Why an order that is `from` cannot become `to`, or null when it can. */
export function transitionProblem(from: StatusKey, to: StatusKey): string | null {
  if (NEXT_STATUSES[from].includes(to)) return null;
  if (from === to) return `The order is already ${label(to)}.`;
  if (NEXT_STATUSES[from].length === 0) return `A ${label(from).toLowerCase()} order is final: its status cannot change.`;
  if (to === 'processing') return `A ${label(from).toLowerCase()} order cannot go back to Processing.`;
  if (to === 'cancelled') return 'Only an order that has not shipped can be cancelled.';
  return `A ${label(from).toLowerCase()} order can become ${NEXT_STATUSES[from].map(label).join(' or ')}, not ${label(to)}.`;
}

/** The button that moves an order on, for each status that has one. */
export const NEXT_ACTION: Partial<Record<StatusKey, { to: SettableStatus; label: string }>> = {
  processing: { to: 'shipped', label: 'Mark shipped' },
  shipped: { to: 'delivered', label: 'Mark delivered' },
};

/**
 * Whether the admin may put an order's items back in stock on their own: once it is cancelled or something was
 * refunded (the items came back). A live order's items are in its box: putting them back would sell them twice.
 */
export const restockOffered = (status: StatusKey, refundedCents: number) => status === 'cancelled' || refundedCents > 0;

/** Every stored spelling of a status (the spec's mapping, read backwards), for filtering the list in SQL. */
export function storedSpellings(status: StatusKey): string[] {
  return ['processing', 'pending', 'shipped', 'shipping', 'delivered', 'completed', 'cancelled', 'canceled'].filter(
    (stored) => statusOf(stored) === status,
  );
}

export const PAGE_SIZE = 25;
/** The longest search the list takes (longer text is cut, not refused: it comes from the address bar). */
export const MAX_SEARCH = 200;

/** What the list is asked for, read from its address; anything malformed is left out rather than refused. */
export interface OrderListQuery {
  /** The search as typed (trimmed), or ''. */
  q: string;
  status: StatusKey | null;
  /** YYYY-MM-DD, inclusive, in the shop's time zone; a day outside 1970 to 2200 (isFilterDay) is left out. */
  from: string | null;
  to: string | null;
}

export function orderListQuery(params: URLSearchParams): OrderListQuery {
  const status = params.get('status');
  const from = params.get('from');
  const to = params.get('to');
  return {
    q: (params.get('q') ?? '').trim().slice(0, MAX_SEARCH),
    status: status && status in STATUS_LABELS ? (status as StatusKey) : null,
    from: isFilterDay(from) ? from : null,
    to: isFilterDay(to) ? to : null,
  };
}

/** The query as address parameters (empty ones left out), for the pager's links. */
export function queryParams(query: OrderListQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  if (query.status) params.set('status', query.status);
  if (query.from) params.set('from', query.from);
  if (query.to) params.set('to', query.to);
  return params;
}

/**
 * How the search box is read: an order number as shoppers see it ('ORD-3D4E5F', any case, the dash optional, or its
 * first characters), a whole order id, or text to look for in the customer's e-mail and name.
 */
export type OrderSearch =
  | { kind: 'none' }
  | { kind: 'number'; prefix: string }
  | { kind: 'id'; id: string }
  | { kind: 'text'; pattern: string; number: string | null };

const ORDER_NUMBER = /^ord-?([0-9a-f]{1,6})$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A LIKE pattern that finds `text` anywhere, with LIKE's wildcards (and its escape character) taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function orderSearch(q: string): OrderSearch {
  const text = q.trim();
  if (!text) return { kind: 'none' };
  const number = ORDER_NUMBER.exec(text);
  if (number?.[1]) return { kind: 'number', prefix: number[1].toLowerCase() };
  if (UUID.test(text)) return { kind: 'id', id: text.toLowerCase() };
  // Six hex characters may be an order number typed without 'ORD-' (or part of a name: both are looked for).
  return { kind: 'text', pattern: containsPattern(text), number: /^[0-9a-f]{6}$/i.test(text) ? text.toLowerCase() : null };
}

/**
 * The idempotency key of a refund: the order, what had been refunded when the admin asked, how much was asked for
 * ('rest' for all that is left), and how many of the order's refunds had failed. A double click, or a retry after an
 * answer was lost, sends the same key and gets the same refund back from the processor; a refund asked for after
 * another was recorded gets a new one, and so does one asked for after a refund failed (the processor would otherwise
 * answer the failed one again, for as long as it remembers the key).
 */
export function refundKey(
  orderId: string,
  {
    refundedCents,
    amountCents,
    failedRefunds = 0,
  }: { refundedCents: number; amountCents?: number | undefined; failedRefunds?: number },
): string {
  const key = `refund:${orderId}:${refundedCents}:${amountCents ?? 'rest'}`;
  return failedRefunds > 0 ? `${key}:after-failed-${failedRefunds}` : key;
}

/**
 * A refund amount typed in dollars ('12', '12.5', '12.50', '$1,012.50') as cents, or null when it is not an amount of
 * at least one cent.
 */
export function dollarsToCents(text: string): number | null {
  const plain = text.trim().replace(/^\$/, '').replace(/,/g, '');
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(plain)) return null;
  const [whole = '0', fraction = ''] = plain.split('.');
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return cents > 0 ? cents : null;
}

/** Where an outbox job of an order stands, as the order page shows it. */
export type JobState = 'done' | 'running' | 'waiting' | 'retrying' | 'failed';

export const JOB_STATE_LABELS: Record<JobState, string> = {
  done: 'Done',
  running: 'Running',
  waiting: 'Waiting',
  retrying: 'Failed, will retry',
  failed: 'Failed, gave up',
};

/** A job the admin may send back to the worker: one that failed (retrying later, or given up), and is not running. */
export const retryable = (state: JobState) => state === 'retrying' || state === 'failed';

/** An order's outbox job as the order page lists it. */
export interface OrderJob {
  id: string;
  /** What it does, in words ('Shipping label', 'Confirmation e-mail', …). */
  label: string;
  state: JobState;
  attempts: number;
  lastError: string | null;
  /** ISO time of the next try (for a job still waiting or retrying), else null. */
  nextAttemptAt: string | null;
  /** ISO time it finished, else null. */
  doneAt: string | null;
}

/** The order's jobs by de-duplication key prefix, in the order the page lists them. */
export const ORDER_JOBS = [
  { prefix: 'label', label: 'Shipping label' },
  { prefix: 'mail:customer', label: 'Confirmation e-mail to the customer' },
  { prefix: 'mail:shop', label: 'Order notice to the shop' },
  { prefix: 'mail:shipped', label: 'Shipped e-mail to the customer' },
  { prefix: 'mail:cancelled', label: 'Cancellation e-mail to the customer' },
  { prefix: 'sold-out', label: 'Refund of a payment that came after its items sold out' },
  { prefix: 'mail:sold-out', label: 'Sold-out e-mail to the customer' },
  { prefix: 'mail:sold-out-shop', label: 'Sold-out notice to the shop' },
] as const;

export const jobKeys = (orderId: string) => ORDER_JOBS.map((j) => `${j.prefix}:${orderId}`);

/** The de-duplication key of an order's shipped e-mail: it is queued once, however often the order is marked shipped. */
export const shippedMailKey = (orderId: string) => `mail:shipped:${orderId}`;

/** The de-duplication key of an order's cancellation e-mail: once per order. */
export const cancelledMailKey = (orderId: string) => `mail:cancelled:${orderId}`;

/** The de-duplication key of a refund's e-mail: once per refund. */
export const refundMailKey = (orderId: string, refundId: string) => `mail:refund:${orderId}:${refundId}`;

/** The admin activity log's names for the order actions. */
export const ORDER_ACTION_LABELS = {
  'order.status': 'Order status changed',
  'order.refund': 'Order refunded',
  'order.cancel': 'Order cancelled and refunded',
  'order.job-retry': 'Order job retried',
} as const;

/** What the order actions answer (the islands read it). */
export interface OrderActionAnswer {
  /** False when the request found the work already done (a double click): nothing changed, nothing was recorded. */
  changed: boolean;
  status: StatusKey;
  refundedCents: number;
  message: string;
}
