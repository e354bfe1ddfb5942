/**
 * The embedded database's thread: it opens PGlite (in `workerData.dataDir`, or in memory when null: empty, or a copy of
 * `workerData.copyOf`, a snapshot's tar) and answers the
 * engine's calls (pglite-engine.ts) posted by pglite.server.ts, one at a time, in order. The engine is about half the
 * server's CPU in a cart save or an order; here it runs beside the requests instead of between them.
 *
 * Loaded by Node itself (type stripping): erasable TypeScript only, relative imports with their `.ts`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { type Engine, engineOf, errorData } from './pglite-engine.ts';
import { POSTGRES_SETTINGS } from './pglite-settings.ts';

/** A call from the server's thread: an engine method and its arguments, with an id its answer carries back. */
interface Call {
  id: number;
  method: keyof Engine;
  args: unknown[];
}

const port = parentPort;
if (!port) throw new Error('pglite-worker.ts runs as a worker thread');
const { dataDir, copyOf } = workerData as { dataDir: string | null; copyOf?: Uint8Array };

try {
  const startParams = [...PGlite.defaultStartParams, ...POSTGRES_SETTINGS];
  const pg = dataDir
    ? await PGlite.create(dataDir, { startParams })
    : await PGlite.create(copyOf ? { startParams, loadDataDir: new Blob([copyOf as Uint8Array<ArrayBuffer>]) } : { startParams });
  const engine = engineOf(pg);
  port.on('message', async ({ id, method, args }: Call) => {
    // Each engine call takes PGlite's lock, so calls run in the order they arrive, whatever their awaits.
    try {
      const answer = await (engine[method] as (...a: unknown[]) => Promise<unknown>)(...args);
      port.postMessage({ id, answer });
    } catch (error) {
      port.postMessage({ id, failed: errorData(error) });
    }
    if (method === 'close') port.close();
  });
  port.postMessage({ ready: true });
} catch (error) {
  port.postMessage({ failed: errorData(error) });
}
