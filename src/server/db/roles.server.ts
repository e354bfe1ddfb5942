import type { Database, Row, Setup, Sql } from './database.server';

/** The JWT claims a signed-in shopper's queries run with, as Supabase's table API sets them. */
export interface ShopperClaims {
  sub: string;
  email: string;
  role: 'authenticated';
}

/**
 * Runs `fn` in a transaction as the shopper: role `authenticated` with their claims, or `anon` for a guest.
 * Row-level security then decides what every statement may see and change.
 */
export function asShopper<T>(db: Database, claims: ShopperClaims | null, fn: (tx: Sql) => Promise<T>): Promise<T> {
  return db.transaction(fn, shopperSetup(claims));
}

/** The setup a shopper's transaction runs first: their role and claims. */
function shopperSetup(claims: ShopperClaims | null): Setup {
  return {
    text: `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`,
    params: [claims ? 'authenticated' : 'anon', claimsSetting(claims)],
  };
}

/** The value `request.jwt.claims` is set to for a shopper (a guest: role anon only), as Supabase's table API sets it. */
export function claimsSetting(claims: ShopperClaims | null): string {
  return JSON.stringify(claims ?? { role: 'anon' });
}

/** service_role's setup: constant text, no parameters (PGlite then runs it in one protocol step). */
const AS_SERVICE = {
  text: `select set_config('role', 'service_role', true), set_config('request.jwt.claims', '{"role":"service_role"}', true)`,
};

/** Runs `fn` as service_role (bypasses RLS). Only for named privileged paths: payments, accounts, the outbox. */
export function asService<T>(db: Database, fn: (tx: Sql) => Promise<T>): Promise<T> {
  return db.transaction(fn, AS_SERVICE);
}

/** One statement as service_role, in a transaction of its own (one round trip on PostgreSQL; see Database.statement). */
export function serviceStatement<T extends object = Row>(
  db: Database,
  text: string,
  params: readonly unknown[] = [],
): Promise<T[]> {
  return db.statement<T>(text, params, AS_SERVICE);
}
