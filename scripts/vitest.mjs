// `npm run test:unit`: `vitest run` with the arguments given, and once more for a test file whose worker V8 itself
// aborted in its JIT-page bookkeeping (`Check failed: jit_page…`): a known fault of Node 24's V8 when a process makes
// and frees many WebAssembly instances, as the database suites do with PGlite (nodejs/node#64500, open). It kills
// the worker between two tests, whatever they test. Only that abort is retried, only the files it stopped, only once,
// and only when no test failed: a failing test, any other crash, or the same abort twice still fails the run.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** V8's fatal check on its JIT pages, as it prints it: the one abort this script runs a file again for. */
const JIT_PAGE_ABORT = /Check failed: jit_page/;
/** Vitest's word for a worker that died while running a file. */
const WORKER_DIED = /Worker exited unexpectedly with signal \w+ during \w+ state while running test file (\S+)/g;
/** Vitest's summary line of files or tests, when some failed. */
const FAILED = /^\s*(?:Test Files|Tests)\s.*\bfailed\b/m;

/**
 * The test files to run again after a run that printed `output`: those whose worker V8 aborted in its JIT-page
 * bookkeeping, when that is all that went wrong; otherwise none.
 * @param {string} output what Vitest printed, colours included or not
 * @returns {string[]}
 */
export function filesToRunAgain(output) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that starts a colour is what is taken out
  const text = output.replace(/\u001b\[[0-9;]*m/g, '');
  if (!JIT_PAGE_ABORT.test(text) || FAILED.test(text)) return [];
  return [...new Set([...text.matchAll(WORKER_DIED)].map((match) => match[1] ?? ''))].filter(Boolean);
}

/** Runs `vitest run …args`, its output passed through as it comes and kept. */
function vitest(args) {
  const bin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'run', ...args], { stdio: ['inherit', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
      process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const first = await vitest(args);
  const again = first.code === 0 ? [] : filesToRunAgain(first.output);
  if (again.length === 0) process.exit(first.code);
  console.log(
    `\nV8 aborted in its JIT-page bookkeeping (nodejs/node#64500) while running ${again.join(', ')}: running ${again.length === 1 ? 'it' : 'them'} again.\n`,
  );
  // The files by themselves: the first run's filters chose them already, and the config gives each its project.
  process.exit((await vitest(again)).code);
}
