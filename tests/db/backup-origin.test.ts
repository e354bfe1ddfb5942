/**
 * A backup belongs to the shop that made it: restore refuses another shop's backup, saying so in words, and a file
 * edited to pass for this shop's (its checksum recomputed, its shop's name changed, its seal removed), since the seal
 * over its manifest is made with a key only the shop holds (beside its data directory, never in a backup). An operator
 * moving a shop to another machine on purpose says so (`--from-another-shop`). Runs on PGlite in directories of its
 * own: shop A and shop B each in a directory of their own, as two machines would be.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeBackup } from '@/server/db/backup.server';
import { BackupRefused, decodeBackup, migrationsIn, restoreBackup } from '@/server/db/backup-files';
import { migrate } from '@/server/db/migrate.server';
import { openPglite } from '@/server/db/pglite.server';

const root = mkdtempSync(join(tmpdir(), 'aurelia-backup-origin-'));
const knownMigrations = migrationsIn('supabase/migrations');
/** Shop A and shop B, each in a directory of its own (as on two machines). */
const shopA = join(root, 'a', 'pglite');
const shopB = join(root, 'b', 'pglite');
let backupA: string;
let backupB: string;

/** Starts the shop in `dir` once, with one contact message from `name`, and takes a backup of it into `dir`'s side. */
async function shopWith(dir: string, name: string): Promise<string> {
  const db = await openPglite(dir);
  try {
    await migrate(db);
    await db.exec(`insert into public.contact_messages (name, email, message) values ('${name}', 'x@example.com', 'Hi')`);
    return (await takeBackup(db, join(dir, '..', 'backups'), 'manual')).path;
  } finally {
    await db.close();
  }
}

/** Who wrote shop `dir`'s contact messages: whose database it is. */
async function whoseDatabase(dir: string): Promise<string[]> {
  const db = await openPglite(dir);
  try {
    return (await db.query<{ name: string }>('select name from public.contact_messages order by id')).map((r) => r.name);
  } finally {
    await db.close();
  }
}

/** A copy of backup `file` edited as someone who can write the file but not read the shop's key would: `edit` changes its manifest and contents. */
function forged(file: string, edit: (manifest: Record<string, unknown>, payload: Buffer) => Buffer | undefined): string {
  const bytes = readFileSync(file);
  const first = bytes.indexOf(10);
  const second = bytes.indexOf(10, first + 1);
  const manifest = JSON.parse(bytes.subarray(first + 1, second).toString('utf8')) as Record<string, unknown>;
  const payload = edit(manifest, bytes.subarray(second + 1)) ?? bytes.subarray(second + 1);
  // The checksum recomputed, as anyone can.
  manifest.bytes = payload.length;
  manifest.sha256 = createHash('sha256').update(payload).digest('hex');
  const path = join(root, `forged-${readdirSync(root).length}.backup`);
  writeFileSync(path, Buffer.concat([bytes.subarray(0, first + 1), Buffer.from(`${JSON.stringify(manifest)}\n`), payload]));
  return path;
}

const payloadOf = (file: string) => {
  const bytes = readFileSync(file);
  return bytes.subarray(bytes.indexOf(10, bytes.indexOf(10) + 1) + 1);
};

beforeAll(async () => {
  backupA = await shopWith(shopA, 'Ann of shop A');
  backupB = await shopWith(shopB, 'Bea of shop B');
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('restoring a backup', { timeout: 120_000 }, () => {
  it('names the shop that made it in its manifest, sealed', async () => {
    const { manifest: a } = await decodeBackup(readFileSync(backupA));
    const { manifest: b } = await decodeBackup(readFileSync(backupB));
    expect(a.shop).toMatch(/^[0-9a-f]{16}$/);
    expect(a.seal).toMatch(/^[0-9a-f]{64}$/);
    expect(b.shop).not.toBe(a.shop);
    // The key beside the data directory is not in the backup.
    const key = readFileSync(join(root, 'a', 'aurelia-shop.key'), 'utf8').trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from((await decodeBackup(readFileSync(backupA))).tar).includes(key)).toBe(false);
  });

  it('refuses another shop’s backup, in words, and changes nothing', async () => {
    const error = await restoreBackup(backupA, shopB, { knownMigrations }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupRefused);
    expect((error as Error).message).toMatch(
      /^This is a backup of another shop \(shop [0-9a-f]{16}\), not of this one \(shop [0-9a-f]{16}\)/,
    );
    expect((error as Error).message).toContain('npm run restore -- --from-another-shop');
    expect(await whoseDatabase(shopB)).toEqual(['Bea of shop B']);
    expect(readdirSync(join(root, 'b')).filter((name) => name.includes('before-restore'))).toEqual([]);
  });

  it('refuses a file edited to pass for this shop’s, whatever checksum it carries', async () => {
    const cases: [string, string][] = [
      // Another shop's database under this shop's backup manifest: the contents changed, the checksum recomputed.
      [forged(backupB, () => payloadOf(backupA)), 'its seal does not match'],
      // Another shop's backup renamed as this shop's.
      [
        forged(backupA, (manifest) => {
          manifest.shop = JSON.parse(readFileSync(backupB).toString('utf8').split('\n')[1] ?? '{}').shop;
          return undefined;
        }),
        'its seal does not match',
      ],
      // Its seal removed, or the file from before backups were sealed.
      [
        forged(backupA, (manifest) => {
          delete manifest.shop;
          delete manifest.seal;
          return undefined;
        }),
        'is not sealed by the shop that made it',
      ],
      // A seal made up.
      [
        forged(backupA, (manifest) => {
          manifest.seal = 'ab'.repeat(32);
          manifest.shop = JSON.parse(readFileSync(backupB).toString('utf8').split('\n')[1] ?? '{}').shop;
          return undefined;
        }),
        'its seal does not match',
      ],
    ];
    for (const [file, reason] of cases) {
      const error = await restoreBackup(file, shopB, { knownMigrations }).catch((e: unknown) => e);
      expect(error, reason).toBeInstanceOf(BackupRefused);
      expect((error as Error).message, reason).toContain(reason);
    }
    expect(await whoseDatabase(shopB)).toEqual(['Bea of shop B']);
  });

  it('takes another shop’s backup when the operator says so, and the shop keeps its own key', async () => {
    const keyB = readFileSync(join(root, 'b', 'aurelia-shop.key'), 'utf8');
    const { manifest, keptAside } = await restoreBackup(backupA, shopB, { knownMigrations, fromAnotherShop: true });
    expect(manifest.shop).toBe((await decodeBackup(readFileSync(backupA))).manifest.shop);
    expect(keptAside).toMatch(/before-restore/);
    expect(await whoseDatabase(shopB)).toEqual(['Ann of shop A']);
    expect(readFileSync(join(root, 'b', 'aurelia-shop.key'), 'utf8')).toBe(keyB);
    // Its backups from now on are its own: restored without saying anything.
    const db = await openPglite(shopB);
    const own = await takeBackup(db, join(root, 'b', 'backups'), 'manual').finally(() => db.close());
    expect((await decodeBackup(readFileSync(own.path))).manifest.shop).toBe(
      (await decodeBackup(readFileSync(backupB))).manifest.shop,
    );
    await restoreBackup(own.path, shopB, { knownMigrations });
    expect(await whoseDatabase(shopB)).toEqual(['Ann of shop A']);
  });

  it('npm run restore says which shop a refused file is from, and takes it with --from-another-shop', async () => {
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['scripts/restore.mjs', ...args], {
        env: { PATH: process.env.PATH ?? '', PGLITE_DIR: shopA },
      }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    const refused = await run(backupB);
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.stderr).toMatch(/^Nothing was restored: This is a backup of another shop \(shop [0-9a-f]{16}\)/);
    expect(await whoseDatabase(shopA)).toEqual(['Ann of shop A']);
    const moved = await run('--from-another-shop', backupB);
    expect(moved.stdout).toMatch(/Restored .* to the backup taken at .*, made by another shop \(shop [0-9a-f]{16}\)/);
    expect(await whoseDatabase(shopA)).toEqual(['Bea of shop B']);
  });
});
