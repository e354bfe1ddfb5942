// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
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
  /** A button that undoes what the toast reports (it closes the toast too), e.g. Undo after a line left the cart. */
  action?: { label: string; run: () => void };
}

export type ToastOptions = Omit<ToastMessage, 'id' | 'kind' | 'title'>;

/** The toasts on screen, oldest first. Islands add with `notify`; the toaster island shows them and removes them. */
export const $toasts = atom<ToastMessage[]>([]);

let nextId = 1;

export function push(kind: ToastKind, title: string, options: ToastOptions = {}): void {
  // At most 3 visible (product spec): a new toast pushes the oldest out.
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

/** Removes a toast (its time is up, or the shopper closed or swiped it away). */
export function dismiss(id: number): void {
  $toasts.set($toasts.get().filter((t) => t.id !== id));
}

/** Whether a horizontal drag of `dx` pixels dismisses a toast. */
export function isSwipeDismiss(dx: number): boolean {
  return Math.abs(dx) >= TOAST.swipeThresholdPx;
}
