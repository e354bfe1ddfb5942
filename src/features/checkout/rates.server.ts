import { createHash } from 'node:crypto';
import { z } from 'astro/zod';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { MAX_PARCEL_LB, parcelWeightLb } from '@/lib/pricing';
import type { Database, Sql } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import {
  type Address,
  addressSchema,
  type Parcel,
  type ShippingPort,
  shopParcel,
  WAREHOUSE,
} from '@/server/shipping/shipping.port';
import type { CartLineInput } from '../cart/cart';
import { cartProblem } from '../cart/cart.rules';
import { cartBody } from '../cart/cart.server';
import { type CheckoutRate, FALLBACK_RATE_ID, fallbackRate } from './checkout';

/** How long a quoted rate may be paid for: long enough to type a card number, short enough for prices to stay true. */
export const QUOTE_TTL_MINUTES = 60;

/** The lines of a checkout: the cart's shape, at least one line. The catalogue's rules are checked after. */
export const checkoutLines = cartBody.shape.lines.min(1, { error: 'Your cart is empty.' });

/**
 * The body of POST /api/shippo-rates: the spec's {fromAddress, toAddress, parcel}, plus the cart's lines. With lines,
 * the parcel is computed from the catalogue and the body's parcel is ignored; without, the body's weight is used (a
 * rate quoted for another weight will not pay for this cart). fromAddress is always the warehouse.
 */
export const ratesBody = z.object({
  toAddress: addressSchema,
  lines: checkoutLines.optional(),
  parcel: z
    .object({
      weight: z.coerce
        .number({ error: 'The parcel weight must be a number.' })
        .positive({ error: 'The parcel weight must be more than 0.' })
        .max(MAX_PARCEL_LB, { error: `The parcel weight must be at most ${MAX_PARCEL_LB} lb.` }),
      mass_unit: z.literal('lb', { error: 'The parcel weight must be in lb.' }).optional(),
    })
    .optional(),
});
export type RatesBody = z.infer<typeof ratesBody>;

/** The parcel for these lines: the shop's box, weighing what the catalogue says the items weigh. */
export function parcelFor(lines: readonly Pick<CartLineInput, 'productId' | 'quantity'>[], catalogue: CatalogueIndex): Parcel {
  return shopParcel(parcelWeightLb(lines, (id) => catalogue.get(id)?.weight));
}

/**
 * Why a cart's parcel cannot be sent, or null: heavier than the shop sends in one parcel (MAX_PARCEL_LB). Each item
 * weighs at most a fifth of it (the catalogue's schema), so only several full lines of heavy items get here.
 */
export function parcelProblem(weightLb: number): string | null {
  return weightLb > MAX_PARCEL_LB
    ? `This order weighs ${weightLb} lb, more than the ${MAX_PARCEL_LB} lb the shop sends in one parcel. Please order it in parts.`
    : null;
}

/** What a quote is valid for: the address it ships to and the parcel's weight. */
export function quoteKey(to: Address, parcel: Parcel): string {
  const where = [to.street1, ...(to.street2 ? [to.street2] : []), to.city, to.state, to.zip]
    .map((part) => part.trim().toLowerCase())
    .join('|');
  return createHash('sha256').update(`${where}|${parcel.weightLb}`).digest('hex');
}

export type RatesResult =
  | { ok: true; rates: CheckoutRate[] }
  | { ok: false; status: 400; message: string }
  | { ok: false; status: 502; message: string };

/**
 * The rates for shipping `body` to its address, each remembered (run as service_role) under its id with its amount
 * and what it was quoted for, so the payment step can look it up instead of trusting the browser.
 */
export async function quoteRates(
  db: Database,
  shipping: ShippingPort,
  catalogue: CatalogueIndex,
  body: RatesBody,
): Promise<RatesResult> {
  let parcel: Parcel;
  if (body.lines) {
    const problem = cartProblem(body.lines, catalogue);
    if (problem) return { ok: false, status: 400, message: problem };
    parcel = parcelFor(body.lines, catalogue);
    const heavy = parcelProblem(parcel.weightLb);
    if (heavy) return { ok: false, status: 400, message: heavy };
  } else if (body.parcel) parcel = shopParcel(body.parcel.weight);
  else return { ok: false, status: 400, message: 'Send the cart’s lines (or a parcel) to rate.' };

  let rates: CheckoutRate[];
  try {
    rates = await shipping.rates({ from: WAREHOUSE, to: body.toAddress, parcel });
  } catch (error) {
    return { ok: false, status: 502, message: error instanceof Error ? error.message : 'the carrier did not answer' };
  }
  const key = quoteKey(body.toAddress, parcel);
  await asService(db, async (tx) => {
    await tx.query(`delete from public.shipping_quotes where expires_at < now() - interval '1 day'`);
    if (rates.length === 0) return;
    await tx.query(
      `insert into public.shipping_quotes (rate_id, quote_key, provider, service, amount_cents, estimated_days, expires_at)
       select r.id, $2, r.provider, r.service, r.amount_cents, r.estimated_days, now() + make_interval(mins => $3)
       from jsonb_to_recordset($1::text::jsonb)
         as r (id text, provider text, service text, amount_cents integer, estimated_days integer)
       on conflict (rate_id) do update
         set quote_key = excluded.quote_key, provider = excluded.provider, service = excluded.service,
             amount_cents = excluded.amount_cents, estimated_days = excluded.estimated_days, expires_at = excluded.expires_at`,
      [
        JSON.stringify(
          rates.map((r) => ({
            id: r.id,
            provider: r.provider,
            service: r.service,
            amount_cents: r.amountCents,
            estimated_days: r.estimatedDays,
          })),
        ),
        key,
        QUOTE_TTL_MINUTES,
      ],
    );
  });
  return {
    ok: true,
    rates: rates.map(({ id, provider, service, amountCents, estimatedDays }) => ({
      id,
      provider,
      service,
      amountCents,
      estimatedDays,
    })),
  };
}

/**
 * The rate the shopper chose, as the server quoted it for this address and parcel, or null when it was not quoted
 * for them (another address or weight), has expired, or never existed. The fallback rate is priced by its rule.
 */
export async function chosenRate(tx: Sql, rateId: string, to: Address, parcel: Parcel): Promise<CheckoutRate | null> {
  if (rateId === FALLBACK_RATE_ID) return fallbackRate(to.state, parcel.weightLb);
  const [row] = await tx.query<{ provider: string; service: string; amount_cents: number; estimated_days: number | null }>(
    `select provider, service, amount_cents, estimated_days from public.shipping_quotes
     where rate_id = $1 and quote_key = $2 and expires_at > now()`,
    [rateId, quoteKey(to, parcel)],
  );
  if (!row) return null;
  return {
    id: rateId,
    provider: row.provider,
    service: row.service,
    amountCents: row.amount_cents,
    estimatedDays: row.estimated_days,
  };
}

/** A rate in the spec's wire shape (object_id, provider, servicelevel.name, amount, estimated_days, currency). */
export function wireRate(rate: CheckoutRate) {
  return {
    object_id: rate.id,
    provider: rate.provider,
    servicelevel: { name: rate.service },
    amount: (rate.amountCents / 100).toFixed(2),
    amount_cents: rate.amountCents,
    estimated_days: rate.estimatedDays,
    currency: 'USD',
  };
}
