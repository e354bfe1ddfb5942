import { describe, expect, it } from 'vitest';
import { TOAST } from './toast.constants';

describe('toast constants (spec section 9)', () => {
  it('top-right, 4000 ms, at most 3 visible, 356 px wide, 45 px swipe to dismiss', () => {
    expect(TOAST).toEqual({ position: 'top-right', durationMs: 4000, visible: 3, widthPx: 356, swipeThresholdPx: 45 });
  });
});
