// The server's memory as the machine sees it: resident memory (VmRSS) at rest and its peak (VmHWM) of the process that
// listens, read from /proc, on a first start (a new database) and on a restart on the same data, for the embedded
// database and, with `--postgres URL` (or BENCH_DATABASE_URL), for PostgreSQL in the same run. A bare Node process
// waiting on a timer is measured first, as the floor every figure is compared with. Expects `npm run build`.
//
//   npm run bench:memory [-- --postgres postgres://…/scratch] [-- --rest 10] [-- --write]
//
// `--write` replaces the figures in the "Memory" section of docs/performance.md. Exits non-zero when the embedded
// database misses its limits (REST_LIMIT_MB at rest, PEAK_LIMIT_MB at its peak).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { flag, option } from './bench-args.mjs';
import { startShop } from './bench-shop.mjs';
import { freePort } from './free-port.mjs';

/** What the embedded default may hold at rest and at its peak (issue 47: a shop on a 1 GB machine). */
export const REST_LIMIT_MB = 250;
export const PEAK_LIMIT_MB = 400;

const root = new URL('..', import.meta.url).pathname;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** VmRSS and VmHWM of process `pid`, in MiB. */
export function residentMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? Number.NaN);
  return { rest: Math.round(kib('VmRSS') / 1024), peak: Math.round(kib('VmHWM') / 1024) };
}

/**
 * Starts the built shop (as npm start does, with its Node flags) on `dataDir`, waits until it answers, lets it rest
 * `restMs`, and returns its resident memory then and its peak since it started. On PostgreSQL with `databaseUrl`. * @param {{ dataDir: string, databaseUrl?: string, restMs: number }} options
 */
export async function measureStart({ dataDir, databaseUrl, restMs }) {
  const shop = await startShop({ port: await freePort(), mailboxPort: await freePort(), dataDir, databaseUrl });
  try {
    await sleep(restMs);
    return residentMemory(shop.pid);
  } finally {
    await shop.stop();
  }
}

/** The floor: a Node process of the same version doing nothing. */
async function bareNode(restMs) {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await sleep(Math.min(restMs, 2_000));
  const memory = residentMemory(child.pid);
  child.kill();
  return memory;
}

async function main() {
  const restMs = Number(option('--rest') ?? 10) * 1000;
  const databaseUrl = option('--postgres') ?? process.env.BENCH_DATABASE_URL;
  const rows = [['bare Node (floor)', await bareNode(restMs)]];
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  try {
    rows.push(['embedded database, first start', await measureStart({ dataDir, restMs })]);
    rows.push(['embedded database, restart on its data', await measureStart({ dataDir, restMs })]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (databaseUrl) {
    const mailDir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
    rows.push(['PostgreSQL', await measureStart({ dataDir: mailDir, databaseUrl, restMs })]);
    rmSync(mailDir, { recursive: true, force: true });
  }

  const floor = rows[0][1];
  const table = [
    '| Server                                 | at rest | × floor | peak   | × floor |',
    '| -------------------------------------- | ------- | ------- | ------ | ------- |',
    ...rows.map(
      ([name, m]) =>
        `| ${name.padEnd(38)} | ${`${m.rest} MB`.padEnd(7)} | ${(m.rest / floor.rest).toFixed(1).padEnd(7)} | ${`${m.peak} MB`.padEnd(6)} | ${(m.peak / floor.peak).toFixed(1).padEnd(7)} |`,
    ),
  ].join('\n');
  const embedded = rows.filter(([name]) => name.startsWith('embedded'));
  const met = embedded.every(([, m]) => m.rest <= REST_LIMIT_MB && m.peak <= PEAK_LIMIT_MB);
  const verdict = `Embedded database at most ${REST_LIMIT_MB} MB at rest and ${PEAK_LIMIT_MB} MB at its peak: ${met ? 'met' : 'NOT met'}.`;
  const when = `${new Date().toISOString().slice(0, 10)}; ${cpus().length} cores; Node ${process.versions.node}; ${restMs / 1000} s at rest; load average ${loadavg()[0].toFixed(1)}`;
  console.log(`\n${table}\n\n${verdict}\n`);

  if (flag('--write')) {
    const doc = join(root, 'docs/performance.md');
    const text = readFileSync(doc, 'utf8');
    const [start, end] = ['<!-- bench:memory start -->', '<!-- bench:memory end -->'];
    const a = text.indexOf(start);
    const b = text.indexOf(end);
    if (a < 0 || b < a) throw new Error(`docs/performance.md has no ${start} … ${end} block to replace`);
    writeFileSync(doc, `${text.slice(0, a)}${start}\n(${when})\n\n${table}\n\n${verdict}\n${text.slice(b)}`);
    console.log(`Updated ${doc}`);
  }
  if (!met) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
