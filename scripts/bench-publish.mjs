// Publishing under load: what shoppers notice while an editor publishes a change, and how long until they see it.
// Expects `npm run build` to have run. Starts the production server (`node scripts/serve.mjs`, scripts/bench-shop.mjs)
// on a fresh embedded database (or PostgreSQL with `--postgres URL` / BENCH_DATABASE_URL), signs the shop owner (who
// may edit) and a shopper in through the public endpoints, then measures twice with autocannon, `--connections` (50)
// split between pages (/, two product pages) and the cart and checkout's endpoints as the signed-in shopper:
// - idle: `--duration` seconds with nothing else happening;
// - publishing: the owner saves a new price for product 3 and presses Publish; the load runs from that moment until
//   the product page and the checkout's amount both show the new price, and two seconds more.
// Then the old price is published again with nothing else running. It reports failed connections, timeouts and answers
// other than 2xx (there must be none), each group's p99 in both runs, the time from Publish to the new price on the page
// and in the checkout's amount under load and idle (with the release's share), and that the shopper is still signed in.
// Then `--publishes` (50) more publishes one after another, alternating two prices, reading the server's resident
// memory (VmRSS) before and after: a release loads no code, so it must stay flat (decision 019). `--write` replaces the
// "Publishing under load" section of docs/performance.md.
//
//   npm run bench:publish [-- --postgres postgres://…/scratch] [-- --connections 50] [-- --duration 10] [-- --publishes 50] [-- --write]
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { flag, option } from './bench-args.mjs';
import { startShop } from './bench-shop.mjs';
import { freePort } from './free-port.mjs';

const root = new URL('..', import.meta.url).pathname;
const databaseUrl = option('--postgres') ?? process.env.BENCH_DATABASE_URL;
const connections = Number(option('--connections') ?? 50);
const duration = Number(option('--duration') ?? 10);
const write = flag('--write');
const publishes = Number(option('--publishes') ?? 50);
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';
const OWNER_EMAIL = `bench.editor.${Date.now()}@example.com`;
const SCRUBS = '03-clinical-scrubs';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const shop = await startShop({ port: await freePort(), mailboxPort: await freePort(), adminEmails: [OWNER_EMAIL], databaseUrl });
const { origin, call } = shop;
const cleanUp = () => shop.stop();
/** The server's resident memory now, in MB. */
const residentMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${shop.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
process.on('SIGINT', async () => {
  await cleanUp();
  process.exit(130);
});

const owner = await shop.signedIn(OWNER_EMAIL);
const shopper = await shop.signedIn(`bench.shopper.${Date.now()}@example.com`);
const lines = [{ productId: 3, quantity: 1, selectedColor: 'blue', selectedSize: 'M' }];
await call('/api/cart', { method: 'PUT', body: { lines }, cookie: shopper.cookie });
const address = {
  name: 'Bench Shopper',
  email: shopper.email,
  street1: '12 Bull St',
  city: 'Savannah',
  state: 'GA',
  zip: '31401',
  country: 'US',
};

/** What the checkout would charge for the cart now, in cents (the server prices it from its catalogue). */
async function checkoutAmount() {
  const { rates } = await (
    await call('/api/shippo-rates', { method: 'POST', body: { toAddress: address, lines }, cookie: shopper.cookie })
  ).json();
  const intent = await (
    await call('/api/create-payment-intent', {
      method: 'POST',
      body: { lines, address, rateId: rates[0].object_id },
      cookie: shopper.cookie,
    })
  ).json();
  return intent.amountCents;
}

/** One autocannon run, and a way to end it early. */
function run(opts) {
  let instance;
  const done = new Promise((resolve, reject) => {
    instance = autocannon(opts, (error, result) => (error ? reject(error) : resolve(result)));
  });
  return { done, stop: () => instance.stop() };
}

/** The two loads: pages as any visitor, the cart and checkout's endpoints as the signed-in shopper. */
function loads(seconds) {
  const headers = { 'accept-encoding': BROWSER_ACCEPT_ENCODING };
  const pages = run({
    url: origin,
    duration: seconds,
    headers,
    connections: Math.ceil(connections / 2),
    requests: [{ path: '/' }, { path: '/product/3' }, { path: '/product/7' }],
  });
  const api = run({
    url: origin,
    duration: seconds,
    headers: { ...headers, cookie: shopper.cookie, origin },
    connections: Math.floor(connections / 2),
    requests: [{ path: '/api/cart' }, { path: '/api/auth/session' }, { path: '/api/stock' }],
  });
  return {
    done: Promise.all([pages.done, api.done]),
    stop: () => {
      pages.stop();
      api.stop();
    },
  };
}

/** One run's figures: requests, failures, p99. */
function figures(result) {
  const fiveHundreds = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => Number(code) >= 500)
    .reduce((sum, [, { count }]) => sum + count, 0);
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    fiveHundreds,
  };
}

// Warm the server (its code paths load on first use), then the idle run.
await loads(3).done;
const [idlePages, idleApi] = (await loads(duration).done).map(figures);
const before = await checkoutAmount();

/** The owner saves `price` (dollars) for the Clinical Scrubs in the editor, as the editor's form does. */
async function savePrice(price) {
  const form = await (await call(`/api/admin/catalogue/products/${SCRUBS}`, { cookie: owner.cookie })).json();
  await call(`/api/admin/catalogue/products/${SCRUBS}`, {
    method: 'POST',
    body: { base: form.revision, fields: { ...form.fields, price } },
    cookie: owner.cookie,
  });
  return Number(form.fields.price);
}

/**
 * Presses Publish and times, from then, until the product page shows `shown` and the checkout charges `charged(cents)`;
 * with the release's own time (made, stored, switched to) from the publish's record. Gives up after 180 s.
 */
async function publishAndWatch(shown, charged) {
  const pressed = performance.now();
  await call('/api/admin/catalogue/publish', { method: 'POST', body: {}, cookie: owner.cookie });
  let onPage = null;
  let inCheckout = null;
  while ((onPage === null || inCheckout === null) && performance.now() - pressed < 180_000) {
    if (onPage === null && (await (await fetch(`${origin}/product/3`)).text()).includes(shown)) {
      onPage = performance.now() - pressed;
    }
    if (inCheckout === null && charged(await checkoutAmount())) inCheckout = performance.now() - pressed;
    await sleep(100);
  }
  const state = await (await call('/api/admin/catalogue/publish', { cookie: owner.cookie })).json();
  const live = state.live;
  const buildMs = live?.startedAt && live?.finishedAt ? Date.parse(live.finishedAt) - Date.parse(live.startedAt) : null;
  return { onPage, inCheckout, buildMs };
}

// Under load: the owner saves a new price and publishes while the load runs, until shoppers see it (and 2 s more).
const oldPrice = await savePrice(47.25);
const load = loads(600);
await sleep(1000);
const underLoad = await publishAndWatch('$47.25', (cents) => cents > before);
await sleep(2000);
load.stop();
const [publishPages, publishApi] = (await load.done).map(figures);
const session = await (await call('/api/auth/session', { cookie: shopper.cookie })).json();
const stillSignedIn = session.user?.email === shopper.email;

// Idle: the old price saved and published again with nothing else running.
await savePrice(oldPrice);
const idle = await publishAndWatch(`$${oldPrice.toFixed(2)}`, (cents) => cents === before);

// Memory over many publishes, one after another (each waited for until live), after one to warm up.
const publishUntilLive = async (price) => {
  await savePrice(price);
  const { publish } = await (
    await call('/api/admin/catalogue/publish', { method: 'POST', body: {}, cookie: owner.cookie })
  ).json();
  for (;;) {
    const state = await (await call('/api/admin/catalogue/publish', { cookie: owner.cookie })).json();
    if (state.latest?.id === publish.id && ['live', 'failed'].includes(state.latest.status)) return state.latest.status;
    await sleep(50);
  }
};
await publishUntilLive(46.5);
await sleep(1000);
const rssBefore = residentMb();
const manyStarted = performance.now();
let failedPublishes = 0;
for (let i = 0; i < publishes; i++) if ((await publishUntilLive(i % 2 ? 46.5 : 46.75)) !== 'live') failedPublishes++;
const manyMs = performance.now() - manyStarted;
await sleep(1000);
const rssAfter = residentMb();
await savePrice(oldPrice);
await publishUntilLive(oldPrice);
await cleanUp();

const engine = databaseUrl ? 'PostgreSQL' : 'PGlite';
const s = (ms) => (ms === null ? 'never (over 180 s)' : `${(ms / 1000).toFixed(1)} s`);
const failures = (f) => f.errors + f.timeouts + f.non2xx;
const row = (name, f) => [
  name,
  String(f.requests),
  String(f.rps),
  `${f.p99} ms`,
  `${failures(f)} (${f.errors} connection errors, ${f.timeouts} timeouts, ${f.non2xx} not 2xx, ${f.fiveHundreds} 5xx)`,
];

/** A Markdown table with its columns padded, as the project's formatter writes them. */
function markdownTable(header, rows) {
  const widths = header.map((_, i) => Math.max(3, ...[header, ...rows].map((cells) => cells[i].length)));
  const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const table = [
  `${engine}, ${connections} connections (half on pages, half on the cart and checkout endpoints as a signed-in shopper), ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end:`,
  '',
  markdownTable(
    ['Run', 'Requests', 'Req/s', 'p99', 'Failed'],
    [
      row(`Pages, idle (${duration} s)`, idlePages),
      row('Pages, during the publish', publishPages),
      row(`Cart and checkout endpoints, idle (${duration} s)`, idleApi),
      row('Cart and checkout endpoints, during the publish', publishApi),
    ],
  ),
  '',
  `From Publish to the new price on the product page and in the checkout's amount: under that load ${s(underLoad.onPage)} and ${s(underLoad.inCheckout)}, of which making and storing the release ${s(underLoad.buildMs)}; with nothing else running ${s(idle.onPage)} and ${s(idle.inCheckout)}, of which the release ${s(idle.buildMs)}. The shopper was ${stillSignedIn ? 'still' : 'NOT'} signed in afterwards.`,
  '',
  `${publishes} publishes one after another (${failedPublishes} failed), ${(manyMs / publishes / 1000).toFixed(2)} s each from Publish to live: the server's resident memory ${rssBefore.toFixed(0)} MB before, ${rssAfter.toFixed(0)} MB after (${rssAfter - rssBefore >= 0 ? '+' : ''}${(rssAfter - rssBefore).toFixed(0)} MB).`,
].join('\n');
console.log(`\n${table}\n`);

const failed =
  [idlePages, idleApi, publishPages, publishApi].some((f) => failures(f) > 0) ||
  !stillSignedIn ||
  [underLoad.onPage, underLoad.inCheckout, idle.onPage, idle.inCheckout].some((ms) => ms === null) ||
  failedPublishes > 0 ||
  rssAfter - rssBefore > 30;
if (write) {
  const path = join(root, 'docs/performance.md');
  const doc = readFileSync(path, 'utf8');
  const start = `<!-- bench:publish ${engine} start -->`;
  const end = `<!-- bench:publish ${engine} end -->`;
  if (!doc.includes(start)) throw new Error(`docs/performance.md has no ${start} marker`);
  const next = doc.replace(new RegExp(`${start}[\\s\\S]*?${end}`), `${start}\n${table}\n${end}`);
  writeFileSync(path, next);
}
process.exit(failed ? 1 : 0);
