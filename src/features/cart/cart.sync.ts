// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { api } from '@/lib/api';
import { $user } from '../auth/auth.store';
import { notify } from '../toasts/toast.store';
import { type CartLine, type CartProduct, readLines } from './cart';
import { CART_MESSAGES, CART_SAVE_PAUSE_MS, cartAfterSignIn, withoutUnsold } from './cart.rules';
import { $cart, $cartOwner, $cartSaved, clearCart } from './cart.store';

/** What GET and PUT /api/cart answer. */
export interface CartAnswer {
  lines: CartLine[];
}

let started = false;

/**
 * Keeps a signed-in shopper's cart in the database (loaded only once someone has signed in, so guests never download
 * it): on sign-in the guest cart is merged into the saved one; after each change the cart is saved once the shopper
 * has paused for 1 s; a page that closes within that pause sends the cart on its way out.
 */
export function startCartSync(products: readonly CartProduct[]): void {
  if (started) return;
  started = true;
  const catalogue = new Map(products.map((p) => [p.id, p]));
  /** The shopper whose saved cart this page keeps in step with, once their cart has been loaded. */
  let following: string | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** True while the server's lines are written into the store, so that writing them does not save them again. */
  let applying = false;
  /** Saves go out one after another, so an older cart can never overwrite a newer one. */
  let queue = Promise.resolve();
  /** A GET made before the page knew who is signed in, kept for when it finds out. */
  let early: ReturnType<typeof load> | null = null;

  const load = () => api<CartAnswer>('/api/cart');

  function apply(lines: CartLine[], owner: string): void {
    applying = true;
    $cart.set(lines);
    $cartOwner.set(owner);
    applying = false;
  }

  function lastSaved(): CartLine[] | undefined {
    const text = $cartSaved.get();
    if (text === undefined) return undefined;
    try {
      return readLines(JSON.parse(text));
    } catch {
      return undefined;
    }
  }

  /** Sends the cart now. `keepalive` lets the request outlive a page that is closing. */
  async function send(keepalive: boolean): Promise<void> {
    const user = following;
    if (!user || $cartOwner.get() !== user) return;
    // A line the catalogue no longer has would make the server refuse the whole cart: it leaves the cart instead.
    const { known: lines, notice } = withoutUnsold($cart.get(), catalogue);
    if (notice) {
      apply(lines, user);
      notify.info(notice);
    }
    let failure: string | null = null;
    try {
      const res = await fetch('/api/cart', {
        method: 'PUT',
        keepalive,
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          lines: lines.map(({ productId, quantity, selectedColor, selectedSize }) => ({
            productId,
            quantity,
            selectedColor,
            selectedSize,
          })),
        }),
      });
      if (res.ok) $cartSaved.set(JSON.stringify(lines));
      // 401: the session has ended; the session check signs the browser out.
      else if (res.status !== 401) {
        const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
        failure = body.error?.message ?? `Request failed (${res.status})`;
      }
    } catch {
      failure = 'Network error. Please check your connection and try again.';
    }
    if (failure) notify.error(CART_MESSAGES.saveFailed, { description: failure });
  }

  /** Saves in flight or waiting in the queue. */
  let sending = 0;

  function enqueue(keepalive: boolean): Promise<void> {
    sending++;
    queue = queue.then(() => send(keepalive)).finally(() => sending--);
    return queue;
  }

  function save(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    return enqueue(false);
  }

  /**
   * A save still waiting for its pause goes out at once when the page is hidden or closed, with keepalive so it
   * outlives the page. Behind a save in flight it waits its turn, so an older cart never lands after a newer one.
   */
  function flush(): void {
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
    if (sending > 0) void enqueue(true);
    else void send(true);
  }

  async function follow(): Promise<void> {
    const user = $user.get();
    if (!user) {
      if (following) {
        // Signed out in this page (cart.store.ts has already emptied the cart).
        following = null;
        clearTimeout(timer);
        timer = undefined;
        clearCart();
      } else if ($cartOwner.get() && !early) {
        // A shopper's cart is in this browser: if their session has ended meanwhile, it must not stay on show.
        early = load();
        const r = await early;
        if ($user.get()) return; // signed in meanwhile: follow() decides what to do with the answer
        early = null;
        if (!r.ok && r.status === 401) clearCart();
      }
      return;
    }
    if (following === user.id) return;
    following = user.id;
    // A GET sent before the page knew who is signed in counts only if it got an answer; else ask again.
    const first = early ? await early : null;
    early = null;
    const r = first?.ok ? first : await load();
    if (following !== user.id) return;
    if (!r.ok) {
      following = null;
      notify.error(CART_MESSAGES.loadFailed, { description: r.message });
      return;
    }
    const local = withoutUnsold($cart.get(), catalogue);
    if (local.notice) notify.info(local.notice);
    const next = cartAfterSignIn({
      userId: user.id,
      owner: $cartOwner.get(),
      local: local.known,
      lastSaved: lastSaved(),
      saved: r.data.lines,
    });
    apply(next.lines, user.id);
    // What the server holds now: if the merged cart's save does not arrive (a page left at once, a failure), the
    // next page sees unsaved local lines and pushes them, instead of taking the server's and losing the guest's.
    $cartSaved.set(JSON.stringify(r.data.lines));
    if (next.save) await save();
  }

  $cart.listen(() => {
    if (applying || !following || $cartOwner.get() !== following) return;
    clearTimeout(timer);
    timer = setTimeout(save, CART_SAVE_PAUSE_MS);
  });
  addEventListener('pagehide', flush);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') flush();
  });
  $user.subscribe(() => void follow());
}
