import { beforeEach, describe, expect, it } from 'vitest';
import { $toastQueue, notify } from './toast.store';

describe('notify', () => {
  beforeEach(() => $toastQueue.set([]));

  it('queues messages in order, with their kind and description, until the toaster takes them', () => {
    notify.error('Login to like products');
    notify.error('Email mismatch', { description: 'You can only subscribe with your account email address.' });
    notify.success('Added', { durationMs: 5000 });
    expect($toastQueue.get().map(({ id: _id, ...m }) => m)).toEqual([
      { kind: 'error', title: 'Login to like products' },
      { kind: 'error', title: 'Email mismatch', description: 'You can only subscribe with your account email address.' },
      { kind: 'success', title: 'Added', durationMs: 5000 },
    ]);
    const ids = $toastQueue.get().map((m) => m.id);
    expect(new Set(ids).size).toBe(3);
  });
});
