// The shop the browser benchmarks measure: the production build served by `node scripts/serve.mjs` on a fresh embedded
// database, with its dev mailbox, and the accounts and order they need, made through the public endpoints as a shopper
// would (sign-up, the verification link from the mailbox, login; an order paid with the TEST MODE card).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVER_ENV, SERVER_NODE_FLAGS } from './server-flags.mjs';

const root = new URL('..', import.meta.url).pathname;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the shop on `port` with its dev mailbox on `mailboxPort`; `adminEmails` may use /admin. On a fresh embedded
 * database, or on PostgreSQL at `databaseUrl`; `nodeFlags` are given to the server's Node (e.g. --cpu-prof). `checkout`
 * serves another checkout's build with its own scripts/serve.mjs (built there first), to compare with an earlier
 * commit under the same conditions; by default this one. `dataDir` keeps the embedded database (in `dataDir/pglite`) where
 * the caller says and leaves it there on stop, so a bench can stop the shop, write to its database and start it again.
 * `env` adds variables to the server's.
 * @param {{ port: number, mailboxPort: number, adminEmails?: string[], databaseUrl?: string, nodeFlags?: string[], checkout?: string, dataDir?: string, env?: Record<string, string> }} options
 */
export async function startShop({
  port,
  mailboxPort,
  adminEmails = [],
  databaseUrl,
  nodeFlags = [],
  checkout = root,
  env: extra = {},
  ...rest
}) {
  const origin = `http://127.0.0.1:${port}`;
  const mailbox = `http://127.0.0.1:${mailboxPort}`;
  const dataDir = rest.dataDir ?? mkdtempSync(join(tmpdir(), 'bench-shop-'));
  const env = {
    ...process.env,
    ...SERVER_ENV,
    HOST: '127.0.0.1',
    PORT: String(port),
    DEV_MAILBOX_PORT: String(mailboxPort),
    // Every bench account signs up and logs in from one address; per-address limits must not get in the way.
    ADDRESS_LIMIT_FACTOR: '1000',
    ADMIN_EMAILS: adminEmails.join(','),
    PGLITE_DIR: join(dataDir, 'pglite'),
    ...extra,
  };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeFlags, join(checkout, 'scripts/serve.mjs')], {
    cwd: checkout,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  // BENCH_SERVER_LOG=<file> keeps the server's whole output there too (with BENCH_NODE_FLAGS=--trace-gc, say).
  const keep = process.env.BENCH_SERVER_LOG;
  for (const stream of [server.stdout, server.stderr]) {
    stream.on('data', (d) => {
      log += d;
      if (keep) appendFileSync(keep, d);
    });
  }
  let stopping = false;
  let started = false;
  let exitCode;
  const exited = new Promise((resolve) => server.on('exit', resolve));
  server.on('exit', (code) => {
    exitCode = code;
    // While starting, the wait below throws with the server's output. After, a bench stops at once; a test (Playwright
    // sets TEST_WORKER_INDEX) fails on its own requests rather than taking its worker down with it.
    if (!stopping && started) {
      console.error(`The shop exited (${code}) before the bench finished:\n${log}`);
      if (process.env.TEST_WORKER_INDEX === undefined) process.exit(1);
    }
  });

  /** Sends SIGTERM and resolves to the exit code once the server has exited. */
  async function stop() {
    stopping = true;
    server.kill('SIGTERM');
    const code = await exited;
    if (!rest.dataDir) rmSync(dataDir, { recursive: true, force: true });
    return code;
  }

  /** A JSON call as the shop's own pages make it: same Origin, JSON body. */
  async function call(path, { method = 'GET', body, cookie } = {}) {
    const headers = { origin, 'content-type': 'application/json' };
    if (cookie) headers.cookie = cookie;
    const response = await fetch(`${origin}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    if (response.status >= 400) throw new Error(`${method} ${path}: HTTP ${response.status} ${await response.text()}`);
    return response;
  }

  /** The first link matching `pattern` in an e-mail to `to` whose subject matches `subject`. */
  async function linkInMail(to, subject, pattern) {
    for (let i = 0; i < 150; i++) {
      const store = await (await fetch(`${mailbox}/store`)).json();
      const mail = store.emails.find((m) => m.destination.to.includes(to) && subject.test(m.subject ?? ''));
      const link = pattern.exec(mail?.body?.text ?? '')?.[0];
      if (link) return link;
      await sleep(200);
    }
    throw new Error(`No e-mail to ${to} matching ${subject}`);
  }

  /**
   * Signs a new account up, confirms it with the link in the dev mailbox and its password, and logs in.
   * @returns {Promise<{ email: string, cookies: { name: string, value: string }[], cookie: string }>}
   */
  async function signedIn(email) {
    const password = 'lavender-fields-7';
    await call('/api/auth/signup', {
      method: 'POST',
      body: { firstName: 'Bench', lastName: 'Shopper', email, password, confirmPassword: password },
    });
    const link = new URL(await linkInMail(email, /Confirm your Aurelia account/, /https?:\/\/\S+token=[\w-]+/));
    // What the confirmation page sends: the link's token and the password chosen at sign-up.
    const token = link.searchParams.get('token');
    await call('/api/auth/verify', { method: 'POST', body: { token, password } });
    const login = await call('/api/auth/login', { method: 'POST', body: { email, password } });
    const cookies = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0] ?? '')
      .filter((c) => c.includes('=') && !c.endsWith('='))
      .map((c) => ({ name: c.slice(0, c.indexOf('=')), value: c.slice(c.indexOf('=') + 1) }));
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const who = await (await call('/api/auth/session', { cookie })).json();
    if (who.user?.email !== email) throw new Error(`Login did not give a session: ${JSON.stringify(who)}`);
    return { email, cookies, cookie };
  }

  /**
   * Places an order through the checkout's endpoints (shipping rates, payment, the TEST MODE card, recording it), as
   * the signed-in `account`. Resolves to its id and the order page's link from the confirmation e-mail.
   */
  async function placeOrder(account) {
    const lines = [
      { productId: 7, quantity: 2, selectedColor: null, selectedSize: null },
      { productId: 8, quantity: 1, selectedColor: null, selectedSize: null },
    ];
    const address = {
      name: 'Bench Shopper',
      email: account.email,
      street1: '12 Bull St',
      city: 'Savannah',
      state: 'GA',
      zip: '31401',
      country: 'US',
    };
    const { cookie } = account;
    const { rates } = await (
      await call('/api/shippo-rates', { method: 'POST', body: { toAddress: address, lines }, cookie })
    ).json();
    const intent = await (
      await call('/api/create-payment-intent', {
        method: 'POST',
        body: { lines, address, rateId: rates[0].object_id },
        cookie,
      })
    ).json();
    await call('/api/test-payments/confirm', {
      method: 'POST',
      body: { clientSecret: intent.client_secret, number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' },
      cookie,
    });
    await call('/api/orders/confirm', { method: 'POST', body: { paymentIntentId: intent.paymentIntentId }, cookie });
    const { orders } = await (await call('/api/orders', { cookie })).json();
    const id = orders[0]?.id;
    if (!id) throw new Error('The order placed is not in the shopper’s orders');
    const link = new URL(await linkInMail(account.email, /^Your Aurelia order /, /https?:\/\/\S+\/order\?token=[\w%-]+/));
    return { id, page: link.pathname + link.search };
  }

  // A start takes seconds on a quiet machine; beside a whole test suite on 2 cores it has taken over a minute.
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${origin}/api/health`)).ok) break;
    } catch {}
    if (exitCode !== undefined) throw new Error(`The shop exited (${exitCode}) before it answered:\n${log}`);
    if (Date.now() > deadline) throw new Error(`${origin} did not answer within two minutes:\n${log}`);
    await sleep(200);
  }
  started = true;
  return { origin, mailbox, pid: server.pid, call, signedIn, placeOrder, stop, output: () => log };
}
