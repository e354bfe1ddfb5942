import { useStore } from '@nanostores/react';
import { type ComponentType, useEffect, useRef, useState } from 'react';
import { useEarlyTaps } from '@/lib/early-taps';
import { $user } from '../auth/auth.store';
import { type CartLine, type CartProduct, itemCount } from '../cart/cart';
import { $cart, $cartOwner } from '../cart/cart.store';
import type { CartDrawerProps } from './CartDrawer';
import './cart-drawer.css';

interface Props {
  /** The catalogue's names, prices and pictures for the drawer (rendered into the page, not shipped as script). */
  products: CartProduct[];
}

const EMPTY: CartLine[] = [];
const lazy = () => import('./drawer.lazy');
const cartSync = () => import('../cart/cart.sync');

/** The header's cart button with the item count. It opens the cart drawer, which is loaded on first use. */
export default function CartBadge({ products }: Props) {
  // The server renders an empty cart; the one kept in local storage appears once the island is live, without a
  // hydration mismatch.
  const count = itemCount(useStore($cart, { ssr: () => EMPTY }));
  // 0 while the drawer is shut, a new number at each press. A number, not a flag: a press that comes after the dialog
  // has closed but before its close event has reached the page (Escape, then Enter at once) still changes it, and so
  // opens the dialog again.
  const [opening, setOpening] = useState(0);
  const [Drawer, setDrawer] = useState<ComponentType<CartDrawerProps>>();
  const button = useRef<HTMLButtonElement>(null);
  useEarlyTaps(button);

  // A signed-in shopper's cart is saved to their account; that code loads only once someone has signed in.
  useEffect(() => {
    const sync = () => {
      if ($user.get() || $cartOwner.get()) cartSync().then((m) => m.startCartSync(products), Boolean);
    };
    sync();
    return $user.listen(sync);
  }, [products]);

  return (
    <>
      <button
        ref={button}
        type="button"
        className="cart-badge"
        aria-haspopup="dialog"
        data-pending-action="cart"
        onClick={() => {
          setOpening((n) => n + 1);
          lazy().then((m) => setDrawer(() => m.CartDrawer), Boolean);
        }}
      >
        <svg aria-hidden="true" width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8">
          <path d="M6 7h12l-1 13H7L6 7Z" />
          <path d="M9 7a3 3 0 0 1 6 0" />
        </svg>
        <span className="visually-hidden">Cart, </span>
        <span className="cart-count" data-testid="cart-count" aria-live="polite">
          {count}
        </span>
        <span className="visually-hidden"> {count === 1 ? 'item' : 'items'}</span>
      </button>
      {Drawer && (
        <Drawer
          opening={opening}
          products={products}
          onClose={() => {
            setOpening(0);
            button.current?.focus();
          }}
        />
      )}
    </>
  );
}
