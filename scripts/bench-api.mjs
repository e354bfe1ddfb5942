// The API under load: what a signed-in request costs compared with a guest's, on the production build.
// Expects `npm run build` to have run. Starts `node scripts/serve.mjs` (the server npm start runs) on a free port with a fresh embedded
// database (or PostgreSQL with `--postgres URL` / BENCH_DATABASE_URL), signs up, verifies and logs in a shopper
// through the public endpoints and the dev mailbox, then measures with autocannon and prints a table.
// `--write` also replaces the "API under load" section of docs/performance.md.
//
//   npm run bench:api [-- --postgres postgres://…/scratch] [-- --write] [-- --duration 10] [-- --label after]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const databaseUrl = option('--postgres') ?? process.env.BENCH_DATABASE_URL;
const write = args.includes('--write');
const duration = Number(option('--duration') ?? 8);
const connections = Number(option('--connections') ?? 50);
const label = option('--label') ?? 'after';

/** A port nobody listens on right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const [port, mailboxPort] = [await freePort(), await freePort()];
const origin = `http://127.0.0.1:${port}`;
const dataDir = databaseUrl ? null : mkdtempSync(join(tmpdir(), 'bench-api-'));
const env = {
  ...process.env,
  HOST: '127.0.0.1',
  PORT: String(port),
  DEV_MAILBOX_PORT: String(mailboxPort),
  // The bench shopper signs up and logs in from one address; per-address limits must not get in the way.
  ADDRESS_LIMIT_FACTOR: '1000',
};
delete env.DATABASE_URL;
if (databaseUrl) env.DATABASE_URL = databaseUrl;
else env.PGLITE_DIR = join(dataDir, 'pglite');

const server = spawn(
  process.execPath,
  [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), join(root, 'scripts/serve.mjs')],
  {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
let serverLog = '';
server.stdout.on('data', (d) => (serverLog += d));
server.stderr.on('data', (d) => (serverLog += d));
let stopping = false;
server.on('exit', (code) => {
  if (!stopping) {
    console.error(`The server exited (${code}) before the bench finished:\n${serverLog}`);
    process.exit(1);
  }
});

function stop() {
  stopping = true;
  server.kill('SIGTERM');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
process.on('SIGINT', () => {
  stop();
  process.exit(130);
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(url) {
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await sleep(200);
  }
  throw new Error(`${url} did not answer:\n${serverLog}`);
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

const ORDER_COUNT = Number(option('--orders') ?? 100);
const ORDER_CONCURRENCY = 10;

/** The p50 and p99 of a list of milliseconds. */
function percentiles(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return { p50: at(0.5), p99: at(0.99) };
}

/** Places `count` guest orders through the public endpoints, `concurrency` at a time. */
async function placeOrders(count, concurrency) {
  const whole = [];
  const record = [];
  let failed = 0;
  let next = 0;
  const lines = [{ productId: 7, quantity: 1, selectedColor: null, selectedSize: null }];
  const address = {
    name: 'Bench Shopper',
    email: 'bench@example.com',
    street1: '1 Main St',
    city: 'Atlanta',
    state: 'GA',
    zip: '30303',
    country: 'US',
  };
  const started = performance.now();
  async function one() {
    const t0 = performance.now();
    const { rates } = await (await call('/api/shippo-rates', { method: 'POST', body: { toAddress: address, lines } })).json();
    const intent = await (
      await call('/api/create-payment-intent', { method: 'POST', body: { lines, address, rateId: rates[0].object_id } })
    ).json();
    await call('/api/test-payments/confirm', {
      method: 'POST',
      body: { clientSecret: intent.client_secret, number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' },
    });
    const t1 = performance.now();
    await call('/api/orders/confirm', { method: 'POST', body: { paymentIntentId: intent.paymentIntentId } });
    const t2 = performance.now();
    whole.push(t2 - t0);
    record.push(t2 - t1);
  }
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        try {
          await one();
        } catch (error) {
          failed++;
          console.error(error instanceof Error ? error.message : error);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: whole.length / seconds, whole: percentiles(whole), record: percentiles(record), failed };
}

/** Signs a new shopper up, follows the link in the dev mailbox, logs in: the session cookie. */
async function signedInShopper(n = 0) {
  const email = `bench.${Date.now()}.${n}@example.com`;
  const password = 'lavender-fields-7';
  await call('/api/auth/signup', {
    method: 'POST',
    body: { firstName: 'Bench', lastName: 'Shopper', email, password, confirmPassword: password },
  });
  let link;
  for (let i = 0; i < 100 && !link; i++) {
    const store = await (await fetch(`http://127.0.0.1:${mailboxPort}/store`)).json();
    const mail = store.emails.find((m) => m.destination.to.includes(email));
    link = /https?:\/\/\S+token=[\w-]+/.exec(mail?.body?.text ?? '')?.[0];
    if (!link) await sleep(200);
  }
  if (!link) throw new Error(`No verification e-mail for ${email}`);
  const verified = await fetch(new URL(new URL(link).pathname + new URL(link).search, origin), { redirect: 'manual' });
  if (verified.status >= 400) throw new Error(`Verification link answered HTTP ${verified.status}`);
  const login = await call('/api/auth/login', { method: 'POST', body: { email, password } });
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .filter((c) => !c.endsWith('='))
    .join('; ');
  const who = await (await call('/api/auth/session', { cookie })).json();
  if (who.user?.email !== email) throw new Error(`Login did not give a session: ${JSON.stringify(who)}`);
  return cookie;
}

function run(title, { path, ...opts }) {
  return new Promise((resolve, reject) => {
    // autocannon takes the path as part of `url` (a top-level `path` is ignored and `/` measured instead).
    autocannon({ url: `${origin}${path}`, connections, duration, ...opts }, (error, result) => {
      if (error) reject(error);
      else resolve({ title, result });
    });
  });
}

try {
  await waitFor(`${origin}/api/auth/session`);
  const cookie = await signedInShopper();
  const cart = JSON.stringify({
    lines: [
      { productId: 1, quantity: 2, selectedColor: null, selectedSize: null },
      { productId: 2, quantity: 1, selectedColor: null, selectedSize: null },
      { productId: 5, quantity: 3, selectedColor: null, selectedSize: null },
    ],
  });
  const signedIn = { cookie, origin };
  // A crowd: one shopper per connection, as real traffic is (the rows above share one shopper, whose saves all queue
  // behind that shopper's cart lock: the worst case, kept for comparison).
  const cookies = [];
  for (let i = 0; i < connections; i += 10)
    cookies.push(
      ...(await Promise.all(Array.from({ length: Math.min(10, connections - i) }, (_, j) => signedInShopper(i + j + 1)))),
    );
  let nextClient = 0;
  const eachOwnShopper = (headers) => ({
    setupClient: (client) => client.setHeaders({ ...headers, origin, cookie: cookies[nextClient++ % cookies.length] }),
  });
  // Warm the JIT and the database's caches, so the first measured run is not the cold one.
  await run('warm-up', { path: '/api/auth/session', duration: 2 });

  const scenarios = [
    ['guest GET /api/auth/session', { path: '/api/auth/session' }],
    ['signed-in GET /api/auth/session', { path: '/api/auth/session', headers: signedIn }],
    [
      'signed-in PUT /api/cart (3 lines)',
      { path: '/api/cart', method: 'PUT', headers: { ...signedIn, 'content-type': 'application/json' }, body: cart },
    ],
    ['signed-in GET /api/cart', { path: '/api/cart', headers: signedIn }],
    [
      `signed-in PUT /api/cart (3 lines), ${connections} shoppers`,
      {
        path: '/api/cart',
        method: 'PUT',
        headers: { ...signedIn, 'content-type': 'application/json' },
        body: cart,
        ...eachOwnShopper({ 'content-type': 'application/json' }),
      },
    ],
    [`signed-in GET /api/cart, ${connections} shoppers`, { path: '/api/cart', headers: signedIn, ...eachOwnShopper({}) }],
  ];
  const results = [];
  // `--only text` measures only the rows whose title contains it (after the guest baseline, which every ratio needs).
  const only = option('--only');
  for (const [title, opts] of scenarios.filter(([t], i) => !only || i === 0 || t.includes(only))) {
    // One request by hand first: a scenario that answers an error or a page instead of JSON would measure nothing real.
    const probe = await fetch(`${origin}${opts.path}`, { method: opts.method ?? 'GET', headers: opts.headers, body: opts.body });
    if (!probe.ok || !(probe.headers.get('content-type') ?? '').startsWith('application/json'))
      throw new Error(`${title}: HTTP ${probe.status} ${probe.headers.get('content-type')} before the run`);
    process.stdout.write(`${title}… `);
    const { result } = await run(title, opts);
    results.push({ title, result });
    console.log(`${Math.round(result.requests.average)} req/s`);
  }
  // Order placement, as the checkout does it (a guest: rates, payment, TEST MODE card, then recording the order), with
  // `ORDER_CONCURRENCY` shoppers at a time. Timed per order from the first request to the recorded order.
  process.stdout.write('order placement… ');
  const placements = await placeOrders(only ? 0 : ORDER_COUNT, ORDER_CONCURRENCY);
  console.log(`${placements.perSecond.toFixed(1)} orders/s`);

  // A run that signed the shopper out (idle logic gone wrong) would show as 401s above, and here.
  const still = await (await call('/api/auth/session', { cookie })).json();
  if (!still.user) throw new Error('The bench shopper was signed out during the run');

  const baseline = results[0].result.requests.average;
  const rows = results.map(({ title, result }) => ({
    title,
    rps: Math.round(result.requests.average),
    ratio: (result.requests.average / baseline).toFixed(2),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
  }));
  rows.push(
    {
      title: `order placement (rates, payment, card, order; ${ORDER_CONCURRENCY} at a time, ${ORDER_COUNT} orders)`,
      rps: placements.perSecond.toFixed(1),
      ratio: (placements.perSecond / baseline).toFixed(3),
      p50: placements.whole.p50,
      p99: placements.whole.p99,
      non2xx: placements.failed,
    },
    {
      title: 'of which POST /api/orders/confirm (recording the order)',
      rps: '',
      ratio: '',
      p50: placements.record.p50,
      p99: placements.record.p99,
      non2xx: placements.failed,
    },
  );
  const engine = databaseUrl ? 'PostgreSQL' : 'PGlite';
  const table = [
    '| Request | req/s | × guest session | p50 | p99 | non-2xx |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.title} | ${r.rps} | ${r.ratio} | ${r.p50} ms | ${r.p99} ms | ${r.non2xx} |`),
  ].join('\n');
  console.log(
    `\n${engine}, ${connections} connections, ${duration} s each, load average ${loadavg()[0].toFixed(1)}:\n\n${table}\n`,
  );

  if (write) {
    const doc = join(root, 'docs/performance.md');
    const text = readFileSync(doc, 'utf8');
    const heading = '## API under load';
    const start = text.indexOf(heading);
    const next = start < 0 ? -1 : text.indexOf('\n## ', start + heading.length);
    const head = start < 0 ? `${text.trimEnd()}\n\n` : text.slice(0, start);
    const section = start < 0 ? `${heading}\n` : text.slice(start, next < 0 ? undefined : next + 1);
    const tail = next < 0 ? '' : text.slice(next + 1);
    // Each engine and label (before/after a change) has its own marked block, so runs update only their own figures.
    const marker = (which) => `<!-- bench:api ${engine} ${label} ${which} -->`;
    const block = [
      marker('start'),
      `**${engine}, ${label}** (${new Date().toISOString().slice(0, 10)}; ${cpus().length} cores, ${cpus()[0]?.model.trim()}; Node ${process.versions.node}; ${connections} connections, ${duration} s per row; load average ${loadavg()[0].toFixed(1)} at the end):`,
      '',
      table,
      marker('end'),
    ].join('\n');
    const a = section.indexOf(marker('start'));
    const b = section.indexOf(marker('end'));
    const updated =
      a >= 0 && b > a
        ? section.slice(0, a) + block + section.slice(b + marker('end').length)
        : `${section.trimEnd()}\n\n${block}\n`;
    writeFileSync(doc, `${head}${updated.trimEnd()}\n${tail ? `\n${tail}` : ''}`);
    console.log(`Updated ${doc}`);
  }
} finally {
  stop();
}
