import type { APIRequestContext } from '@playwright/test';
import { newShopper, type TestShopper, waitForMail } from './accounts';

/**
 * Creates a verified shopper through the API (sign-up, the verification link from the dev mailbox) and signs
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
  await request.get(mail.link);
  const login = await request.post('/api/auth/login', { headers, data: { email: shopper.email, password: shopper.password } });
  if (!login.ok()) throw new Error(`login failed: ${login.status()} ${await login.text()}`);
  return shopper;
}
