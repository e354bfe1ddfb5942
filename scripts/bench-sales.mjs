// The sales overview with a shop's worth of orders: how long /admin/sales takes to answer an admin when the database
// holds 10 000 orders (a year of them, with items, variants, partial refunds and cancellations), next to a trivial
// request and another admin page measured in the same run. Expects `npm run build` to have run.
//
// Starts the production build (`node scripts/serve.mjs`) on a fresh embedded database (or PostgreSQL with
// `--postgres URL` / BENCH_DATABASE_URL: a scratch database, as scripts/bench.mjs makes one), signs an admin up and in
// through the public endpoints, stops the shop, writes the orders straight into its database in one statement per
// table, starts it again on the same database, then times requests one after another (an owner opens one page at a
// time): each from the request to the last byte of the answer, compressed as a browser asks for it.
// `--write` replaces this engine's figures in the "Sales overview" section of docs/performance.md.
//
//   npm run bench:sales [-- --postgres postgres://…/scratch] [-- --orders 10000] [-- --requests 60] [-- --write]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { flag, option } from './bench-args.mjs';
import { startShop } from './bench-shop.mjs';
import { freePort } from './free-port.mjs';

const root = new URL('..', import.meta.url).pathname;
const databaseUrl = option('--postgres') ?? process.env.BENCH_DATABASE_URL;
const ORDERS = Number(option('--orders') ?? 10_000);
const REQUESTS = Number(option('--requests') ?? 60);
const WARM_UP = 5;
const write = flag('--write');
const ADMIN = 'bench.sales@example.com';
/** The budget: the overview answers within this, at the p99, for every period. */
const TARGET_MS = 300;

/**
 * The orders, in one statement per table: spread evenly over the last 365 days (so this year's and the 90 days' periods
 * hold thousands), 3 000 customers, one to seven pieces of soap with a pair of scrubs in one of 15 colours and sizes,
 * every 20th order partly refunded and every 50th cancelled with its refund.
 */
const SEED = (count) => [
  `insert into public.orders (customer_email, customer_name, subtotal_cents, shipping_cents, tax_cents, total_cents,
     payment_intent_id, shipping_address, shipping_method, status, created_at)
   select 'customer' || (g % 3000) || '@example.com', 'Customer ' || (g % 3000),
          4500 + (g % 7) * 1200, 500, 300, 4500 + (g % 7) * 1200 + 800,
          'pi_bench_' || g, '{}'::jsonb, '{}'::jsonb,
          case when g % 50 = 0 then 'cancelled' when g % 3 = 0 then 'delivered' else 'processing' end,
          now() - (g * 365.0 / ${count}) * interval '1 day'
     from generate_series(1, ${count}) g`,
  `insert into public.order_items (order_id, product_id, product_name, product_category, price_cents, quantity,
     selected_color, selected_size, product_sku, image)
   select o.id, 3, 'Clinical Scrubs', 'Apparel', 4500, 1,
          (array['blue', 'navy', 'wine'])[1 + n % 3], (array['XS', 'S', 'M', 'L', 'XL'])[1 + n % 5], 'AUR-SCRUBS', '/x.svg'
     from (select id, substr(payment_intent_id, 10)::int as n from public.orders where payment_intent_id like 'pi_bench_%') o`,
  `insert into public.order_items (order_id, product_id, product_name, product_category, price_cents, quantity,
     selected_color, selected_size, product_sku, image)
   select o.id, 7, 'Kojic Acid Soap', 'Skincare', 1200, n % 7, null, null, 'AUR-KOJIC', '/x.svg'
     from (select id, substr(payment_intent_id, 10)::int as n from public.orders where payment_intent_id like 'pi_bench_%') o
    where n % 7 > 0`,
  `insert into public.order_refunds (refund_id, order_id, amount_cents, status, created_at)
   select 're_bench_' || o.payment_intent_id, o.id,
          case when o.status = 'cancelled' then o.total_cents else 1000 end, 'succeeded', o.created_at + interval '1 day'
     from public.orders o
    where o.payment_intent_id like 'pi_bench_%'
      and (o.status = 'cancelled' or substr(o.payment_intent_id, 10)::int % 20 = 0)`,
];

async function seed(dataDir) {
  const started = performance.now();
  if (databaseUrl) {
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await sql.begin(async (tx) => {
        for (const statement of SEED(ORDERS)) await tx.unsafe(statement);
      });
      await sql.unsafe('analyze public.orders, public.order_items, public.order_refunds');
    } finally {
      await sql.end();
    }
  } else {
    const db = new PGlite(join(dataDir, 'pglite'));
    try {
      await db.transaction(async (tx) => {
        for (const statement of SEED(ORDERS)) await tx.exec(statement);
      });
      await db.exec('analyze public.orders, public.order_items, public.order_refunds');
    } finally {
      await db.close();
    }
  }
  return performance.now() - started;
}

/** The p50 and p99 of a list of milliseconds. */
function percentiles(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-sales-'));
const ports = async () => ({ port: await freePort(), mailboxPort: await freePort() });
const options = { adminEmails: [ADMIN], databaseUrl, dataDir };
let shop = await startShop({ ...(await ports()), ...options });
process.on('SIGINT', async () => {
  await shop.stop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(130);
});

try {
  const { cookie } = await shop.signedIn(ADMIN);
  // The embedded database is the server's alone while it runs: stop it, write the orders, start it again.
  await shop.stop();
  const seeding = await seed(dataDir);
  console.log(`Seeded ${ORDERS} orders in ${(seeding / 1000).toFixed(1)} s`);
  shop = await startShop({ ...(await ports()), ...options });
  const { origin } = shop;

  /** Times `path` REQUESTS times, one request at a time, after WARM_UP untimed ones. */
  async function measure(title, path, { count = REQUESTS, expect = 'text/html', signedIn = true } = {}) {
    const headers = { 'accept-encoding': 'gzip, deflate, br, zstd', ...(signedIn ? { cookie } : {}) };
    const times = [];
    let bytes = 0;
    for (let i = 0; i < WARM_UP + count; i++) {
      const t0 = performance.now();
      const res = await fetch(`${origin}${path}`, { headers, redirect: 'manual' });
      const body = await res.arrayBuffer();
      const ms = performance.now() - t0;
      if (res.status !== 200 || !(res.headers.get('content-type') ?? '').startsWith(expect))
        throw new Error(`${path}: HTTP ${res.status} ${res.headers.get('content-type')}`);
      if (i >= WARM_UP) times.push(ms);
      bytes = body.byteLength;
    }
    const { p50, p99 } = percentiles(times);
    process.stdout.write(`${title}: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms\n`);
    return { title, p50, p99, bytes };
  }

  const floor = await measure('GET /api/health (floor)', '/api/health', { expect: 'application/json', signedIn: false });
  const adminPage = await measure('GET /admin/activity (an admin page, the baseline)', '/admin/activity');
  const rows = [
    floor,
    adminPage,
    await measure('GET /admin (overview, with the 7 days’ sales card)', '/admin'),
    ...(await (async () => {
      const out = [];
      for (const period of ['7d', '30d', '90d', 'ytd'])
        out.push(await measure(`GET /admin/sales?period=${period}`, `/admin/sales?period=${period}`));
      out.push(await measure('GET /admin/sales?period=ytd&by=revenue', '/admin/sales?period=ytd&by=revenue'));
      return out;
    })()),
    await measure(
      `GET /api/admin/orders.csv (all ${ORDERS.toLocaleString('en-US')} orders, to the last byte)`,
      '/api/admin/orders.csv',
      {
        count: 5,
        expect: 'text/csv',
      },
    ),
  ];
  const sales = rows.filter((r) => r.title.startsWith('GET /admin/sales'));
  const worst = Math.max(...sales.map((r) => r.p99));
  const verdict = `overview p99 at most ${worst.toFixed(0)} ms for every period: ${worst < TARGET_MS ? 'met' : 'NOT met'} (target < ${TARGET_MS} ms)`;
  const engine = databaseUrl ? 'PostgreSQL' : 'PGlite';
  const fmt = (ms) => `${ms.toFixed(1)} ms`;
  const table = [
    '| Request | p50 | p99 | × floor (p50) | × admin page (p50) | answer (bytes, uncompressed) |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.title} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${(r.p50 / floor.p50).toFixed(1)} | ${(r.p50 / adminPage.p50).toFixed(2)} | ${(r.bytes / 1024).toFixed(1)} KB |`,
    ),
  ].join('\n');
  const when = `${new Date().toISOString().slice(0, 10)}; ${cpus().length} cores, ${cpus()[0]?.model.trim()}; Node ${process.versions.node}; load average ${loadavg()[0].toFixed(1)} at the end`;
  console.log(
    `\n${engine}, ${ORDERS} orders, ${REQUESTS} requests a row one at a time (the export 5) after ${WARM_UP} untimed:\n\n${table}\n\n${verdict}\n`,
  );

  if (write) {
    const doc = join(root, 'docs/performance.md');
    const text = readFileSync(doc, 'utf8');
    const marker = (which) => `<!-- bench:sales ${engine} ${which} -->`;
    const block = [
      marker('start'),
      `**${engine}** (${when}; ${ORDERS} orders, ${REQUESTS} requests a row, seeded in ${(seeding / 1000).toFixed(1)} s):`,
      '',
      table,
      '',
      verdict,
      marker('end'),
    ].join('\n');
    const a = text.indexOf(marker('start'));
    const b = text.indexOf(marker('end'));
    if (a < 0 || b < a) throw new Error(`docs/performance.md has no ${marker('start')} … ${marker('end')} block to replace`);
    writeFileSync(doc, text.slice(0, a) + block + text.slice(b + marker('end').length));
    console.log(`Updated ${doc}`);
  }
  if (worst >= TARGET_MS) process.exitCode = 1;
} finally {
  await shop.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
