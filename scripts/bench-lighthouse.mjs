// Lighthouse on every page of the production build: mobile defaults (simulated throttling), median of 3 runs.
// Also measures the JavaScript each page loads (gzip) and, as a same-run baseline, a bare static page
// with no CSS, JS or images, so the LCP figures can be read as a ratio to the best this machine can do.
// Writes the Lighthouse section at the top of docs/performance.md (the sections after it are kept).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_ARGS, chromiumPath } from './chromium.mjs';

const root = new URL('..', import.meta.url).pathname;
const PORT = 4399;
const BASELINE_PORT = 4398;
const origin = `http://127.0.0.1:${PORT}`;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
// /orders is left out: it sends guests home, so Lighthouse would measure the home page again.
const PAGES = ['/', '/about', '/contact', '/wishlist', ...Array.from({ length: 9 }, (_, i) => `/product/${i + 1}`)];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function waitFor(url) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer`);
}

console.log('Building with the bench origin…');
const build = spawnSync(process.execPath, [join(root, 'node_modules/astro/bin/astro.mjs'), 'build'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, HOST: '127.0.0.1', PORT: String(PORT) },
});
if (build.status !== 0) process.exit(build.status ?? 1);

const server = spawn(process.execPath, [join(root, 'scripts/serve.mjs')], {
  cwd: root,
  stdio: 'ignore',
  env: { ...process.env, HOST: '127.0.0.1', PORT: String(PORT) },
});
const baselineHtml =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Baseline</title><meta name="description" content="Bare page"></head><body><h1>Baseline</h1><p>A bare static page: no CSS, no JavaScript, no images.</p></body></html>';
const baseline = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(baselineHtml)).listen(
  BASELINE_PORT,
  '127.0.0.1',
);

const chrome = await chromeLauncher.launch({ chromePath: await chromiumPath(), chromeFlags: CHROMIUM_ARGS });
try {
  await waitFor(`${origin}/`);

  async function audit(url) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const { lhr } = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error' });
      runs.push(lhr);
    }
    const cat = (id) => median(runs.map((r) => Math.round((r.categories[id]?.score ?? 0) * 100)));
    const audit = (id) => median(runs.map((r) => r.audits[id]?.numericValue ?? Number.NaN));
    const scripts = new Set(
      runs[0].audits['network-requests'].details.items.filter((it) => it.resourceType === 'Script').map((it) => it.url),
    );
    let jsGzip = 0;
    for (const src of scripts) jsGzip += gzipSync(Buffer.from(await (await fetch(src)).arrayBuffer())).length;
    return {
      url,
      performance: cat('performance'),
      accessibility: cat('accessibility'),
      bestPractices: cat('best-practices'),
      seo: cat('seo'),
      lcp: audit('largest-contentful-paint'),
      cls: audit('cumulative-layout-shift'),
      tbt: audit('total-blocking-time'),
      jsGzip,
    };
  }

  const base = await audit(`http://127.0.0.1:${BASELINE_PORT}/`);
  console.log(`baseline: LCP ${Math.round(base.lcp)} ms`);
  const rows = [];
  for (const page of PAGES) {
    const r = await audit(`${origin}${page}`);
    rows.push(r);
    console.log(
      `${page}: perf ${r.performance} a11y ${r.accessibility} bp ${r.bestPractices} seo ${r.seo} LCP ${Math.round(r.lcp)} ms CLS ${r.cls.toFixed(3)} JS ${(r.jsGzip / 1024).toFixed(1)} KB`,
    );
  }

  const kb = (b) => (b / 1024).toFixed(1);
  const table = rows
    .map(
      (r) =>
        `| ${new URL(r.url).pathname} | ${r.performance} | ${r.accessibility} | ${r.bestPractices} | ${r.seo} | ${(r.lcp / 1000).toFixed(2)} s (${(r.lcp / base.lcp).toFixed(2)}×) | ${r.cls.toFixed(3)} | ${Math.round(r.tbt)} ms | ${kb(r.jsGzip)} KB |`,
    )
    .join('\n');
  const md = `# Performance

Measured by \`npm run bench:lighthouse\` (scripts/bench-lighthouse.mjs) on ${new Date().toISOString().slice(0, 10)}:
Lighthouse ${runs0Version()} with its mobile defaults (simulated slow 4G, 4× CPU slowdown), median of ${RUNS} runs per page,
against the production build served by \`node scripts/serve.mjs\` on this machine (2 cores).

The LCP ratio compares each page with a bare static page (no CSS, JS or images) measured in the same run:
baseline LCP ${(base.lcp / 1000).toFixed(2)} s. JS is the gzip size of every script the page loads
without scrolling (tests/e2e/budget.spec.ts also scrolls to the footer, so below-the-fold islands count there).

Budget: every category 100, LCP ≤ 1.5 s, CLS 0, JS on \`/\` and \`/product/*\` ≤ 80 KB gzip.

| Page | Performance | Accessibility | Best Practices | SEO | LCP (× baseline) | CLS | TBT | JS (gzip) |
|---|---|---|---|---|---|---|---|---|
${table}
`;
  // The Lighthouse section is the top of the file; the sections after it (the API figures) are other scripts' and kept.
  const file = join(root, 'docs/performance.md');
  const previous = readFileSync(file, 'utf8');
  const rest = previous.indexOf('\n## ');
  writeFileSync(file, rest < 0 ? md : `${md.trimEnd()}\n${previous.slice(rest)}`);
  console.log('Wrote docs/performance.md');

  const failures = rows.filter(
    (r) =>
      [r.performance, r.accessibility, r.bestPractices, r.seo].some((s) => s < 100) ||
      r.lcp > 1500 ||
      r.cls > 0 ||
      ((r.url.endsWith(`${PORT}/`) || r.url.includes('/product/')) && r.jsGzip > 80 * 1024),
  );
  if (failures.length) console.log(`Over budget: ${failures.map((r) => new URL(r.url).pathname).join(', ')}`);
} finally {
  chrome.kill();
  server.kill();
  baseline.close();
}

function runs0Version() {
  return JSON.parse(readFileSync(join(root, 'node_modules/lighthouse/package.json'), 'utf8')).version;
}
