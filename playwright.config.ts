import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from './scripts/chromium.mjs';
import { SERVER_NODE_FLAGS } from './scripts/server-flags.mjs';
import { adminEmail, E2E_ADMINS } from './tests/e2e/admin-accounts';

const port = Number(process.env.E2E_PORT ?? 4391);
const baseURL = `http://127.0.0.1:${port}`;
const executablePath = await chromiumPath();
// The server under test gets an empty embedded database of its own and a dev mailbox the tests read back.
// Set once in the main process; workers inherit the environment.
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'aurelia-e2e-'));
process.env.E2E_MAILBOX_PORT ??= String(port + 1);

// End-to-end tests run against the production build (npm run test:e2e builds first).
export default defineConfig({
  testDir: 'tests/e2e',
  fullyParallel: true,
  // A test spends most of its time waiting on what a shopper waits for (a page, a 1 s cart save, an e-mail), not on the
  // CPU: on 2 cores, 4 workers take the suite from 12.5 to 5.4 minutes (595 CPU-seconds either way; docs/performance.md).
  workers: Math.max(4, availableParallelism()),
  retries: 0,
  // Four workers, four browsers, the server and its database share two cores: an island can take a few seconds to
  // hydrate when every worker is busy. Waiting up to 10 s (not 5) for what a shopper would see is not a retry.
  expect: { timeout: 10_000 },
  forbidOnly: true,
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  use: {
    baseURL,
    // No trace unless asked for (`npx playwright test <spec> --trace on`): recording one for every test, to keep the
    // failures', took about a third of the suite's CPU (the browser renders a screencast and DOM snapshots at every
    // step), and CI keeps no files to read one from. A failure's message and the server's log say what went wrong.
    trace: 'off',
    launchOptions: { executablePath, args: CHROMIUM_ARGS },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], launchOptions: { executablePath, args: CHROMIUM_ARGS } } }],
  webServer: {
    command: ['node', ...SERVER_NODE_FLAGS, 'scripts/serve.mjs'].join(' '),
    // serve.mjs starts the server's ports (database, migrations, mailbox) before it listens: tests begin once it answers.
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      PGLITE_DIR: join(process.env.E2E_DATA_DIR, 'pglite'),
      DEV_MAILBOX_PORT: process.env.E2E_MAILBOX_PORT,
      // Every test signs its own shoppers up and in from 127.0.0.1, more than one address may by default (20 sign-ups
      // an hour, 50 logins in 5 minutes). Limits per e-mail and per shopper, which the tests check, stay as they are.
      ADDRESS_LIMIT_FACTOR: '20',
      ADMIN_EMAILS: E2E_ADMINS.map(adminEmail).join(','),
    },
  },
});
