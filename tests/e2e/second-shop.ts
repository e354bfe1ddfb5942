// A second built shop (scripts/serve.mjs) for specs that need a configuration the main end-to-end server does not
// have, and `testOn(start, timeout)`: the shop's `test` pointed at it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../../scripts/free-port.mjs';
import { SERVER_NODE_FLAGS } from '../../scripts/server-flags.mjs';
import { test } from './fixtures';
import { MAILBOX as mailbox } from './journeys';

// ── A shop of the spec's own ─────────────────────────────────────────────────────────────────────────────────────────
// A second built shop (scripts/serve.mjs), for specs that need a configuration the main end-to-end server does not
// have: Stripe against a mock Stripe (stripe.spec.ts), Geoapify against a mock Geoapify (address-suggestions.spec.ts),
// a build with test-only content (out-of-stock.spec.ts). It gets an empty PGlite directory and a dev mailbox of its
// own, and only the variables it is given: nothing of the developer's own keys or DATABASE_URL leaks in.

export interface SecondShop {
  origin: string;
  /** Its dev mailbox (readDevMailbox reads it back). */
  mailbox: string;
  /** What the server has printed so far (its start-up line names every adapter). */
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts the built shop with `env` on top of the test defaults; resolves once /api/health answers. `root` is the
 * project whose build (dist/) it serves: this one, or a copy built with test-only content.
 */
export async function startSecondShop(name: string, env: Record<string, string>, root = '.'): Promise<SecondShop> {
  const [port, mailboxPort] = await freePorts(2);
  const dir = mkdtempSync(join(tmpdir(), `aurelia-e2e-${name}-`));
  const shopOrigin = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [...SERVER_NODE_FLAGS, join(root, 'scripts/serve.mjs')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      PGLITE_DIR: join(dir, 'pglite'),
      DEV_MAILBOX_PORT: String(mailboxPort),
      ADDRESS_LIMIT_FACTOR: '20',
      // No proxy in front to drain: stopped, it stops at once rather than serving 5 s more (stop.spec.ts tests that).
      SHUTDOWN_DRAIN_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };

  // Start-up takes a few seconds, and more than a minute on a busy two-core machine.
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`The ${name} server exited (${child.exitCode}):\n${output}`);
    }
    const ok = await fetch(`${shopOrigin}/api/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The ${name} server did not answer within 150 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { origin: shopOrigin, mailbox: `http://127.0.0.1:${mailboxPort}`, output: () => output, stop };
}

/**
 * The shop's `test` with every page and request going to a shop of the spec's own (its `shop` fixture): started by
 * `start` once per worker, within `timeout` ms, and stopped after the worker's last test. The main server stays as it is.
 */
export function testOn<S extends { origin: string; stop: () => Promise<void> }>(start: () => Promise<S>, timeout: number) {
  return test.extend<object, { shop: S }>({
    shop: [
      // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
      async ({}, use) => {
        const shop = await start();
        try {
          await use(shop);
        } finally {
          await shop.stop();
        }
      },
      { scope: 'worker', timeout },
    ],
    baseURL: async ({ shop }, use) => {
      await use(shop.origin);
    },
    // The spec's own shop has its own dev mailbox, when it has one.
    mailbox: async ({ shop }, use) => {
      await use((shop as { mailbox?: string }).mailbox ?? mailbox);
    },
  });
}
