import { type SubmitEvent, useId, useState } from 'react';
import { formatPrice } from '@/features/catalogue/catalogue';
import { STATUS_LABELS, type StatusKey } from '@/features/orders/orders';
import { notifyOnNextPage } from '@/features/toasts/next-page-toast';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import Confirm from '../Confirm';
import { dollarsToCents, NEXT_ACTION, type OrderActionAnswer, restockOffered } from './order-admin';

interface OrderActionsProps {
  orderId: string;
  number: string;
  status: StatusKey;
  totalCents: number;
  refundedCents: number;
  /**
   * What the order took from the stock counts ('2 × Clinical Scrubs (Blue, M)') and whether it has been put back; null
   * when none of its items were counted.
   */
  stock: { items: string; returned: boolean } | null;
}

type Pending =
  | { kind: 'refund'; cents: number }
  | { kind: 'cancel' }
  | { kind: 'status'; to: StatusKey; label: string }
  | { kind: 'restock' };

/**
 * An order's status and what the admin can do to it: move it on (Mark shipped, Mark delivered), refund it, or cancel
 * it with a refund while it has not shipped. Every one of them asks for confirmation first, stating what it does (the
 * amount, the customer's e-mail). An answer that changed the order reloads the page, so every card shows the order as
 * it is, and says what happened in a toast there; the server makes a repeated click harmless, and the buttons are
 * disabled while a request is on its way.
 */
export default function OrderActions(props: OrderActionsProps) {
  const [status, setStatus] = useState(props.status);
  const [refunded, setRefunded] = useState(props.refundedCents);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Pending | null>(null);
  const left = props.totalCents - refunded;
  // Empty, not the total: an amount is typed, or 'Refund in full' chosen, so one Enter never refunds everything.
  const [amount, setAmount] = useState('');
  const [amountError, setAmountError] = useState<string | null>(null);
  const amountId = useId();
  const next = NEXT_ACTION[status];
  // Whether the items go back in stock with a refund or a cancellation: the owner decides in the confirmation.
  const canRestock = props.stock !== null && !props.stock.returned;
  const [restock, setRestock] = useState(false);

  async function act(path: 'status' | 'refund' | 'cancel' | 'restock', body: unknown, failure: string) {
    setBusy(true);
    const r = await api<OrderActionAnswer>(`/api/admin/orders/${props.orderId}/${path}`, body);
    setBusy(false);
    if (!r.ok) {
      notify.failure(failure, r);
      return;
    }
    if (r.data.changed) {
      // Every card of the page (payment, refunds, jobs, the label) is rendered from the order as it is now: reloaded,
      // none of them can still show what was true before. The answer is said on the reloaded page.
      notifyOnNextPage('success', r.data.message);
      window.location.reload();
      return;
    }
    setStatus(r.data.status);
    setRefunded(r.data.refundedCents);
    notify.info(r.data.message);
  }

  function askRefund(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const cents = dollarsToCents(amount);
    if (cents === null) return setAmountError('Enter an amount in dollars, such as 12.50.');
    if (cents > left) return setAmountError(`At most ${formatPrice(left)} is left to refund.`);
    setAmountError(null);
    ask({ kind: 'refund', cents });
  }

  function ask(next: Pending) {
    // Cancelling an order that has not shipped usually leaves its items on the shelf; a refund usually does not.
    setRestock(next.kind === 'cancel');
    setPending(next);
  }

  function confirmed() {
    if (!pending) return;
    setPending(null);
    const withStock = canRestock && restock ? { restock: true } : {};
    if (pending.kind === 'cancel') return act('cancel', withStock, 'Cancel failed');
    if (pending.kind === 'restock') return act('restock', {}, 'Putting the items back failed');
    if (pending.kind === 'status') return act('status', { from: status, to: pending.to }, 'Status change failed');
    // All that is left goes as "the rest", so a second click asks the processor for the same refund.
    return act('refund', { ...(pending.cents === left ? {} : { amountCents: pending.cents }), ...withStock }, 'Refund failed');
  }

  const restockChoice = canRestock && (
    <label className="admin-check">
      <input type="checkbox" checked={restock} onChange={(e) => setRestock(e.target.checked)} />
      Put {props.stock?.items} back in stock
    </label>
  );

  return (
    <div className="admin-order-actions">
      <p className="admin-order-state">
        <span>Status</span> <span className={`admin-status admin-status-${status}`}>{STATUS_LABELS[status]}</span>
        {refunded > 0 && (
          <span className="admin-refunded">
            {refunded >= props.totalCents ? 'Refunded in full' : `${formatPrice(refunded)} refunded`}
          </span>
        )}
      </p>
      <div className="admin-action-row">
        {next && (
          <button
            type="button"
            className="btn"
            disabled={busy}
            onClick={() => ask({ kind: 'status', to: next.to, label: next.label })}
          >
            {next.label}
          </button>
        )}
        {status === 'processing' && (
          <button type="button" className="btn btn-outline" disabled={busy} onClick={() => ask({ kind: 'cancel' })}>
            Cancel and refund
          </button>
        )}
        {!next && <p className="admin-note">{STATUS_LABELS[status]} is final: the status cannot change.</p>}
      </div>
      {props.stock &&
        (props.stock.returned ? (
          <p className="admin-note">{props.stock.items}: back in stock.</p>
        ) : (
          // Offered only once the order is cancelled or refunded: on a live order it sat beside Mark shipped.
          restockOffered(status, refunded) && (
            <div className="admin-action-row">
              <button type="button" className="btn btn-outline" disabled={busy} onClick={() => ask({ kind: 'restock' })}>
                Put the items back in stock
              </button>
            </div>
          )
        ))}
      {left > 0 ? (
        <form className="admin-refund" onSubmit={askRefund} noValidate>
          <div className="field">
            <label htmlFor={amountId}>Refund amount (USD)</label>
            <input
              id={amountId}
              inputMode="decimal"
              autoComplete="off"
              value={amount}
              aria-invalid={amountError ? true : undefined}
              aria-describedby={amountError ? `${amountId}-error` : `${amountId}-hint`}
              onChange={(e) => setAmount(e.target.value)}
            />
            {amountError ? (
              <p id={`${amountId}-error`} className="form-error" role="alert">
                {amountError}
              </p>
            ) : (
              <p id={`${amountId}-hint`} className="admin-note">
                {formatPrice(left)} left to refund.
              </p>
            )}
          </div>
          <div className="admin-action-row">
            <button type="submit" className="btn btn-outline" disabled={busy}>
              Refund
            </button>
            <button
              type="button"
              className="btn btn-outline"
              disabled={busy}
              onClick={() => {
                setAmountError(null);
                ask({ kind: 'refund', cents: left });
              }}
            >
              Refund in full ({formatPrice(left)})
            </button>
          </div>
        </form>
      ) : (
        <p className="admin-note">Nothing is left to refund.</p>
      )}
      {pending?.kind === 'status' && (
        <Confirm
          title={`${pending.label}: ${props.number}?`}
          confirmLabel={pending.label}
          keepLabel="Not yet"
          onConfirm={confirmed}
          onKeep={() => setPending(null)}
        >
          <p>
            {pending.to === 'shipped'
              ? 'The customer is e-mailed that the order is on its way, with its tracking number. This cannot be undone.'
              : `The order is marked ${STATUS_LABELS[pending.to]}. This cannot be undone.`}
          </p>
        </Confirm>
      )}
      {pending?.kind === 'restock' && (
        <Confirm
          title={`Put ${props.number}’s items back in stock?`}
          confirmLabel="Put them back"
          keepLabel="Not now"
          onConfirm={confirmed}
          onKeep={() => setPending(null)}
        >
          <p>{props.stock?.items} go back on the counts, and shoppers can buy them again. This is done once per order.</p>
        </Confirm>
      )}
      {pending && (pending.kind === 'refund' || pending.kind === 'cancel') && (
        <Confirm
          title={pending.kind === 'cancel' ? `Cancel ${props.number}?` : `Refund ${formatPrice(pending.cents)}?`}
          confirmLabel={pending.kind === 'cancel' ? 'Cancel and refund' : `Refund ${formatPrice(pending.cents)}`}
          keepLabel={pending.kind === 'cancel' ? 'Keep the order' : 'Keep the payment'}
          onConfirm={confirmed}
          onKeep={() => setPending(null)}
        >
          {pending.kind === 'cancel' ? (
            <p>
              {left > 0 ? `${formatPrice(left)} goes back to the customer’s card, then` : 'Then'} the order is cancelled. This
              cannot be undone.
            </p>
          ) : (
            <p>{formatPrice(pending.cents)} goes back to the customer’s card. This cannot be undone.</p>
          )}
          {restockChoice}
        </Confirm>
      )}
    </div>
  );
}
