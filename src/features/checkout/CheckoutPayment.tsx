import { lazy, Suspense, useEffect, useState } from 'react';
import { type ApiFailure, api } from '@/lib/api';
import type { OrderTotals } from '@/lib/pricing';
import { $cart } from '../cart/cart.store';
import { loadStock } from '../stock/stock.store';
import { notifyOnNextPage } from '../toasts/next-page-toast';
import { notify } from '../toasts/toast.store';
import type { PricedPayment } from './Checkout';
import type { CardResult, PaymentsClient } from './card-form';
import { CHECKOUT_MESSAGES, ORDER_RELOAD_MS, ORDER_TOAST_MS, type wireAddress, type wireLines } from './checkout';
import { $discountCode, type DiscountSummary } from './discount.store';
import { openedPayment, rememberPayment } from './opened-payment';
import { $placedOrder, PLACED_MESSAGES } from './placed-order.store';
import TestCardForm from './TestCardForm';

// Stripe's libraries load only when the server runs with Stripe, as the payment step opens.
const StripeCardForm = lazy(() => import('./StripeCardForm'));

export interface CheckoutPaymentProps {
  lines: ReturnType<typeof wireLines>;
  address: ReturnType<typeof wireAddress>;
  rateId: string;
  /** The code the shopper applied (sent as `discountCode`: the server prices it again), or none. */
  discountCode: string | undefined;
  /** What the page computed; the server's amount wins when they differ. */
  totalCents: number;
  /** What the server priced as it opened the payment (null while it is being opened again, or could not be). */
  onPriced: (priced: PricedPayment | null) => void;
}

interface Intent {
  clientSecret: string;
  paymentIntentId: string;
  amountCents: number;
  processor: PaymentsClient;
}

type Phase = { kind: 'preparing' } | { kind: 'ready' } | { kind: 'paying' } | { kind: 'saving' } | { kind: 'done' };

/**
 * The payment step: the server prices the checkout and opens a payment for exactly that amount; the card form pays
 * it; the server then checks the payment with the processor and records the order (decision 004). While the card is
 * being charged an overlay blocks the form; Cancel Payment shows only once the payment went through and the order is
 * being saved, and cancelling then never undoes the payment: the order is recorded all the same.
 */
/** What POST /api/create-payment-intent answers. */
interface OpenedPayment {
  client_secret: string;
  paymentIntentId: string;
  amountCents: number;
  totals: OrderTotals;
  /** The code and the offer as the server priced them. */
  discount?: DiscountSummary;
  processor: PaymentsClient;
}

/** What the payment step says when it could not be opened; a refused code is said in the server's own words. */
const failureMessage = (res: ApiFailure) =>
  res.status === 0
    ? CHECKOUT_MESSAGES.paymentProcessingFailed
    : res.code === 'discount_refused'
      ? res.message
      : `${CHECKOUT_MESSAGES.apiError(res.status)}: ${res.message}`;

export default function CheckoutPayment({ lines, address, rateId, discountCode, totalCents, onPriced }: CheckoutPaymentProps) {
  const [intent, setIntent] = useState<Intent | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'preparing' });
  const [error, setError] = useState<string | null>(null);
  /** The code the server refused as the payment opened: nothing is charged until the shopper goes on without it. */
  const [refusedCode, setRefusedCode] = useState<string | null>(null);
  const request = JSON.stringify({ lines, address, rateId, ...(discountCode ? { discountCode } : {}) });

  /**
   * Opens the payment for the cart as it is, or (with the one opened before) updates or reuses it; the server holds
   * the cart's items meanwhile, or refuses, naming what is short (out_of_stock: the cart is then told the counts).
   */
  async function open() {
    const res = await api<OpenedPayment>('/api/create-payment-intent', {
      ...(JSON.parse(request) as object),
      // The payment this page opened, on this stage or before going back: updated, not opened a second time.
      ...(openedPayment() ? { previousClientSecret: openedPayment() } : {}),
    });
    if (!res.ok && res.code === 'out_of_stock') void loadStock();
    if (!res.ok && res.code === 'discount_refused') setRefusedCode(discountCode ?? null);
    if (res.ok) {
      rememberPayment(res.data.client_secret);
      onPriced({ rateId, discountCode, totals: res.data.totals, discount: res.data.discount ?? null });
    } else onPriced(null);
    return res;
  }

  // A new payment whenever what is being paid for changes (another rate, an edited address or cart).
  // biome-ignore lint/correctness/useExhaustiveDependencies: `open` reads `request`, which is what changes.
  useEffect(() => {
    let current = true;
    setPhase({ kind: 'preparing' });
    setError(null);
    setRefusedCode(null);
    // What was priced for the payment before (another rate, address or code) is not what will be charged now.
    onPriced(null);
    void (async () => {
      const res = await open();
      if (!current) return;
      if (!res.ok) {
        setError(failureMessage(res));
        return;
      }
      setIntent({
        clientSecret: res.data.client_secret,
        paymentIntentId: res.data.paymentIntentId,
        amountCents: res.data.amountCents,
        processor: res.data.processor,
      });
      setPhase({ kind: 'ready' });
    })();
    return () => {
      current = false;
    };
  }, [request]);

  /**
   * Before the card is charged: the same cart again, so the server holds its items anew (the hold may have lapsed, or
   * been let go after a declined card). A refusal is said in the form and nothing is charged.
   */
  async function beforePay(): Promise<string | null> {
    const res = await open();
    if (!res.ok && res.code === 'discount_refused') {
      // The code cannot be used any more (used up meanwhile, say): the card form goes, and the message says why.
      setIntent(null);
      setPhase({ kind: 'preparing' });
      setError(res.message);
      return res.message;
    }
    if (!res.ok) return res.message;
    if (res.data.client_secret === intent?.clientSecret) return null;
    // The server had to open another payment (this one could no longer be used): the form shows it, to pay afresh.
    setIntent({
      clientSecret: res.data.client_secret,
      paymentIntentId: res.data.paymentIntentId,
      amountCents: res.data.amountCents,
      processor: res.data.processor,
    });
    return CHECKOUT_MESSAGES.paymentRenewed;
  }

  async function saveOrder(paymentIntentId: string, clientSecret: string) {
    setPhase({ kind: 'saving' });
    // The client secret proves this is the browser that paid: the answer then links to the order's page.
    const res = await api<{ order: { id: string; number: string; url: string | null } }>('/api/orders/confirm', {
      paymentIntentId,
      clientSecret,
    });
    if (!res.ok && res.code === 'sold_out') {
      // Paid after the items sold out: no order, and the payment is on its way back. The cart stays, within the counts.
      setError(res.message);
      setPhase({ kind: 'done' });
      void loadStock();
      return;
    }
    if (!res.ok) {
      notify.error(CHECKOUT_MESSAGES.orderFailed, { description: res.message });
      setPhase({ kind: 'ready' });
      return;
    }
    const { id, number, url } = res.data.order;
    setPhase({ kind: 'done' });
    // The drawer, emptied, confirms the order by its number; the spec's toast says so too, and after the spec's
    // reload the next page confirms it again, until the shopper closes it.
    $placedOrder.set({ number, url });
    $cart.set([]);
    notify.success(CHECKOUT_MESSAGES.orderPlaced(id), { durationMs: ORDER_TOAST_MS });
    notifyOnNextPage('success', PLACED_MESSAGES.confirmation(number), {
      description: PLACED_MESSAGES.email,
      durationMs: Number.POSITIVE_INFINITY,
      ...(url ? { link: { href: url, label: PLACED_MESSAGES.viewOrder } } : {}),
    });
    setTimeout(() => window.location.reload(), ORDER_RELOAD_MS);
  }

  function onResult(result: CardResult) {
    if (!intent) return;
    if (result.status === 'succeeded') void saveOrder(intent.paymentIntentId, intent.clientSecret);
    // The bank still works on it: the webhook records the order when it succeeds, and the e-mail follows.
    else if (result.status === 'processing') {
      notify.info(CHECKOUT_MESSAGES.paymentPending, { durationMs: ORDER_TOAST_MS });
      setPhase({ kind: 'done' });
      $cart.set([]);
    }
    // A declined card ('Payment failed: …'), a failed request or the authentication step: the card form shows it.
    else setPhase({ kind: 'ready' });
  }

  function cancelWhileSaving() {
    // The payment has gone through: the order is recorded by the webhook or the reconciliation job if not by this
    // request, so the shopper is told so, and nothing is charged again.
    notify.info(CHECKOUT_MESSAGES.cancelledWhileSaving, { durationMs: ORDER_TOAST_MS });
    setPhase({ kind: 'done' });
    $cart.set([]);
  }

  function onProcessing() {
    setError(null);
    setPhase({ kind: 'paying' });
  }

  const amount = intent?.amountCents ?? totalCents;
  return (
    <div className="checkout-payment">
      {error &&
        (refusedCode ? (
          <div className="form-error" role="alert">
            <p className="checkout-refused">{error}</p>
            <button type="button" className="link-button" onClick={() => $discountCode.set(undefined)}>
              Continue without code {refusedCode}
            </button>
          </div>
        ) : (
          <p className="form-error" role="alert">
            {error}
          </p>
        ))}
      {phase.kind === 'preparing' && !error && <p className="cart-note">Preparing a secure payment…</p>}
      {intent && phase.kind !== 'preparing' && phase.kind !== 'done' && (
        <CardForm
          intent={intent}
          amountCents={amount}
          phase={phase}
          onProcessing={onProcessing}
          onResult={onResult}
          beforePay={beforePay}
        />
      )}
      {(phase.kind === 'paying' || phase.kind === 'saving') && (
        <div className="checkout-overlay" role="status" aria-live="polite">
          <div className="checkout-overlay-box">
            <span className="checkout-spinner" aria-hidden="true" />
            <p>{phase.kind === 'paying' ? 'Processing your payment…' : CHECKOUT_MESSAGES.savingOrder}</p>
            {phase.kind === 'saving' && (
              <button type="button" className="btn btn-outline" onClick={cancelWhileSaving}>
                Cancel Payment
              </button>
            )}
          </div>
        </div>
      )}
    </div>
  );
}

/** The card form the server's payments adapter asks for: our TEST MODE form, or Stripe's Payment Element. */
function CardForm({
  intent,
  amountCents,
  phase,
  onProcessing,
  onResult,
  beforePay,
}: {
  intent: Intent;
  amountCents: number;
  phase: Phase;
  onProcessing: () => void;
  onResult: (result: CardResult) => void;
  beforePay: () => Promise<string | null>;
}) {
  const form = {
    clientSecret: intent.clientSecret,
    amountCents,
    disabled: phase.kind !== 'ready',
    onProcessing,
    onResult,
    beforePay,
  };
  if (intent.processor.kind === 'test') return <TestCardForm {...form} />;
  return (
    <Suspense fallback={<p className="cart-note">Loading the secure card form…</p>}>
      <StripeCardForm publishableKey={intent.processor.publishableKey} {...form} />
    </Suspense>
  );
}
