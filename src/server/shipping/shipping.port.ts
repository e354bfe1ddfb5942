import { z } from 'astro/zod';
import { CONTACT } from '@/lib/contact';
import { isEmail } from '@/lib/email';
import { PARCEL } from '@/lib/pricing';
import { isUsStateCode } from '@/lib/us-states';
import { zipStateProblem } from '@/lib/zip-codes';

// The shipping port in the app's own terms. Field names follow the spec's wire shape for /api/shippo-rates
// (name, street1, street2, city, state, zip, country), so an endpoint can validate the browser's body with `addressSchema`
// and pass it through; units are fixed (inches, pounds, integer cents) so no adapter has to guess.

const text = (field: string, max: number) =>
  z
    .string({ error: `${field} is required` })
    .trim()
    .min(1, { error: `${field} is required` })
    .max(max, { error: `${field} is too long` });

/** The fields of a US postal address. */
const addressFields = z.object({
  name: text('Name', 100),
  street1: text('Street address', 200),
  /** The apartment, suite or unit, when there is one: blank is the same as none. */
  street2: z
    .string()
    .trim()
    .max(100, { error: 'Apartment or suite is too long' })
    .transform((line) => line || undefined)
    .optional(),
  city: text('City', 100),
  state: z
    .string({ error: 'State is required' })
    .trim()
    .toUpperCase()
    // Not a type guard: addresses also come back from stored orders as plain strings, and adapters check again.
    .refine((state): boolean => isUsStateCode(state), { error: 'State must be one of the 50 US states' }),
  zip: z
    .string({ error: 'ZIP code is required' })
    .trim()
    .regex(/^\d{5}(-\d{4})?$/, { error: 'ZIP code must be 5 digits (or ZIP+4)' }),
  country: z.literal('US', { error: 'We ship within the US only' }),
  email: z.string().trim().refine(isEmail, { error: 'Enter a valid e-mail address' }).optional(),
  phone: z.string().trim().max(30).optional(),
});

/** Shipping is priced by the state, and the label goes to the ZIP code: an address whose two disagree is refused. */
function zipInState<S extends z.ZodType<{ zip: string; state: string }>>(schema: S) {
  return schema.superRefine((address, ctx) => {
    // Only reached with both fields well-formed strings; checked again since a refinement's input is not narrowed.
    if (typeof address.zip !== 'string' || typeof address.state !== 'string') return;
    const message = zipStateProblem(address.zip, address.state);
    if (message) ctx.addIssue({ code: 'custom', path: ['zip'], message });
  });
}

/** A US postal address. Ship-to addresses come from the shopper; the ship-from address is `WAREHOUSE`. */
export const addressSchema = zipInState(addressFields);

/** A ship-to address with the e-mail the order's mail goes to, which checkout requires. */
export const addressWithEmailSchema = zipInState(addressFields.extend({ email: addressFields.shape.email.unwrap() }));

export type Address = z.infer<typeof addressSchema>;

/** A parcel: dimensions in inches, weight in pounds. The shop ships one `PARCEL` sized box per order. */
export interface Parcel {
  length: number;
  width: number;
  height: number;
  weightLb: number;
}

/** The shop's one box (10 × 8 × 4 in, as the product spec fixes) at a weight from `parcelWeightLb` over the catalogue lines. */
export function shopParcel(weightLb: number): Parcel {
  return { length: PARCEL.length, width: PARCEL.width, height: PARCEL.height, weightLb };
}

/** One way to ship a parcel, as the shopper chooses it. */
export interface ShippingRate {
  /** Opaque id the server remembers with its amount; the payment step looks the amount up by it. */
  id: string;
  /** The carrier, e.g. 'USPS', or 'Aurelia' for the shop's own rate table. */
  provider: string;
  /** The service level as shown to the shopper, e.g. 'Priority Mail' or 'Standard Shipping'. */
  service: string;
  amountCents: number;
  currency: 'USD';
  /** Business days the carrier estimates; null when it gives none. */
  estimatedDays: number | null;
}

export interface RatesRequest {
  from: Address;
  to: Address;
  parcel: Parcel;
}

export interface LabelRequest extends RatesRequest {
  /**
   * The rate the shopper paid for, as `rates()` returned it. Carrier rate ids expire (Shippo's after some days), so
   * from, to and parcel must be the ones it was quoted for: an adapter may re-rate them and buy the same provider
   * and service instead.
   */
  rate: Pick<ShippingRate, 'id' | 'provider' | 'service' | 'amountCents'>;
  /** The shop's order number, printed on the label and sent to the carrier as a reference. */
  orderNumber: string;
  /**
   * Set when `to` is not the address `rate` was quoted for (the shop changed it after the checkout): a key of the new
   * address. The adapter must quote `to` afresh and buy the same provider and service, never `rate` itself, and tell
   * this label apart from one bought for an earlier address.
   */
  addressKey?: string;
}

/** A return label: the parcel comes back from where the order went, to the shop. */
export interface ReturnLabelRequest {
  /** Where the order was shipped: the parcel comes back from there. */
  customer: Address;
  /** Where it comes back to (WAREHOUSE). */
  shop: Address;
  parcel: Parcel;
  /** The return number, printed on the label and sent to the carrier as its reference ('RMA-1001'). */
  returnNumber: string;
  /**
   * The return's own id: what its purchase is found again by. A number is given out again by another database on the
   * same carrier account (a restored backup, a staging shop), and that label bears another customer's address.
   */
  returnId: string;
  /** The carrier and service the order went out with: a carrier's return label comes from the same carrier. */
  outbound: Pick<ShippingRate, 'provider' | 'service'>;
}

/**
 * Where the label is. A carrier hosts its own labels (a URL); the embedded rate table has no host, so it hands back
 * the PDF and the caller stores and serves it (and fills the order's label_url itself).
 */
export type LabelFile = { kind: 'url'; url: string } | { kind: 'pdf'; bytes: Uint8Array };

/** A bought shipping label. */
export interface Label {
  trackingNumber: string;
  /** The carrier's tracking page; null when there is none (test labels track nothing). */
  trackingUrl: string | null;
  file: LabelFile;
  /** The rate actually bought: the chosen one, or a fresh quote for the same service when the chosen one had expired. */
  rateId: string;
  /** What the label cost the shop (may differ from what the shopper paid when the rate was re-quoted). */
  amountCents: number;
  /** A test label: must never be put on a parcel. */
  test: boolean;
}

/** The shipping port: the embedded rate table by default, Shippo when `SHIPPO_API_KEY` is set. */
export interface ShippingPort {
  /** Which adapter answers, for the start-up log line. */
  readonly name: string;
  /** The ways to ship this parcel, cheapest first; [] when no carrier serves the address. Rejects with an Error whose message can be shown. */
  rates(request: RatesRequest): Promise<ShippingRate[]>;
  /**
   * Buys the label for a paid order. The caller (the outbox) records the result and buys once; an adapter whose
   * purchase can be lost in transit (Shippo) also finds a label an earlier attempt bought for the order number.
   */
  buyLabel(request: LabelRequest): Promise<Label>;
  /**
   * Buys the return label of an approved return, once per return number, as buyLabel buys an order's: the caller (the
   * outbox) records it; an adapter whose purchase can be lost in transit finds the one an earlier attempt bought.
   */
  buyReturnLabel(request: ReturnLabelRequest): Promise<Label>;
}

/** The ship-from address: the shop's warehouse in Georgia (product spec), with the contact page's e-mail and phone. */
export const WAREHOUSE: Address = {
  name: 'Aurelia',
  street1: '120 Peachtree St NE',
  city: 'Atlanta',
  state: 'GA',
  zip: '30303',
  country: 'US',
  email: CONTACT.email,
  phone: CONTACT.phone,
};
