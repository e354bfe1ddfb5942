// Gives memory back to the machine once the server rests (issue 47, decision 013). V8 keeps the heap a burst of work
// grew it to: after start-up (migrations, the catalogue's pages rendered) the server held about 110 MB of heap for
// 60 MB of live objects, its young generation at its largest and the old space's emptied pages kept, and nothing
// shrinks them while it idles. One memory-reducing collection (V8's "last resort" flavour of gc(), which the server's
// `--expose-gc` flag makes available: scripts/server-flags.mjs) gives them back: about 50 MB at rest. It is run only
// when no request has come for a while and the heap has grown since the last one, so it never runs under load, and a
// shopper arriving during it waits its few tens of milliseconds once.
import { getHeapStatistics } from 'node:v8';

/** V8's gc() as `--expose-gc` exposes it, with the options this uses. */
export type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface MemoryAtRestOptions {
  /** The collector; none (the server was started without `--expose-gc`) leaves memory as it is. */
  gc: Gc | undefined;
  /** The heap V8 holds now, in bytes (default: its total heap size). */
  heapBytes?: () => number;
  now?: () => number;
  /** How long without a request is rest. */
  idleMs?: number;
  /** How much the heap must have grown since the last collection for another to be worth it. */
  growthBytes?: number;
  /** How often to look; 0 for none (a test calls `check`). */
  everyMs?: number;
  log?: (fields: { heapBefore: number; heapAfter: number; ms: number }) => void;
}

export interface MemoryAtRest {
  /** Called as each request comes: the server is not at rest. */
  seen(): void;
  /** Looks once: collects when the server rests and the heap has grown. Returns whether it collected. */
  check(): boolean;
  stop(): void;
}

const MB = 1024 * 1024;

export function memoryAtRest({
  gc,
  heapBytes = () => getHeapStatistics().total_heap_size,
  now = () => performance.now(),
  idleMs = 5_000,
  growthBytes = 8 * MB,
  everyMs = 2_500,
  log,
}: MemoryAtRestOptions): MemoryAtRest {
  let lastSeen = now();
  // Start-up has just grown the heap: the first rest collects.
  let heapAfterLast = 0;
  const check = () => {
    if (!gc || now() - lastSeen < idleMs) return false;
    const before = heapBytes();
    if (before - heapAfterLast < growthBytes) return false;
    const started = now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    heapAfterLast = heapBytes();
    log?.({ heapBefore: Math.round(before / MB), heapAfter: Math.round(heapAfterLast / MB), ms: Math.round(now() - started) });
    return true;
  };
  const timer = everyMs > 0 && gc ? setInterval(check, everyMs) : undefined;
  timer?.unref();
  return {
    seen() {
      lastSeen = now();
    },
    check,
    stop() {
      clearInterval(timer);
    },
  };
}
