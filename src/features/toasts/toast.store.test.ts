import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { notifyOnNextPage, showNextPageToast } from './next-page-toast';
import { $toasts, dismiss, isSwipeDismiss, notify } from './toast.store';

describe('toasts (product spec)', () => {
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

describe('a toast for the next page (the order confirmed again after the spec’s reload)', () => {
  const stored = new Map<string, string>();
  beforeEach(() => {
    $toasts.set([]);
    stored.clear();
    vi.stubGlobal('sessionStorage', {
      getItem: (k: string) => stored.get(k) ?? null,
      setItem: (k: string, v: string) => stored.set(k, v),
      removeItem: (k: string) => stored.delete(k),
    });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('is shown once on the next page, kept until closed, with its link', () => {
    notifyOnNextPage('success', 'Thank you! Your order ORD-ABC123 is placed.', {
      description: 'A confirmation e-mail is on its way.',
      durationMs: Number.POSITIVE_INFINITY,
      link: { href: '/order?token=abc', label: 'View your order' },
    });
    expect($toasts.get()).toEqual([]);
    showNextPageToast();
    expect($toasts.get().map(({ id: _id, ...t }) => t)).toEqual([
      {
        kind: 'success',
        title: 'Thank you! Your order ORD-ABC123 is placed.',
        description: 'A confirmation e-mail is on its way.',
        durationMs: Number.POSITIVE_INFINITY,
        link: { href: '/order?token=abc', label: 'View your order' },
      },
    ]);
    showNextPageToast();
    expect($toasts.get()).toHaveLength(1);
  });

  it('never links off the shop, whatever was stored', () => {
    for (const href of ['//evil.example/x', 'https://evil.example/', 'javascript:alert(1)']) {
      $toasts.set([]);
      stored.set('aurelia:toast-next-page', JSON.stringify({ kind: 'info', title: 'x', link: { href, label: 'Go' } }));
      showNextPageToast();
      expect($toasts.get()[0]?.link, href).toBeUndefined();
    }
    stored.set('aurelia:toast-next-page', '{not json');
    expect(() => showNextPageToast()).not.toThrow();
  });
});
