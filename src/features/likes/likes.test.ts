import { describe, expect, it } from 'vitest';
import { type LikesSummary, shownLikes, withLike } from './likes';

const summary: LikesSummary = { counts: { 8: 2, 3: 1 }, liked: [3] };

describe('shown likes', () => {
  it('are the catalogue’s starting count plus shoppers’ likes', () => {
    expect(shownLikes(42, summary, 8)).toBe(44);
    expect(shownLikes(0, summary, 3)).toBe(1);
  });

  it('are the catalogue’s count alone before any shopper likes the product (or before the counts have loaded)', () => {
    expect(shownLikes(12, summary, 5)).toBe(12);
    expect(shownLikes(12, { counts: {}, liked: [] }, 8)).toBe(12);
  });
});

describe('withLike', () => {
  it('records a like with the new count, without changing the summary it was given', () => {
    expect(withLike(summary, 8, true, 3)).toEqual({ counts: { 8: 3, 3: 1 }, liked: [3, 8] });
    expect(summary).toEqual({ counts: { 8: 2, 3: 1 }, liked: [3] });
  });

  it('records an unlike', () => {
    expect(withLike(summary, 3, false, 0)).toEqual({ counts: { 8: 2, 3: 0 }, liked: [] });
  });

  it('lists a product once however often it is liked', () => {
    expect(withLike(withLike(summary, 3, true, 1), 3, true, 1).liked).toEqual([3]);
  });

  it('never shows a negative count (an unlike answered before the likes had loaded)', () => {
    expect(withLike({ counts: {}, liked: [] }, 5, false, -1).counts[5]).toBe(0);
  });
});
