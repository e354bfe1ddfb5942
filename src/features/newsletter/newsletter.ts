const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether a string looks like an e-mail address. */
export function isEmail(value: string): boolean {
  return EMAIL.test(value.trim());
}

export interface NewsletterProblem {
  title: string;
  description?: string;
}

/** The spec's checks before a subscription is sent, in order (section 5); null when it may be sent. */
export function newsletterProblem(email: string, accountEmail: string | null): NewsletterProblem | null {
  if (accountEmail === null) return { title: 'Please log in to subscribe' };
  if (!email.trim()) return { title: 'Please enter your email address' };
  if (!isEmail(email)) return { title: 'Please enter a valid email address' };
  if (email.trim().toLowerCase() !== accountEmail.toLowerCase()) {
    return { title: 'Email mismatch', description: 'You can only subscribe with your account email address.' };
  }
  return null;
}
