// Pages under load, this build against another checkout's, measured alternately (serving pages compressed
// must cost no more than a tenth of their requests per second). Both shops run side by side on fresh embedded
// databases (scripts/bench-shop.mjs; several of each, see SHOPS), each with signed-in shoppers; then, round after round,
// each row is measured for a few seconds (scripts/load.mjs) on one shop and then the other (the order swapped every
// round), so that whatever else the machine is doing weighs on both alike. Prints, per row, the median requests per
// second and server CPU per request (user + system from /proc, which a busy machine disturbs less) of each, and their
// ratio: the median of the ratios of each pair measured back to back (a shop of each side, one after the other), with
// their quartiles. The machine's own pace moves more between runs than the tenth this bench is to tell (the same
// uncompressed build read 347 and 535 /orders per second in two runs, and the ratio of the two sides' medians, same
// code, 0.78 and 1.01), and a pair measured seconds apart shares it. Every request sends Chromium's Accept-Encoding.
//
//   node scripts/bench-pages.mjs --before /path/to/other/checkout [--rounds 5] [--shops 2] [--duration 3]
//     [--connections 50] [--only <part of a row's title>]
//
// The other checkout must have its own build (dist/) and node_modules (a link to this one's will do).
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { option } from './bench-args.mjs';
import { startShop } from './bench-shop.mjs';
import { freePort } from './free-port.mjs';
import { load } from './load.mjs';

const root = new URL('..', import.meta.url).pathname;
const beforeDir = option('--before');
if (!beforeDir) throw new Error('--before <checkout> is required');
const ROUNDS = Number(option('--rounds') ?? 5);
const DURATION = Number(option('--duration') ?? 3);
const CONNECTIONS = Number(option('--connections') ?? 50);
const SHOPPERS = 10;
/**
 * Shops per side. Two processes serving one build differ by up to a sixth in CPU per request (the same code measured
 * 6.45 and 7.54 ms per /orders answer in one run), more than the tenth this bench is to tell: each side is measured on
 * several shops, and the medians taken over all of them.
 */
const SHOPS = Number(option('--shops') ?? 2);
/** Measure only the rows whose title contains this (e.g. `--only /orders`). */
const ONLY = option('--only');
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
/** The value a share `q` of `xs` is at or under (nearest rank). */
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)] ?? Number.NaN;

async function shopWithShoppers(checkout) {
  const shop = await startShop({ port: await freePort(), mailboxPort: await freePort(), checkout });
  const cookies = [];
  for (let i = 0; i < SHOPPERS; i++) cookies.push((await shop.signedIn(`bench.pages.${Date.now()}.${i}@example.com`)).cookie);
  return { shop, cookies };
}

/** One run of `row` against `target`: requests per second, server CPU per request, bytes per answer. */
async function measure(target, row) {
  const { shop, cookies } = target;
  const headers = { 'accept-encoding': BROWSER_ACCEPT_ENCODING };
  const before = cpuMs(shop.pid);
  const result = await load({
    url: `${shop.origin}${row.path}`,
    connections: CONNECTIONS,
    duration: DURATION,
    status: row.status,
    headersFor: (i) => (row.signedIn ? { ...headers, cookie: cookies[i % cookies.length] } : headers),
  });
  const after = cpuMs(shop.pid);
  if (result.failures > 0) throw new Error(`${row.path}: ${result.failures} answers had another status, or failed`);
  const cpu = before === null || after === null ? Number.NaN : (after - before) / result.requests;
  return { rps: result.rps, cpu, bytes: result.bytes / result.requests };
}

const ROWS = [
  { title: 'GET / (built page)', path: '/' },
  { title: 'GET /product/3 (built page)', path: '/product/3' },
  { title: 'GET /_astro/react.js (the largest script)', path: '' },
  { title: 'GET /no-such-page (on-demand 404 page)', path: '/no-such-page', status: 404 },
  { title: `signed-in GET /orders (on-demand page), ${SHOPPERS} shoppers`, path: '/orders', signedIn: true },
  { title: 'guest GET /api/auth/session (small JSON)', path: '/api/auth/session' },
];

/** @type {{ after: Awaited<ReturnType<typeof shopWithShoppers>>[], before: Awaited<ReturnType<typeof shopWithShoppers>>[] }} */
const shops = { after: [], before: [] };
try {
  for (let i = 0; i < SHOPS; i++) {
    shops.after.push(await shopWithShoppers(undefined));
    shops.before.push(await shopWithShoppers(resolve(beforeDir)));
  }
  // The largest script has a fingerprint of its own in each build.
  const react = (checkout) => {
    const name = readdirSync(join(checkout, 'dist/client/_astro')).find((f) => /^react\.[\w-]+\.js$/.test(f));
    if (!name) throw new Error(`no React chunk in ${checkout}/dist/client/_astro`);
    return `/_astro/${name}`;
  };
  const scripts = { after: react(root), before: react(resolve(beforeDir)) };
  const results = ROWS.filter((row) => !ONLY || row.title.includes(ONLY)).map((row) => ({
    row,
    after: [],
    before: [],
    ratios: [],
  }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const result of results) {
      for (let i = 0; i < SHOPS; i++) {
        const order = (round + i) % 2 === 0 ? ['after', 'before'] : ['before', 'after'];
        /** @type {Record<string, { rps: number }>} */
        const pair = {};
        for (const which of order) {
          const row = result.row.path === '' ? { ...result.row, path: scripts[which] ?? '/' } : result.row;
          const measured = await measure(shops[which][i], row);
          result[which].push(measured);
          pair[which] = measured;
        }
        result.ratios.push((pair.after?.rps ?? Number.NaN) / (pair.before?.rps ?? Number.NaN));
      }
    }
    console.log(`round ${round + 1} of ${ROUNDS} done (load average ${loadavg()[0].toFixed(1)})`);
  }
  const lines = results.map(({ row, after: a, before: b, ratios }) => {
    const [ra, rb] = [median(a.map((r) => r.rps)), median(b.map((r) => r.rps))];
    const [q1, q3] = [quantile(ratios, 0.25), quantile(ratios, 0.75)];
    const [ca, cb] = [median(a.map((r) => r.cpu)), median(b.map((r) => r.cpu))];
    const [ba, bb] = [median(a.map((r) => r.bytes)), median(b.map((r) => r.bytes))];
    return `| ${row.title} | ${Math.round(rb)} | ${Math.round(ra)} | **${median(ratios).toFixed(2)}** (${q1.toFixed(2)}–${q3.toFixed(2)}) | ${cb.toFixed(2)} ms | ${ca.toFixed(2)} ms | ${(bb / 1024).toFixed(1)} KB | ${(ba / 1024).toFixed(1)} KB |`;
  });
  console.log(
    `\n${ROUNDS} rounds, ${SHOPS} shops a side, ${DURATION} s per row and shop, ${CONNECTIONS} connections; ${cpus().length} cores, ${cpus()[0]?.model.trim()}; Node ${process.versions.node}; load average ${loadavg()[0].toFixed(1)} at the end\n`,
  );
  console.log(
    [
      '| Request | before: req/s | after: req/s | after / before (quartiles) | before: CPU per request | after: CPU per request | before: bytes per answer | after: bytes per answer |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...lines,
    ].join('\n'),
  );
  for (const { row, ratios } of results) {
    console.log(
      `\n${row.title}, each pair's ratio: ${[...ratios]
        .sort((a, b) => a - b)
        .map((r) => r.toFixed(2))
        .join(' ')}`,
    );
  }
} finally {
  for (const { shop } of [...shops.after, ...shops.before]) await shop.stop();
}
