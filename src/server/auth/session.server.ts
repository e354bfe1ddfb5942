import type { Database } from '../db/database.server';
import { asService } from '../db/roles.server';
import type { AuthPort, CookieJar, CurrentSession } from './auth.port';

/** Idle sign-out after 15 minutes without activity (spec section 6), decided by the server. */
export const IDLE_TIMEOUT_S = 15 * 60;

/**
 * The shopper's session if it is still active. `touch` records activity (any request the shopper made); the browser's
 * 3-minute session check does not touch, so it cannot keep an idle session alive. An idle session is ended for good.
 */
export async function activeSession(
  db: Database,
  auth: AuthPort,
  jar: CookieJar,
  { touch }: { touch: boolean },
): Promise<CurrentSession | null> {
  const session = await auth.currentSession(jar);
  if (!session) return null;
  const idle = await asService(db, async (tx) => {
    const [row] = await tx.query<{ idle: boolean }>(
      `select last_seen_at < now() - make_interval(secs => $2) as idle from public.session_activity where session_key = $1`,
      [session.sessionKey, IDLE_TIMEOUT_S],
    );
    if (row?.idle) {
      await tx.query(`delete from public.session_activity where session_key = $1`, [session.sessionKey]);
      return true;
    }
    if (!row || touch) {
      await tx.query(
        `insert into public.session_activity (session_key, user_id) values ($1, $2)
         on conflict (session_key) do update set last_seen_at = now()`,
        [session.sessionKey, session.user.id],
      );
    }
    return false;
  });
  if (idle) {
    await auth.signOut(jar);
    return null;
  }
  return session;
}
