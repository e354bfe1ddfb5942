import { atom } from 'nanostores';
import type { ApiFailure } from '@/lib/api';
import { TOAST } from './toast.constants';

export type ToastKind = 'success' | 'error' | 'info';

export interface ToastMessage {
  id: number;
  kind: ToastKind;
  title: string;
  description?: string;
  /** How long it stays; Infinity keeps it until the shopper closes it. */
  durationMs?: number;
  /** A same-site link shown with it, e.g. to the order just placed. */
  link?: { href: string; label: string };
}

type ToastOptions = Omit<ToastMessage, 'id' | 'kind' | 'title'>;

/** The toasts on screen, oldest first. Islands add with `notify`; the toaster island shows them and removes them. */
export const $toasts = atom<ToastMessage[]>([]);

let nextId = 1;

function push(kind: ToastKind, title: string, options: ToastOptions = {}): void {
  // At most 3 visible (spec section 9): a new toast pushes the oldest out.
  $toasts.set([...$toasts.get(), { id: nextId++, kind, title, ...options }].slice(-TOAST.visible));
}

/** Shows a toast from any island: notify.error('Login to like products'). */
export const notify = {
  success: (title: string, options?: ToastOptions) => push('success', title, options),
  error: (title: string, options?: ToastOptions) => push('error', title, options),
  info: (title: string, options?: ToastOptions) => push('info', title, options),
  /**
   * A failed call: the spec's failure `title` for that form, with the server's words beneath (for a rate limit they
   * say to wait; api() gives every 429 such words).
   */
  failure: (title: string, failure: ApiFailure) => push('error', title, { description: failure.message }),
};

/** Where a toast waits for the next page this tab loads (sessionStorage: this tab only, gone when it closes). */
const NEXT_PAGE_KEY = 'aurelia:toast-next-page';

/**
 * Shows a toast on the next page this tab loads (after a reload, for instance), as long as the shopper closes it
 * there or it runs out: what the page says before it goes must still be seen after.
 */
export function notifyOnNextPage(kind: ToastKind, title: string, options: ToastOptions = {}): void {
  try {
    sessionStorage.setItem(NEXT_PAGE_KEY, JSON.stringify({ kind, title, ...options }));
  } catch {
    // Storage refused (private mode, full): the toast is simply not carried over.
  }
}

/** Shows the toast a previous page left for this one, once (the toaster calls it when it starts). */
export function showNextPageToast(): void {
  let saved: unknown;
  try {
    saved = JSON.parse(sessionStorage.getItem(NEXT_PAGE_KEY) ?? 'null');
    sessionStorage.removeItem(NEXT_PAGE_KEY);
  } catch {
    return;
  }
  if (!saved || typeof saved !== 'object') return;
  const { kind, title, description, durationMs, link } = saved as Partial<ToastMessage>;
  if (kind !== 'success' && kind !== 'error' && kind !== 'info') return;
  if (typeof title !== 'string') return;
  // Only a link to a page of this shop: what is stored is read back as data, never trusted as an address.
  const href =
    link && typeof link.href === 'string' && link.href.startsWith('/') && !link.href.startsWith('//') ? link.href : null;
  push(kind, title, {
    ...(typeof description === 'string' ? { description } : {}),
    // JSON has no Infinity: a toast kept until closed is stored with null.
    durationMs: typeof durationMs === 'number' ? durationMs : durationMs === null ? Number.POSITIVE_INFINITY : TOAST.durationMs,
    ...(href && typeof link?.label === 'string' ? { link: { href, label: link.label } } : {}),
  });
}

/** Removes a toast (its time is up, or the shopper closed or swiped it away). */
export function dismiss(id: number): void {
  $toasts.set($toasts.get().filter((t) => t.id !== id));
}

/** Whether a horizontal drag of `dx` pixels dismisses a toast. */
export function isSwipeDismiss(dx: number): boolean {
  return Math.abs(dx) >= TOAST.swipeThresholdPx;
}
