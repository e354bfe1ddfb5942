import type { APIContext } from 'astro';
import type { Database, Sql } from '../db/database.server';
import { asService } from '../db/roles.server';
import { problem } from '../http.server';
import { type ShopperContext, shopper } from '../shopper.server';

/** A signed-in account allowed to use the admin. */
export interface Admin {
  id: string;
  email: string;
}

/** An admin endpoint's or page's caller: the admin, and their way to the database. */
export interface AdminContext {
  services: ShopperContext['services'];
  admin: Admin;
  /**
   * Runs an admin path as service_role (architecture: admin actions are named server paths, never a loosened policy).
   * Record every change with `recordAction` in the same transaction.
   */
  run<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

/**
 * The admin among accounts, or null: a verified account whose e-mail is in ADMIN_EMAILS, or that `npm run
 * admin:create` promoted. Read from auth.users (the same table under both accounts adapters), never from the session's
 * claims alone, so an e-mail change or a lost verification takes effect at once.
 */
export async function adminFor(db: Database, adminEmails: readonly string[], userId: string): Promise<Admin | null> {
  const [row] = await asService(db, (tx) =>
    tx.query<{ email: string; promoted: boolean }>(
      `select lower(u.email) as email, exists (select 1 from public.shop_admins a where a.user_id = u.id) as promoted
       from auth.users u where u.id = $1 and u.email_confirmed_at is not null`,
      [userId],
    ),
  );
  if (!row || !(row.promoted || adminEmails.includes(row.email))) return null;
  return { id: userId, email: row.email };
}

/** The caller if they are an admin, else null (a guest or a shopper): the admin then does not exist for them. */
export async function currentAdmin(context: Pick<APIContext, 'request' | 'cookies'>): Promise<AdminContext | null> {
  const me = await shopper(context);
  if (!me.session) return null;
  const admin = await adminFor(me.services.db, me.services.config.adminEmails, me.session.user.id);
  if (!admin) return null;
  return { services: me.services, admin, run: (fn) => asService(me.services.db, fn) };
}

/** What a guest or shopper gets from an admin endpoint: the same 404 as a path that does not exist. */
export function adminNotFound(): Response {
  return problem(404, 'not_found', 'Not found.');
}

/**
 * For an admin endpoint: the admin, or the 404 to return as it is. `const a = await requireAdmin(ctx); if (a instanceof
 * Response) return a;`
 */
export async function requireAdmin(context: Pick<APIContext, 'request' | 'cookies'>): Promise<AdminContext | Response> {
  return (await currentAdmin(context)) ?? adminNotFound();
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
