import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '@/server/db/pglite.server';

const root = mkdtempSync(join(tmpdir(), 'aurelia-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the embedded database directory', () => {
  it('is refused to a second opener with a clear error, and free again once closed', async () => {
    const dir = join(root, 'db');
    const first = await openPglite(dir);
    await expect(openPglite(dir)).rejects.toThrow(`The embedded database at ${dir} is in use by process ${process.pid}`);
    await first.close();
    const again = await openPglite(dir);
    expect(await again.query<{ one: number }>('select 1 as one')).toEqual([{ one: 1 }]);
    await again.close();
  }, 60_000);

  it('takes over a lock left by a process that is gone', async () => {
    const dir = join(root, 'stale');
    writeFileSync(`${dir}.lock`, '999999999');
    const db = await openPglite(dir);
    // The lock is now this process's: a second opener is refused by name, and the database answers.
    expect(readFileSync(`${dir}.lock`, 'utf8')).toBe(String(process.pid));
    await expect(openPglite(dir)).rejects.toThrow(`is in use by process ${process.pid}`);
    expect(await db.query<{ one: number }>('select 1 as one')).toEqual([{ one: 1 }]);
    await db.close();
    expect(existsSync(`${dir}.lock`)).toBe(false);
  }, 60_000);
});
