/**
 * The lock on the embedded database's directory: a file beside it (`<dir>.lock`) holding the process id of the one
 * process that may open it. PGlite opens a directory twice without complaint, and two openers corrupt it; the shop,
 * `npm run backup` on a stopped shop and `npm run restore` all take this lock first.
 *
 * Loaded by Node itself from the scripts (type stripping): erasable TypeScript only, no imports but Node's.
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Whether process `pid` is running (one we may not signal is running too). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live process holding `dataDir`'s lock, or null when nobody does (no lock, or one left by a process now gone). */
export function lockHolder(dataDir: string): number | null {
  try {
    const holder = Number(readFileSync(`${dataDir}.lock`, 'utf8'));
    return holder && isAlive(holder) ? holder : null;
  } catch {
    return null;
  }
}

/**
 * Takes `dataDir`'s lock for this process, or throws saying which process has it. A lock left behind by a process
 * that is gone is taken over. Returns the function that lets it go.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = `${dataDir}.lock`;
  // The directory holding the data directory, created for the shop alone (private-dir.ts) when it is not there.
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(path, 'utf8') === String(process.pid)) unlinkSync(path);
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8'));
      // A live holder (this very process included: a second instance here would corrupt the data too) keeps it.
      if (holder && isAlive(holder)) {
        throw new Error(
          `The embedded database at ${dataDir} is in use by process ${holder}. Stop that process, or set PGLITE_DIR to another directory.`,
        );
      }
      unlinkSync(path); // Left behind by a process that is gone.
    }
  }
  throw new Error(`Could not lock the embedded database at ${dataDir}`);
}
