// The owner's side of discount codes and the automatic offer (decision 009), shared by the server (which enforces it)
// and the discounts pages' islands: what a code looks like on the page, how its value and state are said in words,
// how a start or an end typed in the shop's time zone becomes an instant and back, and how the activity log names
// each change. Pure: no database, no zod.
import { formatPrice } from '@/features/catalogue/catalogue';
import type { DiscountKind, DiscountStatus } from '@/features/discounts/discounts';
import { isFilterDay, zonedInstant, zonedIso } from '../sales/sales';

/** A code as the admin lists and edits it. Times are ISO instants; `version` is what an edit compares with. */
export interface AdminCode {
  id: string;
  code: string;
  kind: DiscountKind;
  percent: number | null;
  amountCents: number | null;
  minSubtotalCents: number | null;
  startsAt: string | null;
  endsAt: string | null;
  usageLimit: number | null;
  perCustomerLimit: number | null;
  productIds: number[];
  categories: string[];
  status: DiscountStatus;
  createdAt: string;
  /** The row's last change, to the microsecond: an edit made from an older page is refused, not silently applied. */
  version: string;
  /** Uses held by checkouts whose payment is open (the hold has not lapsed), and uses by recorded orders. */
  held: number;
  used: number;
}

/** An order placed with a code, as the code's page lists it. */
export interface CodeOrder {
  id: string;
  number: string;
  createdAt: string;
  customerName: string;
  status: string;
  totalCents: number;
  refundedCents: number;
  /** What the code took off this order: its part of the goods' discount and the shipping it waived. */
  discountCents: number;
}

/** A code's page: the code, and what it has done (orders not cancelled count in the figures). */
export interface CodeReport {
  code: AdminCode;
  orders: CodeOrder[];
  /** Orders placed with the code beyond those listed (the page lists the latest). */
  moreOrders: number;
  /** Orders not cancelled: how many, what customers paid (less refunds), and what the code took off. */
  orderCount: number;
  revenueCents: number;
  discountGivenCents: number;
}

/** The automatic offer as the admin edits it. */
export interface AdminOffer {
  thresholdCents: number;
  percent: number;
  active: boolean;
  combines: boolean;
  version: string;
}

/** What the discounts endpoints answer after a change: whether anything changed, and what to tell the owner. */
export interface DiscountChangeAnswer {
  changed: boolean;
  message: string;
  code?: AdminCode;
  offer?: AdminOffer;
}

/** The largest amount a code may take off, or a minimum: a card payment's largest charge, as the table allows. */
export const MAX_AMOUNT_CENTS = 99_999_999;
export const MAX_USAGE_LIMIT = 1_000_000;
export const MAX_PER_CUSTOMER_LIMIT = 1000;

/** What a code takes off, in words: '20% off', '$5.00 off', 'Free shipping'. */
export function codeValue(c: Pick<AdminCode, 'kind' | 'percent' | 'amountCents'>): string {
  if (c.kind === 'percent') return `${c.percent ?? 0}% off`;
  if (c.kind === 'amount') return `${formatPrice(c.amountCents ?? 0)} off`;
  return 'Free shipping';
}

/** What a code applies to, in words: 'everything', or the products and categories it lists. */
export function codeScope(
  c: Pick<AdminCode, 'productIds' | 'categories'>,
  productName: (id: number) => string | undefined,
): string {
  if (c.productIds.length === 0 && c.categories.length === 0) return 'everything';
  const names = c.productIds.map((id) => productName(id) ?? `product ${id}`);
  return [...names, ...c.categories.map((cat) => `the ${cat} category`)].join(', ');
}

/** Where a code stands now, in one word: its status, or what its dates and limit make of an active one. */
export type CodeState = 'Active' | 'Paused' | 'Ended' | 'Scheduled' | 'Expired' | 'Used up';

export function codeState(
  c: Pick<AdminCode, 'status' | 'startsAt' | 'endsAt' | 'usageLimit' | 'held' | 'used'>,
  now: Date,
): CodeState {
  if (c.status === 'ended') return 'Ended';
  if (c.endsAt && now.getTime() >= Date.parse(c.endsAt)) return 'Expired';
  if (c.status === 'paused') return 'Paused';
  if (c.startsAt && now.getTime() < Date.parse(c.startsAt)) return 'Scheduled';
  if (c.usageLimit !== null && c.held + c.used >= c.usageLimit) return 'Used up';
  return 'Active';
}

/** 'YYYY-MM-DDTHH:MM', as a datetime-local field writes it: a moment on the shop's clock. */
export const WALL_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})$/;

/**
 * The instant the shop's clock (`timeZone`) reads `wall` ('2026-12-24T09:00'), or null when it is no such time (hour 25,
 * 30 February, a year the admin's filters do not take). A time the clocks skip in spring falls just after the change.
 */
export function wallToInstant(wall: string, timeZone: string): Date | null {
  const m = WALL_TIME.exec(wall);
  if (!m) return null;
  const [, day = '', hours = '', minutes = ''] = m;
  const h = Number(hours);
  const min = Number(minutes);
  if (!isFilterDay(day) || h > 23 || min > 59) return null;
  return zonedInstant(day, (h * 60 + min) * 60_000, timeZone);
}

/** An instant as the shop's clock reads it, for a datetime-local field: '2026-12-24T09:00'. */
export function instantToWall(iso: string, timeZone: string): string {
  return zonedIso(new Date(iso), timeZone).slice(0, 16);
}

/** The statuses a code can be moved to, and the words of each move. */
export const STATUS_MOVES = {
  paused: { action: 'discount.pause', verb: 'Pause', done: 'paused' },
  active: { action: 'discount.resume', verb: 'Resume', done: 'resumed' },
  ended: { action: 'discount.end', verb: 'End', done: 'ended' },
} as const satisfies Record<DiscountStatus, { action: string; verb: string; done: string }>;

/** How the activity log names the discounts' actions. */
export const DISCOUNT_ACTION_LABELS = {
  'discount.create': 'Discount code created',
  'discount.edit': 'Discount code changed',
  'discount.pause': 'Discount code paused',
  'discount.resume': 'Discount code resumed',
  'discount.end': 'Discount code ended',
  'offer.edit': 'Automatic offer changed',
} as const;

/** A code's and the offer's statuses as the activity log says them. */
export const DISCOUNT_STATES: Record<string, string> = { active: 'Active', paused: 'Paused', ended: 'Ended' };

const cents = (v: unknown) => (typeof v === 'number' ? formatPrice(v) : String(v));
const moment = (v: unknown) => (typeof v === 'string' ? v.slice(0, 16).replace('T', ' ') + v.slice(19) : String(v));
const list = (v: unknown) => (Array.isArray(v) && v.length > 0 ? v.join(', ') : 'none');

/** How the activity log says each field a discount change records, in words and dollars rather than JSON and cents. */
export const DISCOUNT_FIELD_WORDS: Record<string, (value: unknown) => string> = {
  kind: (v) => (v === 'percent' ? 'percent off' : v === 'amount' ? 'amount off' : 'free shipping'),
  percent: (v) => (v === null ? 'no percent' : `${String(v)}% off`),
  amountCents: (v) => (v === null ? 'no amount' : `${cents(v)} off`),
  minSubtotalCents: (v) => (v === null ? 'no minimum' : `minimum ${cents(v)}`),
  // Recorded on the shop's clock with its offset ('2026-12-24T09:00:00-05:00'): said '2026-12-24 09:00-05:00'.
  startsAt: (v) => (v === null ? 'no start' : `starts ${moment(v)}`),
  endsAt: (v) => (v === null ? 'no end' : `ends ${moment(v)}`),
  usageLimit: (v) => (v === null ? 'no limit of uses' : `${String(v)} uses in all`),
  perCustomerLimit: (v) => (v === null ? 'no limit per customer' : `${String(v)} per customer`),
  products: (v) => `products: ${list(v)}`,
  categories: (v) => `categories: ${list(v)}`,
  thresholdCents: (v) => `from ${cents(v)}`,
  active: (v) => (v ? 'on' : 'off'),
  combines: (v) => (v ? 'adds to a code' : 'the better of it and a code'),
};
