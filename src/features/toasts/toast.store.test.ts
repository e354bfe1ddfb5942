import { beforeEach, describe, expect, it } from 'vitest';
import { $toasts, dismiss, isSwipeDismiss, notify } from './toast.store';

describe('toasts (spec section 9)', () => {
  beforeEach(() => $toasts.set([]));

  it('keep kind, description and duration, oldest first', () => {
    notify.error('Login to like products');
    notify.error('Email mismatch', { description: 'You can only subscribe with your account email address.' });
    expect($toasts.get().map(({ id: _id, ...m }) => m)).toEqual([
      { kind: 'error', title: 'Login to like products' },
      { kind: 'error', title: 'Email mismatch', description: 'You can only subscribe with your account email address.' },
    ]);
  });

  it('show at most 3: a fourth pushes the oldest out', () => {
    for (const title of ['one', 'two', 'three', 'four']) notify.info(title);
    expect($toasts.get().map((t) => t.title)).toEqual(['two', 'three', 'four']);
  });

  it('of a failed call: the form’s failure, with the server’s words (a rate limit’s request to wait) beneath', () => {
    notify.failure('Failed to submit review', { ok: false, status: 500, message: 'Request failed (500)' });
    notify.failure('Failed to submit review', {
      ok: false,
      status: 429,
      message: 'You have sent several reviews in a short time. Please wait a few minutes and try again.',
    });
    expect($toasts.get().map(({ id: _id, ...m }) => m)).toEqual([
      { kind: 'error', title: 'Failed to submit review', description: 'Request failed (500)' },
      {
        kind: 'error',
        title: 'Failed to submit review',
        description: 'You have sent several reviews in a short time. Please wait a few minutes and try again.',
      },
    ]);
  });

  it('go away when dismissed', () => {
    notify.success('Added', { durationMs: 5000 });
    const [toast] = $toasts.get();
    dismiss(toast?.id ?? -1);
    expect($toasts.get()).toEqual([]);
  });

  it('are swiped away from 45 px, in either direction', () => {
    expect(isSwipeDismiss(44)).toBe(false);
    expect(isSwipeDismiss(45)).toBe(true);
    expect(isSwipeDismiss(-45)).toBe(true);
  });
});
