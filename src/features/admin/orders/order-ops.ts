// What an admin may still change about an order after the sale (issue 43, part 4): resend its confirmation e-mail, and
// change where it ships until its label is bought. Pure, shared by the server (which enforces it) and the islands.

import { type ShipTo, STATUS_LABELS, type StatusKey } from '@/features/orders/orders';
import { US_STATES } from '@/lib/us-states';

/** The fields of a ship-to address the admin may change, as the form and the endpoint name them. */
export const ADDRESS_FIELDS = ['name', 'street1', 'street2', 'city', 'state', 'zip'] as const;
export type AddressField = (typeof ADDRESS_FIELDS)[number];

/** The error code of a refused address names its field: `invalid_zip`, `invalid_state`… (the form marks that field). */
export const addressErrorCode = (field: AddressField) => `invalid_${field}` as const;

/** The field an error code names, or null when it names none. */
export function fieldOfCode(code: string | undefined): AddressField | null {
  const field = code?.startsWith('invalid_') ? code.slice('invalid_'.length) : '';
  return (ADDRESS_FIELDS as readonly string[]).includes(field) ? (field as AddressField) : null;
}

const stateName = (code: string) => US_STATES.find((s) => s.code === code)?.name ?? code;

/**
 * Why an order's address cannot be changed now, or null when it can: only while the order is processing and has no
 * label (the label is printed with the address it was bought for).
 */
export function addressChangeProblem(order: { number: string; status: StatusKey; hasLabel: boolean }): string | null {
  if (order.status !== 'processing')
    return `${order.number} is ${STATUS_LABELS[order.status].toLowerCase()}: its address can no longer change.`;
  if (order.hasLabel) return `${order.number} has its shipping label, bought for this address: the address can no longer change.`;
  return null;
}

/**
 * Why the new address cannot replace the old one, or null. Shipping was priced for the order's state (the rate table
 * charges by state, a carrier by distance) and paid: the new address stays in that state, so what the customer paid
 * is what it costs to send (decision 012).
 */
export function stateChangeProblem(from: string, to: string): string | null {
  if (from === to) return null;
  return `The new address must be in ${stateName(from)}, as the order’s is: its shipping was priced and paid for ${stateName(from)}. To send it to ${stateName(to)}, cancel and refund this order and place a new one.`;
}

/** Two ship-to addresses are the same place and recipient (case and spacing aside). */
export function sameShipTo(a: ShipTo, b: ShipTo): boolean {
  const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toUpperCase();
  return ADDRESS_FIELDS.every((field) => norm(a[field]) === norm(b[field]));
}

/** A ship-to address on one line, for the activity log: 'Grace Hopper, 12 Bull St, Savannah, GA 31401'. */
export function shipToLine(a: ShipTo): string {
  return [a.name, a.street1, a.street2, a.city, `${a.state} ${a.zip}`].filter((part) => part.trim() !== '').join(', ');
}

/** Whether the confirmation e-mail may be sent again: not for a cancelled order (the shopper was told it is). */
export function resendProblem(order: { number: string; status: StatusKey }): string | null {
  return order.status === 'cancelled'
    ? `${order.number} is cancelled: the customer was e-mailed that, and its confirmation is not sent again.`
    : null;
}

/**
 * The idempotency key of one resend, made by the page when the admin asks for it: the same key (a double click, a
 * retried request, a second server) queues the e-mail once; the next deliberate resend has a new one.
 */
export const RESEND_KEY = /^[A-Za-z0-9_-]{16,64}$/;

/** The de-duplication key of a resent confirmation: once per order and resend key. */
export const resendMailKey = (orderId: string, key: string) => `mail:resend:${orderId}:${key}`;

/** The admin activity log's names for these actions. */
export const ORDER_OPS_ACTION_LABELS = {
  'order.resend-confirmation': 'Order confirmation resent',
  'order.address': 'Shipping address changed',
} as const;

/** What the resend and address endpoints answer. */
export interface OrderOpsAnswer {
  /** False when the request found the work already done (a double click): nothing changed, nothing was recorded. */
  changed: boolean;
  message: string;
}
