// @ts-check
// A tap on an island's button before the island's code has loaded would do nothing and say nothing: the build renders
// the button, but its handler only exists once React has hydrated it (client:painted waits up to 2 s, longer on a slow
// network). This script, inlined in every page's <head> (a few hundred bytes, no request, nothing to wait for), holds
// such taps: it marks the button aria-busy and remembers its `data-pending-action`, once however often it was tapped.
// The island, once live, takes what was held and replays each tap exactly once (useEarlyTaps in early-taps.ts); from
// then on taps reach it as usual.
//
// It is a string, not a function, because the Content-Security-Policy allows it by the hash of these exact bytes:
// astro.config.mjs hashes this text and BaseLayout.astro writes the same text into the page.

export const EARLY_TAPS_SCRIPT = `(() => {
  const held = new Map();
  const live = new WeakSet();
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-pending-action]') : null;
    const island = button && button.closest('astro-island');
    if (!island || live.has(island)) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    held.set(island, (held.get(island) || new Set()).add(button.getAttribute('data-pending-action')));
    button.setAttribute('aria-busy', 'true');
  }, true);
  window.aureliaEarlyTaps = (island) => {
    live.add(island);
    const actions = [...(held.get(island) || [])];
    held.delete(island);
    return actions;
  };
})();`;
