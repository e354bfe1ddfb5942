import { chmodSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { logger } from '../log.server';
import { pruneBackups, writeBackup } from './backup-files';
import type { Database } from './database.server';
import { shopKey } from './shop-key';

const backupLog = logger('backup');

/** A backup written, and how long the shop's database was held for it (the rest happens beside the requests). */
export interface BackupTaken {
  path: string;
  bytes: number;
  pausedMs: number;
}

/**
 * Takes a backup of the running shop's embedded database into `dir`: a snapshot between two transactions (what was
 * committed before it began is in it), compressed, sealed with the shop's key and written atomically after the database
 * is free again.
 */
export async function takeBackup(db: Database, dir: string, kind: 'manual' | 'scheduled'): Promise<BackupTaken> {
  if (!db.snapshot) throw new Error('Backups here are of the embedded database; copy PostgreSQL with pg_dump.');
  if (!db.dataDir) throw new Error('An embedded database kept in memory has no shop key to seal a backup with.');
  const key = shopKey(db.dataDir);
  const [row] = await db.query<{ version: string | null }>(
    'select max(version) as version from supabase_migrations.schema_migrations',
  );
  const at = new Date();
  const started = performance.now();
  const tar = await db.snapshot();
  const pausedMs = Math.round(performance.now() - started);
  const path = await writeBackup(dir, tar, { migration: row?.version ?? null, kind, key, at });
  return { path, bytes: statSync(path).size, pausedMs };
}

/** One maintenance job on a timer: never two runs at once, and `stop` waits for the one under way. */
function every(ms: number, firstInMs: number, run: () => Promise<void>) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    running = run().finally(() => {
      running = undefined;
      if (!stopped) schedule(ms);
    });
  };
  const schedule = (delay: number) => {
    timer = setTimeout(tick, delay);
    timer.unref();
  };
  schedule(firstInMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

export interface MaintenanceOptions {
  /** Scheduled backups: every `everyMs` into `dir`, keeping the newest `keep`; null for none. */
  backups: { everyMs: number; keep: number; dir: string } | null;
  /** VACUUM (ANALYZE) every this many ms; null for never. */
  vacuumEveryMs: number | null;
  log?: (line: string) => void;
}

/**
 * The embedded database's upkeep while the shop runs: scheduled backups (the oldest scheduled ones pruned), and a
 * VACUUM (ANALYZE) on a schedule, since PGlite runs no autovacuum and would otherwise keep every dead row. The first
 * vacuum runs a quarter of an hour after start (or sooner, for a shorter interval), so a shop restarted often is still
 * vacuumed. Returns the function that stops both, waiting for a run under way.
 */
export function startMaintenance(db: Database, options: MaintenanceOptions): () => Promise<void> {
  const log = options.log ?? ((line: string) => backupLog.info(line));
  const stops: (() => Promise<void>)[] = [];
  const { backups, vacuumEveryMs } = options;
  if (backups) {
    stops.push(
      every(backups.everyMs, backups.everyMs, async () => {
        try {
          const taken = await takeBackup(db, backups.dir, 'scheduled');
          const pruned = pruneBackups(backups.dir, backups.keep);
          log(
            `[backup] wrote ${taken.path} (${(taken.bytes / 1e6).toFixed(1)} MB; the database paused ${taken.pausedMs} ms)${pruned.length ? `, removed ${pruned.length} older` : ''}`,
          );
        } catch (error) {
          backupLog.error({ err: error }, 'the scheduled backup failed');
        }
      }),
    );
  }
  if (vacuumEveryMs) {
    stops.push(
      every(vacuumEveryMs, Math.min(vacuumEveryMs, 15 * 60_000), async () => {
        try {
          const started = performance.now();
          await db.exec('vacuum (analyze)');
          log(`[vacuum] the database was vacuumed in ${Math.round(performance.now() - started)} ms`);
        } catch (error) {
          backupLog.error({ err: error }, 'the scheduled vacuum failed');
        }
      }),
    );
  }
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}

/**
 * Answers `npm run backup` while the shop runs: a Unix socket at `path` that only this machine's user running the
 * shop may open (mode 0600: whoever can open it can already read the data directory itself). A client writes
 * `backup` and a newline; the answer is one line of JSON, `{"path":…}` or `{"error":…}`. Nothing else is understood.
 * Returns the function that closes it.
 */
export async function listenForBackupRequests(path: string, backup: () => Promise<BackupTaken>): Promise<() => Promise<void>> {
  // The lock on the data directory is ours: a socket file left here is from a shop that is gone.
  rmSync(path, { force: true });
  let queue: Promise<unknown> = Promise.resolve();
  const server = net.createServer((socket) => {
    socket.setTimeout(10_000, () => socket.destroy());
    let asked = '';
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      asked += chunk.toString('latin1');
      if (!asked.includes('\n')) {
        if (asked.length > 64) socket.destroy();
        return;
      }
      socket.setTimeout(0);
      if (asked.trim() !== 'backup') {
        socket.end(`${JSON.stringify({ error: 'Only "backup" is understood here.' })}\n`);
        return;
      }
      const turn = queue.then(backup);
      queue = turn.catch(() => {});
      turn.then(
        (taken) => socket.end(`${JSON.stringify(taken)}\n`),
        (error: unknown) => socket.end(`${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`),
      );
    });
  });
  // Created with no permissions for others from the start, not opened up until a chmod.
  const mask = process.umask(0o077);
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  } finally {
    process.umask(mask);
  }
  chmodSync(path, 0o600);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await queue;
    rmSync(path, { force: true });
  };
}
