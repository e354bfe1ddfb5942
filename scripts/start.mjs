// Builds the shop when the build is missing or older than its sources, then serves it (scripts/serve.mjs).
// HOST and PORT choose where (default 127.0.0.1:4321).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_ENV, SERVER_NODE_FLAGS } from './server-flags.mjs';

const root = new URL('..', import.meta.url).pathname;
const entry = join(root, 'dist/server/entry.mjs');
const stamp = join(root, 'dist/.build-stamp');
const sources = ['src', 'content', 'public', 'astro.config.mjs', 'package.json', 'package-lock.json'];

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), st.mtimeMs);
}

const host = process.env.HOST ?? '127.0.0.1';
const port = process.env.PORT ?? '4321';
const skipBuild = process.argv.includes('--no-build');
const stale = !existsSync(entry) || !existsSync(stamp) || sources.some((s) => newest(join(root, s)) > statSync(stamp).mtimeMs);

if (!skipBuild && stale) {
  console.log('Building the shop…');
  const build = spawnSync(process.execPath, [join(root, 'node_modules/astro/bin/astro.mjs'), 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, HOST: host, PORT: port },
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  writeFileSync(stamp, new Date().toISOString());
}

// serve.mjs starts the database, migrations and e-mail before it listens, says where the shop is served, and exits
// non-zero with the reason when it cannot start; this process ends with it.
const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, join(root, 'scripts/serve.mjs')], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, ...SERVER_ENV, HOST: host, PORT: port },
});
// Each signal is passed on: the server stops gracefully on the first and at once on a later one (scripts/serve.mjs).
// This process then ends as the server did: with its exit code, or killed by the same signal.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => {
  if (code !== null) process.exit(code);
  for (const name of ['SIGINT', 'SIGTERM']) process.removeAllListeners(name);
  process.kill(process.pid, signal ?? 'SIGTERM');
});
