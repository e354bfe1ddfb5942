import { describe, expect, it } from 'vitest';
import { asService } from '@/server/db/roles.server';
import { forget, hit, pruneRateLimits, refund } from '@/server/ratelimit.server';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
/** A moment on one day, for the hits whose time a test chooses. */
const at = (time: string) => new Date(`2026-01-05T${time}Z`);

describe(`rate limits on ${TEST_DATABASE_KIND}`, () => {
  it('allow the limit, then refuse with the seconds until there is room again', async () => {
    const limit = { limit: 3, windowSeconds: 600 };
    for (let i = 0; i < 3; i++) expect(await hit(db, 'login:test', limit)).toEqual({ ok: true });
    const refused = await hit(db, 'login:test', limit);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.retryAfter).toBeGreaterThan(0);
    // At most the rest of this window and part of the next, in which this one's hits still weigh.
    if (!refused.ok) expect(refused.retryAfter).toBeLessThanOrEqual(2 * 600);
    // Another bucket is counted apart.
    expect(await hit(db, 'login:other', limit)).toEqual({ ok: true });
  });

  it('hold across the edge of a window: the last window still counts, less the part of it that has passed', async () => {
    const limit = { limit: 5, windowSeconds: 600 };
    // Five hits in the last seconds of one window, then a sixth a few seconds into the next: refused, where a counter
    // that started afresh at the edge would have let twice the limit through in a few seconds.
    for (let i = 0; i < 5; i++) expect(await hit(db, 'review:edge', limit, at('10:09:55'))).toEqual({ ok: true });
    const sixth = await hit(db, 'review:edge', limit, at('10:10:05'));
    expect(sixth).toEqual({ ok: false, retryAfter: expect.any(Number) });
    // The room comes back as the last window's hits age out: 40 % of the way in (10:14), 5 × 0.6 + the refused one + the
    // next one ≤ 5 again.
    if (!sixth.ok) expect(sixth.retryAfter).toBe(235);
    expect((await hit(db, 'review:edge', limit, at('10:13:00'))).ok).toBe(false);
    expect(await hit(db, 'review:edge', limit, at('10:17:00'))).toEqual({ ok: true });
    // A window with nothing before it starts with the whole limit.
    for (let i = 0; i < 5; i++) expect(await hit(db, 'review:fresh', limit, at('10:10:05'))).toEqual({ ok: true });
    // Six in this one (the refused one counts): its last second, then a third of the next (6 × ⅔ + 1 ≤ 5).
    expect(await hit(db, 'review:fresh', limit, at('10:19:59'))).toEqual({ ok: false, retryAfter: 1 + 200 });
  });

  it('count concurrent hits exactly, as several server processes would', async () => {
    const limit = { limit: 10, windowSeconds: 600 };
    const results = await Promise.all(Array.from({ length: 15 }, () => hit(db, 'signup:burst', limit)));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
  });

  it('take back a hit that turned out not to count, and forget a bucket altogether', async () => {
    const limit = { limit: 2, windowSeconds: 600 };
    await hit(db, 'login:refund', limit);
    await hit(db, 'login:refund', limit);
    await asService(db, (tx) => refund(tx, 'login:refund'));
    expect(await hit(db, 'login:refund', limit)).toEqual({ ok: true });
    expect((await hit(db, 'login:refund', limit)).ok).toBe(false);
    await asService(db, (tx) => forget(tx, 'login:refund'));
    expect(await hit(db, 'login:refund', limit)).toEqual({ ok: true });
    // Nothing to take back is not an error, and never goes below zero.
    await asService(db, async (tx) => {
      await refund(tx, 'login:never');
      await forget(tx, 'login:never');
    });
  });

  it('prune old windows and addresses not signed in from for 30 days', async () => {
    await db.query(`insert into public.rate_limits (bucket, window_start, hits) values ('old', now() - interval '2 days', 3)`);
    await db.query(
      `insert into public.login_known_addresses (key_hash, last_success_at) values ('stale', now() - interval '31 days'), ('fresh', now() - interval '29 days')`,
    );
    await pruneRateLimits(db);
    expect(await db.query(`select 1 from public.rate_limits where bucket = 'old'`)).toEqual([]);
    expect(
      (await db.query<{ key_hash: string }>('select key_hash from public.login_known_addresses')).map((r) => r.key_hash),
    ).toEqual(['fresh']);
  });
});
