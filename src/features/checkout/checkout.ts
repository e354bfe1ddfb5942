// The checkout's rules as the shopper meets them (spec sections 4, 5, 8, 9): what the address form needs, the messages,
// the order number. No zod: the checkout island imports this. The server applies its own schema to the same fields.

import { isEmail } from '@/lib/email';
import { fallbackShippingCents } from '@/lib/pricing';
import { isUsStateCode } from '@/lib/us-states';
import { zipStateProblem } from '@/lib/zip-codes';

/** The address stage's fields, named as the spec names them. The country is fixed to US. */
export interface AddressFields {
  name: string;
  email: string;
  address: string;
  /** Apartment, suite or unit: the one optional field. */
  address2: string;
  city: string;
  state: string;
  zipCode: string;
}

export const EMPTY_ADDRESS: AddressFields = {
  name: '',
  email: '',
  address: '',
  address2: '',
  city: '',
  state: '',
  zipCode: '',
};

/** The fields Continue needs filled: all but the apartment or suite. */
const REQUIRED: readonly (keyof AddressFields)[] = ['name', 'email', 'address', 'city', 'state', 'zipCode'];

/** What the address stage starts from for a signed-in shopper (GET /api/checkout/prefill). */
export interface CheckoutPrefill {
  /** The account's name, else the name their last order shipped to; '' when neither is known. */
  name: string;
  email: string;
  /** Where their last order shipped, offered with one tap; null when they have no order. */
  lastAddress: Omit<AddressFields, 'email'> | null;
}

/** The address as one line: '1 Main St, Apt 4B, Savannah, GA 31401'. */
export function addressLine(a: Omit<AddressFields, 'email' | 'name'>): string {
  return [a.address, a.address2, a.city, `${a.state} ${a.zipCode}`]
    .map((part) => part.trim())
    .filter(Boolean)
    .join(', ');
}

export const CHECKOUT_MESSAGES = {
  invalidEmail: 'Please enter a valid email address',
  invalidZip: 'Please enter a 5-digit ZIP code (or ZIP+4).',
  invalidState: 'Please choose a state.',
  shippingFailed: (message: string) => `Shipping calculation failed: ${message}`,
  retryShipping: 'Retry shipping calculation',
  noRates: 'No shipping rates available',
  paymentFailed: (message: string) => `Payment failed: ${message}`,
  paymentProcessingFailed: 'Payment processing failed. Please try again.',
  apiError: (status: number) => `API Error: ${status}`,
  /** The payment had to be opened again before the card could be charged (nothing was charged). */
  paymentRenewed: 'Your payment was renewed. Please check the total and press Pay again.',
  orderFailed: 'Order submission failed',
  orderPlaced: (orderId: string) => `Order ${toastOrderId(orderId)} placed! Thank you.`,
  savingOrder: 'Saving your order…',
  paymentPending:
    'Your payment is being processed. Your order is recorded as soon as it completes, and its confirmation e-mail will follow.',
  cancelledWhileSaving: 'Your payment went through, so your order is still being recorded. Its confirmation e-mail will follow.',
} as const;

/** The page reloads this long after a successful order (product spec). */
export const ORDER_RELOAD_MS = 2000;
/** The order's success toast stays this long (product spec). */
export const ORDER_TOAST_MS = 5000;

const ZIP = /^\d{5}(-\d{4})?$/;

/** Continue is enabled only when name, email, address, city, state and zipCode are filled (product spec). */
export function addressComplete(fields: AddressFields): boolean {
  return REQUIRED.every((key) => fields[key].trim() !== '');
}

/** What is wrong with filled-in fields, by field: shown next to the field, not instead of Continue being enabled. */
export function addressErrors(fields: AddressFields): Partial<Record<keyof AddressFields, string>> {
  const errors: Partial<Record<keyof AddressFields, string>> = {};
  if (fields.email.trim() && !isEmail(fields.email.trim())) errors.email = CHECKOUT_MESSAGES.invalidEmail;
  if (fields.zipCode.trim() && !ZIP.test(fields.zipCode.trim())) errors.zipCode = CHECKOUT_MESSAGES.invalidZip;
  if (fields.state && !isUsStateCode(fields.state)) errors.state = CHECKOUT_MESSAGES.invalidState;
  const outside = zipStateProblem(fields.zipCode, fields.state);
  if (outside) errors.zipCode = outside;
  return errors;
}

/**
 * The order's id as the success toast shows it: its first 8 characters (product spec). Everywhere else (history,
 * order page, e-mails, label) the order number is `orderNumber` from features/orders: 'ORD-' and the last 6, uppercased.
 */
export function toastOrderId(orderId: string): string {
  return orderId.slice(0, 8);
}

export { wireLines } from './wire-lines';

/** The address in the shape the server's endpoints take (the spec's toAddress). */
export const wireAddress = (a: AddressFields) => ({
  name: a.name.trim(),
  email: a.email.trim(),
  street1: a.address.trim(),
  ...(a.address2.trim() ? { street2: a.address2.trim() } : {}),
  city: a.city.trim(),
  state: a.state,
  zip: a.zipCode.trim(),
  country: 'US' as const,
});

/** The id of the fallback rate: the server prices it itself (product spec), so it needs no quote. */
export const FALLBACK_RATE_ID = 'fallback-standard';

/** A shipping rate as the checkout shows it. */
export interface CheckoutRate {
  id: string;
  provider: string;
  service: string;
  amountCents: number;
  estimatedDays: number | null;
}

/** 'Standard Shipping' when carrier rates cannot be had: $10 to nearby states, else $15, plus $3 per whole pound. */
export function fallbackRate(state: string, weightLb: number): CheckoutRate {
  return {
    id: FALLBACK_RATE_ID,
    provider: 'Aurelia',
    service: 'Standard Shipping',
    amountCents: fallbackShippingCents(state, weightLb),
    estimatedDays: null,
  };
}
