import { useState } from 'react';
import { starCount } from '@/features/catalogue/rating';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import { adminTime } from '../admin';
import type { ModerationAnswer, QueueReview, ReviewDecision, ReviewState } from './moderation';

interface Props {
  /** One page of the queue, rendered by the server: pending reviews, newest first. */
  reviews: QueueReview[];
  /** The shop's time zone (SHOP_TIME_ZONE). */
  timeZone: string;
}

const DONE: Record<ReviewDecision, { one: string; many: (n: number) => string; where: string; failed: string }> = {
  approve: {
    one: 'Review approved',
    many: (n) => `${n} reviews approved`,
    where: 'Shown on the product page now.',
    failed: 'Could not approve',
  },
  reject: {
    one: 'Review rejected',
    many: (n) => `${n} reviews rejected`,
    where: 'Shown to nobody, its author included.',
    failed: 'Could not reject',
  },
};

const STATE_TEXT: Record<Exclude<ReviewState, 'pending'>, string> = {
  approved: 'Approved: shown on the product page.',
  rejected: 'Rejected: shown to nobody.',
};

/** Ids without `ids`. */
const without = (set: ReadonlySet<string>, ids: readonly string[]) => new Set([...set].filter((id) => !ids.includes(id)));

/**
 * The review queue: approve or reject one review, or the ones ticked, through POST /api/admin/reviews. A decided review
 * stays on the page with its new state (and a button to decide the other way) until the page is loaded again.
 */
export default function ReviewQueue({ reviews, timeZone }: Props) {
  const [states, setStates] = useState<Record<string, ReviewState>>({});
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const stateOf = (id: string): ReviewState => states[id] ?? 'pending';
  const pending = reviews.filter((r) => stateOf(r.id) === 'pending').map((r) => r.id);
  const chosen = pending.filter((id) => selected.has(id) && !busy.has(id));
  const allChosen = pending.length > 0 && pending.every((id) => selected.has(id));

  async function decide(ids: string[], decision: ReviewDecision) {
    if (ids.length === 0) return;
    setBusy((b) => new Set([...b, ...ids]));
    const result = await api<ModerationAnswer>('/api/admin/reviews', { ids, decision });
    setBusy((b) => without(b, ids));
    const done = DONE[decision];
    if (!result.ok) {
      notify.failure(done.failed, result);
      return;
    }
    setStates((s) => ({ ...s, ...Object.fromEntries(result.data.reviews.map((r) => [r.id, r.state])) }));
    setSelected((s) => without(s, ids));
    notify.success(ids.length === 1 ? done.one : done.many(ids.length), { description: done.where });
  }

  const toggle = (id: string, on: boolean) => setSelected((s) => (on ? new Set([...s, id]) : without(s, [id])));

  return (
    <div className="admin-queue-wrap">
      <fieldset className="admin-toolbar">
        <legend className="visually-hidden">Reviews you ticked</legend>
        <label className="admin-check">
          <input
            type="checkbox"
            checked={allChosen}
            disabled={pending.length === 0}
            onChange={(e) => setSelected(e.currentTarget.checked ? new Set(pending) : new Set())}
          />
          Select all on this page
        </label>
        <button type="button" className="btn" disabled={chosen.length === 0} onClick={() => decide(chosen, 'approve')}>
          Approve selected ({chosen.length})
        </button>
        <button type="button" className="btn btn-outline" disabled={chosen.length === 0} onClick={() => decide(chosen, 'reject')}>
          Reject selected ({chosen.length})
        </button>
      </fieldset>

      <ul className="admin-queue">
        {reviews.map((r) => {
          const state = stateOf(r.id);
          const working = busy.has(r.id);
          const heading = `review-${r.id}`;
          const stars = starCount(r.rating);
          return (
            <li key={r.id} className={`admin-item admin-item-${state}`}>
              <div className="admin-item-head">
                {state === 'pending' && (
                  <input
                    type="checkbox"
                    className="admin-pick"
                    aria-label={`Select the review of ${r.productName} by ${r.author}`}
                    checked={selected.has(r.id)}
                    disabled={working}
                    onChange={(e) => toggle(r.id, e.currentTarget.checked)}
                  />
                )}
                <h2 id={heading}>
                  <a href={`/product/${r.productId}#reviews`}>{r.productName}</a>
                </h2>
              </div>
              <p className="admin-item-meta">
                <span className="stars" role="img" aria-label={`${stars} out of 5 stars`}>
                  {'★'.repeat(stars) + '☆'.repeat(5 - stars)}
                </span>
                <span>
                  {r.author}
                  {r.accountEmail && <span className="admin-muted">{` (${r.accountEmail})`}</span>}
                </span>
                {r.verified && <span className="badge">Verified purchase</span>}
                <time dateTime={r.createdAt}>{adminTime(r.createdAt, timeZone)}</time>
              </p>
              <p className="admin-item-text">{r.comment}</p>
              <div className="admin-item-actions">
                {state === 'pending' ? (
                  <>
                    <button
                      type="button"
                      className="btn"
                      aria-describedby={heading}
                      disabled={working}
                      onClick={() => decide([r.id], 'approve')}
                    >
                      Approve
                    </button>
                    <button
                      type="button"
                      className="btn btn-outline"
                      aria-describedby={heading}
                      disabled={working}
                      onClick={() => decide([r.id], 'reject')}
                    >
                      Reject
                    </button>
                  </>
                ) : (
                  <>
                    <p className="admin-item-state">{STATE_TEXT[state]}</p>
                    <button
                      type="button"
                      className="btn btn-outline"
                      aria-describedby={heading}
                      disabled={working}
                      onClick={() => decide([r.id], state === 'approved' ? 'reject' : 'approve')}
                    >
                      {state === 'approved' ? 'Reject instead' : 'Approve instead'}
                    </button>
                  </>
                )}
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
