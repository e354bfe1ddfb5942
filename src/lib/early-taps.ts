import { type RefObject, useEffect } from 'react';

declare global {
  interface Window {
    /** Set by the page's inline script (early-taps.inline.mjs): marks an island live and hands over the taps it held. */
    aureliaEarlyTaps?: (island: Element) => string[];
  }
}

/**
 * Acts on the taps the page held for this island's `data-pending-action` buttons while its code was loading: each one
 * once, as a click on the live button, then lets taps through as usual. `ref` is any element of the island; `ready`
 * waits for state the island restores after hydration first (choices made before it, a category from the URL), so
 * that the replayed tap sees what the shopper saw.
 */
export function useEarlyTaps(ref: RefObject<Element | null>, ready = true): void {
  useEffect(() => {
    const island = ref.current?.closest('astro-island');
    if (!ready || !island) return;
    const actions = window.aureliaEarlyTaps?.(island) ?? [];
    for (const busy of island.querySelectorAll('[data-pending-action][aria-busy]')) busy.removeAttribute('aria-busy');
    for (const action of actions) island.querySelector<HTMLElement>(`[data-pending-action="${CSS.escape(action)}"]`)?.click();
  }, [ref, ready]);
}
