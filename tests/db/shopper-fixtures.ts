import { randomUUID } from 'node:crypto';
import type { Database } from '@/server/db/database.server';
import type { ShopperClaims } from '@/server/db/roles.server';

/** A new account (inserted by the superuser, as the accounts port would) and the claims its queries run with. */
export async function newShopper(db: Database, name = 'shopper'): Promise<ShopperClaims> {
  const id = randomUUID();
  const email = `${name}.${id.slice(0, 8)}@example.com`;
  await db.query('insert into auth.users (id, email) values ($1, $2)', [id, email]);
  return { sub: id, email, role: 'authenticated' };
}

/** The SQLSTATE of a database error (or of anything else, 'no SQLSTATE'), to say which refusal a test expects. */
export function sqlstate(error: unknown): string {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : 'no SQLSTATE';
}
