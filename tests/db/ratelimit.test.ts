import { describe, expect, it } from 'vitest';
import { hit } from '@/server/ratelimit.server';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

describe(`rate limits on ${TEST_DATABASE_KIND}`, () => {
  it('allow the limit, then refuse with the seconds left in the window', async () => {
    const limit = { limit: 3, windowSeconds: 600 };
    for (let i = 0; i < 3; i++) expect(await hit(db, 'login:test', limit)).toEqual({ ok: true });
    const refused = await hit(db, 'login:test', limit);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.retryAfter).toBeGreaterThan(0);
    if (!refused.ok) expect(refused.retryAfter).toBeLessThanOrEqual(600);
    // Another bucket is counted apart.
    expect(await hit(db, 'login:other', limit)).toEqual({ ok: true });
  });

  it('count concurrent hits exactly, as several server processes would', async () => {
    const limit = { limit: 10, windowSeconds: 600 };
    const results = await Promise.all(Array.from({ length: 15 }, () => hit(db, 'signup:burst', limit)));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
  });
});
