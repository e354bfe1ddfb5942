import type { APIRequestContext } from '@playwright/test';
import { adminEmail, type E2EAdmin } from './admin-accounts';
import { signedInShopper } from './session';

/** Signs up, verifies and signs in the admin `name` (pass `page.request` to sign the page in too). */
export function signedInAdmin(request: APIRequestContext, baseURL: string, name: E2EAdmin) {
  return signedInShopper(request, baseURL, 'Admin', adminEmail(name));
}
