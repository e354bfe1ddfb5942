/** Pointers and keys held down now, as `p<pointerId>` and `k<code>`. */
const held = new Set<string>();
let waiting: (() => void)[] = [];

function release(key: string | null): void {
  if (key === null) held.clear();
  else held.delete(key);
  if (held.size > 0 || waiting.length === 0) return;
  const run = waiting;
  waiting = [];
  // The click a release makes is dispatched in the same task as the release: run after it.
  setTimeout(() => {
    for (const fn of run) fn();
  }, 0);
}

// Watched from the moment this code loads (in the browser), so a press that began before anyone asked is known.
if (typeof window !== 'undefined') {
  const options = { capture: true, passive: true };
  window.addEventListener('pointerdown', (e) => held.add(`p${e.pointerId}`), options);
  window.addEventListener('keydown', (e) => held.add(`k${e.code}`), options);
  window.addEventListener('pointerup', (e) => release(`p${e.pointerId}`), options);
  window.addEventListener('pointercancel', (e) => release(`p${e.pointerId}`), options);
  window.addEventListener('keyup', (e) => release(`k${e.code}`), options);
  window.addEventListener('blur', () => release(null), options);
}

/**
 * Runs `fn` once no pointer or key is held down any more, after the click its release makes has been handled: at once
 * when nothing is held. For a change that would take away what the shopper is pressing (a page going back to its
 * sign-in prompt), so that their press still reaches the button it began on.
 */
export function afterPresses(fn: () => void): void {
  if (held.size === 0) fn();
  else waiting.push(fn);
}
