import { type SubmitEvent, useId, useRef, useState } from 'react';
import FormError from '@/components/FormError';
import { FINAL_SALE } from '@/features/catalogue/final-sale';
import { notifyOnNextPage } from '@/features/toasts/next-page-toast';
import { api, failureText } from '@/lib/api';
import {
  MAX_RETURN_TEXT,
  REASON_KEYS,
  RETURN_REASONS,
  type ReturnableLine,
  type ReturnKind,
  type ReturnReason,
  requestProblem,
  unitsLeft,
  type Variant,
} from './returns';

interface ReturnRequestProps {
  orderId: string;
  /** The order link's token, on a guest's order page (the server checks it again). */
  token: string | null;
  lines: ReturnableLine[];
}

/**
 * The shopper's return form on an order's page: their money back, or another colour or size (an exchange, for lines
 * that come in others); which items and how many, a reason from the list and an optional note. Closed until asked
 * for. The form keeps one key for its life, so a double click or a retry records one return; the server checks
 * everything again (the window, final sale, what is left, the colour and size). Once recorded, the page reloads to
 * show the return where it stands.
 */
export default function ReturnRequest({ orderId, token, lines }: ReturnRequestProps) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<ReturnKind>('return');
  const [chosen, setChosen] = useState<Record<string, number>>({});
  const [wanted, setWanted] = useState<Record<string, Variant>>({});
  const [reason, setReason] = useState<ReturnReason | ''>('');
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const key = useRef<string | null>(null);
  const exchangeable = lines.some((l) => l.options && unitsLeft(l) > 0);
  /** Units of a line that can be chosen now: none of one that comes in one kind when exchanging. */
  const leftOf = (line: ReturnableLine) => (kind === 'exchange' && !line.options ? 0 : unitsLeft(line));
  /** The colour and size a line was bought in: where an exchange's choice starts. */
  const bought = (line: ReturnableLine): Variant => ({ color: line.color, size: line.size });

  async function submit(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const items = lines
      .filter((l) => chosen[l.itemId] !== undefined && leftOf(l) > 0)
      .map((l) => ({
        itemId: l.itemId,
        quantity: chosen[l.itemId] ?? 1,
        ...(kind === 'exchange' ? { exchangeFor: wanted[l.itemId] ?? bought(l) } : {}),
      }));
    const problem = requestProblem(lines, items, kind) ?? (reason ? null : 'Choose a reason for the return.');
    setError(problem);
    if (problem || !reason) return;
    key.current ??= crypto.randomUUID();
    setSending(true);
    const result = await api<{ return: { number: string } }>('/api/returns', {
      orderId,
      ...(token ? { token } : {}),
      key: key.current,
      kind,
      reason,
      ...(comment.trim() ? { comment: comment.trim() } : {}),
      items,
    });
    setSending(false);
    if (!result.ok) {
      setError(failureText(result, result.status === 409 ? result.message : 'Your request could not be sent. Please try again.'));
      return;
    }
    notifyOnNextPage('success', `${kind === 'exchange' ? 'Exchange' : 'Return'} ${result.data.return.number} requested`, {
      description: 'We have e-mailed you a confirmation and will let you know the next step.',
    });
    window.location.reload();
  }

  const choose = (itemId: string, quantity: number | null) =>
    setChosen((now) => {
      const next = { ...now };
      if (quantity === null) delete next[itemId];
      else next[itemId] = quantity;
      return next;
    });
  const want = (line: ReturnableLine, change: Partial<Variant>) =>
    setWanted((now) => ({ ...now, [line.itemId]: { ...(now[line.itemId] ?? bought(line)), ...change } }));

  if (!open)
    return (
      <button type="button" className="btn btn-outline return-open" onClick={() => setOpen(true)}>
        Return items
      </button>
    );

  return (
    <form className="return-form" onSubmit={submit} noValidate aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Return items</h3>
      {exchangeable && (
        <fieldset className="return-kind">
          <legend>What would you like?</legend>
          <label>
            <input type="radio" name={`${id}-kind`} checked={kind === 'return'} onChange={() => setKind('return')} /> My money
            back
          </label>
          <label>
            <input type="radio" name={`${id}-kind`} checked={kind === 'exchange'} onChange={() => setKind('exchange')} /> Another
            colour or size
          </label>
        </fieldset>
      )}
      <fieldset className="return-lines">
        <legend>{kind === 'exchange' ? 'What are you exchanging?' : 'What are you returning?'}</legend>
        {lines.map((line) => {
          const left = leftOf(line);
          const picked = left > 0 ? chosen[line.itemId] : undefined;
          const swap = wanted[line.itemId] ?? bought(line);
          const name = `${line.name}${line.variant ? ` (${line.variant})` : ''}`;
          return (
            <div className="return-line" key={line.itemId}>
              <label>
                <input
                  type="checkbox"
                  disabled={left === 0}
                  checked={picked !== undefined}
                  onChange={(e) => choose(line.itemId, e.target.checked ? 1 : null)}
                />{' '}
                {name}
              </label>
              {left === 0 && (
                <span className="return-note">
                  {line.finalSale
                    ? FINAL_SALE.line
                    : unitsLeft(line) > 0
                      ? 'Comes in one kind only'
                      : 'Already being returned or refunded'}
                </span>
              )}
              {picked !== undefined && left > 1 && (
                <label className="return-quantity">
                  How many{' '}
                  <select value={picked} onChange={(e) => choose(line.itemId, Number(e.target.value))}>
                    {Array.from({ length: left }, (_, i) => i + 1).map((n) => (
                      <option key={n} value={n}>
                        {n}
                      </option>
                    ))}
                  </select>
                </label>
              )}
              {kind === 'exchange' && picked !== undefined && line.options && (
                <div className="return-swap">
                  {line.options.colors.length > 0 && (
                    <label>
                      New colour{' '}
                      <select value={swap.color} onChange={(e) => want(line, { color: e.target.value })}>
                        {line.options.colors.map((c) => (
                          <option key={c.value} value={c.value}>
                            {c.name}
                          </option>
                        ))}
                      </select>
                    </label>
                  )}
                  {line.options.sizes.length > 0 && (
                    <label>
                      New size{' '}
                      <select value={swap.size} onChange={(e) => want(line, { size: e.target.value })}>
                        {line.options.sizes.map((size) => (
                          <option key={size} value={size}>
                            {size}
                          </option>
                        ))}
                      </select>
                    </label>
                  )}
                </div>
              )}
            </div>
          );
        })}
      </fieldset>
      <div className="field">
        <label htmlFor={`${id}-reason`}>Reason</label>
        <select id={`${id}-reason`} value={reason} onChange={(e) => setReason(e.target.value as ReturnReason | '')}>
          <option value="">Choose a reason</option>
          {REASON_KEYS.map((r) => (
            <option key={r} value={r}>
              {RETURN_REASONS[r]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-comment`}>Anything we should know? (optional)</label>
        <textarea
          id={`${id}-comment`}
          rows={3}
          maxLength={MAX_RETURN_TEXT}
          value={comment}
          onChange={(e) => setComment(e.target.value)}
        />
      </div>
      <FormError text={error} />
      <div className="return-form-actions">
        <button type="submit" className="btn" disabled={sending}>
          {sending ? 'Sending…' : kind === 'exchange' ? 'Request exchange' : 'Request return'}
        </button>
        <button type="button" className="btn btn-outline" disabled={sending} onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
