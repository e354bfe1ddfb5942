import { useState } from 'react';
import type { DiscountStatus } from '@/features/discounts/discounts';
import { notifyOnNextPage } from '@/features/toasts/next-page-toast';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import Confirm from '../Confirm';
import { type CodeState, type DiscountChangeAnswer, STATUS_MOVES } from './discounts-admin';

interface Props {
  id: string;
  code: string;
  status: DiscountStatus;
  /** Where the code stands now (its status, or what its dates and limit make of it). */
  state: CodeState;
}

const WHAT_IT_DOES: Record<DiscountStatus, string> = {
  paused: 'Shoppers who type it are told it is paused, until you resume it. Uses already held still count.',
  active: 'Shoppers can use it again, within its dates and limits.',
  ended: 'Shoppers who type it are told it has ended. An ended code cannot be resumed or changed; orders keep it.',
};

/**
 * A code's state and what the owner can do with it: pause it, resume it, or end it for good. Each asks for confirmation
 * first, saying what it does; a change reloads the page (every card shows the code as it is) and says so there.
 */
export default function CodeStatus(props: Props) {
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<DiscountStatus | null>(null);

  async function move(to: DiscountStatus) {
    setPending(null);
    setBusy(true);
    const r = await api<DiscountChangeAnswer>(`/api/admin/discounts/${props.id}/status`, { to });
    setBusy(false);
    if (!r.ok) return notify.failure(`${STATUS_MOVES[to].verb} failed`, r);
    if (!r.data.changed) return notify.info(r.data.message);
    notifyOnNextPage('success', r.data.message);
    window.location.reload();
  }

  const moves: DiscountStatus[] =
    props.status === 'active' ? ['paused', 'ended'] : props.status === 'paused' ? ['active', 'ended'] : [];

  return (
    <div>
      <p className="discount-status-line">
        <span className={`discount-state discount-state-${props.state.toLowerCase().replace(' ', '-')}`}>{props.state}</span>
        {props.state !== 'Paused' && props.state !== 'Ended' && props.status === 'active' && props.state !== 'Active' && (
          <span className="admin-note">(its dates or limit decide; it is not paused)</span>
        )}
      </p>
      {moves.length > 0 ? (
        <div className="admin-action-row">
          {moves.map((to) => (
            <button
              key={to}
              type="button"
              className={to === 'ended' ? 'btn btn-outline' : 'btn'}
              disabled={busy}
              onClick={() => setPending(to)}
            >
              {STATUS_MOVES[to].verb} {props.code}
            </button>
          ))}
        </div>
      ) : (
        <p className="admin-note">Ended is final: the code cannot be used or changed.</p>
      )}
      {pending && (
        <Confirm
          title={`${STATUS_MOVES[pending].verb} code ${props.code}?`}
          confirmLabel={`${STATUS_MOVES[pending].verb} ${props.code}`}
          keepLabel="Keep it as it is"
          onConfirm={() => move(pending)}
          onKeep={() => setPending(null)}
        >
          <p>{WHAT_IT_DOES[pending]}</p>
        </Confirm>
      )}
    </div>
  );
}
