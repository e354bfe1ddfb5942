import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

/** What a fresh Node process that loads scripts/serve.mjs (as npm start does) says about `question`. */
function askAfterLoadingServe(question: string, env: Record<string, string | undefined>): string {
  const script = `
    await import('./scripts/serve.mjs');
    const { createRequire } = await import('node:module');
    const require = createRequire(process.cwd() + '/');
    ${question}`;
  const clean = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete clean[name];
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    env: clean,
    encoding: 'utf8',
  }).trim();
}

// React renders the order e-mails (and any on-demand island) on the server. Loaded without NODE_ENV it picks its
// development build, several times slower and meant for debugging: 8 % of the server's time while orders were placed.
describe('the built shop runs in production mode', () => {
  it('React on the server is its production build when NODE_ENV is not set', () => {
    const answer = askAfterLoadingServe(
      `require('react-dom/server'); console.log(process.env.NODE_ENV, Object.keys(require.cache).some((f) => f.includes('react-dom-server.node.production')));`,
      { NODE_ENV: undefined },
    );
    expect(answer).toBe('production true');
  });

  it('a NODE_ENV set by whoever starts it is kept', () => {
    expect(askAfterLoadingServe('console.log(process.env.NODE_ENV);', { NODE_ENV: 'test' })).toBe('test');
  });
});
