import type { Database, Row, Sql } from '@/server/db/database.server';
import { asService, asShopper, type ShopperClaims } from '@/server/db/roles.server';

/** The two shoppers of the matrix. Their JWT claims are what `asShopper` sets, as Supabase's table API would. */
export const userA = { id: '00000000-0000-4000-8000-00000000000a', email: 'ann@example.com' } as const;
export const userB = { id: '00000000-0000-4000-8000-00000000000b', email: 'ben@example.com' } as const;

/** Who runs a statement: a guest (`anon`), shopper A or B (`authenticated`), or the server's privileged paths. */
export type Actor = 'anon' | 'A' | 'B' | 'service';
export const actors: readonly Actor[] = ['anon', 'A', 'B', 'service'];
export const actorName: Record<Actor, string> = { anon: 'a guest (anon)', A: 'user A', B: 'user B', service: 'service_role' };

export const claimsOf: Record<'A' | 'B', ShopperClaims> = {
  A: { sub: userA.id, email: userA.email, role: 'authenticated' },
  B: { sub: userB.id, email: userB.email, role: 'authenticated' },
};

/** Runs `fn` in its own transaction as `actor`. */
export function as<T>(db: Database, actor: Actor, fn: (tx: Sql) => Promise<T>): Promise<T> {
  if (actor === 'service') return asService(db, fn);
  return asShopper(db, actor === 'anon' ? null : claimsOf[actor], fn);
}

/** Creates the two shoppers' accounts (as the superuser the tests connect with, like a migration). */
export async function createUsers(db: Database): Promise<void> {
  for (const user of [userA, userB]) {
    await db.query('insert into auth.users (id, email) values ($1, $2) on conflict (id) do nothing', [user.id, user.email]);
  }
}

/**
 * The products the matrix's rows refer to (the schema refuses rows for products it does not know). Created like the
 * catalogue sync does, beside the real catalogue's ids 1 to 9.
 */
export const fixtureProducts = [101, 202, 303] as const;

export async function createProducts(db: Database): Promise<void> {
  for (const id of fixtureProducts) {
    await db.query('insert into public.products (id, name, in_catalogue) values ($1, $2, true) on conflict (id) do nothing', [
      id,
      `Fixture product ${id}`,
    ]);
  }
}

// Outcomes -----------------------------------------------------------------------------------------------------------

/** The statement ran. */
export const OK = 'ok';
/** Refused by privileges: SQLSTATE 42501 "permission denied for table …" (the role has no GRANT for this). */
export const DENIED = 'permission denied';
/** Refused by a policy: SQLSTATE 42501 "new row violates row-level security policy for table …". */
export const RLS = 'violates row-level security';

export type Outcome = typeof OK | typeof DENIED | typeof RLS;

/** A statement's result: its rows, or the error PostgreSQL answered with. */
export type Attempt<T> = { ok: true; rows: T[] } | { ok: false; code: string; message: string };

function sqlError(error: unknown): { code: string; message: string } | null {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return null;
  return { code: error.code, message: error.message };
}

/** Runs one statement as `actor` in a transaction of its own (a failed statement aborts its transaction). */
export async function attempt<T extends Row = Row>(
  db: Database,
  actor: Actor,
  text: string,
  params: readonly unknown[] = [],
): Promise<Attempt<T>> {
  try {
    return { ok: true, rows: await as(db, actor, (tx) => tx.query<T>(text, params)) };
  } catch (error) {
    const failure = sqlError(error);
    if (!failure) throw error;
    return { ok: false, ...failure };
  }
}

/**
 * Names what happened, so that a failing test says e.g. `expected 'violates row-level security', got 'ok'`.
 * Only SQLSTATE 42501 counts as a refusal; any other error is reported with its code and message.
 */
export function outcomeOf(result: Attempt<Row>): string {
  if (result.ok) return OK;
  if (result.code === '42501' && /^permission denied for /.test(result.message)) return DENIED;
  if (result.code === '42501' && /^new row violates row-level security policy/.test(result.message)) return RLS;
  return `SQLSTATE ${result.code}: ${result.message}`;
}

/** Just the SQLSTATE, for constraint checks: "ok" when the statement ran. */
export function sqlstateOf(result: Attempt<Row>): string {
  return result.ok ? OK : result.code;
}

// Rows ---------------------------------------------------------------------------------------------------------------

/** A row's columns. jsonb values are given as JSON text; every value travels as a parameter. */
export type Values = Readonly<Record<string, string | number | boolean | null | Uint8Array | readonly object[]>>;

/** `insert into public.<table> (…) values ($1, …)` for the given values. */
export function insertSql(table: string, values: Values, returning?: string): { text: string; params: unknown[] } {
  const columns = Object.keys(values);
  const placeholders = columns.map((_, i) => `$${i + 1}`);
  return {
    text: `insert into public.${table} (${columns.join(', ')}) values (${placeholders.join(', ')})${
      returning ? ` returning ${returning}` : ''
    }`,
    params: Object.values(values),
  };
}

/** Every row of a table (within `scope`, a condition), keyed by `key`, as service_role sees it (the ground truth after a probe). */
export async function snapshot(db: Database, table: string, key: string, scope = 'true'): Promise<Map<string, string>> {
  const rows = await asService(db, (tx) =>
    tx.query<{ key: string; row: string }>(
      `select (${key})::text as key, to_jsonb(t)::text as row from public.${table} t where ${scope}`,
    ),
  );
  return new Map(rows.map((r) => [r.key, r.row]));
}
