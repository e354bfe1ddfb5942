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
  'messages',
  'subscribers',
  'history',
  'header',
  'sales',
  'stock',
  'publish',
  'publish-load',
] as const;

export type E2EAdmin = (typeof E2E_ADMINS)[number];

export const adminEmail = (name: E2EAdmin) => `${name}@admins.aurelia.test`;

/**
 * Accounts for the catalogue editor's journeys: ordinary accounts (not in ADMIN_EMAILS) that an admin grants the editor
 * role in the test itself. Each is used by one test.
 */
export const E2E_EDITORS = ['catalogue'] as const;

export type E2EEditor = (typeof E2E_EDITORS)[number];

export const editorEmail = (name: E2EEditor) => `${name}@editors.aurelia.test`;
