/**
 * The embedded database's files are the shop's alone: directories 0700, files 0600, whatever the umask. PGlite writes
 * through Emscripten's file system, which gives the files of a new directory (and of a restored one) mode 0666 and its
 * directories 0777, less the umask: under the usual 022 every local account could read the accounts and the write-ahead
 * log, and write to the log. So the shop sets the process umask to 077 (the server, npm run backup and restore), and
 * whatever opens a data directory makes its tree private before and after (keepPrivate): what an older version (or a
 * copy) left open is closed again, and a directory that belongs to another user is refused.
 *
 * Loaded by Node itself from the scripts (type stripping): erasable TypeScript only, no imports but Node's.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';

/** The umask of a process that writes the shop's data: nothing it creates is readable by another account. */
export const PRIVATE_UMASK = 0o077;
const DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;

/** A data directory the shop cannot make its own (another user's files in it), with what to do, in words. */
export class NotPrivate extends Error {
  override name = 'NotPrivate';
}

/** What keepPrivate changed. */
export interface Closed {
  /** Files and directories other local accounts could read, write or enter, now the shop's alone. */
  opened: number;
  /** Every mode it set (those above, and the shop's own that were neither 0700 nor 0600). */
  changed: number;
}

/** Creates `dir` (and the directories above it that are missing) as the shop's alone. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIRECTORY_MODE });
}

/**
 * Makes the tree at `dir` the shop's alone: every directory 0700, every file 0600. A symbolic link is never followed
 * (nor changed: its mode means nothing), except `dir` itself, which may be a link to the disk the data is on; sockets
 * and pipes are left as they are. Everything is checked before anything changes: an entry that belongs to another
 * user than `uid` (the process's) is refused with NotPrivate and nothing is changed. Directories are closed before what
 * they hold, so once a directory is closed nobody else can swap an entry in it for a link; each entry is looked at
 * again just before its mode is set.
 */
export function keepPrivate(dir: string, { uid = process.getuid?.() }: { uid?: number | undefined } = {}): Closed {
  const plan: { path: string; mode: number }[] = [];
  let opened = 0;
  const visit = (path: string, st: Stats) => {
    if (st.isSymbolicLink() || !(st.isDirectory() || st.isFile())) return;
    if (uid !== undefined && st.uid !== uid) {
      throw new NotPrivate(
        `${path} belongs to another user (uid ${st.uid}), not to the user the shop runs as (uid ${uid}), so the shop cannot make its database directory its own: give the directory and everything in it to that user (chown -R) and start again.`,
      );
    }
    const mode = st.isDirectory() ? DIRECTORY_MODE : FILE_MODE;
    if ((st.mode & 0o7777) !== mode) {
      plan.push({ path, mode });
      if (st.mode & 0o077) opened++;
    }
    if (!st.isDirectory()) return;
    for (const name of gone(() => readdirSync(path)) ?? []) {
      const entry = gone(() => lstatSync(join(path, name)));
      if (entry) visit(join(path, name), entry);
    }
  };
  visit(dir, statSync(dir));
  for (const { path, mode } of plan) {
    // Not a link now either (the first is `dir`, followed on purpose).
    if (path !== dir && gone(() => lstatSync(path))?.isSymbolicLink() !== false) continue;
    gone(() => chmodSync(path, mode));
  }
  return { opened, changed: plan.length };
}

/**
 * What `fn` returns, or undefined when the entry it looks at has gone meanwhile: the database may be open, and it
 * removes files as it goes (old log segments, temporary files).
 */
function gone<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Words for the log when keepPrivate closed something that was open to others. */
export const CLOSED_MESSAGE =
  "the embedded database's directory was open to other local accounts: it is the shop's alone now (directories 0700, files 0600)";
