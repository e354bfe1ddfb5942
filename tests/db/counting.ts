import type { Database } from '@/server/db/database.server';

/** `db`, counting the transactions opened through it: `cost(fn)` is how many `fn` opened. */
export function counting(db: Database): Database & { cost(fn: () => Promise<unknown>): Promise<number> } {
  let transactions = 0;
  return {
    get kind() {
      return db.kind;
    },
    query: (text, params) => db.query(text, params),
    exec: (text) => db.exec(text),
    transaction: (fn, setup) => {
      transactions++;
      return db.transaction(fn, setup);
    },
    statement: (text, params, setup) => {
      transactions++;
      return db.statement(text, params, setup);
    },
    batch: (statements, setup) => {
      transactions++;
      return db.batch(statements, setup);
    },
    // Read when asked (the suite's database opens in beforeAll): present where the database's is.
    get watch() {
      // Undefined where the database has none (PGlite), as Database's optional member allows.
      return db.watch?.bind(db) as NonNullable<Database['watch']>;
    },
    close: () => db.close(),
    async cost(fn) {
      const before = transactions;
      await fn();
      return transactions - before;
    },
  };
}
