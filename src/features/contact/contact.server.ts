import { z } from 'astro/zod';
import { isEmail, MAX_EMAIL_LENGTH } from '@/lib/email';
import type { Sql } from '@/server/db/database.server';
import { CONTACT_MESSAGES, MAX_MESSAGE_LENGTH } from './contact.rules';

const required = (max: number, what: string) =>
  z
    .string({ error: CONTACT_MESSAGES.fillAll })
    .trim()
    .min(1, { error: CONTACT_MESSAGES.fillAll })
    .max(max, { error: `The ${what} may be at most ${max} characters.` });

export const contactBody = z.object({
  name: required(200, 'name'),
  email: required(MAX_EMAIL_LENGTH, 'email').refine(isEmail, { error: 'Please enter a valid email address' }),
  message: required(MAX_MESSAGE_LENGTH, 'message'),
});
export type ContactMessage = z.infer<typeof contactBody>;

/** Stores a contact message (anyone may write one; only the shop can read them). */
export async function saveContactMessage(tx: Sql, message: ContactMessage): Promise<void> {
  await tx.query('insert into public.contact_messages (name, email, message) values ($1, $2, $3)', [
    message.name,
    message.email,
    message.message,
  ]);
}
