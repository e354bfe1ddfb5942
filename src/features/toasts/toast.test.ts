import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { TOAST } from './toast.constants';

describe('toasts (spec section 9)', () => {
  it('appear top-right, last 4000 ms, at most 3 visible, 356 px wide, 45 px swipe to dismiss', () => {
    expect(TOAST).toEqual({ position: 'top-right', durationMs: 4000, visible: 3, widthPx: 356, swipeThresholdPx: 45 });
  });

  it('match what the installed sonner does where it offers no option (swipe threshold)', () => {
    const source = readFileSync(createRequire(import.meta.url).resolve('sonner'), 'utf8');
    expect(source).toMatch(new RegExp(`SWIPE_THRESHOLD = ${TOAST.swipeThresholdPx};`));
  });
});
