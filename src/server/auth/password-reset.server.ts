import { normalizeEmail } from '@/features/auth/auth.rules';
import type { Database } from '../db/database.server';
import { asService } from '../db/roles.server';
import { queueJob } from '../outbox/jobs.server';
import { newToken } from './tokens.server';

/**
 * Takes a request for a password reset: one outbox job, whatever the address, which the accounts port turns into a
 * reset link if the address has an account (services.server.ts). Looking the address up here would make the answer
 * take longer for an account that exists, and so tell a stranger which addresses have one.
 */
export async function queuePasswordReset(db: Database, email: string): Promise<void> {
  await asService(db, (tx) => queueJob(tx, 'password-reset', { email: normalizeEmail(email) }, `password-reset:${newToken()}`));
}

/** Takes a request for a new confirmation link the same way: one outbox job, whatever the address. */
export async function queueConfirmationResend(db: Database, email: string): Promise<void> {
  await asService(db, (tx) =>
    queueJob(tx, 'confirmation-resend', { email: normalizeEmail(email) }, `confirmation-resend:${newToken()}`),
  );
}
