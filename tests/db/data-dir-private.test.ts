/**
 * The embedded database's directory is the shop's alone, whatever the umask: directories 0700 and files 0600 (the
 * write-ahead log included) from its first start, after a backup (the backup files too) and after a restore; a start
 * on a directory other local accounts could read or write makes it private and says so in the log, without following
 * a symbolic link out of it; one that belongs to another user is refused. Runs under umask 022, the usual one, on
 * PGlite in directories of its own, whatever engine the other database suites use.
 */
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeBackup } from '@/server/db/backup.server';
import { backupStoppedShop, migrationsIn, restoreBackup } from '@/server/db/backup-files';
import { migrate } from '@/server/db/migrate.server';
import { openPglite } from '@/server/db/pglite.server';
import { keepPrivate, NotPrivate } from '@/server/db/private-dir';
import { captureLogs } from '@/server/log.server';

const root = mkdtempSync(join(tmpdir(), 'aurelia-private-'));
const knownMigrations = migrationsIn('supabase/migrations');
let umask: number;

beforeAll(() => {
  umask = process.umask(0o022);
});
afterAll(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
}, 30_000);

/** Every directory (`dir` included) that is not 0700 and every file that is not 0600 under `dir`, with its mode. */
function notPrivate(dir: string): string[] {
  const wrong: string[] = [];
  const check = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    const mode = st.mode & 0o777;
    if (mode !== (st.isDirectory() ? 0o700 : 0o600)) wrong.push(`${path.slice(root.length)} ${mode.toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) check(join(path, name));
  };
  check(dir);
  return wrong;
}

/** Every file and directory under `dir` (not `dir` itself), through no symbolic link. */
function tree(dir: string): { path: string; directory: boolean }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const st = lstatSync(path);
    if (st.isDirectory()) return [{ path, directory: true }, ...tree(path)];
    return st.isFile() ? [{ path, directory: false }] : [];
  });
}

/** How many files are under `dir`. */
const fileCount = (dir: string) => tree(dir).filter((entry) => !entry.directory).length;

/** Opens, migrates and writes to a shop's database in `dir`; returns it open. */
async function shop(dir: string) {
  const db = await openPglite(dir);
  await migrate(db);
  await db.exec(`insert into public.contact_messages (name, email, message) values ('Ann', 'ann@example.com', 'Hello')`);
  return db;
}

describe('the embedded database directory, under umask 022', { timeout: 180_000 }, () => {
  it('is the shop’s alone from its first start, the write-ahead log included', async () => {
    const dir = join(root, 'first');
    const db = await shop(dir);
    try {
      expect(fileCount(dir)).toBeGreaterThan(100);
      expect(readdirSync(join(dir, 'pg_wal')).length).toBeGreaterThan(0);
      expect(notPrivate(dir)).toEqual([]);
      expect(lstatSync(`${dir}.lock`).mode & 0o777).toBe(0o600);
    } finally {
      await db.close();
    }
    expect(notPrivate(dir)).toEqual([]);
  });

  it('stays so after a backup, and the backups are the shop’s alone too (a running shop’s and a stopped one’s)', async () => {
    const dir = join(root, 'backed-up');
    const backups = join(root, 'backups');
    const db = await shop(dir);
    try {
      const taken = await takeBackup(db, backups, 'manual');
      expect(lstatSync(taken.path).mode & 0o777).toBe(0o600);
      expect(notPrivate(dir)).toEqual([]);
    } finally {
      await db.close();
    }
    // A backup directory that others could read is closed to them.
    chmodSync(backups, 0o755);
    await backupStoppedShop(dir, backups);
    expect(readdirSync(backups)).toHaveLength(2);
    expect(notPrivate(backups)).toEqual([]);
    expect(notPrivate(dir)).toEqual([]);
  });

  it('is so after a restore, and so is the directory it replaced', async () => {
    const dir = join(root, 'source');
    const db = await shop(dir);
    const { path: backup } = await takeBackup(db, join(root, 'restore-backups'), 'manual').finally(() => db.close());
    const target = join(root, 'restored');
    await restoreBackup(backup, target, { knownMigrations });
    expect(fileCount(target)).toBeGreaterThan(100);
    expect(notPrivate(target)).toEqual([]);
    // Over a directory left open by an older version: both are closed.
    for (const { path, directory } of tree(target)) chmodSync(path, directory ? 0o755 : 0o666);
    chmodSync(target, 0o755);
    const { keptAside } = await restoreBackup(backup, target, { knownMigrations });
    expect(notPrivate(target)).toEqual([]);
    expect(notPrivate(keptAside ?? '')).toEqual([]);
    const reopened = await openPglite(target);
    const rows = await reopened.query<{ name: string }>('select name from public.contact_messages');
    await reopened.close();
    expect(rows).toEqual([{ name: 'Ann' }]);
  });

  it('a start on a directory others can read or write closes it, says so, and follows no link out of it', async () => {
    const dir = join(root, 'open');
    await (await shop(dir)).close();
    const outside = join(root, 'outside');
    mkdirSync(outside, { mode: 0o755 });
    chmodSync(outside, 0o755);
    writeFileSync(join(outside, 'notes.txt'), 'not the shop’s', { mode: 0o644 });
    chmodSync(join(outside, 'notes.txt'), 0o644);
    symlinkSync(join(outside, 'notes.txt'), join(dir, 'a-link-to-a-file'));
    symlinkSync(outside, join(dir, 'a-link-to-a-directory'));
    let opened = 0;
    for (const { path, directory } of tree(dir)) {
      chmodSync(path, directory ? 0o755 : path.includes('pg_wal') ? 0o666 : 0o644);
      opened++;
    }
    chmodSync(dir, 0o777);
    opened++;

    const logs = captureLogs('info');
    try {
      const db = await openPglite(dir);
      expect(notPrivate(dir)).toEqual([]);
      await db.close();
      const warned = logs.records.filter((r) => r.level === 'warn' && r.component === 'database');
      expect(warned).toHaveLength(1);
      expect(warned[0]?.msg).toMatch(
        /the embedded database's directory was open to other local accounts: it is the shop's alone now \(directories 0700, files 0600\)/,
      );
      expect(warned[0]).toMatchObject({ dir, opened });
      // The links were not followed: what they point at is as it was.
      expect(lstatSync(outside).mode & 0o777).toBe(0o755);
      expect(lstatSync(join(outside, 'notes.txt')).mode & 0o777).toBe(0o644);
      // Once closed, a start says nothing.
      const again = await openPglite(dir);
      await again.close();
      expect(logs.records.filter((r) => r.level === 'warn')).toHaveLength(1);
    } finally {
      logs.restore();
    }
  });

  it.runIf(process.getuid?.() === 0)('refuses a directory that holds another user’s file, changing nothing', async () => {
    const dir = join(root, 'foreign');
    await (await shop(dir)).close();
    chmodSync(dir, 0o755);
    const foreign = join(dir, 'PG_VERSION');
    chownSync(foreign, 65534, 65534);
    await expect(openPglite(dir)).rejects.toThrow(/belongs to another user \(uid 65534\)/);
    expect(lstatSync(dir).mode & 0o777).toBe(0o755);
    chownSync(foreign, 0, 0);
    // Not left locked.
    await (await openPglite(dir)).close();
    expect(notPrivate(dir)).toEqual([]);
  });

  it('checks every entry before it changes one: another user’s file anywhere refuses the whole tree', () => {
    const dir = join(root, 'checked-first');
    mkdirSync(join(dir, 'base'), { recursive: true });
    writeFileSync(join(dir, 'PG_VERSION'), '17');
    writeFileSync(join(dir, 'base', 'z-last'), '');
    chmodSync(dir, 0o755);
    // The process's files, seen as another user's: as the shop would see them if it ran as that user.
    const other = (process.getuid?.() ?? 0) + 1;
    expect(() => keepPrivate(dir, { uid: other })).toThrow(NotPrivate);
    expect(() => keepPrivate(dir, { uid: other })).toThrow(`belongs to another user (uid ${process.getuid?.()})`);
    expect(lstatSync(dir).mode & 0o777).toBe(0o755);
    expect(keepPrivate(dir)).toEqual({ opened: 4, changed: 4 });
    expect(notPrivate(dir)).toEqual([]);
  });
});
