import { useStore } from '@nanostores/react';
import { useRef } from 'react';
import { useEarlyTaps } from '@/lib/early-taps';
import { shownLikes } from './likes';
import { $likes, toggleLike } from './likes.store';
import './likes.css';

interface Props {
  productId: number;
  /** The catalogue's starting count; shoppers' likes are added to it. */
  likes: number;
}

/** The like counter and toggle on a product page; liking needs an account. */
export default function LikeButton({ productId, likes }: Props) {
  const summary = useStore($likes);
  const button = useRef<HTMLButtonElement>(null);
  useEarlyTaps(button);
  return (
    <button
      ref={button}
      type="button"
      className="like-button"
      data-pending-action="like"
      aria-pressed={summary.liked.includes(productId)}
      onClick={() => toggleLike(productId)}
    >
      <span aria-hidden="true">♥</span> <span data-testid="like-count">{shownLikes(likes, summary, productId)}</span>
      <span className="visually-hidden"> likes. Like this product</span>
    </button>
  );
}
