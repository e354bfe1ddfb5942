// Bytes on the wire: what a phone downloads on a first visit to / and /product/3, measured in Chromium.
// Starts the built shop (`node scripts/serve.mjs`, a fresh embedded database; scripts/bench-shop.mjs) on free ports,
// opens each page in a new browser context (an empty cache: a first visit) with Playwright's Pixel 7 profile, waits for
// the network to be idle, scrolls to the footer (lazy pictures, islands loaded when seen) and waits again. It sums, over
// every answer, the bytes Chromium received (CDP Network.loadingFinished encodedDataLength: headers and body as sent)
// and the bytes of the bodies once decoded (Network.dataReceived dataLength). Each page is measured:
// - as a browser visits it (Chromium's own Accept-Encoding: gzip, deflate, br, zstd), the "after";
// - with Accept-Encoding: identity forced, i.e. what a client that accepts no compression gets;
// - with `--before <checkout>`, on another checkout's build and server (e.g. the commit before the change, exported and
//   built there), as a browser visits it: the "before", in the same run and on the same machine.
// Median of --runs (3) visits. Builds nothing when dist/ exists (else `astro build` first). `--write` replaces the
// "Bytes on the wire" section of docs/performance.md.
//
//   npm run bench:bytes [-- --before /path/to/checkout [--before-label 9cf25fa]] [-- --runs 3] [-- --write]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, devices } from 'playwright-core';
import { flag, option } from './bench-args.mjs';
import { startShop } from './bench-shop.mjs';
import { CHROMIUM_ARGS, chromiumPath } from './chromium.mjs';
import { freePort } from './free-port.mjs';

const root = new URL('..', import.meta.url).pathname;
const RUNS = Number(option('--runs') ?? 3);
const before = option('--before') ? resolve(option('--before') ?? '') : undefined;
// What to call it in the table: its commit when it is a git checkout, else this (e.g. the commit it was exported from).
const beforeLabel = option('--before-label');
const write = flag('--write');
const PAGES = ['/', '/product/3'];
const PHONE = 'Pixel 7';
// The issue's targets for a first visit, on the wire.
const TARGET_KB = 130;
const STRETCH_KB = 110;

if (!existsSync(join(root, 'dist/server/entry.mjs'))) {
  console.log('No build: building…');
  const build = spawnSync(process.execPath, [join(root, 'node_modules/astro/bin/astro.mjs'), 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
if (before && !existsSync(join(before, 'dist/server/entry.mjs')))
  throw new Error(`${before} has no build (dist/server/entry.mjs): build it there first`);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (bytes) => (bytes / 1024).toFixed(1);

/** The kind of an answer, for the breakdown. */
function kind(mimeType, url) {
  if (mimeType === 'text/html') return 'HTML';
  if (mimeType.includes('javascript')) return 'JavaScript';
  if (mimeType === 'image/svg+xml') return 'pictures (SVG)';
  if (mimeType.includes('json') || new URL(url).pathname.startsWith('/api/')) return 'JSON (/api)';
  return 'other';
}

/**
 * One first visit to `url` on a phone, in a fresh context of `browser`: the bytes received and decoded, in all and by
 * kind, and the number of answers.
 */
async function visit(browser, url, { identity = false } = {}) {
  const context = await browser.newContext({
    ...devices[PHONE],
    ...(identity ? { extraHTTPHeaders: { 'accept-encoding': 'identity' } } : {}),
  });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    /** @type {Map<string, { url: string, kind: string, wire: number, decoded: number, encoding?: string, done: boolean }>} */
    const answers = new Map();
    const answer = (id) => {
      const known = answers.get(id);
      if (known) return known;
      const a = { url: '', kind: 'other', wire: 0, decoded: 0, done: false };
      answers.set(id, a);
      return a;
    };
    cdp.on('Network.responseReceived', (e) => {
      const a = answer(e.requestId);
      a.url = e.response.url;
      a.kind = kind(e.response.mimeType, e.response.url);
      a.encoding = e.response.headers['content-encoding'] ?? e.response.headers['Content-Encoding'];
    });
    cdp.on('Network.dataReceived', (e) => {
      answer(e.requestId).decoded += e.dataLength;
    });
    cdp.on('Network.loadingFinished', (e) => {
      const a = answer(e.requestId);
      a.wire = e.encodedDataLength;
      a.done = true;
    });
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.locator('footer').scrollIntoViewIfNeeded();
    await page.waitForLoadState('networkidle');
    // Islands loaded when seen fetch after they hydrate: give them a moment, then wait for quiet again.
    await page.waitForTimeout(500);
    await page.waitForLoadState('networkidle');
    const done = [...answers.values()].filter((a) => a.done);
    const byKind = {};
    for (const a of done) {
      byKind[a.kind] ??= { wire: 0, decoded: 0, count: 0 };
      byKind[a.kind].wire += a.wire;
      byKind[a.kind].decoded += a.decoded;
      byKind[a.kind].count++;
    }
    const uncompressedText = done.filter(
      (a) => a.decoded > 1024 && a.kind !== 'other' && a.encoding !== 'br' && a.encoding !== 'gzip',
    );
    return {
      count: done.length,
      wire: done.reduce((n, a) => n + a.wire, 0),
      decoded: done.reduce((n, a) => n + a.decoded, 0),
      byKind,
      uncompressedText: uncompressedText.map((a) => `${new URL(a.url).pathname} (${a.decoded} B)`),
    };
  } finally {
    await context.close();
  }
}

/** The median visit (by bytes on the wire) of RUNS. */
async function measure(browser, url, options) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await visit(browser, url, options));
  const wire = median(runs.map((r) => r.wire));
  return runs.find((r) => r.wire === wire) ?? runs[0];
}

async function serving(checkout, use) {
  const shop = await startShop({ port: await freePort(), mailboxPort: await freePort(), checkout });
  try {
    return await use(shop.origin);
  } finally {
    await shop.stop();
  }
}

const browser = await chromium.launch({ executablePath: await chromiumPath(), args: CHROMIUM_ARGS });
const browserVersion = browser.version();
/** @type {Record<string, { after: any, identity: any, before?: any }>} */
const results = {};
try {
  await serving(root, async (origin) => {
    for (const path of PAGES) {
      results[path] = {
        after: await measure(browser, `${origin}${path}`),
        identity: await measure(browser, `${origin}${path}`, { identity: true }),
      };
    }
  });
  if (before)
    await serving(before, async (origin) => {
      for (const path of PAGES) {
        const result = results[path];
        if (result) result.before = await measure(browser, `${origin}${path}`);
      }
    });
} finally {
  await browser.close();
}

const commit = before ? spawnSync('git', ['-C', before, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).stdout?.trim() : '';
const beforeName = before ? `before (${beforeLabel ?? (commit || before)})` : '';
const rows = PAGES.map((path) => {
  const { after, identity, before: old } = results[path] ?? {};
  const reference = old ?? identity;
  return `| \`${path}\` | ${after.count} | ${kb(after.decoded)} KB | ${old ? `${kb(old.wire)} KB | ` : ''}${kb(identity.wire)} KB | **${kb(after.wire)} KB** | ${(after.wire / reference.wire).toFixed(2)} (${(reference.wire / after.wire).toFixed(1)}× fewer) |`;
});
const kinds = ['HTML', 'JavaScript', 'pictures (SVG)', 'JSON (/api)', 'other'];
const breakdown = PAGES.flatMap((path) => {
  const { after, identity } = results[path] ?? {};
  return kinds
    .filter((k) => after.byKind[k])
    .map(
      (k) =>
        `| \`${path}\` | ${k} | ${after.byKind[k].count} | ${kb(after.byKind[k].decoded)} KB | ${kb(identity.byKind[k]?.wire ?? 0)} KB | ${kb(after.byKind[k].wire)} KB |`,
    );
});
const verdicts = PAGES.map((path) => {
  const wire = (results[path]?.after.wire ?? 0) / 1024;
  const verdict = wire <= STRETCH_KB ? 'met, and the stretch target' : wire <= TARGET_KB ? 'met' : 'NOT met';
  return `\`${path}\` ${wire.toFixed(1)} KB: ${verdict}`;
});
const stragglers = PAGES.flatMap((path) => results[path]?.after.uncompressedText.map((u) => `${path}: ${u}`) ?? []);
const table = [
  `| Page | Answers | Decoded (raw) | ${before ? `${beforeName} | ` : ''}Accept-Encoding: identity | After | After / ${before ? 'before' : 'identity'} |`,
  `| --- | --- | --- | ${before ? '--- | ' : ''}--- | --- | --- |`,
  ...rows,
].join('\n');
const section = `## Bytes on the wire

Measured by \`npm run bench:bytes\` (scripts/bench-bytes.mjs; part of \`npm run bench\`) on ${new Date().toISOString().slice(0, 10)}: a first visit
on a phone (Playwright's \`${PHONE}\` profile, Chromium ${browserVersion}), each in a new browser context (an
empty cache), to the production build served by \`node scripts/serve.mjs\` on a fresh embedded database: the page
until the network is idle, then scrolled to its footer (lazy pictures, islands loaded when seen) until idle again.
"On the wire" is every answer's bytes as received, headers included (CDP \`Network.loadingFinished\`
\`encodedDataLength\`); "decoded" is the bodies once decompressed. Median of ${RUNS} visit${RUNS === 1 ? '' : 's'}. "After" is a browser's
visit (Chromium sends \`Accept-Encoding: gzip, deflate, br, zstd\`, and gets brotli); "Accept-Encoding: identity"
forces what a client that accepts no compression gets from the same server${before ? `; "${beforeName}" is the same visit to the build and server of that commit, exported and built beside this one and measured in the same run` : ''}.

Target: at most ${TARGET_KB} KB on the wire for each (stretch ${STRETCH_KB} KB).

${table}

${verdicts.join('; ')}.${stragglers.length ? ` Text answers over 1 KB sent uncompressed: ${stragglers.join(', ')}.` : ' No text answer over 1 KB was sent uncompressed.'}

Where the bytes are (after, and with identity forced):

| Page | Kind | Answers | Decoded | Identity, on the wire | After, on the wire |
| --- | --- | --- | --- | --- | --- |
${breakdown.join('\n')}
`;
console.log(`\n${section}`);

if (write) {
  const file = join(root, 'docs/performance.md');
  const text = readFileSync(file, 'utf8');
  const heading = '## Bytes on the wire';
  const start = text.indexOf(heading);
  let updated;
  if (start >= 0) {
    const next = text.indexOf('\n## ', start + heading.length);
    updated = `${text.slice(0, start)}${section}${next < 0 ? '' : `\n${text.slice(next + 1)}`}`;
  } else {
    // Before the cold start (or the API figures): the Lighthouse script rewrites only what comes before it.
    const anchor = ['\n## Cold start', '\n## API under load'].find((a) => text.includes(a));
    updated = anchor ? text.replace(anchor, `\n${section}${anchor}`) : `${text.trimEnd()}\n\n${section}`;
  }
  writeFileSync(file, updated);
  console.log(`Updated ${file}`);
}
