// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import type { SessionUser } from '@/features/auth/auth';
import { publicUser } from '@/features/auth/auth.server';
import type { AccountUser, AuthPort, CookieJar } from '@/server/auth/auth.port';
import { activeSession } from '@/server/auth/session.server';
import type { Database, Sql } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import { problem } from '@/server/http.server';
import { CATALOGUE_ONLY } from './admin';

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

/** What an account may open of the admin: all of it, or the catalogue editor alone (decisions 008 and 015). */
export type AdminAccess = 'admin' | 'editor';

/**
 * What the account `userId` may open of the admin, or null (a shopper): 'admin' for a verified account whose e-mail is
 * in ADMIN_EMAILS or that `npm run admin:create` promoted; 'editor' for one an admin granted the editor role. Read
 * from auth.users (the same table under both accounts adapters), never from the session's claims alone, so an e-mail
 * change, a lost verification or a removed role takes effect at once.
 */
export async function accessFor(
  db: Database,
  adminEmails: readonly string[],
  userId: string,
): Promise<{ email: string; access: AdminAccess } | null> {
  const [row] = await serviceStatement<{ email: string; promoted: boolean; editor: boolean }>(
    db,
    `select lower(u.email) as email, exists (select 1 from public.shop_admins a where a.user_id = u.id) as promoted,
            exists (select 1 from public.shop_editors e where e.user_id = u.id) as editor
       from auth.users u where u.id = $1 and u.email_confirmed_at is not null`,
    [userId],
  );
  if (!row) return null;
  if (row.promoted || adminEmails.includes(row.email)) return { email: row.email, access: 'admin' };
  return row.editor ? { email: row.email, access: 'editor' } : null;
}

/** The admin among accounts, or null (see accessFor). */
export async function adminFor(db: Database, adminEmails: readonly string[], userId: string): Promise<Admin | null> {
  const found = await accessFor(db, adminEmails, userId);
  return found?.access === 'admin' ? { id: userId, email: found.email } : null;
}

/**
 * What the browser is told about a signed-in account: the shopper, marked `admin` when they may open /admin, as an
 * admin or as an editor (the header's Admin link, which takes an editor to the catalogue editor).
 */
export async function sessionUserOf(deps: Pick<AdminDeps, 'db' | 'adminEmails'>, user: AccountUser): Promise<SessionUser> {
  const found = await accessFor(deps.db, deps.adminEmails, user.id);
  return { ...publicUser(user), ...(found ? { admin: true as const } : {}) };
}

/**
 * Who the session cookie `jar` holds, as the admin sees them: the admin; 'editor', an account with catalogue access
 * only; or null (a guest, a shopper). Idle sign-out applies as to any signed-in request, and the call counts as activity.
 */
export async function adminCallerOf(deps: AdminDeps, jar: CookieJar): Promise<AdminCaller | 'editor' | null> {
  const session = await activeSession(deps.db, deps.auth, jar, { touch: true });
  if (!session) return null;
  const found = await accessFor(deps.db, deps.adminEmails, session.user.id);
  if (!found) return null;
  if (found.access === 'editor') return 'editor';
  return { admin: { id: session.user.id, email: found.email }, run: (fn) => asService(deps.db, fn) };
}

/** The admin whose session cookie `jar` holds, else null (a guest, a shopper, an editor). */
export async function adminOf(deps: AdminDeps, jar: CookieJar): Promise<AdminCaller | null> {
  const caller = await adminCallerOf(deps, jar);
  return caller === 'editor' ? null : caller;
}

/** What a guest or shopper gets from an admin endpoint: the same 404 as a path that does not exist. */
export function adminNotFound(): Response {
  return problem(404, 'not_found', 'Not found.');
}

/** What an editor gets from an admin endpoint that is not the catalogue editor's: told so, in words. */
export function catalogueOnly(): Response {
  return problem(403, 'catalogue_only', CATALOGUE_ONLY);
}

/**
 * For an admin endpoint written against AdminDeps (so tests can call it with their own database and accounts): the
 * admin behind the request's cookies, or the answer to return as it is: an editor's 403 (catalogue access only), and
 * for anyone else the 404 of a path that does not exist.
 */
export async function requireAdminOf(deps: AdminDeps, jar: CookieJar): Promise<AdminCaller | Response> {
  const caller = await adminCallerOf(deps, jar);
  if (caller === 'editor') return catalogueOnly();
  return caller ?? adminNotFound();
}

/** One change an admin made: what (`action`, e.g. 'review.approve'), to what (`target`), and the state before and after. */
export interface AdminAction {
  action: string;
  target: string;
  before?: unknown;
  after?: unknown;
}

/**
 * Records an admin's action (or a catalogue editor’s: decision 015); call it in the transaction that makes the change,
 * so neither exists without the other. `id` is null for someone whose account is gone.
 */
export async function recordAction(
  tx: Sql,
  admin: { id: string | null; email: string },
  { action, target, before, after }: AdminAction,
): Promise<void> {
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
