/**
 * The embedded database's backup files: a damaged, cut-short, foreign or too-new file is refused with its reason and
 * changes nothing; restore refuses while the shop runs; scheduled backups are pruned to the newest few, never the ones
 * taken by hand. Runs on PGlite in directories of its own, whatever engine the other database suites use.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenForBackupRequests, startMaintenance, takeBackup } from '@/server/db/backup.server';
import {
  BackupRefused,
  backupName,
  decodeBackup,
  encodeBackup,
  migrationsIn,
  pruneBackups,
  restoreBackup,
} from '@/server/db/backup-files';
import type { Database } from '@/server/db/database.server';
import { migrate } from '@/server/db/migrate.server';
import { openPglite } from '@/server/db/pglite.server';

const root = mkdtempSync(join(tmpdir(), 'aurelia-backup-files-'));
const knownMigrations = migrationsIn('supabase/migrations');
let db: Database;
let backup: string;
const dataDir = join(root, 'shop');

beforeAll(async () => {
  db = await openPglite(dataDir);
  await migrate(db);
  await db.exec(
    `insert into public.contact_messages (name, email, message) values ('Ann', 'ann@example.com', 'Before the backup')`,
  );
  backup = (await takeBackup(db, join(root, 'backups'), 'manual')).path;
  await db.exec(`insert into public.contact_messages (name, email, message) values ('Ben', 'ben@example.com', 'After it')`);
}, 60_000);

afterAll(async () => {
  await db?.close();
  rmSync(root, { recursive: true, force: true });
});

/** The data directory's files and their sizes: what "nothing changed" is checked against. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

describe('a backup file', () => {
  it('reads back what was written, with its manifest', async () => {
    const tar = new TextEncoder().encode('a tar, as far as the format knows');
    const { manifest, tar: read } = await decodeBackup(await encodeBackup(tar, '20260101000000'));
    expect(manifest).toMatchObject({ format: 1, engine: 'pglite', migration: '20260101000000' });
    expect(new TextDecoder().decode(read)).toBe('a tar, as far as the format knows');
  });

  it('is refused when damaged, cut short, foreign or from a newer format, saying which', async () => {
    const good = readFileSync(backup);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 100] = (flipped[flipped.length - 100] ?? 0) ^ 0xff;
    const newer = Buffer.from(good.toString('latin1').replace('AURELIA-BACKUP 1', 'AURELIA-BACKUP 9'), 'latin1');
    const cases: [Buffer, RegExp][] = [
      [flipped, /damaged: its contents do not match its checksum/],
      [good.subarray(0, good.length - 10), /cut short/],
      [good.subarray(0, 40), /cut short: its manifest is incomplete/],
      [Buffer.concat([good, Buffer.from('x')]), /damaged/],
      [Buffer.from('PGDMP\u0001\u000e\u0000 a pg_dump custom archive'), /not a backup made by this shop/],
      [Buffer.alloc(0), /not a backup made by this shop/],
      [newer, /format 9, made by a newer version/],
    ];
    for (const [bytes, reason] of cases) {
      await expect(decodeBackup(bytes)).rejects.toThrow(reason);
      await expect(decodeBackup(bytes)).rejects.toBeInstanceOf(BackupRefused);
    }
  });
});

describe('npm run restore', () => {
  it('refuses while the shop runs on the directory, and changes nothing', async () => {
    const files = listing(dataDir);
    await expect(restoreBackup(backup, dataDir, { knownMigrations })).rejects.toThrow(
      /The shop is running on .* stop it before restoring/,
    );
    expect(listing(dataDir)).toEqual(files);
    expect(await db.query('select 1 as one')).toEqual([{ one: 1 }]);
  });

  it('refuses a damaged file or one from a newer shop, and leaves the stopped shop as it was', async () => {
    const stopped = join(root, 'stopped');
    await restoreBackup(backup, stopped, { knownMigrations });
    const files = listing(stopped);
    const damaged = join(root, 'damaged.backup');
    const bytes = readFileSync(backup);
    writeFileSync(damaged, bytes.subarray(0, bytes.length - 1));
    await expect(restoreBackup(damaged, stopped, { knownMigrations })).rejects.toThrow(/cut short/);
    await expect(restoreBackup(join(root, 'missing.backup'), stopped, { knownMigrations })).rejects.toThrow(/Cannot read/);
    await expect(restoreBackup(backup, stopped, { knownMigrations: knownMigrations.slice(0, -1) })).rejects.toThrow(
      /this version of the shop does not know/,
    );
    expect(listing(stopped)).toEqual(files);
    expect(readdirSync(root).filter((name) => name.startsWith('stopped'))).toEqual(['stopped']);
  });

  it('puts the backup in place of a stopped shop, keeping the directory it replaced aside', async () => {
    const target = join(root, 'replaced');
    await restoreBackup(backup, target, { knownMigrations });
    const restored = await openPglite(target);
    await restored.exec(`insert into public.contact_messages (name, email, message) values ('Cleo', 'c@example.com', 'Later')`);
    await restored.close();
    const { keptAside } = await restoreBackup(backup, target, { knownMigrations });
    expect(keptAside).toMatch(/replaced\.before-restore-/);
    expect(existsSync(join(keptAside ?? '', 'PG_VERSION'))).toBe(true);
    const reopened = await openPglite(target);
    const messages = await reopened.query<{ name: string }>('select name from public.contact_messages order by id');
    await reopened.close();
    // What was committed before the backup, and nothing after it.
    expect(messages.map((m) => m.name)).toEqual(['Ann']);
  }, 60_000);
});

describe('scheduled backups', () => {
  it('are pruned to the newest few; backups taken by hand are never pruned', () => {
    const dir = join(root, 'pruned');
    mkdirSync(dir);
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, backupName('scheduled', at(i))), '');
    writeFileSync(join(dir, backupName('manual', at(0))), '');
    writeFileSync(join(dir, 'notes.txt'), '');
    expect(pruneBackups(dir, 2)).toEqual([2, 1, 0].map((i) => backupName('scheduled', at(i))));
    expect(readdirSync(dir).sort()).toEqual(
      [backupName('manual', at(0)), backupName('scheduled', at(3)), backupName('scheduled', at(4)), 'notes.txt'].sort(),
    );
  });
});

describe('while the shop runs', () => {
  it('takes scheduled backups, keeps the newest BACKUP_KEEP, and vacuums', async () => {
    const dir = join(root, 'scheduled');
    const lines: string[] = [];
    const stop = startMaintenance(db, { backups: { everyMs: 150, keep: 2, dir }, vacuumEveryMs: 100, log: (l) => lines.push(l) });
    // A backup takes a few hundred ms idle and several seconds on a loaded CI machine.
    await expect.poll(() => lines.filter((l) => l.startsWith('[backup]')).length, { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
    await stop();
    const count = lines.filter((l) => l.startsWith('[backup]')).length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    // Stopped: no more runs.
    expect(lines.filter((l) => l.startsWith('[backup]')).length).toBe(count);
    expect(readdirSync(dir).filter((name) => name.endsWith('.backup'))).toHaveLength(2);
    expect(lines.some((l) => /^\[vacuum\] the database was vacuumed in \d+ ms$/.test(l))).toBe(true);
    // Each is a backup that reads back whole.
    for (const name of readdirSync(dir)) await decodeBackup(readFileSync(join(dir, name)));
  }, 90_000);

  it('answers npm run backup through a socket only its own user may open, and understands nothing else', async () => {
    const socket = `${dataDir}.sock`;
    const backupDir = join(root, 'asked');
    const close = await listenForBackupRequests(socket, () => takeBackup(db, backupDir, 'manual'));
    try {
      expect(statSync(socket).mode & 0o777).toBe(0o600);
      const asked = await promisify(execFile)(process.execPath, ['scripts/backup.mjs'], {
        env: { PATH: process.env.PATH ?? '', PGLITE_DIR: dataDir, BACKUP_DIR: join(root, 'ignored') },
      });
      expect(asked.stdout).toMatch(
        /Backup written by the running shop: .*aurelia-manual-.*\.backup \(.* MB; its database paused \d+ ms\)/,
      );
      expect(readdirSync(backupDir)).toHaveLength(1);
      const other = await new Promise<string>((resolve) => {
        let answer = '';
        const client = net.connect(socket, () => client.write('restore /etc/passwd\n'));
        client.on('data', (chunk) => (answer += chunk));
        client.on('end', () => resolve(answer));
      });
      expect(JSON.parse(other)).toEqual({ error: 'Only "backup" is understood here.' });
      expect(readdirSync(backupDir)).toHaveLength(1);
    } finally {
      await close();
    }
    expect(existsSync(socket)).toBe(false);
  }, 30_000);
});
