// Who may edit the catalogue: every admin, and the accounts an admin granted the editor role (public.shop_editors).
// An editor who is not an admin reaches the catalogue editor only: every other admin page and endpoint tells them
// they have catalogue access only (requireAdminOf, adminPage), while a guest or a shopper gets the stranger's 404.
import { type AdminCaller, type AdminDeps, accessFor, adminNotFound, recordAction } from '@/features/admin/admin.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { activeSession } from '@/server/auth/session.server';
import type { Database, Sql } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import { queueJob } from '@/server/outbox/jobs.server';

/** A signed-in account allowed to edit the catalogue. */
export interface Editor {
  id: string;
  email: string;
  /** Whether they are an admin too (the admin's navigation is then shown). */
  admin: boolean;
}

/** A catalogue endpoint's caller: the editor, and their way to the database (service_role, named paths only). */
export interface EditorCaller {
  editor: Editor;
  run<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

/**
 * The editor among accounts, or null: an admin, or a verified account an admin granted the role. Read from the
 * database on every request, so a removal takes effect at once.
 */
export async function editorFor(db: Database, adminEmails: readonly string[], userId: string): Promise<Editor | null> {
  const found = await accessFor(db, adminEmails, userId);
  return found ? { id: userId, email: found.email, admin: found.access === 'admin' } : null;
}

/** The editor whose session cookie `jar` holds, else null (a guest, a shopper). The call counts as activity. */
export async function editorOf(deps: AdminDeps, jar: CookieJar): Promise<EditorCaller | null> {
  const session = await activeSession(deps.db, deps.auth, jar, { touch: true });
  if (!session) return null;
  const editor = await editorFor(deps.db, deps.adminEmails, session.user.id);
  if (!editor) return null;
  return { editor, run: (fn) => asService(deps.db, fn) };
}

/** For a catalogue endpoint: the editor, or the 404 a stranger gets from every admin endpoint. */
export async function requireEditorOf(deps: AdminDeps, jar: CookieJar): Promise<EditorCaller | Response> {
  return (await editorOf(deps, jar)) ?? adminNotFound();
}

/** An account with the editor role, as the admin's list shows it. */
export interface EditorRow {
  email: string;
  grantedBy: string;
  grantedAt: string;
}

export async function listEditors(tx: Sql): Promise<EditorRow[]> {
  const rows = await tx.query<{ email: string; granted_by_email: string; created_at: Date }>(
    `select lower(u.email) as email, e.granted_by_email, e.created_at
       from public.shop_editors e join auth.users u on u.id = e.user_id order by lower(u.email)`,
  );
  return rows.map((r) => ({ email: r.email, grantedBy: r.granted_by_email, grantedAt: new Date(r.created_at).toISOString() }));
}

export type RoleChange =
  | { ok: true; changed: boolean; message: string }
  | { ok: false; status: 400 | 404; code: string; message: string };

/**
 * Grants (`grant: true`) or removes the editor role of the account with `email`, recorded in the activity log in the
 * same transaction. Granting twice or removing from a non-editor changes and records nothing.
 */
export function setEditorRole(me: AdminCaller, email: string, grant: boolean): Promise<RoleChange> {
  const address = email.trim().toLowerCase();
  return me.run(async (tx) => {
    const [account] = await tx.query<{ id: string; verified: boolean }>(
      'select id, email_confirmed_at is not null as verified from auth.users where lower(email) = $1',
      [address],
    );
    if (!account) {
      return grant
        ? {
            ok: false,
            status: 404,
            code: 'no_account',
            message: `No account has the address ${address}. Ask them to sign up to the shop first, then grant the role.`,
          }
        : { ok: true, changed: false, message: `${address} is not an editor.` };
    }
    if (grant && !account.verified) {
      return {
        ok: false,
        status: 400,
        code: 'not_verified',
        message: `${address} has not confirmed their e-mail address yet. Ask them to follow the link in their welcome e-mail first.`,
      };
    }
    const rows = grant
      ? await tx.query<{ at: string }>(
          `insert into public.shop_editors (user_id, granted_by_email) values ($1, $2) on conflict (user_id) do nothing
           returning (extract(epoch from created_at) * 1000000)::bigint::text as at`,
          [account.id, me.admin.email],
        )
      : await tx.query<{ at: string }>('delete from public.shop_editors where user_id = $1 returning user_id as at', [
          account.id,
        ]);
    const [changed] = rows;
    if (!changed)
      return { ok: true, changed: false, message: grant ? `${address} is already an editor.` : `${address} is not an editor.` };
    // The new editor is told where the editor is: once per grant (a grant after a removal is another grant).
    if (grant) await queueJob(tx, 'editor-role-email', { userId: account.id }, `editor-role:${account.id}:${changed.at}`);
    await recordAction(tx, me.admin, {
      action: grant ? 'editor.grant' : 'editor.remove',
      target: address,
      before: grant ? 'no editor role' : 'editor',
      after: grant ? 'editor' : 'no editor role',
    });
    return {
      ok: true,
      changed: true,
      message: grant
        ? `${address} can now edit the catalogue. They are e-mailed the link to it.`
        : `${address} can no longer edit the catalogue.`,
    };
  });
}
