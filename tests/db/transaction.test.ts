import { describe, expect, it } from 'vitest';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

/** A scratch table outside RLS's reach: these tests are about the adapter, not the schema. */
async function scratch() {
  await db.exec(`create table if not exists tx_scratch (id int primary key, note text)`);
  await db.exec(`truncate tx_scratch`);
}

const notes = async () => (await db.query<{ id: number }>(`select id from tx_scratch order by id`)).map((r) => r.id);

describe(`transactions on ${TEST_DATABASE_KIND}`, () => {
  it('commit what fn wrote, including statements sent together without waiting', async () => {
    await scratch();
    const result = await db.transaction(async (tx) => {
      await Promise.all([1, 2, 3].map((id) => tx.query(`insert into tx_scratch (id) values ($1)`, [id])));
      return 'done';
    });
    expect(result).toBe('done');
    expect(await notes()).toEqual([1, 2, 3]);
  });

  it('roll everything back at a failing statement and throw its error, not a later one', async () => {
    await scratch();
    const failing = db.transaction(async (tx) => {
      await tx.query(`insert into tx_scratch (id) values (1)`);
      await Promise.all([
        tx.query(`insert into tx_scratch (id) values (1)`), // duplicate key
        tx.query(`insert into tx_scratch (id) values (2)`), // refused too: the transaction is aborted
      ]);
    });
    await expect(failing).rejects.toThrow(/duplicate key/);
    expect(await notes()).toEqual([]);
  });

  it('roll back when fn throws before or after its statements, and run the setup first', async () => {
    await scratch();
    await expect(
      db.transaction(() => {
        throw new Error('before any statement');
      }),
    ).rejects.toThrow('before any statement');
    await expect(
      db.transaction(
        async (tx) => {
          await tx.query(`insert into tx_scratch (id, note) values (1, current_setting('app.note', true))`);
          throw new Error('after a statement');
        },
        { text: `select set_config('app.note', 'set up', true)` },
      ),
    ).rejects.toThrow('after a statement');
    expect(await notes()).toEqual([]);
    const [row] = await db.transaction((tx) => tx.query<{ note: string }>(`select current_setting('app.note', true) as note`), {
      text: `select set_config('app.note', $1, true)`,
      params: ['set up'],
    });
    expect(row?.note).toBe('set up');
  });

  it('give every connection back: 30 failed transactions leave the pool usable', async () => {
    await scratch();
    for (let i = 0; i < 30; i++) await expect(db.transaction((tx) => tx.query(`select 1/0`))).rejects.toThrow(/division by zero/);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => db.transaction((tx) => tx.query(`insert into tx_scratch (id) values ($1)`, [i]))),
    );
    expect(await notes()).toHaveLength(10);
  });

  it('run a single statement after its setup, commit it, and leave nothing of the setup behind', async () => {
    await scratch();
    const rows = await db.statement<{ id: number; note: string }>(
      `insert into tx_scratch (id, note) values ($1, current_setting('app.note', true)) returning id, note`,
      [7],
      { text: `select set_config('app.note', $1, true)`, params: ['statement'] },
    );
    expect(rows).toEqual([{ id: 7, note: 'statement' }]);
    expect(await notes()).toEqual([7]);
    const [after] = await db.query<{ note: string | null }>(`select nullif(current_setting('app.note', true), '') as note`);
    expect(after?.note ?? null).toBeNull();
  });

  it('roll a failing single statement back, throw its error, and give the connection back', async () => {
    await scratch();
    await db.exec(`insert into tx_scratch (id) values (1)`);
    for (let i = 0; i < 15; i++)
      await expect(db.statement(`insert into tx_scratch (id) values ($1)`, [1])).rejects.toMatchObject({ code: '23505' });
    await expect(db.statement(`select 1/0`, [], { text: `select set_config('app.note', 'x', true)` })).rejects.toThrow(
      /division by zero/,
    );
    await Promise.all(Array.from({ length: 10 }, (_, i) => db.statement(`insert into tx_scratch (id) values ($1)`, [i + 2])));
    expect(await notes()).toHaveLength(11);
  });

  it('run a batch after its setup: every statement in order, committed together, their rows in order', async () => {
    await scratch();
    const answers = await db.batch(
      [
        { text: `insert into tx_scratch (id, note) values ($1, current_setting('app.note', true))`, params: [1] },
        { text: `insert into tx_scratch (id, note) values (2, 'two')` },
        { text: `select id, note from tx_scratch order by id` },
      ],
      { text: `select set_config('app.note', $1, true)`, params: ['batch'] },
    );
    expect(answers).toEqual([
      [],
      [],
      [
        { id: 1, note: 'batch' },
        { id: 2, note: 'two' },
      ],
    ]);
    expect(await notes()).toEqual([1, 2]);
  });

  it('commit nothing of a batch with a failing statement, throw its error, and give the connection back', async () => {
    await scratch();
    for (let i = 0; i < 15; i++)
      await expect(
        db.batch([
          { text: `insert into tx_scratch (id) values ($1)`, params: [1] },
          { text: `insert into tx_scratch (id) values ($1)`, params: [1] }, // duplicate key
          { text: `insert into tx_scratch (id) values ($1)`, params: [2] },
        ]),
      ).rejects.toMatchObject({ code: '23505' });
    expect(await notes()).toEqual([]);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => db.batch([{ text: `insert into tx_scratch (id) values ($1)`, params: [i] }])),
    );
    expect(await notes()).toHaveLength(10);
  });
});
