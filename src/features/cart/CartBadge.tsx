import { useStore } from '@nanostores/react';
import { $cartCount } from './cart.store';

/** The header's cart icon with the item count. */
export default function CartBadge() {
  const count = useStore($cartCount);
  return (
    <span className="cart-badge" aria-live="polite">
      <svg aria-hidden="true" width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8">
        <path d="M6 7h12l-1 13H7L6 7Z" />
        <path d="M9 7a3 3 0 0 1 6 0" />
      </svg>
      <span className="visually-hidden">Cart, </span>
      <span className="cart-count" data-testid="cart-count">
        {count}
      </span>
      <span className="visually-hidden"> {count === 1 ? 'item' : 'items'}</span>
    </span>
  );
}
