import type { Database, Sql } from '../db/database.server';
import { asService, serviceStatement } from '../db/roles.server';
import type { AuthPort, CookieJar, CurrentSession, SessionActivity } from './auth.port';

/** Idle sign-out after 15 minutes without activity (product spec), decided by the server. */
export const IDLE_TIMEOUT_S = 15 * 60;

/**
 * Activity is written at most once per this many seconds per session: a write per request would cost every signed-in
 * request a write transaction, which under load cost more than the request itself. The recorded time may therefore lag the real last activity by up to this
 * much, so a session counts as idle only when its recorded activity is older than IDLE_TIMEOUT_S plus this margin:
 * nobody is signed out before 15 minutes of real inactivity, and an idle session ends at most 30 s after that.
 */
export const ACTIVITY_GRANULARITY_S = 30;

/** How long since the last recorded activity a session ends: see ACTIVITY_GRANULARITY_S. */
const IDLE_AFTER_S = IDLE_TIMEOUT_S + ACTIVITY_GRANULARITY_S;

/**
 * SQL that judges a session from its activity row `a` (left-joined, so possibly missing) and `started`, when the
 * session began: a session with no row has been quiet since it began, never "fresh" (a session never used after
 * login would otherwise escape idle sign-out). Parameters $idle and $due are IDLE_AFTER_S and ACTIVITY_GRANULARITY_S.
 */
export function activitySql(started: string, idle: string, due: string): string {
  // A null start (a Supabase token without an authentication time) counts as long ago: no evidence of activity.
  return `coalesce(a.last_seen_at, ${started}, '-infinity') < now() - make_interval(secs => ${idle}) as idle,
    (a.last_seen_at is null or a.last_seen_at < now() - make_interval(secs => ${due})) as touch_due`;
}

/** The parameters activitySql's placeholders stand for, in its order. */
export const ACTIVITY_PARAMS = [IDLE_AFTER_S, ACTIVITY_GRANULARITY_S] as const;

/** Records activity now. Idempotent under concurrency: of many requests racing past the same due time, one writes. */
export async function recordActivity(tx: Sql, sessionKey: string, userId: string): Promise<void> {
  await tx.query(
    `insert into public.session_activity as a (session_key, user_id) values ($1, $2)
     on conflict (session_key) do update set last_seen_at = now()
     where a.last_seen_at < now() - make_interval(secs => $3)`,
    [sessionKey, userId, ACTIVITY_GRANULARITY_S],
  );
}

/** The activity of a session whose adapter could not read it with the session itself (Supabase: claims, no query). */
async function readActivity(db: Database, session: CurrentSession): Promise<SessionActivity> {
  const [row] = await serviceStatement<{ idle: boolean; touch_due: boolean }>(
    db,
    `select ${activitySql('$2::timestamptz', '$3', '$4')}
     from (select 1) as one left join public.session_activity a on a.session_key = $1`,
    [session.sessionKey, session.startedAt?.toISOString() ?? null, ...ACTIVITY_PARAMS],
  );
  return { idle: row?.idle ?? true, touchDue: row?.touch_due ?? true };
}

/**
 * The shopper's session if it is still active. `touch` records activity (any request the shopper made); the browser's
 * 3-minute session check does not touch, so it cannot keep an idle session alive. An idle session is ended for good.
 * The common case costs one query (the built-in adapter reads session and activity together) and no write: activity
 * is written only when the recorded one is older than ACTIVITY_GRANULARITY_S.
 */
export async function activeSession(
  db: Database,
  auth: AuthPort,
  jar: CookieJar,
  { touch }: { touch: boolean },
): Promise<CurrentSession | null> {
  return stillActive(db, await auth.currentSession(jar), () => auth.signOut(jar), touch);
}

/**
 * Like activeSession, for a client that sends `Authorization: Bearer <token>` instead of a cookie: the same idle
 * sign-out and activity, and an idle session is ended without reading or writing any cookie of the request.
 */
export async function activeBearerSession(
  db: Database,
  auth: AuthPort,
  token: string,
  { touch }: { touch: boolean },
): Promise<CurrentSession | null> {
  return stillActive(db, await auth.bearerSession(token), () => auth.endBearerSession(token), touch);
}

/** The session unless it has been idle too long (then `end` ends it), recording activity when `touch` and due. */
async function stillActive(
  db: Database,
  session: CurrentSession | null,
  end: () => Promise<void>,
  touch: boolean,
): Promise<CurrentSession | null> {
  if (!session) return null;
  const activity = session.activity ?? (await readActivity(db, session));
  if (activity.idle) {
    await serviceStatement(db, `delete from public.session_activity where session_key = $1`, [session.sessionKey]);
    await end();
    return null;
  }
  if (touch && activity.touchDue) {
    await asService(db, (tx) => recordActivity(tx, session.sessionKey, session.user.id));
  }
  return session;
}
