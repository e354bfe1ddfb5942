import type { Config } from '../config.server';
import type { Database } from '../db/database.server';
import type { AuthPort } from './auth.port';
import { createBuiltInAuth } from './builtin.server';

/**
 * The accounts adapter the configuration asks for: Supabase Auth with its URL and key, else the built-in accounts in
 * the shop's own database (Supabase's SDK is loaded only then). `onMailQueued` wakes the outbox when the built-in
 * accounts queue an e-mail.
 */
export async function createAuth(
  config: Config['auth'],
  { db, secureCookies, onMailQueued }: { db: Database; secureCookies: boolean; onMailQueued: () => void },
): Promise<AuthPort> {
  if (config.kind === 'supabase') {
    const { createSupabaseAuth } = await import('./supabase.server');
    return createSupabaseAuth({ url: config.url, anonKey: config.anonKey, secureCookies });
  }
  // Sessions are kept in memory: exact on the embedded database, which only this process writes, and on PostgreSQL
  // while its notifications of other servers' writes arrive (session-cache.server.ts).
  return createBuiltInAuth({ db, secureCookies, onMailQueued, cacheSessions: true });
}
