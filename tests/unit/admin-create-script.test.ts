import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'aurelia-admin-create-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `npm run admin:create -- <args>` on an embedded database of its own, with nothing configured. */
function adminCreate(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [join(root, 'scripts/admin-create.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', PGLITE_DIR: join(work, 'pglite'), ...env },
    input: '',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('npm run admin:create', () => {
  it('creates the first admin on the embedded database, then says it already is one', () => {
    const created = adminCreate(['owner@example.com'], { ADMIN_PASSWORD: 'owner-lavender-9' });
    expect(created.output).toContain('Created a verified account for owner@example.com; it is an admin.');
    expect(created.output).toContain('http://127.0.0.1:4321/admin');
    expect(created.status).toBe(0);
    const again = adminCreate(['owner@example.com']);
    expect(again.output).toContain('owner@example.com was already an admin.');
    expect(again.status).toBe(0);
  }, 60_000);

  it('refuses without an address, and without a password for a new account', () => {
    expect(adminCreate([]).status).toBe(2);
    const noPassword = adminCreate(['new@example.com']);
    expect(noPassword.status).toBe(1);
    expect(noPassword.output).toContain('needs a password of at least 8 characters');
  }, 60_000);
});
