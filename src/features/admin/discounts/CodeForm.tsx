import { type SubmitEvent, useId, useState } from 'react';
import type { DiscountKind } from '@/features/discounts/discounts';
import { notifyOnNextPage } from '@/features/toasts/next-page-toast';
import { api } from '@/lib/api';
import { dollarsToCents } from '../orders/order-admin';
import type { AdminCode, DiscountChangeAnswer } from './discounts-admin';

/** A code as the form edits it: its start and end already on the shop's clock ('2026-12-24T09:00'). */
type Editable = Omit<AdminCode, 'startsAt' | 'endsAt'> & { startsAt: string | null; endsAt: string | null };

interface Props {
  /** The code to edit; none: a new code. */
  code?: Editable;
  products: { id: number; name: string }[];
  categories: string[];
  /** The shop's time zone, which the start and end are typed in. */
  timeZone: string;
}

const KINDS: { value: DiscountKind; label: string }[] = [
  { value: 'percent', label: 'A percent off' },
  { value: 'amount', label: 'An amount off' },
  { value: 'free_shipping', label: 'Free shipping' },
];

const dollars = (cents: number | null) => (cents === null ? '' : (cents / 100).toFixed(2));
const whole = (text: string, max: number) => {
  const t = text.trim();
  return /^\d{1,7}$/.test(t) && Number(t) >= 1 && Number(t) <= max ? Number(t) : null;
};

/**
 * A code's rules, to create it or change them: what it takes off, an optional minimum, start and end (typed on the
 * shop's clock, which the labels name), limits, and the products or categories it applies to. The form checks what it
 * can read (a number is a number) and the server the rest, answering in words shown above the button; nothing is
 * saved until the server says so. A saved code opens its page, which says so.
 */
export default function CodeForm(props: Props) {
  const id = useId();
  const c = props.code;
  const [code, setCode] = useState(c?.code ?? '');
  const [kind, setKind] = useState<DiscountKind>(c?.kind ?? 'percent');
  const [percent, setPercent] = useState(c?.percent === null || !c ? '' : String(c.percent));
  const [amount, setAmount] = useState(dollars(c?.amountCents ?? null));
  const [minimum, setMinimum] = useState(dollars(c?.minSubtotalCents ?? null));
  const [startsAt, setStartsAt] = useState(c?.startsAt ?? '');
  const [endsAt, setEndsAt] = useState(c?.endsAt ?? '');
  const [usageLimit, setUsageLimit] = useState(c?.usageLimit == null ? '' : String(c.usageLimit));
  const [perCustomer, setPerCustomer] = useState(c?.perCustomerLimit == null ? '' : String(c.perCustomerLimit));
  const [productIds, setProductIds] = useState<number[]>(c?.productIds ?? []);
  const [categories, setCategories] = useState<string[]>(c?.categories ?? []);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  function body(): Record<string, unknown> | null {
    const wrong: Record<string, string> = {};
    const pct = kind === 'percent' ? whole(percent, 100) : null;
    if (kind === 'percent' && pct === null) wrong.percent = 'Enter a whole number from 1 to 100.';
    const amountCents = kind === 'amount' ? dollarsToCents(amount) : null;
    if (kind === 'amount' && amountCents === null) wrong.amount = 'Enter an amount in dollars above $0, such as 5.00.';
    const minSubtotalCents = minimum.trim() === '' ? null : dollarsToCents(minimum);
    if (minimum.trim() !== '' && minSubtotalCents === null)
      wrong.minimum = 'Enter an amount in dollars above $0, or leave it empty.';
    const limit = usageLimit.trim() === '' ? null : whole(usageLimit, 1_000_000);
    if (usageLimit.trim() !== '' && limit === null) wrong.usageLimit = 'Enter a whole number of at least 1, or leave it empty.';
    const perCustomerLimit = perCustomer.trim() === '' ? null : whole(perCustomer, 1000);
    if (perCustomer.trim() !== '' && perCustomerLimit === null)
      wrong.perCustomer = 'Enter a whole number from 1 to 1,000, or leave it empty.';
    setErrors(wrong);
    const first = Object.keys(wrong)[0];
    if (first) {
      document.getElementById(`${id}-${first}`)?.focus();
      return null;
    }
    return {
      ...(c ? { version: c.version } : { code }),
      kind,
      percent: pct,
      amountCents,
      minSubtotalCents,
      startsAt: startsAt || null,
      endsAt: endsAt || null,
      usageLimit: limit,
      perCustomerLimit,
      productIds,
      categories,
    };
  }

  async function save(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const sent = body();
    if (!sent) return;
    setBusy(true);
    setFailure(null);
    const r = await api<DiscountChangeAnswer>(c ? `/api/admin/discounts/${c.id}` : '/api/admin/discounts', sent);
    setBusy(false);
    if (!r.ok) {
      setFailure(r.message);
      document.getElementById(`${id}-failure`)?.focus();
      return;
    }
    if (!r.data.changed) return setFailure(r.data.message);
    notifyOnNextPage('success', r.data.message);
    if (c) window.location.reload();
    else if (r.data.code) window.location.assign(`/admin/discounts/${r.data.code.id}`);
  }

  const toggle = <T,>(list: T[], value: T, on: boolean) => (on ? [...list, value] : list.filter((v) => v !== value));

  const text = (key: string, label: string, value: string, set: (v: string) => void, extra: Record<string, string> = {}) => (
    <div className="field">
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input
        id={`${id}-${key}`}
        autoComplete="off"
        value={value}
        aria-invalid={errors[key] ? true : undefined}
        aria-describedby={errors[key] ? `${id}-${key}-error` : undefined}
        onChange={(e) => set(e.target.value)}
        {...extra}
      />
      {errors[key] && (
        <p id={`${id}-${key}-error`} className="form-error" role="alert">
          {errors[key]}
        </p>
      )}
    </div>
  );

  return (
    <form className="discount-form" onSubmit={save} noValidate>
      {c ? (
        <p className="discount-form-code">
          Code <strong>{c.code}</strong> <span className="admin-note">(a code’s name stays as it was created)</span>
        </p>
      ) : (
        text('code', 'Code (what shoppers type; 3 to 32 letters or digits, - or _)', code, setCode, {
          autoCapitalize: 'characters',
          spellCheck: 'false',
          maxLength: '32',
        })
      )}
      <fieldset className="discount-kinds">
        <legend>What it takes off</legend>
        {KINDS.map((k) => (
          <label key={k.value} className="admin-check">
            <input
              type="radio"
              name={`${id}-kind`}
              value={k.value}
              checked={kind === k.value}
              onChange={() => setKind(k.value)}
            />
            {k.label}
          </label>
        ))}
      </fieldset>
      <div className="discount-form-grid">
        {kind === 'percent' && text('percent', 'Percent off (1 to 100)', percent, setPercent, { inputMode: 'numeric' })}
        {kind === 'amount' && text('amount', 'Amount off (USD)', amount, setAmount, { inputMode: 'decimal' })}
        {text('minimum', 'Minimum subtotal before discounts (USD, optional)', minimum, setMinimum, { inputMode: 'decimal' })}
        {text('startsAt', `Starts (${props.timeZone} time, optional)`, startsAt, setStartsAt, { type: 'datetime-local' })}
        {text('endsAt', `Ends (${props.timeZone} time, optional)`, endsAt, setEndsAt, { type: 'datetime-local' })}
        {text('usageLimit', 'Uses in all (optional)', usageLimit, setUsageLimit, { inputMode: 'numeric' })}
        {text('perCustomer', 'Uses per customer (optional)', perCustomer, setPerCustomer, { inputMode: 'numeric' })}
      </div>
      <fieldset className="discount-applies">
        <legend>Applies to (nothing ticked: the whole cart)</legend>
        <div className="discount-choices">
          <fieldset>
            <legend className="discount-choices-head">Products</legend>
            {props.products.map((p) => (
              <label key={p.id} className="admin-check">
                <input
                  type="checkbox"
                  checked={productIds.includes(p.id)}
                  onChange={(e) => setProductIds((l) => toggle(l, p.id, e.target.checked))}
                />
                {p.name}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend className="discount-choices-head">Categories</legend>
            {props.categories.map((cat) => (
              <label key={cat} className="admin-check">
                <input
                  type="checkbox"
                  checked={categories.includes(cat)}
                  onChange={(e) => setCategories((l) => toggle(l, cat, e.target.checked))}
                />
                {cat}
              </label>
            ))}
          </fieldset>
        </div>
      </fieldset>
      {failure && (
        <p id={`${id}-failure`} className="form-error" role="alert" tabIndex={-1}>
          {failure}
        </p>
      )}
      <div className="admin-action-row">
        <button type="submit" className="btn" disabled={busy}>
          {c ? 'Save changes' : 'Create code'}
        </button>
      </div>
    </form>
  );
}
