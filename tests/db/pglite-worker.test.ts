/**
 * The embedded database runs its engine in a worker thread: a long statement must not hold up the server's thread,
 * calls must keep their order across the threads, and a closed database must answer as unavailable (503), not hang.
 */
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '@/server/db/database.server';
import { migratedPglite } from './test-database';

// Each test opens PGlite in memory, in its worker thread (migratedPglite: a copy of the run's migrated snapshot,
// whatever TEST_DATABASE_URL says).
describe('the embedded database in its own thread', () => {
  it('leaves the server thread free while a statement runs', async () => {
    const db = await migratedPglite();
    try {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 10);
      await db.query(`select pg_sleep(0.4)`);
      clearInterval(timer);
      // In the server's thread, the 400 ms of the statement would have let no timer run at all.
      expect(ticks).toBeGreaterThan(10);
    } finally {
      await db.close();
    }
  });

  it('runs calls in the order they were made: a statement never lands inside another caller transaction', async () => {
    const db = await migratedPglite();
    try {
      await db.exec(`create table seen (id integer primary key)`);
      let outside: Promise<unknown[]> | undefined;
      await db.transaction(async (tx) => {
        await tx.query(`insert into seen values ($1)`, [1]);
        outside = db.query(`select count(*)::int as n from seen`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await tx.query(`insert into seen values ($1)`, [2]);
      });
      expect(await outside).toEqual([{ n: 2 }]);
      // A transaction that failed whole is rolled back in the engine: the next one starts clean.
      await expect(db.batch([{ text: `insert into seen values ($1)`, params: [1] }])).rejects.toMatchObject({
        code: '23505',
      });
      expect(await db.statement(`select count(*)::int as n from seen`)).toEqual([{ n: 2 }]);
    } finally {
      await db.close();
    }
  });

  it('answers as unavailable once closed', async () => {
    const db = await migratedPglite();
    await db.close();
    const error = await db.query(`select 1`).catch((e: unknown) => e);
    expect(error).toMatchObject({ message: 'The embedded database stopped: it was closed' });
    expect(isDatabaseUnavailable(error)).toBe(true);
  });
});
