import { normalizeEmail } from '@/lib/auth.rules';
import type { Database } from '../db/database.server';
import { asService } from '../db/roles.server';
import { queueJob } from '../outbox/jobs.server';
import { newToken } from './tokens.server';

/**
 * Takes a request for an account e-mail (a password reset, a confirmation link again): one outbox job, whatever the
 * address, which the accounts port turns into a mail if the address has such an account (services.server.ts).
 * Looking the address up here would make the answer take longer for an account that exists, and so tell a stranger
 * which addresses have one.
 */
export async function queueAccountMail(
  db: Database,
  kind: 'password-reset' | 'confirmation-resend',
  email: string,
): Promise<void> {
  await asService(db, (tx) => queueJob(tx, kind, { email: normalizeEmail(email) }, `${kind}:${newToken()}`));
}
