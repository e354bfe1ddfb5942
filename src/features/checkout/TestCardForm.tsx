import { type SubmitEvent, useEffect, useId, useRef, useState } from 'react';
import { type ApiResult, api } from '@/lib/api';
import {
  type CardField,
  cardDigits,
  cardProblem,
  formatCardNumber,
  formatExpiry,
  parseExpiry,
  TEST_CARDS,
} from '@/server/payments/test-cards';
import { formatPrice } from '../catalogue/catalogue';
import type { CardFormProps } from './card-form';
import { CHECKOUT_MESSAGES } from './checkout';
import './test-card-form.css';

interface ConfirmAnswer {
  status: 'requires_payment_method' | 'requires_action' | 'processing' | 'succeeded' | 'canceled';
  error?: string;
  field?: CardField;
  nextAction?: 'authenticate';
}

const NETWORK_FAILURE = CHECKOUT_MESSAGES.paymentProcessingFailed;

const spaced = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, '$1 ');

/**
 * The embedded test processor's card form, labelled TEST MODE: no real card is charged. It follows Stripe's test
 * cards (listed in the hint) and their messages, and shows a simple 3-D Secure challenge for 4000 0025 0000 3155.
 */
export default function TestCardForm({
  clientSecret,
  amountCents,
  onResult,
  onProcessing,
  beforePay,
  disabled = false,
}: CardFormProps) {
  const id = useId();
  const [fields, setFields] = useState({ number: '', expiry: '', cvc: '', postalCode: '' });
  const [fieldError, setFieldError] = useState<{ field: CardField; message: string } | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [stage, setStage] = useState<'card' | 'challenge'>('card');
  const [busy, setBusy] = useState(false);
  const inputs = useRef<Partial<Record<CardField, HTMLInputElement | null>>>({});
  const challengeTitle = useRef<HTMLHeadingElement>(null);

  // The challenge replaces the form: move focus to it so keyboard and screen-reader users land on the question.
  useEffect(() => {
    if (stage === 'challenge') challengeTitle.current?.focus();
  }, [stage]);

  function fail(message: string, reason: 'card' | 'network', field?: CardField) {
    // A problem with one field is said next to it; the rest (declines, failed requests) under the form.
    if (field) {
      setFieldError({ field, message });
      inputs.current[field]?.focus();
    } else setFormError(reason === 'card' ? CHECKOUT_MESSAGES.paymentFailed(message) : message);
    onResult({ status: 'failed', message, reason });
  }

  function handle(r: ApiResult<ConfirmAnswer>) {
    if (!r.ok) {
      // A rate limit says what to do; any other failed request gets the spec's general message.
      fail(r.status === 429 ? r.message : NETWORK_FAILURE, 'network');
      setStage('card');
      return;
    }
    const answer = r.data;
    if (answer.status === 'succeeded') {
      onResult({ status: 'succeeded' });
      return;
    }
    if (answer.status === 'requires_action' && answer.nextAction === 'authenticate') {
      setStage('challenge');
      onResult({ status: 'requires_action' });
      return;
    }
    setStage('card');
    fail(answer.error ?? NETWORK_FAILURE, answer.error ? 'card' : 'network', answer.field);
  }

  async function submit(e: SubmitEvent) {
    e.preventDefault();
    if (busy || disabled) return;
    setFormError(null);
    const card = { number: fields.number, ...parseExpiry(fields.expiry), cvc: fields.cvc, postalCode: fields.postalCode };
    const problem = cardProblem(card);
    setFieldError(problem);
    if (problem) {
      inputs.current[problem.field]?.focus();
      return;
    }
    setBusy(true);
    // The items are held again first: when they cannot be, the card is never charged.
    const refused = await beforePay?.();
    if (refused) {
      setBusy(false);
      setFormError(refused);
      return;
    }
    onProcessing?.();
    const r = await api<ConfirmAnswer>('/api/test-payments/confirm', {
      clientSecret,
      number: cardDigits(card.number),
      expMonth: card.expMonth,
      expYear: card.expYear,
      cvc: card.cvc.trim(),
      ...(card.postalCode.trim() ? { postalCode: card.postalCode.trim() } : {}),
    });
    setBusy(false);
    handle(r);
  }

  async function authenticate(approve: boolean) {
    if (busy) return;
    setBusy(true);
    onProcessing?.();
    const r = await api<ConfirmAnswer>('/api/test-payments/authenticate', { clientSecret, approve });
    setBusy(false);
    handle(r);
  }

  const errorId = (field: CardField) => `${id}-${field}-error`;
  const fieldProps = (field: CardField) => {
    const invalid = fieldError?.field === field;
    return {
      id: `${id}-${field}`,
      ref: (el: HTMLInputElement | null) => {
        inputs.current[field] = el;
      },
      'aria-invalid': invalid || undefined,
      'aria-describedby': invalid ? errorId(field) : undefined,
      disabled: busy || disabled,
    };
  };
  const fieldMessage = (field: CardField) =>
    fieldError?.field === field ? (
      <p id={errorId(field)} className="form-error test-card-field-error" role="alert">
        {fieldError.message}
      </p>
    ) : null;

  if (stage === 'challenge') {
    return (
      <section className="test-card-form test-card-challenge" aria-labelledby={`${id}-challenge`}>
        <p className="test-card-badge">TEST MODE</p>
        <h3 id={`${id}-challenge`} ref={challengeTitle} tabIndex={-1}>
          Authentication required
        </h3>
        <p>Your bank asks you to confirm this payment of {formatPrice(amountCents)}. This is a test: choose an outcome.</p>
        <div className="test-card-challenge-actions">
          <button type="button" className="btn" onClick={() => authenticate(true)} disabled={busy}>
            Complete authentication
          </button>
          <button type="button" className="btn btn-outline" onClick={() => authenticate(false)} disabled={busy}>
            Fail authentication
          </button>
        </div>
      </section>
    );
  }

  return (
    <form className="test-card-form" onSubmit={submit} noValidate aria-describedby={`${id}-hint`}>
      <p className="test-card-badge">TEST MODE</p>
      <div id={`${id}-hint`} className="test-card-hint">
        <p>No real card is charged. Use any future expiry date and any 3-digit CVC with one of these cards:</p>
        <ul>
          {TEST_CARDS.map((card) => (
            <li key={card.number}>
              <code>{spaced(card.number)}</code> {card.label}
            </li>
          ))}
        </ul>
      </div>

      <div className="field">
        <label htmlFor={`${id}-number`}>Card number</label>
        <input
          {...fieldProps('number')}
          type="text"
          inputMode="numeric"
          autoComplete="cc-number"
          placeholder="1234 1234 1234 1234"
          maxLength={23}
          value={fields.number}
          onChange={(e) => setFields((f) => ({ ...f, number: formatCardNumber(e.target.value) }))}
        />
        {fieldMessage('number')}
      </div>

      <div className="test-card-row">
        <div className="field">
          <label htmlFor={`${id}-expiry`}>Expiry (MM/YY)</label>
          <input
            {...fieldProps('expiry')}
            type="text"
            inputMode="numeric"
            autoComplete="cc-exp"
            placeholder="MM / YY"
            maxLength={7}
            value={fields.expiry}
            onChange={(e) => setFields((f) => ({ ...f, expiry: formatExpiry(e.target.value) }))}
          />
          {fieldMessage('expiry')}
        </div>
        <div className="field">
          <label htmlFor={`${id}-cvc`}>CVC</label>
          <input
            {...fieldProps('cvc')}
            type="text"
            inputMode="numeric"
            autoComplete="cc-csc"
            placeholder="123"
            maxLength={4}
            value={fields.cvc}
            onChange={(e) => setFields((f) => ({ ...f, cvc: e.target.value.replace(/\D/g, '') }))}
          />
          {fieldMessage('cvc')}
        </div>
        <div className="field">
          <label htmlFor={`${id}-postalCode`}>
            ZIP <span className="test-card-optional">(optional)</span>
          </label>
          <input
            {...fieldProps('postalCode')}
            type="text"
            inputMode="numeric"
            autoComplete="billing postal-code"
            maxLength={10}
            value={fields.postalCode}
            onChange={(e) => setFields((f) => ({ ...f, postalCode: e.target.value }))}
          />
          {fieldMessage('postalCode')}
        </div>
      </div>

      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}

      <button type="submit" className="btn card-pay" disabled={busy || disabled}>
        {busy ? 'Processing…' : `Pay ${formatPrice(amountCents)}`}
      </button>
    </form>
  );
}
