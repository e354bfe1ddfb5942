import type { Config } from '../config.server';
import type { Database } from '../db/database.server';
import type { AuthPort } from './auth.port';
import { createBuiltInAuth } from './builtin.server';
import { createSupabaseAuth } from './supabase.server';

/**
 * The accounts adapter the configuration asks for: Supabase Auth with its URL and key, else the built-in accounts in
 * the shop's own database. `onMailQueued` wakes the outbox when the built-in accounts queue an e-mail.
 */
export function createAuth(
  config: Config['auth'],
  { db, secureCookies, onMailQueued }: { db: Database; secureCookies: boolean; onMailQueued: () => void },
): AuthPort {
  if (config.kind === 'supabase') return createSupabaseAuth({ url: config.url, anonKey: config.anonKey, secureCookies });
  // Sessions are kept in memory: exact on the embedded database, which only this process writes, and on PostgreSQL
  // while its notifications of other servers' writes arrive (session-cache.server.ts).
  return createBuiltInAuth({ db, secureCookies, onMailQueued, cacheSessions: true });
}
