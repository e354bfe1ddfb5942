// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { atom, onMount } from 'nanostores';
import { api } from '@/lib/api';
import { $user } from '../auth/auth.store';
import { knownUser } from '../auth/session.client';
import { notify } from '../toasts/toast.store';
import { ADD_FAILED, ALREADY_FAVORITE, type Favorite, REMOVE_FAILED } from './favorites';

// The favorites store, shared by the home cards, the product page and the wishlist. What only the wishlist page needs
// (remove with its messages, clear all) lives in Wishlist.tsx.

/** The signed-in shopper's favorites, newest first, as the product page, the cards and the wishlist show them. */
export interface FavoritesState {
  items: Favorite[];
  /** 'loading' until the first answer; guests, who have none, are 'ready' at once. */
  status: 'loading' | 'ready' | 'failed';
}

export const $favorites = atom<FavoritesState>({ items: [], status: 'loading' });

// Only the newest answer counts: one that arrives after the shopper signed in or out (or after a newer request) was
// for someone else's view and is dropped.
let favoritesRequest = 0;

/** Fetches the list again (after signing in or out, or when the wishlist page retries). */
export async function loadFavorites(): Promise<void> {
  const request = ++favoritesRequest;
  if (!$user.get()) return $favorites.set({ items: [], status: 'ready' });
  $favorites.set({ ...$favorites.get(), status: 'loading' });
  const r = await api<{ favorites: Favorite[] }>('/api/favorites');
  if (request !== favoritesRequest) return;
  $favorites.set({ items: r.ok ? r.data.favorites : [], status: r.ok ? 'ready' : 'failed' });
}

// Loads when an island first shows favorites, and again whenever the shopper signs in or out.
onMount($favorites, () => $user.subscribe(() => loadFavorites()));

const pendingFavorites = new Set<number>();

/**
 * Adds a product to the favorites, or removes it when it is there already. `guestMessage` is the spec's wording for
 * where the shopper pressed (product page or card), shown to guests and when the server says the session has ended.
 */
export async function toggleFavorite(productId: number, guestMessage: string): Promise<void> {
  if (!(await knownUser())) return notify.error(guestMessage);
  // One request per product at a time: a double click neither saves twice nor removes what it just saved.
  if (pendingFavorites.has(productId)) return;
  pendingFavorites.add(productId);
  const saved = $favorites.get().items.some((f) => f.productId === productId);
  // POST answers {favorite}, DELETE {removed}.
  const r = saved
    ? await api<{ favorite?: Favorite }>(`/api/favorites/${productId}`, undefined, 'DELETE')
    : await api<{ favorite?: Favorite }>('/api/favorites', { productId });
  pendingFavorites.delete(productId);
  const { items, status } = $favorites.get();
  const others = items.filter((f) => f.productId !== productId);
  if (r.ok) {
    $favorites.set({ items: r.data.favorite ? [r.data.favorite, ...others] : others, status: 'ready' });
    // A load still on its way may have been read before this change (a tap replayed as the page came alive): its
    // answer would undo it, so a fresh one replaces it.
    if (status === 'loading') void loadFavorites();
    return notify.success(saved ? 'Removed from your wishlist' : 'Added to your wishlist');
  }
  if (r.status !== 409) return notify.error(r.status === 401 ? guestMessage : saved ? REMOVE_FAILED : ADD_FAILED);
  // Saved meanwhile in another tab: say so, and show it as saved.
  notify.error(ALREADY_FAVORITE);
  return loadFavorites();
}
