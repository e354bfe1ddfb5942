// The customers part of the admin: who a customer is, how the list's search and pages are read from its address, and
// where a customer's page is. Pure, shared by the server and the pages (decision 010).

import { MAX_SEARCH } from '../orders/order-admin';

/**
 * A customer: an account (by its id), or, for guest orders whose e-mail no verified account has, that e-mail in lower
 * case. A guest order whose e-mail a verified account has is that account's customer's.
 */
export type CustomerKey = { kind: 'account'; userId: string } | { kind: 'guest'; email: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The longest e-mail address (RFC 5321's path limit, which the checkout and the database hold to). */
export const MAX_EMAIL = 254;

/** An account id as a customer's key, or null when it is not one. */
export function accountKey(id: string | undefined): CustomerKey | null {
  const userId = (id ?? '').toLowerCase();
  return UUID.test(userId) ? { kind: 'account', userId } : null;
}

/**
 * A guest's e-mail (any case) as a customer's key, or null when it cannot be one. Not checked further: the checkout
 * checked it when the order was placed, and the key must find whatever the order recorded.
 */
export function guestKey(email: string | null | undefined): CustomerKey | null {
  const address = (email ?? '').trim().toLowerCase();
  return address.length <= MAX_EMAIL && address.includes('@') ? { kind: 'guest', email: address } : null;
}

/** The address of a customer's admin page. */
export function customerHref(key: CustomerKey): string {
  return key.kind === 'account'
    ? `/admin/customers/${key.userId}`
    : `/admin/customers/guest?${new URLSearchParams({ email: key.email })}`;
}

/** The admin page of an order's customer: its account's, or its e-mail's (which leads to an account that has it). */
export function orderCustomerHref(order: { userId: string | null; customerEmail: string }): string {
  return customerHref(
    order.userId ? { kind: 'account', userId: order.userId } : { kind: 'guest', email: order.customerEmail.toLowerCase() },
  );
}

/** The list's sort and cursor key of a customer: 'a:<account id>' or 'g:<e-mail>'. */
export const listKey = (key: CustomerKey) => (key.kind === 'account' ? `a:${key.userId}` : `g:${key.email}`);

/** A customer's key from its list key, or null when it is malformed. */
export function fromListKey(text: string): CustomerKey | null {
  if (text.startsWith('a:')) return accountKey(text.slice(2));
  if (text.startsWith('g:')) {
    const key = guestKey(text.slice(2));
    // Only the lower-case form: another spelling is no key the list gave out.
    return key?.kind === 'guest' && key.email === text.slice(2) ? key : null;
  }
  return null;
}

export const CUSTOMERS_PAGE_SIZE = 25;

/** The search as typed (trimmed, cut to MAX_SEARCH, as the orders list does: it comes from the address bar). */
export const customerSearch = (params: URLSearchParams) => (params.get('q') ?? '').trim().slice(0, MAX_SEARCH);

/**
 * Where a page of the list ends: its last customer's time (their last order, or their sign-up when they have not
 * ordered; ISO to the microsecond) and list key. The list is ordered by that time, newest first, then by key.
 */
export interface CustomerCursor {
  at: string;
  key: string;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The cursor a page's address carries (`?at=…&key=…`), or undefined for the first page (also when malformed). */
export function customerCursorFrom(params: URLSearchParams): CustomerCursor | undefined {
  const at = params.get('at') ?? '';
  const key = params.get('key') ?? '';
  return ISO.test(at) && !Number.isNaN(Date.parse(at)) && fromListKey(key) ? { at, key } : undefined;
}

/** The address of the page after `cursor`, keeping the search. */
export function customersPageAfter(cursor: CustomerCursor, q: string): string {
  return `/admin/customers?${new URLSearchParams([...(q ? [['q', q]] : []), ['at', cursor.at], ['key', cursor.key]])}`;
}
