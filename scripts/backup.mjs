// npm run backup: a backup of the embedded database (PGLITE_DIR, default .data/pglite) into BACKUP_DIR (default
// .data/backups). While the shop runs, it takes the backup itself, between two transactions, and shoppers go on being
// served: this script asks it through the Unix socket beside the data directory (<PGLITE_DIR>.sock, open only to the
// user the shop runs as). A stopped shop's directory is locked and copied here. Restore with npm run restore -- <file>.
import net from 'node:net';
import { backupStoppedShop } from '../src/server/db/backup-files.ts';
import { lockHolder } from '../src/server/db/data-dir-lock.ts';
import { CLOSED_MESSAGE, PRIVATE_UMASK } from '../src/server/db/private-dir.ts';

// What this writes (the backup, the stopped shop's files) is open to no other local account.
process.umask(PRIVATE_UMASK);

const dataDir = process.env.PGLITE_DIR || '.data/pglite';
const backupDir = process.env.BACKUP_DIR || '.data/backups';

/** Asks the running shop for a backup: its answer, `{ path, bytes, pausedMs }` or `{ error }`. */
function askRunningShop(socketPath) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let answer = '';
    socket.on('connect', () => socket.write('backup\n'));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => {
      try {
        resolve(JSON.parse(answer));
      } catch {
        reject(new Error('the shop gave no answer'));
      }
    });
    socket.on('error', reject);
  });
}

async function main() {
  if ((process.env.DATABASE_URL ?? '').trim() !== '') {
    throw new Error(
      "DATABASE_URL is set: this shop's data is in PostgreSQL. Back it up with pg_dump (or your provider's point-in-time recovery); see docs/operating.md, Backups.",
    );
  }
  const holder = lockHolder(dataDir);
  if (holder) {
    const answer = await askRunningShop(`${dataDir}.sock`).catch((error) => {
      throw new Error(
        `The shop (process ${holder}) is running on ${dataDir} but did not answer on ${dataDir}.sock: ${error.message}`,
      );
    });
    if (answer.error) throw new Error(answer.error);
    console.log(
      `Backup written by the running shop: ${answer.path} (${(answer.bytes / 1e6).toFixed(1)} MB; its database paused ${answer.pausedMs} ms)`,
    );
    return;
  }
  const path = await backupStoppedShop(dataDir, backupDir, {
    onClosed: (dir, { opened }) => console.warn(`${dir}: ${CLOSED_MESSAGE} (${opened} files and directories were open).`),
  });
  console.log(`Backup written: ${path}`);
}

main().catch((error) => {
  console.error(`No backup was made: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
