import { type SubmitEvent, useId, useState } from 'react';
import { formatPrice } from '@/features/catalogue/catalogue';
import { shopperRule } from '@/features/discounts/discounts';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import { dollarsToCents } from '../orders/order-admin';
import type { AdminOffer, DiscountChangeAnswer } from './discounts-admin';

interface Props {
  offer: AdminOffer;
}

/** The threshold as typed: dollars, 0 included (the offer then applies to every order). */
function thresholdCents(text: string): number | null {
  const t = text.trim().replace(/^\$/, '');
  if (/^0+(\.0{1,2})?$/.test(t)) return 0;
  return dollarsToCents(t);
}

/**
 * The one automatic offer ("spend $X, get Y % off"): its threshold and percent, whether it is on, and whether a code
 * adds to it or the better of the two applies. Below, the offer and the rule in the words the shopper reads beside the
 * code field (shopperRule), as they will be once saved.
 */
export default function OfferForm(props: Props) {
  const id = useId();
  const [saved, setSaved] = useState(props.offer);
  const [threshold, setThreshold] = useState((props.offer.thresholdCents / 100).toFixed(2));
  const [percent, setPercent] = useState(String(props.offer.percent));
  const [active, setActive] = useState(props.offer.active);
  const [combines, setCombines] = useState(props.offer.combines);
  const [errors, setErrors] = useState<{ threshold?: string; percent?: string }>({});
  const [busy, setBusy] = useState(false);

  const cents = thresholdCents(threshold);
  const pct = /^\d{1,3}$/.test(percent.trim()) && Number(percent) >= 1 && Number(percent) <= 100 ? Number(percent) : null;
  const preview = { thresholdCents: cents ?? saved.thresholdCents, percent: pct ?? saved.percent, active, combines };

  async function save(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const wrong = {
      ...(cents === null ? { threshold: 'Enter an amount in dollars, such as 100.00 (0 for every order).' } : {}),
      ...(pct === null ? { percent: 'Enter a whole number from 1 to 100.' } : {}),
    };
    setErrors(wrong);
    if (cents === null || pct === null) {
      document.getElementById(`${id}-${cents === null ? 'threshold' : 'percent'}`)?.focus();
      return;
    }
    setBusy(true);
    const r = await api<DiscountChangeAnswer>('/api/admin/discounts/offer', {
      thresholdCents: cents,
      percent: pct,
      active,
      combines,
      version: saved.version,
    });
    setBusy(false);
    if (!r.ok) return notify.failure('The offer was not saved', r);
    if (r.data.offer) setSaved(r.data.offer);
    (r.data.changed ? notify.success : notify.info)(r.data.message);
  }

  const error = (key: 'threshold' | 'percent') =>
    errors[key] && (
      <p id={`${id}-${key}-error`} className="form-error" role="alert">
        {errors[key]}
      </p>
    );

  return (
    <form className="discount-form discount-offer-form" onSubmit={save} noValidate>
      <div className="discount-form-grid">
        <div className="field">
          <label htmlFor={`${id}-threshold`}>From a subtotal of (USD)</label>
          <input
            id={`${id}-threshold`}
            inputMode="decimal"
            autoComplete="off"
            value={threshold}
            aria-invalid={errors.threshold ? true : undefined}
            aria-describedby={errors.threshold ? `${id}-threshold-error` : undefined}
            onChange={(e) => setThreshold(e.target.value)}
          />
          {error('threshold')}
        </div>
        <div className="field">
          <label htmlFor={`${id}-percent`}>Percent off every item</label>
          <input
            id={`${id}-percent`}
            inputMode="numeric"
            autoComplete="off"
            value={percent}
            aria-invalid={errors.percent ? true : undefined}
            aria-describedby={errors.percent ? `${id}-percent-error` : undefined}
            onChange={(e) => setPercent(e.target.value)}
          />
          {error('percent')}
        </div>
      </div>
      <label className="admin-check">
        <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
        The offer is on
      </label>
      <label className="admin-check">
        <input type="checkbox" checked={combines} onChange={(e) => setCombines(e.target.checked)} />A code adds to the offer (else
        the shopper gets whichever saves more)
      </label>
      <div className="discount-preview" aria-live="polite">
        <p>
          <strong>{active ? 'Shoppers get:' : 'Off: shoppers get no offer.'}</strong>{' '}
          {active && `${preview.percent}% off every item from a subtotal of ${formatPrice(preview.thresholdCents)}.`}
        </p>
        <p>
          <strong>Shoppers read beside the code field:</strong> “{shopperRule(preview)}”
        </p>
      </div>
      <div className="admin-action-row">
        <button type="submit" className="btn" disabled={busy}>
          Save offer
        </button>
      </div>
    </form>
  );
}
