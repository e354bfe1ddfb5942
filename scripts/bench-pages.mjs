// Pages under load, this build against another checkout's, measured alternately (serving pages compressed
// must cost no more than a tenth of their requests per second). Both shops run side by side on fresh embedded
// databases (scripts/bench-shop.mjs), each with signed-in shoppers; then, round after round, each row is measured with
// autocannon for a few seconds on one shop and then the other (the order swapped every round), so that whatever else
// the machine is doing weighs on both alike. Prints, per row, the median requests per second and server CPU per
// request (user + system from /proc, which a busy machine disturbs less) of each, and their ratio. Every request sends
// the Accept-Encoding Chromium sends.
//
//   node scripts/bench-pages.mjs --before /path/to/other/checkout [--rounds 5] [--duration 3] [--connections 50]
//
// The other checkout must have its own build (dist/) and node_modules (a link to this one's will do).
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { option } from './bench-args.mjs';
import { startShop } from './bench-shop.mjs';
import { freePort } from './free-port.mjs';

const root = new URL('..', import.meta.url).pathname;
const beforeDir = option('--before');
if (!beforeDir) throw new Error('--before <checkout> is required');
const ROUNDS = Number(option('--rounds') ?? 5);
const DURATION = Number(option('--duration') ?? 3);
const CONNECTIONS = Number(option('--connections') ?? 50);
const SHOPPERS = 10;
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/** Server CPU time so far (ms), from /proc; null where there is none. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function shopWithShoppers(checkout) {
  const shop = await startShop({ port: await freePort(), mailboxPort: await freePort(), checkout });
  const cookies = [];
  for (let i = 0; i < SHOPPERS; i++) cookies.push((await shop.signedIn(`bench.pages.${Date.now()}.${i}@example.com`)).cookie);
  return { shop, cookies };
}

/** One autocannon run of `row` against `target`: requests per second and server CPU per request. */
function measure(target, row) {
  const { shop, cookies } = target;
  let next = 0;
  const headers = { 'accept-encoding': BROWSER_ACCEPT_ENCODING };
  return new Promise((done, fail) => {
    const before = cpuMs(shop.pid);
    autocannon(
      {
        url: `${shop.origin}${row.path}`,
        connections: CONNECTIONS,
        duration: DURATION,
        headers,
        ...(row.signedIn
          ? { setupClient: (client) => client.setHeaders({ ...headers, cookie: cookies[next++ % cookies.length] }) }
          : {}),
      },
      (error, result) => {
        if (error) return fail(error);
        const after = cpuMs(shop.pid);
        const cpu = before === null || after === null ? Number.NaN : (after - before) / result.requests.total;
        done({ rps: result.requests.average, cpu, bytes: result.throughput.total / result.requests.total });
      },
    );
  });
}

const ROWS = [
  { title: 'GET / (built page)', path: '/' },
  { title: 'GET /product/3 (built page)', path: '/product/3' },
  { title: 'GET /_astro/react.js (the largest script)', path: '' },
  { title: 'GET /no-such-page (on-demand 404 page)', path: '/no-such-page' },
  { title: `signed-in GET /orders (on-demand page), ${SHOPPERS} shoppers`, path: '/orders', signedIn: true },
  { title: 'guest GET /api/auth/session (small JSON)', path: '/api/auth/session' },
];

const after = await shopWithShoppers(undefined);
const before = await shopWithShoppers(resolve(beforeDir));
try {
  // The largest script has a fingerprint of its own in each build.
  const react = (checkout) => {
    const name = readdirSync(join(checkout, 'dist/client/_astro')).find((f) => /^react\.[\w-]+\.js$/.test(f));
    if (!name) throw new Error(`no React chunk in ${checkout}/dist/client/_astro`);
    return `/_astro/${name}`;
  };
  const scripts = { after: react(root), before: react(resolve(beforeDir)) };
  const results = ROWS.map((row) => ({ row, after: [], before: [] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const result of results) {
      const order = round % 2 === 0 ? ['after', 'before'] : ['before', 'after'];
      for (const which of order) {
        const target = which === 'after' ? after : before;
        const row = result.row.path === '' ? { ...result.row, path: scripts[which] ?? '/' } : result.row;
        result[which].push(await measure(target, row));
      }
    }
    console.log(`round ${round + 1} of ${ROUNDS} done (load average ${loadavg()[0].toFixed(1)})`);
  }
  const lines = results.map(({ row, after: a, before: b }) => {
    const [ra, rb] = [median(a.map((r) => r.rps)), median(b.map((r) => r.rps))];
    const [ca, cb] = [median(a.map((r) => r.cpu)), median(b.map((r) => r.cpu))];
    const [ba, bb] = [median(a.map((r) => r.bytes)), median(b.map((r) => r.bytes))];
    return `| ${row.title} | ${Math.round(rb)} | ${Math.round(ra)} | **${(ra / rb).toFixed(2)}** | ${cb.toFixed(2)} ms | ${ca.toFixed(2)} ms | ${(bb / 1024).toFixed(1)} KB | ${(ba / 1024).toFixed(1)} KB |`;
  });
  console.log(
    `\n${ROUNDS} rounds, ${DURATION} s per row and shop, ${CONNECTIONS} connections; ${cpus().length} cores, ${cpus()[0]?.model.trim()}; Node ${process.versions.node}; load average ${loadavg()[0].toFixed(1)} at the end\n`,
  );
  console.log(
    [
      '| Request | before: req/s | after: req/s | after / before | before: CPU per request | after: CPU per request | before: bytes per answer | after: bytes per answer |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...lines,
    ].join('\n'),
  );
} finally {
  await after.shop.stop();
  await before.shop.stop();
}
