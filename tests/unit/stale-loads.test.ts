import { cleanStores } from 'nanostores';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { $user } from '@/features/auth/auth.store';
import { $favorites, toggleFavorite } from '@/features/favorites/favorites.store';
import { $likes, toggleLike } from '@/features/likes/likes.store';
import { $toasts } from '@/features/toasts/toast.store';

/** A request the test answers when it chooses, in any order: what a busy server does with a page's requests. */
interface Pending {
  method: string;
  path: string;
  answer(body: unknown, status?: number): Promise<void>;
}

const pending: Pending[] = [];

/** Lets every answer already given reach the stores (fetch, json and the awaits after them). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function request(method: string, path: string): Pending {
  const found = pending.find((p) => p.method === method && p.path === path);
  if (!found) throw new Error(`no ${method} ${path} pending; pending: ${pending.map((p) => `${p.method} ${p.path}`).join(', ')}`);
  pending.splice(pending.indexOf(found), 1);
  return found;
}

const shopper = { id: 'u1', email: 'nadia@example.com', firstName: 'Nadia' };
const soap = { productId: 4, name: 'Vitamin C Trio Set', createdAt: '2026-11-24T10:00:00.000Z' };

beforeEach(() => {
  vi.stubGlobal('fetch', (path: string, init: RequestInit) => {
    const { promise, resolve } = Promise.withResolvers<Response>();
    pending.push({
      method: init.method ?? 'GET',
      path,
      async answer(body, status = 200) {
        resolve(new Response(JSON.stringify(body), { status }));
        await settle();
      },
    });
    return promise;
  });
  $user.set(shopper);
  $toasts.set([]);
  $favorites.set({ items: [], status: 'loading' });
  $likes.set({ counts: {}, liked: [] });
});

afterEach(() => {
  // Unmounted now rather than a second later, so that the next test's first listener loads again.
  cleanStores($favorites, $likes);
  vi.unstubAllGlobals();
  pending.length = 0;
});

// A tap made while the page loads (replayed once the island is live) sends its change while the page's first load of
// the shopper's favorites or likes is still on its way. That load may have been read before the change was saved: its
// answer must not undo what the shopper sees they did (CI: the product page said 'Added to your wishlist' and went on
// offering 'Add to Wishlist').
describe('a load answered after a change does not undo the change', () => {
  it('favorites: the product added stays added, and the list is asked for again', async () => {
    $favorites.listen(() => {});
    const firstLoad = request('GET', '/api/favorites');
    const toggled = toggleFavorite(soap.productId, 'Please login');
    await settle();
    await request('POST', '/api/favorites').answer({ favorite: soap }, 201);
    await toggled;
    expect($favorites.get().items.map((f) => f.productId)).toEqual([4]);

    await firstLoad.answer({ favorites: [] });
    expect($favorites.get().items.map((f) => f.productId)).toEqual([4]);
    await request('GET', '/api/favorites').answer({ favorites: [soap] });
    expect($favorites.get()).toEqual({ items: [soap], status: 'ready' });
    expect(pending).toEqual([]);
  });

  it('likes: the product liked stays liked with the server’s count, and the likes are asked for again', async () => {
    $likes.listen(() => {});
    const firstLoad = request('GET', '/api/likes');
    const toggled = toggleLike(4);
    await settle();
    await request('PUT', '/api/likes/4').answer({ liked: true, count: 23 });
    await toggled;
    expect($likes.get()).toMatchObject({ liked: [4], counts: { 4: 23 } });

    await firstLoad.answer({ counts: { 4: 22 }, liked: [] });
    expect($likes.get()).toMatchObject({ liked: [4], counts: { 4: 23 } });
    await request('GET', '/api/likes').answer({ counts: { 4: 24 }, liked: [4] });
    expect($likes.get()).toEqual({ counts: { 4: 24 }, liked: [4] });
    expect(pending).toEqual([]);
  });

  it('a load that answered before the change was sent is simply kept, with no second request', async () => {
    $likes.listen(() => {});
    await request('GET', '/api/likes').answer({ counts: { 4: 22 }, liked: [] });
    const toggled = toggleLike(4);
    await settle();
    await request('PUT', '/api/likes/4').answer({ liked: true, count: 23 });
    await toggled;
    expect($likes.get()).toEqual({ counts: { 4: 23 }, liked: [4] });
    expect(pending).toEqual([]);
  });
});
