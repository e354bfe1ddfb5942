/**
 * Toast behaviour from the spec that our toaster's code uses: how long a toast stays, how many show, how
 * far a swipe dismisses. Its place (top-right) and width (356 px) are toasts.css's; tests/e2e/layout.spec.ts checks them.
 */
export const TOAST = {
  durationMs: 4000,
  visible: 3,
  swipeThresholdPx: 45,
} as const;

/** Where a toast waits for the next page this tab loads (sessionStorage: this tab only, gone when it closes). */
export const NEXT_PAGE_KEY = 'aurelia:toast-next-page';
