import { type SubmitEvent, useId, useState } from 'react';
import FormError from '@/components/FormError';
import { formatPrice } from '@/features/catalogue/catalogue';
import { type ReturnKind, type ReturnStatus, returnRefund } from '@/features/returns/returns';
import { notifyOnNextPage } from '@/features/toasts/next-page-toast';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import Confirm from '../Confirm';

interface ReturnActionsProps {
  returnId: string;
  number: string;
  kind: ReturnKind;
  status: ReturnStatus;
  customerEmail: string;
  items: {
    itemId: string;
    name: string;
    variant: string | null;
    quantity: number;
    condition: string | null;
    exchangeFor: string | null;
  }[];
  /** The refund the server proposes (received returns), or null. */
  proposal: {
    goodsCents: number;
    taxCents: number;
    linesCents: number;
    shippingLeftCents: number;
    leftCents: number;
    problem: string | null;
  } | null;
  /** A refund asked of the processor whose answer was not recorded: its amount. */
  refundingCents: number | null;
}

type Pending =
  | { kind: 'approve' }
  | { kind: 'decline'; reason: string }
  | { kind: 'refund'; cents: number }
  | { kind: 'exchange' };

type Condition = 'resellable' | 'damaged';

/**
 * What the owner does to a return, by where it stands: approve it (the customer is e-mailed a return label) or
 * decline it with a reason; mark its lines received, each resellable (back in stock) or damaged; refund it, the
 * shipping only when ticked. Each asks for confirmation where the customer is told or paid. An answer that changed
 * the return reloads the page, which says what happened; the server makes a repeated click harmless.
 */
export default function ReturnActions(props: ReturnActionsProps) {
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Pending | null>(null);
  const [declining, setDeclining] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [conditions, setConditions] = useState<Record<string, Condition | ''>>({});
  const [shipping, setShipping] = useState(false);
  const waiting = props.items.filter((i) => i.condition === null);
  const p = props.proposal;
  const money = p
    ? returnRefund({
        linesCents: p.linesCents,
        includeShipping: shipping,
        shippingLeftCents: p.shippingLeftCents,
        leftCents: p.leftCents,
      })
    : null;

  async function act(path: 'approve' | 'decline' | 'receive' | 'refund' | 'exchange', body: unknown, failure: string) {
    setBusy(true);
    const r = await api<{ changed: boolean; message: string }>(`/api/admin/returns/${props.returnId}/${path}`, body);
    setBusy(false);
    if (!r.ok) {
      notify.failure(failure, r);
      return;
    }
    if (r.data.changed) {
      notifyOnNextPage('success', r.data.message);
      window.location.reload();
      return;
    }
    notify.info(r.data.message);
  }

  function askDecline(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!reason.trim()) return setError('Say why: the customer is e-mailed your reason.');
    setError(null);
    setPending({ kind: 'decline', reason: reason.trim() });
  }

  function receive(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const items = waiting.flatMap((i) => (conditions[i.itemId] ? [{ itemId: i.itemId, condition: conditions[i.itemId] }] : []));
    if (items.length === 0) return setError('Choose how at least one line came back.');
    setError(null);
    void act('receive', { items }, 'Marking received failed');
  }

  function confirmed() {
    if (!pending) return;
    setPending(null);
    if (pending.kind === 'approve') return act('approve', {}, 'Approving failed');
    if (pending.kind === 'decline') return act('decline', { reason: pending.reason }, 'Declining failed');
    if (pending.kind === 'exchange') return act('exchange', {}, 'Sending the replacement failed');
    return act('refund', shipping ? { shipping: true } : {}, 'Refund failed');
  }

  const canDecline = props.status === 'requested' || props.status === 'approved';

  return (
    <div className="admin-order-actions">
      {props.status === 'requested' && (
        <div className="admin-action-row">
          <button type="button" className="btn" disabled={busy} onClick={() => setPending({ kind: 'approve' })}>
            Approve and send a label
          </button>
        </div>
      )}
      {props.status === 'approved' && waiting.length > 0 && (
        <form className="admin-return-form" onSubmit={receive} noValidate aria-labelledby={`${id}-receive`}>
          <h3 id={`${id}-receive`}>Items received</h3>
          {waiting.map((i) => (
            <div className="admin-return-item" key={i.itemId}>
              <label htmlFor={`${id}-${i.itemId}`}>
                {i.quantity} × {i.name}
                {i.variant && ` (${i.variant})`}
              </label>
              <select
                id={`${id}-${i.itemId}`}
                value={conditions[i.itemId] ?? ''}
                onChange={(e) => setConditions((c) => ({ ...c, [i.itemId]: e.target.value as Condition | '' }))}
              >
                <option value="">Not here yet</option>
                <option value="resellable">Resellable: back in stock</option>
                <option value="damaged">Damaged: not back in stock</option>
              </select>
            </div>
          ))}
          <div className="admin-action-row">
            <button type="submit" className="btn" disabled={busy}>
              Mark received
            </button>
          </div>
        </form>
      )}
      {props.status === 'received' && props.kind === 'exchange' && (
        <div className="admin-return-form">
          <h3>Replacement</h3>
          <p className="admin-note">
            A $0 order for{' '}
            {props.items
              .filter((i) => i.exchangeFor)
              .map((i) => `${i.quantity} × ${i.name} (${i.exchangeFor})`)
              .join(', ')}
            , to where the order went: its stock is set aside as for any order.
          </p>
          <div className="admin-action-row">
            <button type="button" className="btn" disabled={busy} onClick={() => setPending({ kind: 'exchange' })}>
              Send the replacement
            </button>
          </div>
        </div>
      )}
      {props.status === 'received' && p && money && (
        <div className="admin-return-form">
          <h3>{props.kind === 'exchange' ? 'Or refund it instead' : 'Refund'}</h3>
          {p.problem ? (
            <p className="form-error">{p.problem}</p>
          ) : (
            <>
              <dl className="admin-totals">
                <dt>Items, less their share of any discount</dt>
                <dd>{formatPrice(p.goodsCents)}</dd>
                <dt>Their tax</dt>
                <dd>{formatPrice(p.taxCents)}</dd>
                {shipping && (
                  <>
                    <dt>Shipping</dt>
                    <dd>{formatPrice(money.shippingCents)}</dd>
                  </>
                )}
              </dl>
              {p.shippingLeftCents > 0 && (
                <label className="admin-check">
                  <input type="checkbox" checked={shipping} onChange={(e) => setShipping(e.target.checked)} /> Refund the order’s
                  shipping too ({formatPrice(p.shippingLeftCents)})
                </label>
              )}
              {money.capped && (
                <p className="admin-note">Only {formatPrice(p.leftCents)} is left to refund of this order: that is the most.</p>
              )}
              <div className="admin-action-row">
                <button
                  type="button"
                  className="btn"
                  disabled={busy || money.amountCents <= 0}
                  onClick={() => setPending({ kind: 'refund', cents: money.amountCents })}
                >
                  {props.refundingCents
                    ? `Ask again: ${formatPrice(props.refundingCents)}`
                    : `Refund ${formatPrice(money.amountCents)}`}
                </button>
              </div>
              {props.refundingCents !== null && (
                <p className="admin-note">
                  A refund of {formatPrice(props.refundingCents)} was asked of the processor and its answer did not arrive. Asking
                  again gets that same refund: it is never made twice.
                </p>
              )}
            </>
          )}
        </div>
      )}
      {canDecline &&
        (declining ? (
          <form className="admin-return-form" onSubmit={askDecline} noValidate>
            <div className="field">
              <label htmlFor={`${id}-reason`}>Why the return is declined (the customer is e-mailed this)</label>
              <textarea id={`${id}-reason`} rows={3} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
            </div>
            <div className="admin-action-row">
              <button type="submit" className="btn btn-outline" disabled={busy}>
                Decline the return
              </button>
              <button type="button" className="btn btn-outline" onClick={() => setDeclining(false)}>
                Keep it
              </button>
            </div>
          </form>
        ) : (
          <div className="admin-action-row">
            <button type="button" className="btn btn-outline" disabled={busy} onClick={() => setDeclining(true)}>
              Decline…
            </button>
          </div>
        ))}
      <FormError text={error} />
      {pending?.kind === 'approve' && (
        <Confirm
          title={`Approve ${props.number}?`}
          confirmLabel="Approve"
          keepLabel="Not yet"
          onConfirm={confirmed}
          onKeep={() => setPending(null)}
        >
          <p>A return label is made and e-mailed to {props.customerEmail}.</p>
        </Confirm>
      )}
      {pending?.kind === 'decline' && (
        <Confirm
          title={`Decline ${props.number}?`}
          confirmLabel="Decline"
          keepLabel="Keep it"
          onConfirm={confirmed}
          onKeep={() => setPending(null)}
        >
          <p>
            {props.customerEmail} is e-mailed: “{pending.reason}”. This cannot be undone.
          </p>
        </Confirm>
      )}
      {pending?.kind === 'exchange' && (
        <Confirm
          title={`Send the replacement for ${props.number}?`}
          confirmLabel="Send it"
          keepLabel="Not yet"
          onConfirm={confirmed}
          onKeep={() => setPending(null)}
        >
          <p>A $0 order is placed for {props.customerEmail}, who is e-mailed; its label is bought as for any order.</p>
        </Confirm>
      )}
      {pending?.kind === 'refund' && (
        <Confirm
          title={`Refund ${formatPrice(props.refundingCents ?? pending.cents)}?`}
          confirmLabel={`Refund ${formatPrice(props.refundingCents ?? pending.cents)}`}
          keepLabel="Keep the payment"
          onConfirm={confirmed}
          onKeep={() => setPending(null)}
        >
          <p>It goes back to {props.customerEmail}’s card, who is e-mailed. This cannot be undone.</p>
        </Confirm>
      )}
    </div>
  );
}
