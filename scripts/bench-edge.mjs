// The HTTP edge (src/edge) measured from outside, both figures of issue 45 part 6, each in one run:
// 1. built pages against a bare `node:http` server sending the same bytes: the built home page and product page (in
//    the brotli the build wrote, what Chromium's Accept-Encoding gets), measured alternately on the shop and on the
//    bare server (scripts/load.mjs, keep-alive connections), round after round, so that whatever else the machine does
//    weighs on both alike; the ratio is the median of each pair's;
// 2. SIGTERM under load: `--connections` shoppers (80) on keep-alive connections asking for pages, on-demand answers
//    and /api, the server sent SIGTERM mid-load; each shopper keeps asking until a connection is refused. Counted:
//    answers, connections refused (never accepted: a proxy retries them elsewhere), and requests dropped (a
//    connection the server had accepted reset or closed without an answer, or a 5xx), and the exit code.
//
//   node scripts/bench-edge.mjs [--rounds 5] [--duration 3] [--connections 50] [--checkout <other checkout>] [--write]
//     [--only pages|sigterm]
//
// `--checkout` measures another checkout's server instead (its own build in dist/, node_modules linked), to compare
// with an earlier commit. `--write` puts the figures in docs/performance.md ("The HTTP edge").
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { option } from './bench-args.mjs';
import { startShop } from './bench-shop.mjs';
import { freePort } from './free-port.mjs';
import { load } from './load.mjs';

const root = new URL('..', import.meta.url).pathname;
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A bare node:http server (a process of its own, as the shop is) answering every request with `file`'s bytes. */
async function bareServer(file, type, encoding) {
  const port = await freePort();
  const source = `
    const http = require('node:http');
    const body = require('node:fs').readFileSync(${JSON.stringify(file)});
    http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': ${JSON.stringify(type)}, 'content-length': body.length${encoding ? `, 'content-encoding': '${encoding}', vary: 'Accept-Encoding'` : ''} });
      res.end(body);
    }).listen(${port}, '127.0.0.1', () => console.log('ready'));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((done) => child.stdout.once('data', done));
  return { origin: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill() };
}

/** Built pages on the shop and on the bare server, alternately: requests per second of each and their ratio. */
export async function pagesAgainstBare({ checkout = root, rounds = 5, duration = 3, connections = 50 } = {}) {
  const shop = await startShop({ port: await freePort(), mailboxPort: await freePort(), checkout });
  const rows = [
    { title: 'GET / (built page, brotli)', path: '/', file: 'dist/client/index.html.br' },
    { title: 'GET /product/3 (built page, brotli)', path: '/product/3', file: 'dist/client/product/3.html.br' },
  ];
  const results = [];
  try {
    for (const row of rows) {
      const bare = await bareServer(join(checkout, row.file), 'text/html; charset=utf-8', 'br');
      const pairs = [];
      try {
        for (let round = 0; round < rounds; round++) {
          const measured = {};
          for (const which of round % 2 === 0 ? ['shop', 'bare'] : ['bare', 'shop']) {
            const origin = which === 'shop' ? shop.origin : bare.origin;
            const result = await load({
              url: `${origin}${row.path}`,
              connections,
              duration,
              headersFor: () => ({ 'accept-encoding': BROWSER_ACCEPT_ENCODING }),
            });
            if (result.failures > 0) throw new Error(`${which} ${row.path}: ${result.failures} failed`);
            measured[which] = result.rps;
          }
          pairs.push(measured);
        }
      } finally {
        bare.stop();
      }
      results.push({
        title: row.title,
        shop: median(pairs.map((p) => p.shop)),
        bare: median(pairs.map((p) => p.bare)),
        ratio: median(pairs.map((p) => p.shop / p.bare)),
        ratios: pairs.map((p) => p.shop / p.bare),
      });
    }
  } finally {
    await shop.stop();
  }
  return results;
}

/** Paths the shoppers ask for in turn: built pages, an on-demand page, small JSON. */
const SHOPPER_PATHS = ['/', '/product/3', '/no-such-page', '/api/auth/session', '/api/cart', '/about'];

/**
 * `connections` shoppers asking without a pause on keep-alive connections; SIGTERM after `beforeMs`. Each shopper
 * stops at its first refused connection. Resolves to the counts and the server's exit code.
 */
export async function sigtermUnderLoad({ checkout = root, connections = 80, beforeMs = 2000, env = {} } = {}) {
  const shop = await startShop({ port: await freePort(), mailboxPort: await freePort(), checkout, env });
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const counts = { answered: 0, refused: 0, dropped: 0, serverErrors: 0, afterSignal: 0 };
  /** @type {Record<string, number>} */
  const why = {};
  let signalled = false;
  const ask = (path) =>
    new Promise((done) => {
      const req = http.get(`${shop.origin}${path}`, { agent, headers: { 'accept-encoding': BROWSER_ACCEPT_ENCODING } }, (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          counts.answered++;
          if (signalled) counts.afterSignal++;
          if ((res.statusCode ?? 0) >= 500) counts.serverErrors++;
          done('answered');
        });
        res.on('error', (error) => {
          counts.dropped++;
          why[error.code ?? error.message] = (why[error.code ?? error.message] ?? 0) + 1;
          done('dropped');
        });
      });
      req.on('error', (error) => {
        if (error.code === 'ECONNREFUSED') {
          counts.refused++;
          return done('refused');
        }
        counts.dropped++;
        why[error.code ?? error.message] = (why[error.code ?? error.message] ?? 0) + 1;
        done('dropped');
      });
    });
  const started = performance.now();
  const shoppers = Array.from({ length: connections }, async (_, i) => {
    for (let n = i; ; n++) {
      const outcome = await ask(SHOPPER_PATHS[n % SHOPPER_PATHS.length]);
      if (outcome === 'refused') return;
      if (performance.now() - started > 120_000) return;
    }
  });
  await new Promise((done) => setTimeout(done, beforeMs));
  signalled = true;
  const signalAt = performance.now();
  const exitCode = await shop.stop();
  const stopMs = performance.now() - signalAt;
  await Promise.all(shoppers);
  agent.destroy();
  const said = shop
    .output()
    .split('\n')
    .filter((line) => /SIG(TERM|INT)|stopped after|still open/.test(line))
    .map((line) => /"msg":"([^"]*)"/.exec(line)?.[1] ?? line);
  return { ...counts, why, exitCode, stopMs: Math.round(stopMs), said };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const checkout = resolve(option('--checkout') ?? root);
  const only = option('--only');
  const lines = [];
  if (!only || only === 'pages') {
    const results = await pagesAgainstBare({
      checkout,
      rounds: Number(option('--rounds') ?? 5),
      duration: Number(option('--duration') ?? 3),
      connections: Number(option('--connections') ?? 50),
    });
    lines.push('| Request | bare node:http: req/s | shop: req/s | shop / bare (each pair) |', '| --- | --- | --- | --- |');
    for (const r of results)
      lines.push(
        `| ${r.title} | ${Math.round(r.bare)} | ${Math.round(r.shop)} | **${r.ratio.toFixed(2)}** (${r.ratios.map((x) => x.toFixed(2)).join(' ')}) |`,
      );
  }
  if (!only || only === 'sigterm') {
    const s = await sigtermUnderLoad({ checkout });
    lines.push(
      '',
      `SIGTERM with 80 shoppers mid-request: ${s.dropped} dropped (${JSON.stringify(s.why)}), ${s.serverErrors} 5xx, ` +
        `${s.answered} answered (${s.afterSignal} after the signal), ${s.refused} connections refused after the listener closed; ` +
        `exit code ${s.exitCode} after ${(s.stopMs / 1000).toFixed(1)} s.`,
    );
  }
  const header = `Measured by \`node scripts/bench-edge.mjs\` on ${new Date().toISOString().slice(0, 10)}; ${cpus().length} cores, ${cpus()[0]?.model.trim()}; Node ${process.versions.node}; load average ${loadavg()[0].toFixed(1)} at the end.`;
  const text = `${header}\n\n${lines.join('\n')}\n`;
  console.log(`\n${text}`);
  if (process.argv.includes('--write')) {
    const file = join(root, 'docs/performance.md');
    const doc = readFileSync(file, 'utf8');
    const start = doc.indexOf('<!-- bench-edge -->');
    const end = doc.indexOf('<!-- /bench-edge -->');
    if (start < 0 || end < 0) throw new Error('docs/performance.md has no <!-- bench-edge --> section to write into');
    writeFileSync(file, `${doc.slice(0, start)}<!-- bench-edge -->\n${text}${doc.slice(end)}`);
  }
}
