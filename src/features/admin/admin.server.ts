// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import type { SessionUser } from '@/features/auth/auth';
import { publicUser } from '@/features/auth/auth.server';
import type { AccountUser, AuthPort, CookieJar } from '@/server/auth/auth.port';
import { activeSession } from '@/server/auth/session.server';
import type { Database, Sql } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import { problem } from '@/server/http.server';

/** A signed-in account allowed to use the admin. */
export interface Admin {
  id: string;
  email: string;
}

/** An admin endpoint's caller: the admin, and their way to the database. */
export interface AdminCaller {
  admin: Admin;
  /**
   * Runs an admin path as service_role (architecture: admin actions are named server paths, never a loosened policy).
   * Record every change with `recordAction` in the same transaction.
   */
  run<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

/** What deciding on an admin needs of the services (a subset, so tests can hand in their own). */
export interface AdminDeps {
  db: Database;
  auth: AuthPort;
  adminEmails: readonly string[];
}

/**
 * The admin among accounts, or null: a verified account whose e-mail is in ADMIN_EMAILS, or that `npm run
 * admin:create` promoted. Read from auth.users (the same table under both accounts adapters), never from the session's
 * claims alone, so an e-mail change or a lost verification takes effect at once.
 */
export async function adminFor(db: Database, adminEmails: readonly string[], userId: string): Promise<Admin | null> {
  const [row] = await serviceStatement<{ email: string; promoted: boolean }>(
    db,
    `select lower(u.email) as email, exists (select 1 from public.shop_admins a where a.user_id = u.id) as promoted
       from auth.users u where u.id = $1 and u.email_confirmed_at is not null`,
    [userId],
  );
  if (!row || !(row.promoted || adminEmails.includes(row.email))) return null;
  return { id: userId, email: row.email };
}

/** What the browser is told about a signed-in account: the shopper, marked `admin` when they may use /admin. */
export async function sessionUserOf(deps: Pick<AdminDeps, 'db' | 'adminEmails'>, user: AccountUser): Promise<SessionUser> {
  const admin = await adminFor(deps.db, deps.adminEmails, user.id);
  return { ...publicUser(user), ...(admin ? { admin: true as const } : {}) };
}

/**
 * The admin whose session cookie `jar` holds, else null (a guest or a shopper). Idle sign-out applies as to any
 * signed-in request, and the call counts as activity.
 */
export async function adminOf(deps: AdminDeps, jar: CookieJar): Promise<AdminCaller | null> {
  const session = await activeSession(deps.db, deps.auth, jar, { touch: true });
  if (!session) return null;
  const admin = await adminFor(deps.db, deps.adminEmails, session.user.id);
  if (!admin) return null;
  return { admin, run: (fn) => asService(deps.db, fn) };
}

/** What a guest or shopper gets from an admin endpoint: the same 404 as a path that does not exist. */
export function adminNotFound(): Response {
  return problem(404, 'not_found', 'Not found.');
}

/**
 * For an admin endpoint written against AdminDeps (so tests can call it with their own database and accounts): the admin behind the request's cookies, or the 404 to return as it is.
 */
export async function requireAdminOf(deps: AdminDeps, jar: CookieJar): Promise<AdminCaller | Response> {
  return (await adminOf(deps, jar)) ?? adminNotFound();
}

/** One change an admin made: what (`action`, e.g. 'review.approve'), to what (`target`), and the state before and after. */
export interface AdminAction {
  action: string;
  target: string;
  before?: unknown;
  after?: unknown;
}

/** Records an admin's action; call it in the transaction that makes the change, so neither exists without the other. */
export async function recordAction(tx: Sql, admin: Admin, { action, target, before, after }: AdminAction): Promise<void> {
  await tx.query(
    `insert into public.admin_actions (admin_id, admin_email, action, target, before, after)
     values ($1, $2, $3, $4, $5::text::jsonb, $6::text::jsonb)`,
    [
      admin.id,
      admin.email,
      action,
      target,
      before === undefined ? null : JSON.stringify(before),
      after === undefined ? null : JSON.stringify(after),
    ],
  );
}

/** An admin action as the activity log shows it. */
export interface AdminActionRow {
  id: number;
  adminEmail: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  createdAt: string;
}

/** Admin actions, newest first, a page at a time (`before`: the id of the last row of the previous page). */
export async function listActions(
  tx: Sql,
  { limit, before }: { limit: number; before?: number | undefined },
): Promise<AdminActionRow[]> {
  const rows = await tx.query<{
    id: string | number;
    admin_email: string;
    action: string;
    target: string;
    before: string | null;
    after: string | null;
    created_at: Date;
  }>(
    `select id, admin_email, action, target, before::text as before, after::text as after, created_at from public.admin_actions
     where $1::bigint is null or id < $1 order by id desc limit $2`,
    [before ?? null, limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    adminEmail: r.admin_email,
    action: r.action,
    target: r.target,
    // As text, so a JSON string comes back as one whichever driver reads it.
    before: r.before === null ? null : JSON.parse(r.before),
    after: r.after === null ? null : JSON.parse(r.after),
    createdAt: r.created_at.toISOString(),
  }));
}
