import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '@/server/db/database.server';
import { openPostgres } from '@/server/db/postgres.server';
import { databaseUrl, suiteDatabase, TEST_DATABASE_KIND } from './test-database';

// On PostgreSQL a statement is sent prepared: parsed and planned once per connection, then only bound and run. Sent
// unprepared, postgres.js waits for the server to describe a statement with parameters before binding them (a round
// trip more, holding up the pipeline behind it), and the server parses and plans it every time: the cart save cost
// three times the server's CPU. `?prepare=false` in the URL is for a pooler that keeps no prepared statements.
// (PGlite's adapter prepares its statements itself: tests/db/pglite-prepared.test.ts.)

const db = suiteDatabase();
const opened: Database[] = [];
afterAll(() => Promise.all(opened.map((d) => d.close())));

/** A second handle on the suite's database with one connection, so every statement meets the same session. */
function oneConnection(query = ''): Database {
  const url = databaseUrl(db);
  if (!url) throw new Error('no URL for the test database');
  const handle = openPostgres(url + query, { max: 1 });
  opened.push(handle);
  return handle;
}

const TEXT = 'select $1::int + 1 as n';

async function preparedHere(handle: Database): Promise<string[]> {
  const rows = await handle.query<{ statement: string }>('select statement from pg_prepared_statements');
  return rows.map((r) => r.statement);
}

describe.skipIf(TEST_DATABASE_KIND !== 'postgres')('statements on PostgreSQL', () => {
  it('are prepared once per connection, in a query, a transaction and a batch', async () => {
    const handle = oneConnection();
    expect(await handle.query(TEXT, [1])).toEqual([{ n: 2 }]);
    expect(await handle.transaction((tx) => tx.query(`${TEXT} -- tx`, [2]))).toEqual([{ n: 3 }]);
    expect(await handle.batch([{ text: `${TEXT} -- batch`, params: [3] }])).toEqual([[{ n: 4 }]]);
    expect(await handle.query(TEXT, [4])).toEqual([{ n: 5 }]);
    const prepared = await preparedHere(handle);
    expect(prepared).toEqual(expect.arrayContaining([TEXT, `${TEXT} -- tx`, `${TEXT} -- batch`]));
    expect(prepared.filter((s) => s === TEXT)).toHaveLength(1);
    expect(prepared).not.toContain('begin');
  });

  it('are sent unprepared, with the same answers, when the URL says prepare=false', async () => {
    const handle = oneConnection('?prepare=false');
    expect(await handle.query(TEXT, [1])).toEqual([{ n: 2 }]);
    expect(await handle.batch([{ text: TEXT, params: [2] }], { text: 'select 1' })).toEqual([[{ n: 3 }]]);
    expect(await handle.transaction((tx) => tx.query(TEXT, [3]))).toEqual([{ n: 4 }]);
    expect(await preparedHere(handle)).toEqual([]);
  });
});
