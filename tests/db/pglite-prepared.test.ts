/**
 * The embedded database's transactions run parameterised statements as named prepared statements (parsed and planned
 * once per session). They must answer exactly as PGlite's own unnamed statements do, never mix up two statements sent
 * together, and survive errors and rollbacks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/server/db/database.server';
import { openPglite } from '@/server/db/pglite.server';

let db: Database;
beforeAll(async () => {
  db = await openPglite(null);
  await db.exec(`create table t (id integer primary key, body jsonb, at timestamptz, ok boolean, note text, u uuid)`);
}, 60_000);
afterAll(() => db?.close());

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
    for (const [i, rows] of results.entries()) expect(rows).toEqual([i % 2 ? { odd: i } : { even: `n${i}` }]);
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
});
