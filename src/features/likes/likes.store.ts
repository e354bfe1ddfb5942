// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { atom, onMount } from 'nanostores';
import { api } from '@/lib/api';
import { $user } from '../auth/auth.store';
import { knownUser } from '../auth/session.client';
import { notify } from '../toasts/toast.store';
import { LIKE_FAILED, type LikeAnswer, type LikesSummary, LOGIN_TO_LIKE, withLike } from './likes';

/** Shoppers' likes, shared by the product page and the home cards so that both show the same count. */
export const $likes = atom<LikesSummary>({ counts: {}, liked: [] });

// Only the newest answer counts: one that arrives after the shopper signed in or out was for someone else's view.
let likesRequest = 0;
let loading = false;

async function loadLikes(): Promise<void> {
  const request = ++likesRequest;
  loading = true;
  const r = await api<LikesSummary>('/api/likes');
  if (request !== likesRequest) return;
  loading = false;
  if (r.ok) $likes.set(r.data);
}

// Loads when an island first shows likes, and again whenever the shopper signs in or out; pages without likes never ask.
onMount($likes, () => $user.subscribe(() => void loadLikes()));

const pendingLikes = new Set<number>();

/** Likes or unlikes a product: the count changes at once and goes back if the server refuses. */
export async function toggleLike(productId: number): Promise<void> {
  if (!(await knownUser())) return notify.error(LOGIN_TO_LIKE);
  // One request per product at a time, so a double click cannot leave the server and the page disagreeing.
  if (pendingLikes.has(productId)) return;
  pendingLikes.add(productId);
  const { counts, liked } = $likes.get();
  const was = liked.includes(productId);
  const count = counts[productId] ?? 0;
  const show = (on: boolean, n: number) => $likes.set(withLike($likes.get(), productId, on, n));
  show(!was, count + (was ? -1 : 1));
  const r = await api<LikeAnswer>(`/api/likes/${productId}`, undefined, was ? 'DELETE' : 'PUT');
  pendingLikes.delete(productId);
  if (r.ok) {
    show(r.data.liked, r.data.count);
    // A load still on its way may have been read before this change (a tap replayed as the page came alive): its
    // answer would undo it, so a fresh one replaces it.
    if (loading) void loadLikes();
    return;
  }
  show(was, count);
  notify.error(r.status === 401 ? LOGIN_TO_LIKE : LIKE_FAILED);
}
