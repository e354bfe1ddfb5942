// `npm test`: every test, in about half the time the three parts take one after another. The end-to-end suite spends
// most of its time waiting on what a shopper waits for (a page, a 1 s cart save, an e-mail), not on the CPU, so Vitest
// runs beside it: the build and Playwright's output stream as they come, Vitest's is kept in a file (its path printed
// first; not in test-results/, which Playwright empties as it starts) and printed whole after Playwright's. The soak runs
// last, alone, since it measures the server's memory under its own load. Each part's result and time close the run;
// the exit code is non-zero when any part failed.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules', '.bin', name);

/**
 * Runs a command from the project's root. Its output goes to the terminal as it comes, or only to `log` when given.
 * Resolves with whether it passed and how long it took.
 */
function run(name, command, args, log) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', log ? 'pipe' : 'inherit', log ? 'pipe' : 'inherit'] });
    if (log) {
      child.stdout.pipe(log, { end: false });
      child.stderr.pipe(log, { end: false });
    }
    const done = (ok) => resolve({ name, ok, seconds: Math.round((Date.now() - started) / 1000) });
    child.on('error', (error) => {
      console.error(`${name} could not start: ${error.message}`);
      done(false);
    });
    child.on('close', (code) => done(code === 0));
  });
}

const logDir = mkdtempSync(join(tmpdir(), 'aurelia-test-'));
const vitestLog = join(logDir, 'vitest.log');
const log = createWriteStream(vitestLog);
console.log(`Vitest runs beside the build and the end-to-end tests; its output is in ${vitestLog}, printed after them.`);

const unit = run(
  'Vitest (unit, database, contract, reliability)',
  process.execPath,
  [join(root, 'scripts/vitest.mjs')],
  log,
).then(async (result) => {
  await new Promise((resolve) => log.end(resolve));
  return result;
});
const build = await run('astro build', bin('astro'), ['build']);
const e2e = build.ok
  ? await run('Playwright (end-to-end)', bin('playwright'), ['test'])
  : { ...build, name: 'Playwright (not run: the build failed)' };
// Vitest's output whole, once Playwright's has ended, so the two never interleave.
const vitest = await unit;
console.log(`\n──── Vitest: ${vitest.ok ? 'passed' : 'FAILED'} in ${vitest.seconds} s ────\n`);
process.stdout.write(await readFile(vitestLog, 'utf8'));
console.log(`\n──── end of Vitest's output ────\n`);
rmSync(logDir, { recursive: true, force: true });
const results = [build, e2e, vitest];
if (results.every((r) => r.ok)) results.push(await run('soak', process.execPath, [join(root, 'scripts/soak.mjs')]));

console.log('\nnpm test:');
for (const r of results) console.log(`  ${r.ok ? 'passed' : 'FAILED'}  ${r.name} (${r.seconds} s)`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
