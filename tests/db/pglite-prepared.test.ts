/**
 * The embedded database's transactions run their statements as named prepared statements (parsed and planned once per
 * session), and send what the code sends in one turn of the event loop as one batch. They must answer exactly as
 * PGlite's own unnamed statements do, never mix up two statements sent together, keep their order, and survive errors
 * and rollbacks.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/server/db/database.server';
import { fromPglite } from './local-pglite';

let pg: PGlite;
let db: Database;
/** How many calls into the engine the database has made so far. */
let calls = 0;
beforeAll(async () => {
  pg = await PGlite.create();
  const run = pg.execProtocolRawSync.bind(pg);
  pg.execProtocolRawSync = (message) => {
    calls++;
    return run(message);
  };
  db = fromPglite(pg);
  await db.exec(`create table t (id integer primary key, body jsonb, at timestamptz, ok boolean, note text, u uuid)`);
}, 60_000);
afterAll(() => db?.close());

/** The calls into the engine `work` makes (once every statement it uses has been prepared by a first run). */
async function engineCalls(work: () => Promise<unknown>): Promise<number> {
  await work();
  const before = calls;
  await work();
  return calls - before;
}

const prepared = () =>
  db.query<{ name: string; statement: string }>(`select name, statement from pg_prepared_statements order by name`);

describe('prepared statements in embedded transactions', () => {
  it('gives the same rows and types as an unnamed statement', async () => {
    const at = new Date('2026-11-23T10:00:00.000Z');
    const params = [1, { a: [1, 'two'] }, at, true, "O'Brien \\ 'quoted'", '00000000-0000-4000-8000-000000000001'];
    await db.transaction((tx) => tx.query(`insert into t values ($1, $2, $3, $4, $5, $6)`, params));
    const read = `select id, body, at, ok, note, u::text as u, null::text as missing from t where id = $1`;
    const inTransaction = await db.transaction((tx) => tx.query(read, [1]));
    const unnamed = await db.query(read, [1]);
    expect(inTransaction).toEqual(unnamed);
    expect(inTransaction).toEqual([
      { id: 1, body: { a: [1, 'two'] }, at, ok: true, note: params[4], u: params[5], missing: null },
    ]);
  });

  it('parses a text once, however often it runs', async () => {
    const text = `select $1::integer + 1 as next`;
    for (let i = 0; i < 5; i++) expect(await db.transaction((tx) => tx.query(text, [i]))).toEqual([{ next: i + 1 }]);
    expect((await prepared()).filter((s) => s.statement === text)).toHaveLength(1);
  });

  it('keeps statements sent together apart', async () => {
    const results = await db.transaction((tx) =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 ? tx.query(`select $1::integer as odd`, [i]) : tx.query(`select $1::text as even`, [`n${i}`]),
        ),
      ),
    );
    expect(results).toEqual(results.map((_, i) => [i % 2 ? { odd: i } : { even: `n${i}` }]));
  });

  it('throws the database error, rolls back, and works again after it', async () => {
    const insert = `insert into t (id, note) values ($1, $2)`;
    await expect(
      db.transaction(async (tx) => {
        await tx.query(insert, [2, 'kept?']);
        await tx.query(insert, [2, 'duplicate']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await db.query(`select id from t where id = 2`)).toEqual([]);
    await expect(db.transaction((tx) => tx.query(`select $1::integer / 0 as boom`, [1]))).rejects.toMatchObject({
      code: '22012',
    });
    await db.transaction((tx) => tx.query(insert, [2, 'after']));
    expect(await db.query<{ note: string }>(`select note from t where id = 2`)).toEqual([{ note: 'after' }]);
  });

  it('does not keep a statement that failed to parse', async () => {
    const before = (await prepared()).length;
    await expect(db.transaction((tx) => tx.query(`select from nowhere where x = $1`, [1]))).rejects.toMatchObject({
      code: '42P01',
    });
    expect((await prepared()).length).toBe(before);
  });

  it('sends BEGIN, the setup and the first statements as one call, and COMMIT as another', async () => {
    const setup = { text: `select set_config('app.who', $1, true)`, params: ['me'] };
    const work = () =>
      db.transaction(
        (tx) => Promise.all([tx.query(`select current_setting('app.who') as who`), tx.query(`select $1::int as n`, [7])]),
        setup,
      );
    expect(await work()).toEqual([[{ who: 'me' }], [{ n: 7 }]]);
    expect(await engineCalls(work)).toBe(2);
    // A single statement, or a batch of statements known in advance, takes its COMMIT along: one call.
    expect(await engineCalls(() => db.statement(`select $1::int as n`, [1], setup))).toBe(1);
    const batch = () => db.batch([{ text: `select $1::int as n`, params: [1] }, { text: `select 2 as m` }], setup);
    expect(await batch()).toEqual([[{ n: 1 }], [{ m: 2 }]]);
    expect(await engineCalls(batch)).toBe(1);
  });

  it('runs statements in the order they were sent, a multi-statement text included', async () => {
    await db.transaction(async (tx) => {
      const first = tx.query(`insert into t (id, note) values ($1, 'first')`, [10]);
      await tx.exec(`update t set note = note || ', then exec' where id = 10; insert into t (id, note) values (11, 'exec')`);
      await first;
      await tx.query(`update t set note = note || ', then query' where id = $1`, [10]);
    });
    expect(await db.query(`select id, note from t where id in (10, 11) order by id`)).toEqual([
      { id: 10, note: 'first, then exec, then query' },
      { id: 11, note: 'exec' },
    ]);
  });

  it('rejects a failed statement of a batch and the ones after it, answers the ones before, and rolls back', async () => {
    const outcomes = await db
      .transaction((tx) =>
        Promise.allSettled([
          tx.query(`insert into t (id, note) values ($1, 'batch')`, [20]),
          tx.query(`select $1::integer / 0 as boom`, [1]),
          tx.query(`insert into t (id, note) values ($1, 'never')`, [21]),
        ]),
      )
      .catch((error: unknown) => error);
    // Every statement was settled (the code caught the failure), but COMMIT found the transaction failed.
    expect(outcomes).toBeInstanceOf(Error);
    expect(await db.query(`select id from t where id in (20, 21)`)).toEqual([]);

    let settled: PromiseSettledResult<unknown>[] = [];
    await db
      .transaction(async (tx) => {
        settled = await Promise.allSettled([
          tx.query(`select $1::int as before`, [1]),
          tx.query(`select $1::integer / 0 as boom`, [1]),
          tx.query(`select $1::int as after`, [2]),
        ]);
      })
      .catch(() => {});
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(settled[0]).toMatchObject({ value: [{ before: 1 }] });
    expect(settled[1]).toMatchObject({ reason: { code: '22012' } });
    expect(settled[2]).toMatchObject({ reason: { code: '22012' } });
    // The engine is usable again at once.
    expect(await db.transaction((tx) => tx.query(`select $1::int as ok`, [1]))).toEqual([{ ok: 1 }]);
  });

  it('refuses a statement sent after its transaction has ended', async () => {
    let late: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      await tx.query(`select $1::int as n`, [1]);
      setTimeout(() => {
        late = tx.query(`insert into t (id, note) values ($1, 'late')`, [30]).catch((error: unknown) => error);
      }, 0);
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await late).toMatchObject({ message: 'Transaction is closed' });
    expect(await db.query(`select id from t where id = 30`)).toEqual([]);
  });

  it('keeps at most its limit of statements prepared, closing the least recently used, and still answers them all', async () => {
    const small = await PGlite.create();
    // BEGIN and COMMIT take two of the five places (and, used by every transaction, are never the least recent).
    const limited = fromPglite(small, () => {}, 5);
    const text = (i: number) => `select $1::int + ${i} as n`;
    const run = (i: number) => limited.transaction((tx) => tx.query(text(i), [1]));
    for (const i of [1, 2, 3]) expect(await run(i)).toEqual([{ n: 1 + i }]);
    await run(1); // now the most recently used: 2 goes first
    for (const i of [4, 5]) expect(await run(i)).toEqual([{ n: 1 + i }]);
    const kept = await limited.query<{ statement: string }>(`select statement from pg_prepared_statements`);
    expect(kept.map((s) => s.statement).sort()).toEqual(['begin', 'commit', text(1), text(4), text(5)].sort());
    // A closed text is prepared again when it comes back.
    expect(await run(2)).toEqual([{ n: 3 }]);
    await limited.close();
  });
});
