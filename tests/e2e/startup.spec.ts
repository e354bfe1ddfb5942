import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './fixtures';

// The built server refuses to start on a bad configuration: it exits non-zero with the reason, and never listens.

let nextPort = Number(process.env.E2E_PORT ?? 4391) + 100;

interface Started {
  code: number | null;
  output: string;
  listening: boolean;
}

/** Runs scripts/serve.mjs with `env` until it exits or says it is serving (then it is stopped, unless `keep`). */
function start(env: Record<string, string>, { keep = false } = {}): Promise<Started> & { child: ChildProcess } {
  const port = nextPort;
  nextPort += 2;
  const child = spawn(process.execPath, ['scripts/serve.mjs'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      DEV_MAILBOX_PORT: String(port + 1),
      PGLITE_DIR: join(mkdtempSync(join(tmpdir(), 'aurelia-startup-')), 'pglite'),
      ...env,
    },
  });
  let output = '';
  const promise = new Promise<Started>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: null, output: `${output}\n(timed out)`, listening: false });
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Aurelia is being served at')) {
        clearTimeout(timer);
        if (!keep) child.kill('SIGTERM');
        resolve({ code: 0, output, listening: true });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, listening: false });
    });
  });
  return Object.assign(promise, { child });
}

test.describe('start-up', () => {
  test.describe.configure({ mode: 'serial' });
  test.slow();

  for (const [name, env, reason] of [
    ['only SUPABASE_URL', { SUPABASE_URL: 'https://x.supabase.co' }, /Supabase Auth is half-configured/],
    ['only AWS_REGION', { AWS_REGION: 'us-east-1' }, /AWS SES e-mail is half-configured/],
    ['DATABASE_URL=notaurl', { DATABASE_URL: 'notaurl' }, /DATABASE_URL must be/],
    ['MAIL_FROM=nobody', { MAIL_FROM: 'nobody' }, /MAIL_FROM must be an e-mail address/],
    ['HOST=0.0.0.0 without SITE_URL', { HOST: '0.0.0.0' }, /SITE_URL is required/],
  ] as const) {
    test(`${name}: exits non-zero with the reason, never serving`, async () => {
      const result = await start(env);
      expect(result.listening, result.output).toBe(false);
      expect(result.code, result.output).not.toBe(0);
      expect(result.output).toMatch(reason);
    });
  }

  test('a second server on the same data directory exits; the first keeps serving', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'aurelia-startup-')), 'pglite');
    const first = start({ PGLITE_DIR: dir }, { keep: true });
    expect((await first).listening).toBe(true);
    const second = await start({ PGLITE_DIR: dir });
    expect(second.listening, second.output).toBe(false);
    expect(second.code).not.toBe(0);
    expect(second.output).toMatch(/PGLITE_DIR|in use|lock/i);
    first.child.kill('SIGTERM');
  });

  test('a sender written as Name <address> is accepted', async () => {
    const result = await start({ MAIL_FROM: 'Aurelia Care <care@aurelia-care.com>' });
    expect(result.listening, result.output).toBe(true);
  });
});
