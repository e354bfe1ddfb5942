// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// A toast for the next page this tab loads: what a page says just before it reloads (the order just placed) must still
// be seen after. Loaded only by the checkout and, when one is waiting, by the toaster: no weight on other pages.

import { NEXT_PAGE_KEY, TOAST } from './toast.constants';
import { push, type ToastKind, type ToastMessage, type ToastOptions } from './toast.store';

/**
 * Shows a toast on the next page this tab loads (after a reload, for instance), as long as the shopper closes it
 * there or it runs out: what the page says before it goes must still be seen after.
 */
export function notifyOnNextPage(kind: ToastKind, title: string, options: Omit<ToastOptions, 'action'> = {}): void {
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
