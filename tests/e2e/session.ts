import type { APIRequestContext } from '@playwright/test';
import { newShopper, type TestShopper, waitForMail } from './accounts';

/**
 * Creates a verified shopper through the API (sign-up, the confirmation link from the dev mailbox) and signs
 * `request` in. Pass `page.request` to sign the page's browser context in too: it shares the cookies.
 * Faster than the dialog; the dialog itself is covered by auth.spec.ts.
 */
export async function signedInShopper(
  request: APIRequestContext,
  baseURL: string,
  firstName = 'Maya',
  email?: string,
): Promise<TestShopper> {
  const shopper = { ...newShopper(firstName), ...(email ? { email } : {}) };
  const headers = { origin: baseURL };
  const signup = await request.post('/api/auth/signup', { headers, data: { ...shopper, confirmPassword: shopper.password } });
  if (!signup.ok()) throw new Error(`sign-up failed: ${signup.status()} ${await signup.text()}`);
  const mail = await waitForMail(shopper.email, /Confirm your Aurelia account/);
  // What the confirmation page sends: the link's token and the password chosen at sign-up. It signs the shopper in.
  const token = new URLSearchParams(mail.link.split('?')[1]).get('token');
  const confirm = await request.post('/api/auth/verify', { headers, data: { token, password: shopper.password } });
  if (!confirm.ok()) throw new Error(`confirmation failed: ${confirm.status()} ${await confirm.text()}`);
  return shopper;
}
