import { isEmail } from '@/lib/email';

/** The spec's wording (sections 5 and 8), and ours where it names none (the success message). */
export const NEWSLETTER_MESSAGES = {
  loginToSubscribe: 'Please log in to subscribe',
  /** What the server answers for a second subscription… */
  alreadySubscribedError: 'This email is already subscribed',
  /** …and what the shopper is told. */
  alreadySubscribed: 'You are already subscribed!',
  failed: 'Subscription failed',
  subscribed: 'You’re subscribed! New launches and routines will reach your inbox.',
  unsubscribed: 'You’re unsubscribed. You will get no more newsletters.',
} as const;

export interface NewsletterProblem {
  title: string;
  description?: string;
}

/** The spec's checks before a subscription is sent, in order; null when it may be sent. */
export function newsletterProblem(email: string, accountEmail: string | null): NewsletterProblem | null {
  if (accountEmail === null) return { title: NEWSLETTER_MESSAGES.loginToSubscribe };
  if (!email.trim()) return { title: 'Please enter your email address' };
  if (!isEmail(email.trim())) return { title: 'Please enter a valid email address' };
  if (email.trim().toLowerCase() !== accountEmail.toLowerCase()) {
    return { title: 'Email mismatch', description: 'You can only subscribe with your account email address.' };
  }
  return null;
}
