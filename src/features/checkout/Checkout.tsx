import './checkout.css';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '@/lib/api';
import { FREE_SHIPPING_FROM_CENTS, type OrderTotals, orderTotals, parcelWeightLb } from '@/lib/pricing';
import { US_STATES } from '@/lib/us-states';
import type { CartLine, CartProduct } from '../cart/cart';
import { subtotal } from '../cart/cart.rules';
import { formatPrice } from '../catalogue/catalogue';
import CheckoutAddress from './CheckoutAddress';
import CheckoutPayment from './CheckoutPayment';
import {
  type AddressFields,
  CHECKOUT_MESSAGES,
  type CheckoutRate,
  EMPTY_ADDRESS,
  fallbackRate,
  wireAddress,
  wireLines,
} from './checkout';
import { DiscountRows } from './DiscountField';
import { type DiscountSummary, summaryDiscount } from './discount.store';

export type CheckoutStage = 'address' | 'payment';

export interface CheckoutProps {
  stage: CheckoutStage;
  onStage: (stage: CheckoutStage) => void;
  lines: readonly CartLine[];
  catalogue: ReadonlyMap<number, CartProduct>;
  /** The discounts the server answered for the cart (the drawer's check), shown until the payment is priced. */
  discount: DiscountSummary | null;
  /** The code the shopper applied, sent with the payment for the server to price again. */
  discountCode: string | undefined;
}

/** What the server priced when it opened the payment: what is shown, and charged, from then on. */
export interface PricedPayment {
  /** What it was priced for: the rate and the code (the address and lines do not change while it is shown). */
  rateId: string;
  discountCode: string | undefined;
  totals: OrderTotals;
  discount: DiscountSummary | null;
}

interface WireRate {
  object_id: string;
  provider: string;
  servicelevel: { name: string };
  amount_cents: number;
  estimated_days: number | null;
}

type Rates =
  | { status: 'loading' }
  | { status: 'ready'; rates: CheckoutRate[] }
  | { status: 'empty' }
  | { status: 'failed'; message: string; rates: CheckoutRate[] };

const days = (rate: CheckoutRate) =>
  rate.estimatedDays === null ? '' : ` · ${rate.estimatedDays} business day${rate.estimatedDays === 1 ? '' : 's'}`;

/**
 * The checkout inside the cart drawer, after the cart: the address, then shipping and payment. Loaded when the
 * shopper presses Checkout, so pages that never check out do not download it. Every amount shown here is what the
 * server will compute; the server computes it again and charges only that.
 */
export default function Checkout({ stage, onStage, lines, catalogue, discount, discountCode }: CheckoutProps) {
  const [address, setAddress] = useState<AddressFields | null>(null);
  const [priced, setPriced] = useState<PricedPayment | null>(null);
  const [rates, setRates] = useState<Rates>({ status: 'loading' });
  const [rateId, setRateId] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const weight = parcelWeightLb(lines, (id) => catalogue.get(id)?.weight);

  const fetchRates = useCallback(
    async (to: AddressFields) => {
      setRates({ status: 'loading' });
      const res = await api<{ rates: WireRate[] }>('/api/shippo-rates', { toAddress: wireAddress(to), lines: wireLines(lines) });
      if (!res.ok) {
        // The spec's fallback: a manual 'Standard Shipping' rate the server prices by the same rule.
        const fallback = fallbackRate(to.state, weight);
        setRates({ status: 'failed', message: res.message, rates: [fallback] });
        setRateId(fallback.id);
        return;
      }
      const list = res.data.rates.map((r) => ({
        id: r.object_id,
        provider: r.provider,
        service: r.servicelevel.name,
        amountCents: r.amount_cents,
        estimatedDays: r.estimated_days,
      }));
      setRates(list.length === 0 ? { status: 'empty' } : { status: 'ready', rates: list });
      // The first rate is preselected (product spec).
      setRateId(list[0]?.id ?? null);
    },
    [lines, weight],
  );

  // Moving between stages moves focus to the stage's heading, so a screen reader hears where the shopper is.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the effect is about the stage changing, not reading it.
  useEffect(() => {
    heading.current?.focus();
  }, [stage]);

  function continueTo(fields: AddressFields) {
    setAddress(fields);
    onStage('payment');
    void fetchRates(fields);
  }

  const shown = rates.status === 'ready' || rates.status === 'failed' ? rates.rates : [];
  const chosen = shown.find((r) => r.id === rateId) ?? null;
  // The server's totals once it has opened the payment for this rate and code; until then, the same rules applied to
  // the drawer's discount.
  const server = priced && priced.rateId === chosen?.id && priced.discountCode === discountCode ? priced : null;
  const totals = server?.totals ?? orderTotals(subtotal(lines, catalogue), chosen?.amountCents ?? 0, discount ?? undefined);
  const shownDiscount = server ? server.discount : discount;
  const shipsFree =
    Boolean(shownDiscount?.freeShipping) || totals.subtotalCents - totals.discountCents >= FREE_SHIPPING_FROM_CENTS;
  const stateName = (code: string) => US_STATES.find((s) => s.code === code)?.name ?? code;

  if (stage === 'address' || !address) {
    return (
      <section className="checkout" aria-labelledby="checkout-address-title">
        <h3 id="checkout-address-title" ref={heading} tabIndex={-1} className="checkout-title">
          Shipping address
        </h3>
        <CheckoutAddress initial={address ?? EMPTY_ADDRESS} onContinue={continueTo} />
      </section>
    );
  }

  return (
    <section className="checkout" aria-labelledby="checkout-payment-title">
      <h3 id="checkout-payment-title" ref={heading} tabIndex={-1} className="checkout-title">
        Shipping and payment
      </h3>
      <div className="checkout-ship-to">
        <p>
          <strong>Ship to</strong>
          <br />
          {[address.name, address.address, address.address2.trim(), address.city].filter(Boolean).join(', ')},{' '}
          {stateName(address.state)} {address.zipCode}
        </p>
        <button type="button" className="link-button" onClick={() => onStage('address')}>
          Edit<span className="visually-hidden"> shipping address</span>
        </button>
      </div>

      <fieldset className="checkout-rates" aria-busy={rates.status === 'loading'}>
        <legend>Shipping</legend>
        {rates.status === 'loading' && <p className="cart-note">Calculating shipping…</p>}
        {rates.status === 'empty' && (
          <p className="form-error" role="alert">
            {CHECKOUT_MESSAGES.noRates}
          </p>
        )}
        {rates.status === 'failed' && (
          <div className="form-error" role="alert">
            <p>{CHECKOUT_MESSAGES.shippingFailed(rates.message)}</p>
            <button type="button" className="link-button" onClick={() => void fetchRates(address)}>
              {CHECKOUT_MESSAGES.retryShipping}
            </button>
          </div>
        )}
        {shown.map((rate) => (
          <label key={rate.id} className="checkout-rate">
            <input type="radio" name="rate" value={rate.id} checked={rate.id === rateId} onChange={() => setRateId(rate.id)} />
            <span className="checkout-rate-name">
              {rate.service}
              <span className="cart-note">
                {rate.provider}
                {days(rate)}
              </span>
            </span>
            <span className="checkout-rate-amount">
              {shipsFree ? (
                <>
                  <s>{formatPrice(rate.amountCents)}</s> Free
                </>
              ) : (
                formatPrice(rate.amountCents)
              )}
            </span>
          </label>
        ))}
      </fieldset>

      <div className="cart-summary">
        <p className="cart-row">
          <span>Subtotal</span>
          <span data-testid="checkout-subtotal">{formatPrice(totals.subtotalCents)}</span>
        </p>
        <DiscountRows discount={shownDiscount && summaryDiscount(shownDiscount)} testId="checkout-discount" />
        <p className="cart-row">
          <span>Shipping</span>
          <span data-testid="checkout-shipping">
            {!chosen ? '—' : totals.shippingCents === 0 ? 'Free' : formatPrice(totals.shippingCents)}
          </span>
        </p>
        <p className="cart-row">
          <span>Tax (8.9%)</span>
          <span data-testid="checkout-tax">{formatPrice(totals.taxCents)}</span>
        </p>
        <p className="cart-subtotal cart-total">
          <span>Total</span>
          <strong data-testid="checkout-total">{formatPrice(totals.totalCents)}</strong>
        </p>
      </div>

      {chosen && (
        <CheckoutPayment
          lines={wireLines(lines)}
          address={wireAddress(address)}
          rateId={chosen.id}
          discountCode={discountCode}
          totalCents={totals.totalCents}
          onPriced={setPriced}
        />
      )}
    </section>
  );
}
