import type { ClientDirective } from 'astro';

/**
 * `client:painted`: an island hydrates once the page has been painted and the browser is next idle, and never more
 * than 2 s after the page asked (HYDRATE_WITHIN_MS). `client:painted="visible"`: once the page has been painted and the
 * island is on screen (Astro's `client:visible`, which on a short page would fetch React before the first paint).
 *
 * Astro's `client:idle` fetches an island's code at the browser's first idle moment, which comes before the first paint
 * has reached the screen: the scripts then compete with the page they belong to (seen in Lighthouse traces, where the
 * islands' scripts were fetched and run 10-20 ms before the first paint was shown, and counted toward it). Here they
 * wait for the first contentful paint (the Paint Timing entry, which a browser reports once the frame is shown).
 *
 * Never later than 2 s: without a limit, a tab that never paints (opened in the background) or a browser that is never
 * idle (seen in headless Chromium on a busy machine, where whole pages never hydrated) would leave buttons that look
 * ready doing nothing; taps made before then are held and replayed (early-taps.inline.mjs).
 */
export const HYDRATE_WITHIN_MS = 2000;

/** Resolves once the page's first contentful paint has been shown, or at `deadline` (performance.now()), if sooner. */
function painted(deadline: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, deadline - performance.now());
    try {
      if (performance.getEntriesByName('first-contentful-paint').length > 0) return resolve();
      // Paint entries are the first paint, which may be a blank frame, and the first contentful one: that one.
      new PerformanceObserver((list, observer) => {
        if (list.getEntriesByName('first-contentful-paint').length === 0) return;
        observer.disconnect();
        resolve();
      }).observe({ type: 'paint', buffered: true });
    } catch {
      // No Paint Timing here: the deadline alone.
    }
  });
}

let firstPaint: Promise<void> | undefined;

/** Calls `then` once one of `el`'s children is on screen. */
function whenVisible(el: HTMLElement, then: () => void) {
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    observer.disconnect();
    then();
  });
  for (const child of el.children) observer.observe(child);
}

const paintedDirective: ClientDirective = (load, options, el) => {
  const deadline = performance.now() + HYDRATE_WITHIN_MS;
  const hydrate = async () => {
    const run = await load();
    // Each island renders in a task of its own: the islands of a page all get their code at the same moment, and
    // hydrated together they were one long task that kept taps waiting (a product page's eight: 21 ms here, 85 ms on
    // Lighthouse's slowed phone).
    await new Promise((resolve) => setTimeout(resolve, 0));
    await run();
  };
  firstPaint ??= painted(deadline);
  void firstPaint.then(() => {
    if (options.value === 'visible') return whenVisible(el, hydrate);
    // At least 1 ms: a timeout of 0 means no limit at all to requestIdleCallback.
    const left = Math.max(1, deadline - performance.now());
    if ('requestIdleCallback' in window) window.requestIdleCallback(hydrate, { timeout: left });
    else setTimeout(hydrate, Math.min(left, 200));
  });
};

export default paintedDirective;

declare module 'astro' {
  interface AstroClientDirectives {
    /**
     * Hydrates once the page has been painted and the browser is idle, within 2 s; with "visible", once the page has
     * been painted and the island is on screen (src/lib/painted.directive.ts).
     */
    'client:painted'?: boolean | 'visible';
  }
}
