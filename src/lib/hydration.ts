/**
 * How islands marked `client:idle` wait: for the browser's first idle moment, but never longer than 2 s. Without a
 * limit, requestIdleCallback may not fire at all while the browser is never idle (seen in headless Chromium on a
 * busy machine, where whole pages never hydrated), and a tap on a button that looks ready would do nothing.
 */
export const IDLE = { timeout: 2000 } as const;
