// The one `test` every end-to-end spec uses, with the shop's fixtures (each made only for the tests that ask for it):
// - `signedIn`: a new verified shopper, with the page signed in as them (through the API: the dialog itself is
//   covered by auth.spec.ts);
// - `signIn(request?, firstName?)`: the same for another browser context (or `page.request` later in a test);
// - `signInAdmin(name, request?)`: an admin of tests/e2e/admin-accounts.ts, signed in;
// - `mailbox`: the dev mailbox of the shop under test.
// The steps specs share are in journeys.ts; a shop of a spec's own (testOn) in second-shop.ts.
import { type APIRequestContext, test as base, expect } from '@playwright/test';
import type { E2EAdmin } from './admin-accounts';
import { MAILBOX as mailbox, type Shopper, signedInAdmin, signedInShopper } from './journeys';

export { expect };

// ── The test, with the shop's fixtures ───────────────────────────────────────────────────────────────────────────────

interface ShopFixtures {
  /** A new verified shopper, with the page signed in as them. */
  signedIn: Shopper;
  /** Signs a new verified shopper in on `request` (the page's by default). */
  signIn: (request?: APIRequestContext, firstName?: string) => Promise<Shopper>;
  /** Signs the admin `name` in on `request` (the page's by default). */
  signInAdmin: (name: E2EAdmin, request?: APIRequestContext) => Promise<Shopper>;
  /** The dev mailbox of the shop under test (testOn: the spec's own shop's). */
  mailbox: string;
}

const origin = (baseURL: string | undefined) => {
  if (!baseURL) throw new Error('no baseURL: playwright.config.ts sets one');
  return baseURL;
};

export const test = base.extend<ShopFixtures>({
  mailbox,
  signIn: async ({ page, baseURL, mailbox }, use) => {
    await use((request = page.request, firstName) => signedInShopper(request, origin(baseURL), firstName, undefined, mailbox));
  },
  signedIn: async ({ signIn }, use) => {
    await use(await signIn());
  },
  signInAdmin: async ({ page, baseURL, mailbox }, use) => {
    await use((name, request = page.request) => signedInAdmin(request, origin(baseURL), name, mailbox));
  },
});
