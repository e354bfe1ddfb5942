// The browser benchmark, on the production build served by scripts/serve.mjs (a fresh embedded database):
// 1. Lighthouse on every page (mobile defaults: simulated slow 4G, 4× CPU slowdown), median of BENCH_RUNS (3) runs:
//    the guest pages, the signed-in shopper's, and the admin's (the session cookie is set in the browser first);
//    plus the JavaScript each page loads (gzip) and, as a same-run baseline, a bare static page with no CSS, JS or
//    images, so the LCP figures can be read as a ratio to the best this machine can do.
// 2. The checkout as a Lighthouse user flow: each stage (Add to Cart, the drawer, the address, payment, the order
//    placed) as a timespan (TBT, CLS, INP) followed by a snapshot (accessibility, best practices, SEO).
// 3. Interaction latency on a phone profile (scripts/bench-inp.mjs).
// Rewrites the top of docs/performance.md (the Lighthouse section, then "Interaction latency"); the sections after
// them (the API figures) belong to other scripts and are kept.
//
//   npm run bench:lighthouse [-- --strict] [-- --no-build]
//   --strict     exit 1 when a row is over budget (by default over-budget rows are reported, and the exit status is 0)
//   --no-build   use the existing dist/ (built with HOST=127.0.0.1 PORT=$BENCH_PORT)
//   --only A,B   audit only the pages whose label contains A or B (while working on some; the flow and INP still run)
//   BENCH_RUNS (3), BENCH_PORT (4399), BENCH_BASELINE_PORT (4398), BENCH_MAILBOX_PORT (4397)
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { startFlow } from 'lighthouse';
import puppeteer from 'puppeteer-core';
import { formatLatency, INP_BUDGET_MS, measureInteractions } from './bench-inp.mjs';
import { startShop } from './bench-shop.mjs';
import { CHROMIUM_ARGS, chromiumPath } from './chromium.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const strict = args.includes('--strict');
const PORT = Number(process.env.BENCH_PORT ?? 4399);
const BASELINE_PORT = Number(process.env.BENCH_BASELINE_PORT ?? 4398);
const MAILBOX_PORT = Number(process.env.BENCH_MAILBOX_PORT ?? 4397);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ADMIN_EMAIL = 'bench.admin@example.com';
/** Issue 26 asks every page for at most 1.0 s (the spec's own budget is 1.5 s). */
const LCP_BUDGET_MS = 1000;
const JS_BUDGET = 80 * 1024;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const score = (category) => (category?.score == null ? null : Math.round(category.score * 100));
const version = JSON.parse(readFileSync(join(root, 'node_modules/lighthouse/package.json'), 'utf8')).version;

if (!args.includes('--no-build')) {
  console.log('Building with the bench origin…');
  const build = spawnSync(process.execPath, [join(root, 'node_modules/astro/bin/astro.mjs'), 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(PORT) },
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const shop = await startShop({ port: PORT, mailboxPort: MAILBOX_PORT, adminEmails: [ADMIN_EMAIL] });
const origin = shop.origin;
const baselineHtml =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Baseline</title><meta name="description" content="Bare page"></head><body><h1>Baseline</h1><p>A bare static page: no CSS, no JavaScript, no images.</p></body></html>';
const baseline = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(baselineHtml)).listen(
  BASELINE_PORT,
  '127.0.0.1',
);
const chrome = await chromeLauncher.launch({ chromePath: await chromiumPath(), chromeFlags: CHROMIUM_ARGS });
const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}`, defaultViewport: null });
let overBudget = false;
try {
  // What the signed-in pages show: a shopper with an order, an admin, a message for the admin's inbox.
  const shopper = await shop.signedIn(`bench.shopper.${Date.now()}@example.com`);
  const admin = await shop.signedIn(ADMIN_EMAIL);
  const order = await shop.placeOrder(shopper);
  await shop.call('/api/contact', {
    method: 'POST',
    body: { name: 'Bench Shopper', email: shopper.email, message: 'Do the scrubs come in XXL?' },
  });

  // The browser's cookies are the signed-in account's (or none): Lighthouse opens each page in this browser's default
  // context and, by default, clears the origin's caches but not its cookies.
  const cdp = await browser.target().createCDPSession();
  async function signIn(account) {
    await cdp.send('Storage.clearCookies');
    if (account)
      await cdp.send('Storage.setCookies', {
        cookies: account.cookies.map((c) => ({ ...c, url: origin, path: '/', httpOnly: true, sameSite: 'Lax' })),
      });
  }

  /**
   * One Lighthouse navigation. A trace recorded without its navigation start (NO_NAVSTART, "Please run Lighthouse
   * again": seen about once in 20 runs here, on any page) is recorded again, twice at most; any other error stops.
   */
  async function navigation(url, flags) {
    for (let attempt = 1; ; attempt++) {
      const { lhr } = await lighthouse(url, flags);
      if (!lhr.runtimeError) return lhr;
      const again = lhr.runtimeError.code === 'NO_NAVSTART' && attempt < 3;
      if (!again) throw new Error(`${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
      console.log(`${url}: ${lhr.runtimeError.code}, recording it again`);
    }
  }

  /**
   * Lighthouse in navigation mode, RUNS times. Each run must end on the page asked for, with the status expected (an
   * admin page a stranger opens answers the site's 404 at the same address; /orders sends a guest home).
   */
  async function audit(url, { status = 200 } = {}) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      // A 404 page is a page too: Lighthouse stops at a 404 unless told it is expected.
      const flags = { port: chrome.port, output: 'json', logLevel: 'error', ignoreStatusCode: status !== 200 };
      const lhr = await navigation(url, flags);
      if (lhr.finalDisplayedUrl !== url) throw new Error(`${url} ended on ${lhr.finalDisplayedUrl}`);
      const doc = lhr.audits['network-requests'].details.items.find((it) => it.url === url);
      if (doc?.statusCode !== status) throw new Error(`${url} answered ${doc?.statusCode}, not ${status}`);
      runs.push(lhr);
    }
    const cat = (id) => median(runs.map((r) => score(r.categories[id]) ?? 0));
    const metric = (id) => median(runs.map((r) => r.audits[id]?.numericValue ?? Number.NaN));
    const scripts = new Set(
      runs[0].audits['network-requests'].details.items.filter((it) => it.resourceType === 'Script').map((it) => it.url),
    );
    let jsGzip = 0;
    for (const src of scripts) jsGzip += gzipSync(Buffer.from(await (await fetch(src)).arrayBuffer())).length;
    return {
      performance: cat('performance'),
      accessibility: cat('accessibility'),
      bestPractices: cat('best-practices'),
      seo: cat('seo'),
      lcp: metric('largest-contentful-paint'),
      cls: metric('cumulative-layout-shift'),
      tbt: metric('total-blocking-time'),
      jsGzip,
      failing: failingAudits(runs),
    };
  }

  const products = Array.from({ length: 9 }, (_, i) => ({ path: `/product/${i + 1}` }));
  const PAGES = [
    ...['/', '/about', '/contact', '/wishlist', '/reset-password'].map((path) => ({ path })),
    ...products,
    { path: '/no-such-page', label: '404 (/no-such-page)', status: 404 },
    { path: order.page, label: '/order?token=… (guest, from the e-mail)' },
    { path: '/orders', label: '/orders (signed in)', as: shopper },
    { path: '/wishlist', label: '/wishlist (signed in)', as: shopper },
    ...['/admin', '/admin/orders', `/admin/orders/${order.id}`, '/admin/stock', '/admin/reviews', '/admin/messages'].map(
      (path) => ({
        path,
        label: path.replace(order.id, '[id]'),
        as: admin,
      }),
    ),
    ...['/admin/sales', '/admin/subscribers', '/admin/activity', '/admin/editors', '/admin/catalogue'].map((path) => ({
      path,
      as: admin,
    })),
    { path: '/admin/catalogue/03-clinical-scrubs', label: '/admin/catalogue/[product]', as: admin },
  ];

  const base = await audit(`http://127.0.0.1:${BASELINE_PORT}/`);
  console.log(`baseline: LCP ${Math.round(base.lcp)} ms`);
  const rows = [];
  let signedInAs;
  const only = args.includes('--only') ? (args[args.indexOf('--only') + 1] ?? '').split(',') : undefined;
  for (const page of PAGES.filter((p) => !only || only.some((text) => (p.label ?? p.path).includes(text)))) {
    if (page.as !== signedInAs) {
      signedInAs = page.as;
      await signIn(signedInAs);
    }
    const r = { label: page.label ?? page.path, path: page.path, ...(await audit(`${origin}${page.path}`, page)) };
    r.over = pageOverBudget(r);
    rows.push(r);
    console.log(
      `${r.label}: perf ${r.performance} a11y ${r.accessibility} bp ${r.bestPractices} seo ${r.seo} LCP ${Math.round(r.lcp)} ms CLS ${formatCls(r.cls)} TBT ${Math.round(r.tbt)} ms JS ${kb(r.jsGzip)} KB${r.over.length ? `  OVER BUDGET: ${r.over.join(', ')}` : ''}`,
    );
  }
  await signIn(null);

  console.log('Checkout flow (timespan + snapshot per stage)…');
  const flowRuns = [];
  for (let i = 0; i < RUNS; i++) flowRuns.push(await checkoutFlow());
  const stages = flowRuns[0].map((first, s) => {
    const of = (pick) => median(flowRuns.map((run) => pick(run[s])));
    const stage = {
      label: first.name,
      performance: of((st) => st.performance),
      accessibility: of((st) => st.accessibility),
      bestPractices: of((st) => st.bestPractices),
      seo: of((st) => st.seo),
      tbt: of((st) => st.tbt),
      cls: of((st) => st.cls),
      inp: of((st) => st.inp ?? 0),
      failing: [...new Set(flowRuns.flatMap((run) => run[s].failing))],
    };
    stage.over = stageOverBudget(stage);
    console.log(
      `${stage.label}: perf ${stage.performance} a11y ${stage.accessibility} bp ${stage.bestPractices} seo ${stage.seo} TBT ${Math.round(stage.tbt)} ms CLS ${formatCls(stage.cls)} INP ${formatLatency(stage.inp)}${stage.over.length ? `  OVER BUDGET: ${stage.over.join(', ')}` : ''}`,
    );
    return stage;
  });

  console.log(`Interaction latency (phone, ${4}× CPU)…`);
  const interactions = await measureInteractions(origin, RUNS);
  for (const r of interactions)
    console.log(
      `${r.step}: ${formatLatency(r.ms)}${r.ms > INP_BUDGET_MS ? '  OVER BUDGET' : ''} (runs: ${r.runs.map(Math.round).join(', ')} ms)`,
    );

  writeDoc({ base, rows, stages, interactions });
  const over = [
    ...rows.filter((r) => r.over.length).map((r) => `${r.label} (${r.over.join(', ')})`),
    ...stages.filter((s) => s.over.length).map((s) => `checkout: ${s.label} (${s.over.join(', ')})`),
    ...interactions.filter((r) => r.ms > INP_BUDGET_MS).map((r) => `INP: ${r.step}`),
  ];
  overBudget = over.length > 0;
  console.log(overBudget ? `Over budget:\n- ${over.join('\n- ')}` : 'Every row is within budget.');
} finally {
  await browser.disconnect();
  chrome.kill();
  baseline.close();
  await shop.stop();
}
if (overBudget && strict) process.exit(1);

/** The audits that cost a category below 100 points (category/audit id), in any of the runs. */
function failingAudits(lhrs) {
  const ids = new Set();
  for (const lhr of lhrs)
    for (const [category, { auditRefs, score: s }] of Object.entries(lhr.categories)) {
      if (s === null || Math.round(s * 100) >= 100) continue;
      for (const ref of auditRefs) {
        const a = lhr.audits[ref.id]?.score;
        if (ref.weight > 0 && a !== null && a !== undefined && a < 1) ids.add(`${category}/${ref.id}`);
      }
    }
  return [...ids];
}

function pageOverBudget(r) {
  const over = [];
  for (const [name, value] of [
    ['performance', r.performance],
    ['accessibility', r.accessibility],
    ['best practices', r.bestPractices],
    ['SEO', r.seo],
  ])
    if (value < 100) over.push(`${name} ${value}`);
  if (r.lcp > LCP_BUDGET_MS) over.push(`LCP ${Math.round(r.lcp)} ms`);
  if (r.cls > 0) over.push(`CLS ${formatCls(r.cls)}`);
  if ((r.path === '/' || r.path.startsWith('/product/')) && r.jsGzip > JS_BUDGET) over.push(`JS ${kb(r.jsGzip)} KB`);
  return over;
}

function stageOverBudget(s) {
  const over = [];
  for (const [name, value] of [
    ['performance', s.performance],
    ['accessibility', s.accessibility],
    ['best practices', s.bestPractices],
    ['SEO', s.seo],
  ])
    if (value !== null && value < 100) over.push(`${name} ${value}`);
  if (s.cls > 0) over.push(`CLS ${formatCls(s.cls)}`);
  if (s.inp > INP_BUDGET_MS) over.push(`INP ${Math.round(s.inp)} ms`);
  return over;
}

/**
 * One guest's checkout as a Lighthouse user flow, in a fresh browser context (an empty cart): the product page is
 * opened, then each stage is a timespan (what the tap costs: TBT, CLS, INP) followed by a snapshot of what it shows
 * (accessibility, best practices, SEO). Timespans run with DevTools throttling of the CPU only (4×, Lighthouse's
 * mobile slowdown): simulated throttling needs a page load, and the API calls are on loopback either way.
 */
async function checkoutFlow() {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    // Lighthouse's mobile screen, set before the page loads so the first timespan's emulation changes nothing.
    await page.setViewport({ width: 412, height: 823, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true });
    const flow = await startFlow(page, {
      name: 'Checkout',
      flags: {
        logLevel: 'error',
        throttlingMethod: 'devtools',
        throttling: {
          cpuSlowdownMultiplier: 4,
          requestLatencyMs: 0,
          downloadThroughputKbps: 0,
          uploadThroughputKbps: 0,
          rttMs: 0,
          throughputKbps: 0,
        },
      },
    });
    await page.goto(`${origin}/product/7`, { waitUntil: 'load' });
    await hydrated(page, '.purchase');
    await hydrated(page, '.cart-badge');

    const stage = async (name, act) => {
      await flow.startTimespan({ name: `${name} (timespan)` });
      await act();
      await flow.endTimespan();
      await flow.snapshot({ name: `${name} (snapshot)` });
    };
    const address = 'form[aria-label="Shipping address"]';
    await stage('Add to Cart', async () => {
      await page.locator('::-p-aria([name="Add to Cart"][role="button"])').click();
      await page.waitForFunction(() => document.querySelector('[data-testid="cart-count"]')?.textContent === '1');
    });
    await stage('Cart drawer', async () => {
      await page.locator('button.cart-badge').click();
      await page.locator('dialog.cart-drawer[open] button.cart-checkout').wait();
    });
    await stage('Address', async () => {
      await page.locator('dialog.cart-drawer[open] button.cart-checkout').click();
      await page.locator(address).wait();
    });
    await stage('Payment', async () => {
      await page.locator(`${address} input[name="name"]`).fill('Grace Hopper');
      await page.locator(`${address} input[name="email"]`).fill(`grace.${Date.now()}@example.com`);
      await page.locator(`${address} input[name="address"]`).fill('12 Bull St');
      await page.locator(`${address} input[name="city"]`).fill('Savannah');
      await page.select(`${address} select[name="state"]`, 'GA');
      await page.locator(`${address} input[name="zipCode"]`).fill('31401');
      await page.locator(`${address} ::-p-aria([name="Continue"][role="button"])`).click();
      await page.locator('::-p-aria([name="Card number"][role="textbox"])').wait();
    });
    // The shop reloads the page 2 s after an order (product spec): the snapshot of the order placed needs it to stay,
    // so the bench declines that one reload (a beforeunload prompt, dismissed).
    await page.evaluate(() => addEventListener('beforeunload', (e) => e.preventDefault()));
    // A dialog still open as the flow's page closes cannot be dismissed any more: nothing is left to do then.
    page.on('dialog', (dialog) => dialog.dismiss().catch(() => {}));
    await stage('Order placed', async () => {
      await page.locator('::-p-aria([name="Card number"][role="textbox"])').fill('4242 4242 4242 4242');
      await page.locator('::-p-aria([name="Expiry (MM/YY)"][role="textbox"])').fill('12/34');
      await page.locator('::-p-aria([name="CVC"][role="textbox"])').fill('123');
      await page.locator('::-p-text(Pay $)').click();
      await page.waitForFunction(() => /Order [0-9a-f]{8} placed!/.test(document.body.textContent ?? ''));
    });

    const { steps } = await flow.createFlowResult();
    const out = [];
    for (let i = 0; i < steps.length; i += 2) {
      const span = steps[i].lhr;
      const snap = steps[i + 1].lhr;
      if (span.gatherMode !== 'timespan' || snap.gatherMode !== 'snapshot') throw new Error('Unexpected flow steps');
      for (const lhr of [span, snap])
        if (lhr.runtimeError) throw new Error(`${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
      // Best practices has audits in both modes (console errors in the timespan, the page's state in the snapshot).
      const bp = [score(span.categories['best-practices']), score(snap.categories['best-practices'])].filter((s) => s !== null);
      out.push({
        name: steps[i].name.replace(/ \(timespan\)$/, ''),
        performance: score(span.categories.performance),
        accessibility: score(snap.categories.accessibility),
        bestPractices: bp.length ? Math.min(...bp) : null,
        seo: score(snap.categories.seo),
        tbt: span.audits['total-blocking-time']?.numericValue ?? Number.NaN,
        cls: span.audits['cumulative-layout-shift']?.numericValue ?? Number.NaN,
        inp: span.audits['interaction-to-next-paint']?.numericValue,
        failing: failingAudits([span, snap]),
      });
    }
    return out;
  } finally {
    await context.close();
  }
}

function hydrated(page, selector) {
  return page.waitForFunction(
    (sel) => [...document.querySelectorAll('astro-island')].some((i) => i.querySelector(sel) && !i.hasAttribute('ssr')),
    {},
    selector,
  );
}

/** CLS as Lighthouse shows it (3 decimals), unless that would show a shift as 0. */
function formatCls(cls) {
  return cls > 0 && cls < 0.0005 ? cls.toPrecision(1) : cls.toFixed(3);
}

function kb(bytes) {
  return (bytes / 1024).toFixed(1);
}

function writeDoc({ base, rows, stages, interactions }) {
  const cell = (v) => (v === null ? 'n/a' : String(v));
  const flag = (over) => (over.length ? ' ⚠' : '');
  const pageTable = rows
    .map(
      (r) =>
        `| ${r.label}${flag(r.over)} | ${r.performance} | ${r.accessibility} | ${r.bestPractices} | ${r.seo} | ${(r.lcp / 1000).toFixed(2)} s (${(r.lcp / base.lcp).toFixed(2)}×) | ${formatCls(r.cls)} | ${Math.round(r.tbt)} ms | ${kb(r.jsGzip)} KB |`,
    )
    .join('\n');
  const stageTable = stages
    .map(
      (s) =>
        `| ${s.label}${flag(s.over)} | ${cell(s.performance)} | ${cell(s.accessibility)} | ${cell(s.bestPractices)} | ${cell(s.seo)} | ${formatCls(s.cls)} | ${Math.round(s.tbt)} ms | ${formatLatency(s.inp)} |`,
    )
    .join('\n');
  const below = [...rows, ...stages.map((s) => ({ ...s, label: `checkout: ${s.label}` }))]
    .filter((r) => r.failing.length)
    .map((r) => `- ${r.label}: ${r.failing.map((id) => `\`${id}\``).join(', ')}`)
    .join('\n');
  const inpTable = interactions
    .map(
      (r) =>
        `| ${r.step}${r.ms > INP_BUDGET_MS ? ' ⚠' : ''} | ${formatLatency(r.ms)} | ${r.runs.map((ms) => formatLatency(ms)).join(', ')} |`,
    )
    .join('\n');
  const md = `# Performance

Measured by \`npm run bench:lighthouse\` (scripts/bench-lighthouse.mjs) on ${new Date().toISOString().slice(0, 10)}
(load average ${loadavg()[0].toFixed(1)} at the end): Lighthouse ${version} with its mobile defaults (simulated slow 4G,
4× CPU slowdown), median of ${RUNS} runs per page, against the production build served by \`node scripts/serve.mjs\`
on a fresh embedded database on this machine (2 cores, shared: absolute figures are noisy). Signed-in pages are
audited with the session cookie of a shopper (with one order) or an admin (\`ADMIN_EMAILS\`) set in the browser; each
run must end on the page asked for with the status expected, so an admin page is never the 404 a stranger gets.

The LCP ratio compares each page with a bare static page (no CSS, JS or images) measured in the same run:
baseline LCP ${(base.lcp / 1000).toFixed(2)} s. JS is the gzip size of every script the page loads
without scrolling (tests/e2e/budget.spec.ts also scrolls to the footer, so below-the-fold islands count there).

Budget: every category 100, LCP ≤ 1.0 s (issue 26; the spec's is 1.5 s), CLS 0, JS on \`/\` and \`/product/*\` ≤ 80 KB gzip; INP ≤ ${INP_BUDGET_MS} ms.
Two exceptions are deliberate: the guest order page is sent \`noindex\` (anyone holding its link sees a shopper's
order, so a search engine must not list it), which Lighthouse's SEO audit \`is-crawlable\` scores as a failure (SEO
66); the 404 page answers 404, which \`http-status-code\` and \`errors-in-console\` count against it.

Lighthouse's simulated LCP moves in steps of one round trip of its slow 4G (about 0.15 s): 0.76 s, 0.91 s, 1.06 s.
Which step a page lands on follows how many bytes its first answer holds (head and compressed body; TCP sends about
14.6 KB in the first round trip) and what else finished before the paint in the trace Lighthouse records: a script
fetched and run, or an icon fetched, before the first paint is counted into it. So the islands hydrate after the
first paint (\`client:painted\`, docs/architecture.md) and the icon is in the page; the on-demand documents are zstd
(12-15 KB with their head). Each run is written here as it came.
⚠ marks a row over budget; \`-- --strict\` makes the script fail on one.

| Page | Performance | Accessibility | Best Practices | SEO | LCP (× baseline) | CLS | TBT | JS (gzip) |
|---|---|---|---|---|---|---|---|---|
${pageTable}

### Checkout stages (user flow)

A guest's checkout from /product/7 in the cart drawer, as a Lighthouse user flow (median of ${RUNS} flows): each stage
is a timespan from the tap to what it shows (Performance there scores TBT and CLS; INP is the stage's slowest
interaction), with DevTools throttling of the CPU (4×) and none of the loopback network, then a snapshot of the
stage (Accessibility, SEO; Best Practices is the lower of the timespan's and the snapshot's). Timespans have no LCP.

| Stage | Performance | Accessibility | Best Practices | SEO | CLS | TBT | INP |
|---|---|---|---|---|---|---|---|
${stageTable}
${below ? `\nAudits below a full score (category/audit id, in any run):\n\n${below}\n` : ''}
## Interaction latency (phone, ${4}× CPU)

scripts/bench-inp.mjs: the shop's Chromium with a 390×844 touch screen (isMobile, 3× pixels) and
\`Emulation.setCPUThrottlingRate\` 4, a guest tapping from Add to Cart to paying with the TEST MODE card. Each
interaction's latency is the longest Event Timing entry with its interactionId (PerformanceObserver on 'event',
durationThreshold 16: "< 16 ms" means the browser reported nothing longer). Median of ${RUNS} runs, each in a fresh
browser context; target ≤ ${INP_BUDGET_MS} ms.

| Interaction | Latency (median) | Runs |
|---|---|---|
${inpTable}
`;
  // The Lighthouse and interaction sections are the top of the file; the sections after them are other scripts'.
  const file = join(root, 'docs/performance.md');
  const previous = readFileSync(file, 'utf8');
  let rest = previous.indexOf('\n## ');
  while (rest >= 0 && previous.startsWith('\n## Interaction latency', rest)) rest = previous.indexOf('\n## ', rest + 1);
  writeFileSync(file, rest < 0 ? md : `${md.trimEnd()}\n${previous.slice(rest)}`);
  console.log('Wrote docs/performance.md');
}
