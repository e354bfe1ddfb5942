import { describe, expect, it } from 'vitest';
import type { CurrentSession } from './auth.port';
import { createSessionCache } from './session-cache.server';

const session = (id: string): CurrentSession => ({
  user: { id, email: `${id}@example.com`, firstName: 'Maya', lastName: 'Thompson' },
  claims: { sub: id, email: `${id}@example.com`, role: 'authenticated' },
  sessionKey: `builtin:${id}`,
});

describe('the session cache', () => {
  it('answers a stored session until its time is up, then asks again', () => {
    let now = 1_000;
    const cache = createSessionCache(() => now);
    cache.set('a', session('a'), 31_000, cache.generation());
    expect(cache.get('a')?.user.id).toBe('a');
    now = 30_999;
    expect(cache.get('a')).toBeDefined();
    now = 31_000;
    expect(cache.get('a')).toBeUndefined();
  });

  it('forgets everything at a write, and refuses an answer read before it', () => {
    const cache = createSessionCache(() => 0);
    cache.set('a', session('a'), 30_000, cache.generation());
    const before = cache.generation();
    // A lookup began (before), a logout committed and forgot everything, then the lookup's stale answer arrives.
    cache.forgetAll();
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', session('b'), 30_000, before);
    expect(cache.get('b')).toBeUndefined();
    cache.set('b', session('b'), 30_000, cache.generation());
    expect(cache.get('b')).toBeDefined();
  });

  it('keeps and answers nothing while paused, nor a lookup begun before it resumed', () => {
    const cache = createSessionCache(() => 0);
    cache.set('a', session('a'), 30_000, cache.generation());
    cache.pause();
    expect(cache.get('a')).toBeUndefined();
    const whilePaused = cache.generation();
    cache.set('b', session('b'), 30_000, whilePaused);
    expect(cache.get('b')).toBeUndefined();
    cache.resume();
    // Read while notifications were not arriving: it may predate a write no one was told about.
    cache.set('b', session('b'), 30_000, whilePaused);
    expect(cache.get('b')).toBeUndefined();
    cache.set('b', session('b'), 30_000, cache.generation());
    expect(cache.get('b')).toBeDefined();
  });

  it('does not store a session whose time is already up', () => {
    const cache = createSessionCache(() => 5_000);
    cache.set('a', session('a'), 5_000, cache.generation());
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps at most 10,000 sessions, dropping the oldest first', () => {
    const cache = createSessionCache(() => 0);
    for (let i = 0; i <= 10_000; i++) cache.set(`s${i}`, session(`s${i}`), 60_000, cache.generation());
    expect(cache.get('s0')).toBeUndefined();
    expect(cache.get('s1')).toBeDefined();
    expect(cache.get('s10000')).toBeDefined();
  });
});
