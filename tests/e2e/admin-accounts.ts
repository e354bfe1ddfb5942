/**
 * The accounts the server under test treats as admins (playwright.config.ts passes them as ADMIN_EMAILS). Each test
 * that needs an admin signs up its own, so tests running side by side never share one. No name may end with another
 * (the mailbox is searched by a substring of the address: 'x-a11y@…' holds 'a11y@…'). No imports: the config reads it.
 */
export const E2E_ADMINS = [
  'owner',
  'editors', // catalogue-editing.spec.ts, as the two below
  'catalogue-axe',
  'catalogue-css',
  'words', // catalogue-editing.spec.ts's journeys, on a desktop and on a phone
  'words-phone',
  'phone',
  'a11y',
  'reviews',
  'reviews-reject',
  'reviews-bulk',
  'endpoints',
  'orders',
  'orders-2',
  'orders-3',
  'orders-4',
  'slips',
  'customers', // admin-customers.spec.ts, on a desktop, and the one below, on a phone
  'customers-mobile',
  'messages',
  'subscribers',
  'history',
  'header',
  'sales',
  'stock',
  'publish',
  'publish-load',
  'publish-log', // publish.spec.ts: the owner who grants an editor the role and reads what they did
  // catalogue-repository.spec.ts: the owner who grants the role, then reads the log on a desktop and on a phone
  'repo-keeper',
  'discounts', // admin-discounts.spec.ts, on a desktop, and the one below, on a phone
  'promotions',
  // discounts.spec.ts: the owner who creates each test's codes, one per test
  'codes-desk',
  'codes-mobile',
  'codes-merge-desk',
  'codes-merge-mobile',
  'codes-min-desk',
  'codes-min-mobile',
  'codes-used-up',
  'codes-back',
  'codes-offer', // discount-offer.spec.ts, on a shop of its own
  // returns.spec.ts: the owner of each journey, on a desktop and on a phone
  'rma-desk',
  'rma-mobile',
  'ops-desktop', // admin-order-ops.spec.ts, on a shop of its own, on a desktop and on a phone
  'ops-mobile',
  'preview', // catalogue-preview.spec.ts: grants its editor the role, and reads the activity log
  'sale-desk', // scheduled-changes.spec.ts, on a shop of its own: a sale on a desktop, a scheduled publish on a phone
  'schedules-mobile',
] as const;

export type E2EAdmin = (typeof E2E_ADMINS)[number];

export const adminEmail = (name: E2EAdmin) => `${name}@admins.aurelia.test`;

/**
 * Accounts for the catalogue editor's journeys: ordinary accounts (not in ADMIN_EMAILS) that an admin grants the editor
 * role in the test itself. Each is used by one test.
 */
export const E2E_EDITORS = ['catalogue', 'preview', 'publisher', 'repository', 'repository-phone'] as const;

export type E2EEditor = (typeof E2E_EDITORS)[number];

export const editorEmail = (name: E2EEditor) => `${name}@editors.aurelia.test`;
