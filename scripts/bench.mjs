// The whole benchmark, each part writing its own section of docs/performance.md:
// 1. Lighthouse on every page, the checkout stages and the admin, and interaction latency on a phone profile
//    (scripts/bench-lighthouse.mjs, which also builds the shop);
// 2. bytes on the wire: what a phone downloads on a first visit to / and /product/3 (scripts/bench-bytes.mjs);
// 3. cold start: from starting the built shop (`npm start` on a built tree) to its first page, on a fresh embedded
//    database (migrations and catalogue sync included) and again on the same one (a restart);
// 4. the API (and pages) under load on PGlite, and on PostgreSQL when TEST_DATABASE_URL (or BENCH_DATABASE_URL) is set,
//    in a scratch database created for the run and dropped after it (scripts/bench-api.mjs);
// 5. the admin's sales overview with 10 000 orders, on the same engines (scripts/bench-sales.mjs);
// 6. publishing the catalogue under load: shoppers' requests through a publish and the time to the new price, on the
//    same engines (scripts/bench-publish.mjs);
// 7. the HTTP edge: built pages against a bare node:http server, and SIGTERM under 80 shoppers (scripts/bench-edge.mjs).
//
//   npm run bench [-- --skip-lighthouse] [-- --duration 10]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { freePort } from './free-port.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const passOn = args.filter((a) => a !== '--skip-lighthouse');
const node = process.execPath;

function step(script, scriptArgs = []) {
  console.log(`\n▶ ${script} ${scriptArgs.join(' ')}`);
  const run = spawnSync(node, [join(root, script), ...scriptArgs], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`${script} failed (${run.status})`);
}

/** Starts the built shop as `npm start` does and times it to its first page (200 for /); then stops it. */
async function timeToFirstPage(dataDir) {
  const [port, mailboxPort] = [await freePort(), await freePort()];
  const started = performance.now();
  const shop = spawn(node, [join(root, 'scripts/start.mjs'), '--no-build'], {
    cwd: root,
    stdio: 'ignore',
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DEV_MAILBOX_PORT: String(mailboxPort),
      PGLITE_DIR: dataDir,
      DATABASE_URL: '',
    },
  });
  try {
    for (;;) {
      if (shop.exitCode !== null) throw new Error(`the shop exited (${shop.exitCode}) before serving a page`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/`)).status === 200) return performance.now() - started;
      } catch {}
      if (performance.now() - started > 120_000) throw new Error('no page within 120 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    const exited = new Promise((r) => shop.once('exit', r));
    shop.kill('SIGTERM');
    await exited;
  }
}

async function coldStart() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-start-'));
  try {
    const data = join(dir, 'pglite');
    const fresh = await timeToFirstPage(data);
    const again = await timeToFirstPage(data);
    const section = `## Cold start

Measured by \`npm run bench\` (scripts/bench.mjs) on ${new Date().toISOString().slice(0, 10)}, load average ${loadavg()[0].toFixed(1)}: from starting
the built shop as \`npm start\` does (\`node scripts/start.mjs --no-build\`, the embedded defaults) to the first \`200\`
for \`/\`. The server migrates the database, syncs the catalogue and checks its readiness before it listens.

| Start | Time to the first page |
| --- | --- |
| fresh embedded database (created, migrated, catalogue synced) | ${(fresh / 1000).toFixed(2)} s |
| restart on the same database | ${(again / 1000).toFixed(2)} s |
`;
    console.log(`\n${section}`);
    const file = join(root, 'docs/performance.md');
    const text = readFileSync(file, 'utf8');
    const start = text.indexOf('## Cold start');
    const next = start < 0 ? -1 : text.indexOf('\n## ', start + 1);
    const updated =
      start < 0
        ? text.replace('\n## API under load', `\n${section}\n## API under load`)
        : `${text.slice(0, start)}${section}${next < 0 ? '' : `\n${text.slice(next + 1)}`}`;
    writeFileSync(file, updated);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `script` against a database of its own on the PostgreSQL server at `url`, dropped afterwards. */
async function onPostgres(url, script, scriptArgs) {
  const name = `aurelia_bench_${Date.now()}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  try {
    const target = new URL(url);
    target.pathname = `/${name}`;
    step(script, ['--postgres', target.href, '--write', ...scriptArgs]);
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

if (!args.includes('--skip-lighthouse')) step('scripts/bench-lighthouse.mjs');
else step('node_modules/astro/bin/astro.mjs', ['build']);
step('scripts/bench-bytes.mjs', ['--write']);
await coldStart();
step('scripts/bench-api.mjs', ['--write', ...passOn]);
step('scripts/bench-sales.mjs', ['--write']);
step('scripts/bench-publish.mjs', ['--write']);
step('scripts/bench-edge.mjs', ['--write']);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (databaseUrl) {
  await onPostgres(databaseUrl, 'scripts/bench-api.mjs', passOn);
  await onPostgres(databaseUrl, 'scripts/bench-sales.mjs', []);
  await onPostgres(databaseUrl, 'scripts/bench-publish.mjs', []);
} else console.log('\nNo TEST_DATABASE_URL: the API, sales and publish benches ran on the embedded database only.');
