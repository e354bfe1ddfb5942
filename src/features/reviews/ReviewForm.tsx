import { type SubmitEvent, useState } from 'react';
import { api } from '@/lib/api';
import { notify } from '../toasts/toast.store';
import type { ReviewView } from './reviews';
import { MAX_REVIEW_LENGTH, REVIEW_MESSAGES, reviewLength, reviewProblem } from './reviews.rules';

export interface ReviewFormProps {
  productId: number;
  /** Called with the stored (pending) review. */
  onSubmitted: (review: ReviewView) => void;
}

const STARS = [1, 2, 3, 4, 5] as const;

/** The review form for a signed-in shopper: a star rating (radio group, default 5) and a comment. Loaded on demand. */
export default function ReviewForm({ productId, onSubmitted }: ReviewFormProps) {
  const [rating, setRating] = useState(5);
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: SubmitEvent) {
    e.preventDefault();
    const problem = reviewProblem(comment);
    setError(problem);
    if (problem) return;
    setSending(true);
    const result = await api<{ review: ReviewView }>('/api/reviews', { productId, rating, comment });
    setSending(false);
    if (!result.ok) {
      notify.failure(REVIEW_MESSAGES.failed, result);
      return;
    }
    notify.success(REVIEW_MESSAGES.submitted);
    setComment('');
    setRating(5);
    onSubmitted(result.data.review);
  }

  return (
    <form className="review-form" onSubmit={submit} noValidate>
      <fieldset className="rating-input">
        <legend>Your rating</legend>
        {STARS.map((n) => (
          <label key={n}>
            <input type="radio" name="review-rating" value={n} checked={rating === n} onChange={() => setRating(n)} />
            <span aria-hidden="true">{n <= rating ? '★' : '☆'}</span>
            <span className="visually-hidden">
              {n} {n === 1 ? 'star' : 'stars'}
            </span>
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor="review-comment">Your review</label>
        <textarea
          id="review-comment"
          rows={5}
          value={comment}
          onChange={(e) => setComment(e.target.value)}
          aria-describedby="review-count"
          aria-invalid={error ? true : undefined}
        />
        <p id="review-count" className="muted small">
          {reviewLength(comment)} / {MAX_REVIEW_LENGTH} characters
        </p>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="btn" disabled={sending}>
        {sending ? 'Submitting…' : 'Submit Review'}
      </button>
    </form>
  );
}
