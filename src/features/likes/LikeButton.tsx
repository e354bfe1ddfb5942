import { useStore } from '@nanostores/react';
import { $user } from '../auth/auth.store';
import { notify } from '../toasts/toast.store';

interface Props {
  likes: number;
}

/** The like counter; liking needs an account. */
export default function LikeButton({ likes }: Props) {
  const user = useStore($user);
  return (
    <button
      type="button"
      className="like-button"
      aria-pressed={false}
      onClick={() => {
        if (!user) notify.error('Login to like products');
      }}
    >
      <span aria-hidden="true">♥</span> <span data-testid="like-count">{likes}</span>
      <span className="visually-hidden"> likes. Like this product</span>
    </button>
  );
}
