import { useStore } from '@nanostores/react';
import { useEffect, useRef, useState } from 'react';
import { api } from '@/lib/api';
import type { UserAnswer } from '../auth/auth';
import { $user } from '../auth/auth.store';
import PrivateCollection from '../auth/PrivateCollection';
import { clearPrivateState } from '../auth/session.client';
import { addToCart } from '../cart/cart.store';
import { formatPrice, OUT_OF_STOCK } from '../catalogue/catalogue';
import { notify } from '../toasts/toast.store';
import { type Favorite, REMOVE_FAILED } from './favorites';
import { $favorites, loadFavorites } from './favorites.store';
import { CLEAR_FAILED, LOAD_FAILED, LOGIN_TO_ADD_TO_CART, LOGIN_TO_MANAGE } from './wishlist';
import './wishlist.css';

const savedOn = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric' });

/** Says why the server refused; when it no longer knows the shopper (idle sign-out), the page shows the sign-in prompt. */
function refused(status: number, failed: string): void {
  notify.error(status === 401 ? LOGIN_TO_MANAGE : failed);
  if (status === 401) clearPrivateState();
}

/** Whether the server still knows the shopper: false only when it says so (a network hiccup is not a sign-out). */
async function stillSignedIn(): Promise<boolean> {
  const r = await api<UserAnswer>('/api/auth/session');
  return !r.ok || r.data.user !== null;
}

/** The /wishlist page: guests see the Private Collection prompt, signed-in shoppers their favorites. */
export default function Wishlist() {
  return (
    <PrivateCollection
      title="Private Collection"
      text="Sign in to see the favourites you have saved, or create an account to start a collection of your own."
    >
      <WishlistGrid />
    </PrivateCollection>
  );
}

/** The favorites grid, newest first, with Add to Cart, Remove and Clear all. */
function WishlistGrid() {
  const { items, status } = useStore($favorites);
  const [confirming, setConfirming] = useState(false);
  const summary = useRef<HTMLParagraphElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const clearButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (status === 'failed') notify.error(LOAD_FAILED);
  }, [status]);
  useEffect(() => {
    if (confirming) keep.current?.focus();
  }, [confirming]);

  async function remove(item: Favorite) {
    if (!$user.get()) return notify.error(LOGIN_TO_MANAGE);
    const r = await api(`/api/favorites/${item.productId}`, undefined, 'DELETE');
    if (!r.ok) return refused(r.status, REMOVE_FAILED);
    $favorites.set({ status: 'ready', items: $favorites.get().items.filter((f) => f.productId !== item.productId) });
    notify.success(`Removed ${item.name} from your wishlist`);
    // The pressed button is gone: keep keyboard users in the list rather than at the top of the page.
    summary.current?.focus();
  }

  async function clearAll() {
    setConfirming(false);
    if (!$user.get()) return notify.error(LOGIN_TO_MANAGE);
    const r = await api('/api/favorites', undefined, 'DELETE');
    if (!r.ok) {
      clearButton.current?.focus();
      return refused(r.status, CLEAR_FAILED);
    }
    $favorites.set({ status: 'ready', items: [] });
    notify.success('Your wishlist is cleared');
  }

  async function addOne(item: Favorite) {
    // A signed-in shopper's cart belongs to their account: a session that has ended must not keep filling it.
    if (!$user.get() || !(await stillSignedIn())) {
      notify.error(LOGIN_TO_ADD_TO_CART);
      if ($user.get()) clearPrivateState();
      return;
    }
    if (addToCart({ productId: item.productId, quantity: 1, selectedColor: null, selectedSize: null }) === 0) return;
    notify.success(`Added 1 × ${item.name} to your cart`);
  }

  if (status === 'loading') {
    return (
      <p className="wishlist-status" role="status">
        Loading your favorites…
      </p>
    );
  }
  if (status === 'failed') {
    return (
      <div className="wishlist-empty">
        <p>Your favorites could not be loaded just now.</p>
        <button type="button" className="btn" onClick={() => loadFavorites()}>
          Try again
        </button>
      </div>
    );
  }
  if (items.length === 0) {
    return (
      <div className="wishlist-empty">
        <h2>Nothing saved yet</h2>
        <p>Tap the heart on any product and it will wait for you here.</p>
        <a className="btn" href="/#collections">
          Browse the collection
        </a>
      </div>
    );
  }

  return (
    <div className="wishlist">
      <div className="wishlist-bar">
        <p className="wishlist-summary" ref={summary} tabIndex={-1} aria-live="polite">
          {items.length} {items.length === 1 ? 'favorite' : 'favorites'}, newest first
        </p>
        {confirming ? (
          <fieldset className="wishlist-confirm">
            <legend>Remove all {items.length} from your wishlist?</legend>
            <button type="button" className="btn" onClick={clearAll}>
              Yes, clear all
            </button>
            <button
              type="button"
              className="btn btn-outline"
              ref={keep}
              onClick={() => {
                setConfirming(false);
                requestAnimationFrame(() => clearButton.current?.focus());
              }}
            >
              Keep them
            </button>
          </fieldset>
        ) : (
          <button type="button" className="btn btn-outline" ref={clearButton} onClick={() => setConfirming(true)}>
            Clear all
          </button>
        )}
      </div>
      <ul className="wishlist-grid">
        {items.map((item) => (
          <li key={item.productId} className="wishlist-item">
            <a className="wishlist-link" href={item.href}>
              <img src={item.image} alt="" width="320" height="320" loading="lazy" decoding="async" />
              <span className="card-category">{item.category}</span>
              <span className="wishlist-name">{item.name}</span>
            </a>
            <p className="wishlist-meta">
              <span className="card-price">{formatPrice(item.priceCents)}</span>
              <time dateTime={item.addedAt}>Saved {savedOn.format(new Date(item.addedAt))}</time>
            </p>
            <div className="wishlist-actions">
              {item.cart === 'add' && (
                <button type="button" className="btn" onClick={() => addOne(item)}>
                  Add to Cart<span className="visually-hidden"> for {item.name}</span>
                </button>
              )}
              {item.cart === 'choose' && (
                <a className="btn" href={item.href}>
                  Choose options<span className="visually-hidden"> for {item.name}</span>
                </a>
              )}
              {item.cart === 'out-of-stock' && (
                <button type="button" className="btn" disabled>
                  {OUT_OF_STOCK}
                  <span className="visually-hidden">: {item.name} cannot be added to the cart</span>
                </button>
              )}
              {item.cart === 'unavailable' && <span className="muted">Currently unavailable</span>}
              <button type="button" className="btn btn-outline" onClick={() => remove(item)}>
                Remove<span className="visually-hidden"> {item.name} from Wishlist</span>
              </button>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}
