import { MIN_PASSWORD_LENGTH, normalizeEmail } from '@/lib/auth.rules';
import { isEmail } from '@/lib/email';
import { hashPassword } from '@/server/auth/password.server';
import type { Database } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';

export type CreateAdminResult =
  | { ok: true; outcome: 'created' | 'promoted' | 'already-admin' }
  | { ok: false; message: string; needsPassword?: true };

/**
 * What `npm run admin:create -- <email>` does (built-in accounts): makes the account with this e-mail an admin.
 *
 * - A verified account is promoted as it is; its password is not touched.
 * - No account: one is created, verified, with `password`.
 * - An unverified account may be someone else's sign-up with the owner's address (pre-hijacking): it is taken over
 *   with `password`, its pending sign-ups spent and its sessions ended, so only the password the operator typed opens it.
 */
export async function createAdmin(db: Database, input: { email: string; password?: string }): Promise<CreateAdminResult> {
  const email = normalizeEmail(input.email);
  if (!isEmail(email)) return { ok: false, message: `${input.email} is not an e-mail address.` };
  return asService(db, async (tx) => {
    const [user] = await tx.query<{ id: string; verified: boolean; admin: boolean }>(
      `select u.id, u.email_confirmed_at is not null as verified,
         exists (select 1 from public.shop_admins a where a.user_id = u.id) as admin
       from auth.users u where u.email = $1`,
      [email],
    );
    if (user?.verified) {
      if (user.admin) return { ok: true, outcome: 'already-admin' } as const;
      await tx.query(`insert into public.shop_admins (user_id) values ($1)`, [user.id]);
      return { ok: true, outcome: 'promoted' } as const;
    }
    const password = input.password ?? '';
    if (password.length < MIN_PASSWORD_LENGTH)
      return {
        ok: false,
        needsPassword: true,
        message: `A new admin account needs a password of at least ${MIN_PASSWORD_LENGTH} characters.`,
      } as const;
    const hash = await hashPassword(password);
    const [account] = user
      ? await tx.query<{ id: string }>(
          `update auth.users set encrypted_password = $2, email_confirmed_at = now(), updated_at = now(),
             raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || '{"first_name":"Shop","last_name":"Owner"}'::jsonb
           where id = $1 returning id`,
          [user.id, hash],
        )
      : await tx.query<{ id: string }>(
          `insert into auth.users (email, encrypted_password, email_confirmed_at, raw_user_meta_data)
           values ($1, $2, now(), '{"first_name":"Shop","last_name":"Owner"}'::jsonb) returning id`,
          [email, hash],
        );
    if (!account) throw new Error('admin account insert returned no row');
    await tx.query(
      `update public.auth_tokens set used_at = now(), password_hash = null, user_meta = null
       where user_id = $1 and used_at is null`,
      [account.id],
    );
    await tx.query(`update public.auth_sessions set revoked_at = now() where user_id = $1 and revoked_at is null`, [account.id]);
    await tx.query(`insert into public.shop_admins (user_id) values ($1) on conflict do nothing`, [account.id]);
    return { ok: true, outcome: 'created' } as const;
  });
}
