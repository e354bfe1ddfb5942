import { useStore } from '@nanostores/react';
import { type SubmitEvent, useEffect, useId, useRef, useState } from 'react';
import type { CartLine } from '../cart/cart';
import { discountLines, type OrderDiscount } from '../orders/discount-lines';
import {
  $discount,
  $discountCode,
  $discountInfo,
  answerFor,
  applyCode,
  clearDiscountMessage,
  type DiscountSummary,
  loadDiscountInfo,
  needsCheck,
  recheck,
  removeCode,
  settled,
} from './discount.store';
import './discount-field.css';

/** How long the cart rests before its discounts are asked again (a run of taps on + asks once). */
const RECHECK_PAUSE_MS = 250;

/**
 * The server's discounts for the drawer's cart: asked when the drawer opens and again whenever the cart or the code
 * changes while it is open. `discount` is null while there are none, or no answer yet for this cart; `pending` says
 * the answer is awaited, so the totals are not shown without a discount the server is about to give. An emptied cart
 * forgets the code.
 */
export function useDiscount(
  lines: readonly CartLine[],
  subtotalCents: number,
  open: boolean,
): { discount: DiscountSummary | null; pending: boolean } {
  const code = useStore($discountCode);
  const state = useStore($discount);
  const info = useStore($discountInfo);
  useEffect(() => {
    if (open) void loadDiscountInfo();
  }, [open]);
  // The code, the offer and the answer's cart are read by recheck: a change of any asks again (an Apply answered for a
  // cart that has changed since is asked again for the cart as it is).
  // biome-ignore lint/correctness/useExhaustiveDependencies: recheck reads them from the stores.
  useEffect(() => {
    if (lines.length === 0) {
      void recheck(lines, subtotalCents);
      return;
    }
    if (!open) return;
    const timer = setTimeout(() => void recheck(lines, subtotalCents), RECHECK_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [lines, subtotalCents, open, code, info, state.key]);
  const discount = answerFor(state, lines, code);
  return { discount, pending: !discount && needsCheck(code, subtotalCents, info) && !settled(state, lines, code) };
}

/** An applied discount's lines (the automatic offer's, the code's), between the subtotal and the shipping. */
export function DiscountRows({ discount, testId }: { discount: OrderDiscount | null; testId: string }) {
  return (
    <>
      {discountLines(discount).map((line) => (
        <p key={line.key} className="cart-row cart-discount" data-testid={`${testId}-${line.key}`}>
          <span>{line.label}</span>
          <span>{line.amount}</span>
        </p>
      ))}
    </>
  );
}

export interface DiscountFieldProps {
  lines: readonly CartLine[];
  subtotalCents: number;
}

/**
 * The "Discount code" field: folded away until the shopper opens it (a phone's drawer has little room), Apply sends
 * the code to the server, which says what it takes off or, in words, why it cannot be used. An applied code shows with
 * Remove. The rule of how a code meets the automatic offer is printed under the field (and under an applied code while
 * the offer is on).
 */
export default function DiscountField({ lines, subtotalCents }: DiscountFieldProps) {
  const code = useStore($discountCode);
  const state = useStore($discount);
  const { rule, offer } = useStore($discountInfo);
  const [typed, setTyped] = useState('');
  const [open, setOpen] = useState(false);
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const message = state.message;
  const messageId = `${id}-message`;
  const ruleId = `${id}-rule`;
  const applied = answerFor(state, lines, code);

  // A refusal opens the field, so the shopper sees the message beside what they typed.
  useEffect(() => {
    if (message?.kind === 'refused' && !code) setOpen(true);
  }, [message, code]);

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    if (!typed.trim() || state.checking) return;
    if (await applyCode(typed, lines)) setTyped('');
    else input.current?.focus();
  }

  const said = message && (
    <p
      id={messageId}
      className={message.kind === 'notice' ? 'cart-note discount-message' : 'form-error discount-message'}
      role={message.kind === 'notice' ? 'status' : 'alert'}
    >
      {message.text}
    </p>
  );

  if (code) {
    return (
      <div className="discount-field">
        <p className="discount-applied">
          <span>
            Code <strong>{code}</strong>
            {state.checking ? ' · checking…' : applied?.code === code ? ' applied' : ''}
          </span>
          <button type="button" className="link-button" onClick={() => void removeCode(lines, subtotalCents)}>
            Remove<span className="visually-hidden"> code {code}</span>
          </button>
        </p>
        {said}
        {/* With a code applied, the rule matters only when there is an offer for it to meet (a phone has little room). */}
        {offer && <p className="discount-rule">{rule}</p>}
      </div>
    );
  }

  return (
    <div className="discount-field">
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>Add a discount code</summary>
        <form className="discount-form" noValidate onSubmit={submit} aria-label="Discount code">
          <label htmlFor={`${id}-code`}>Discount code</label>
          <div className="discount-row">
            <input
              ref={input}
              id={`${id}-code`}
              name="discountCode"
              type="text"
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              enterKeyHint="go"
              maxLength={64}
              value={typed}
              aria-invalid={message?.kind === 'refused' || undefined}
              aria-describedby={[message ? messageId : '', rule ? ruleId : ''].join(' ').trim() || undefined}
              onChange={(e) => {
                setTyped(e.target.value);
                clearDiscountMessage();
              }}
            />
            <button type="submit" className="btn btn-outline" disabled={state.checking || !typed.trim()}>
              {state.checking ? 'Checking…' : 'Apply'}
            </button>
          </div>
          {rule && (
            <p id={ruleId} className="discount-rule">
              {rule}
            </p>
          )}
        </form>
      </details>
      {said}
    </div>
  );
}
