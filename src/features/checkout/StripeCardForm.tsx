import { Elements, PaymentElement, useElements, useStripe } from '@stripe/react-stripe-js';
import type { PaymentIntentResult, Stripe } from '@stripe/stripe-js';
import { loadStripe } from '@stripe/stripe-js/pure';
import { type SubmitEvent, useEffect, useMemo, useState } from 'react';
import { formatPrice } from '../catalogue/catalogue';
import type { CardFormProps } from './card-form';
import { CHECKOUT_MESSAGES } from './checkout';

export interface StripeCardFormProps extends CardFormProps {
  publishableKey: string;
}

// Stripe.js is fetched from js.stripe.com (as Stripe requires) the first time a shopper reaches the payment step, and
// once per page: the CSP allows its origins only when the server runs with Stripe configured. A load that failed
// (offline, blocked) is forgotten, so Try again fetches the script anew (loadStripe itself retries once, then allows it).
const loaded = new Map<string, Promise<Stripe | null>>();
function stripeFor(publishableKey: string): Promise<Stripe | null> {
  let promise = loaded.get(publishableKey);
  if (!promise) {
    promise = loadStripe(publishableKey);
    loaded.set(publishableKey, promise);
    promise.catch(() => loaded.delete(publishableKey));
  }
  return promise;
}

// Stripe's Payment Element in the shop's colours and type (it renders in Stripe's own frame, so CSS cannot reach it).
const APPEARANCE = {
  theme: 'stripe',
  variables: {
    colorPrimary: '#9a3f1c',
    colorText: '#2b2420',
    colorTextSecondary: '#5f554e',
    colorDanger: '#b3261e',
    colorBackground: '#ffffff',
    borderRadius: '10px',
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  },
} as const;

/**
 * The payment step with Stripe (production): the Payment Element collects the card inside Stripe's frame and confirms
 * the intent the server opened; 3-D Secure runs in Stripe's own modal. Only card-like methods that need no redirect
 * are offered (the intent says so), so the shopper never leaves the drawer.
 */
export default function StripeCardForm({ publishableKey, clientSecret, ...form }: StripeCardFormProps) {
  const [attempt, setAttempt] = useState(0);
  const [loadFailed, setLoadFailed] = useState(false);
  // Elements is never handed a promise that rejects (it would stay empty, with Pay disabled and nothing said): a
  // failed load becomes null for Elements and the spec's network-failure alert, with a way to try again, here.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is what asks for a new load after a failure.
  const stripe = useMemo(() => stripeFor(publishableKey).catch(() => null), [publishableKey, attempt]);
  useEffect(() => {
    let current = true;
    void stripe.then((loadedStripe) => {
      if (current && loadedStripe === null) setLoadFailed(true);
    });
    return () => {
      current = false;
    };
  }, [stripe]);

  if (loadFailed) {
    return (
      <div className="stripe-card-form">
        <p className="form-error" role="alert">
          {CHECKOUT_MESSAGES.paymentProcessingFailed}
        </p>
        <button
          type="button"
          className="btn btn-outline"
          onClick={() => {
            setLoadFailed(false);
            setAttempt((n) => n + 1);
          }}
        >
          Try again
        </button>
      </div>
    );
  }
  // A new intent (the cart, rate or address changed) is a new Elements group: Stripe binds it to one client secret.
  // Elements takes its Stripe once, so another load attempt is another group too.
  return (
    <Elements key={`${clientSecret}:${attempt}`} stripe={stripe} options={{ clientSecret, appearance: APPEARANCE }}>
      <PaymentForm {...form} />
    </Elements>
  );
}

function PaymentForm({ amountCents, onResult, onProcessing, beforePay, disabled = false }: Omit<CardFormProps, 'clientSecret'>) {
  const stripe = useStripe();
  const elements = useElements();
  const [ready, setReady] = useState(false);
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);

  async function submit(e: SubmitEvent) {
    e.preventDefault();
    if (!stripe || !elements || busy || disabled) return;
    setFormError(null);
    setBusy(true);
    let outcome: PaymentIntentResult;
    try {
      // Incomplete or invalid fields: the Payment Element says which, next to the field, and nothing is charged.
      const checked = await elements.submit();
      if (checked.error) {
        setBusy(false);
        return;
      }
      // The items are held again first: when they cannot be, the card is never charged.
      const refused = await beforePay?.();
      if (refused) {
        setBusy(false);
        setFormError(refused);
        return;
      }
      onProcessing?.();
      outcome = await stripe.confirmPayment({
        elements,
        redirect: 'if_required',
        confirmParams: { return_url: window.location.href },
      });
    } catch {
      // Stripe.js rejects (rather than answering {error}) when it cannot go on at all: the overlay must not stay up.
      setBusy(false);
      setFormError(CHECKOUT_MESSAGES.paymentProcessingFailed);
      onResult({ status: 'failed', message: CHECKOUT_MESSAGES.paymentProcessingFailed, reason: 'network' });
      return;
    }
    setBusy(false);
    const { error, paymentIntent } = outcome;
    if (error) {
      // Card problems carry Stripe's message for the shopper; anything else (network, API) gets the spec's message.
      const card = error.type === 'card_error' || error.type === 'validation_error';
      const message = card ? (error.message ?? 'Your card was declined.') : CHECKOUT_MESSAGES.paymentProcessingFailed;
      setFormError(card ? CHECKOUT_MESSAGES.paymentFailed(message) : message);
      onResult({ status: 'failed', message, reason: card ? 'card' : 'network' });
      return;
    }
    if (paymentIntent?.status === 'succeeded') onResult({ status: 'succeeded' });
    else if (paymentIntent?.status === 'processing') onResult({ status: 'processing' });
    else {
      setFormError(CHECKOUT_MESSAGES.paymentProcessingFailed);
      onResult({ status: 'failed', message: CHECKOUT_MESSAGES.paymentProcessingFailed, reason: 'network' });
    }
  }

  return (
    <form className="stripe-card-form" onSubmit={submit} noValidate>
      <PaymentElement
        options={{ layout: 'tabs' }}
        onReady={() => setReady(true)}
        onLoadError={() => setFormError(CHECKOUT_MESSAGES.paymentProcessingFailed)}
      />
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <button type="submit" className="btn card-pay" disabled={!ready || !stripe || busy || disabled}>
        {busy ? 'Processing…' : `Pay ${formatPrice(amountCents)}`}
      </button>
    </form>
  );
}
