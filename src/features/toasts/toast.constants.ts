/** Toast behaviour from the spec (section 9). Sonner's own defaults match; they are set explicitly so a library upgrade cannot drift. */
export const TOAST = {
  position: 'top-right',
  durationMs: 4000,
  visible: 3,
  widthPx: 356,
  swipeThresholdPx: 45,
} as const;
