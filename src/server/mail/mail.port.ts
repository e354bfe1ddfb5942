import { z } from 'astro/zod';
import { isEmail } from '@/lib/email';

/**
 * One e-mail in the app's own terms. The schema also checks outbox payloads, which were written by an earlier
 * version of the code and come back from the database as untyped JSON.
 */
export const mailMessageSchema = z.object({
  // The shop's one e-mail rule, so every address sign-up, contact or the newsletter accepted can be sent to.
  to: z.string().refine(isEmail, { error: 'to must be an e-mail address' }),
  subject: z.string().min(1, { error: 'subject must not be empty' }),
  text: z.string(),
  html: z.string(),
});

export type MailMessage = z.infer<typeof mailMessageSchema>;

/** The e-mail port: production sends through AWS SES, dev and tests through the local dev mailbox (same adapter). */
export interface MailPort {
  /** Which adapter answers, for the start-up log line. */
  readonly name: string;
  /** Hands the message to the mail service; rejects with an Error when it was not accepted. */
  send(message: MailMessage): Promise<void>;
}
