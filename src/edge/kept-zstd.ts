// Whole bodies compressed for the answers rendered per request (src/edge/compression.ts): a zstd compressor kept for the
// life of the process, and the compressed bytes of the last few bodies sent whole.
import zlib from 'node:zlib';

/**
 * The compressed bytes of the last few bodies sent whole, by their bytes and encoding: a body sent again (the same 404
 * page to every guest who follows a broken link) is compressed once, then found by comparing bytes (microseconds for a
 * page) instead of compressed again (a tenth to a quarter of a millisecond). Only the compressed form of the very same
 * bytes is ever reused, so what one client gets never depends on another's answer. At most 32 lengths of 2 bodies each.
 */
export function recentlyCompressed({ lengths = 32, perLength = 2, maxBytes = 256 * 1024 } = {}) {
  const byLength = new Map<string, { body: Buffer; sent: Buffer }[]>();
  return {
    compressed(body: Buffer, encoding: string, compress: () => Buffer): Buffer {
      if (body.length > maxBytes) return compress();
      const key = `${encoding} ${body.length}`;
      const known = byLength.get(key) ?? [];
      const hit = known.find((entry) => entry.body.equals(body));
      if (hit) return hit.sent;
      const sent = compress();
      byLength.delete(key);
      // Copies, so that what is kept holds no buffer (a slab of keptZstd's, a reused one) larger than itself.
      byLength.set(key, [{ body: Buffer.from(body), sent: Buffer.from(sent) }, ...known].slice(0, perLength));
      if (byLength.size > lengths) byLength.delete(byLength.keys().next().value ?? '');
      return sent;
    },
  };
}

const zstdBound = (length: number) => length + (length >> 7) + 128;

/** A zstd stream's native handle and write state, as Node's lib/zlib.js uses them. */
interface Kept {
  stream: zlib.ZstdCompress & {
    _handle?: { writeSync: (...args: unknown[]) => void };
    _writeState?: Uint32Array;
  };
  handle: { writeSync: (...args: unknown[]) => void };
  state: Uint32Array;
}

/**
 * zstd at `level` for bodies compressed whole, through one compressor kept for the life of the process.
 *
 * Node's zstdCompressSync makes a compressor for every call and closes it: a stream object, a native context whose
 * tables are allocated afresh (768 KB at level 3), and a 16 KB output buffer. Under load that was garbage enough to
 * make V8 collect its old generation more often: in 4 s of /orders (--trace-gc), 10-13 full collections where the same
 * answers sent as they are took 7-10; with this, 7-8. Node has no public synchronous call that keeps a compressor, so
 * this drives the native handle of one ZstdCompress stream that is never written to or ended, with the call Node's own
 * zstdCompressSync makes (processChunkSync in Node's lib/zlib.js; minizlib, npm's zlib wrapper, keeps Node's
 * compressors open across calls through the same handle): ZSTD_e_end with the whole body, after which zstd begins the
 * next frame afresh, sized to its body as pledgedSrcSize would size it. Each frame stands alone (it decodes by itself):
 * nothing of one shopper's answer is referred to in the next one's. The frames are written one after the other
 * into a slab of `slabBytes`, as Node's Buffer pool does for small buffers, and each is returned as a view of it: a new
 * slab only when the last is full, and no frame ever overwritten while it is being sent. Where the handle is not what
 * this expects, a call fails, or a body is too large for a slab, the body is compressed by zstdCompressSync (and after
 * a failure, a new compressor is made for the next).
 *
 * `tableLog` makes its match tables smaller (2^tableLog entries each, hashLog and chainLog; at level 3 zstd sizes them
 * 2^17 and 2^16 for a page). A kept compressor's tables are not cleared for each frame, so they are whatever the
 * render left of them in the CPU's caches: at 2^12 they are 32 KB and stay there. Measured in the server under load
 * (the main thread's CPU per /orders answer, 35 KB, 4 shops): 131 µs made per call, 130 µs kept, 90 µs kept with
 * 2^12 tables, for 115 bytes more (10 974 against 10 859); 2^11 saved 4 µs more for 200 more bytes, and level 1 72 µs
 * for 570.
 * Returns a function that gives a body as one zstd frame.
 */
export function keptZstd(
  level: number,
  { slabBytes = 256 * 1024, tableLog }: { slabBytes?: number; tableLog?: number } = {},
): (body: Buffer) => Buffer {
  const params = {
    [zlib.constants.ZSTD_c_compressionLevel]: level,
    ...(tableLog === undefined ? {} : { [zlib.constants.ZSTD_c_hashLog]: tableLog, [zlib.constants.ZSTD_c_chainLog]: tableLog }),
  };
  const once = (body: Buffer) => zlib.zstdCompressSync(body, { pledgedSrcSize: body.length, params });
  let kept: Kept | null | undefined;
  let slab = Buffer.allocUnsafe(0);
  let used = 0;

  function make(): Kept | null {
    // Node's internals, which its types do not describe (see above).
    const stream = new zlib.ZstdCompress({ params }) as unknown as Kept['stream'];
    // A native call that fails destroys the stream there and then, and reports the error as an event.
    stream.on('error', () => {});
    const handle = stream._handle;
    const state = stream._writeState;
    return typeof handle?.writeSync === 'function' && state instanceof Uint32Array ? { stream, handle, state } : null;
  }

  return (body: Buffer) => {
    if (kept === undefined) kept = make();
    const bound = zstdBound(body.length);
    if (kept === null || bound > slabBytes) return once(body);
    if (slab.length - used < bound) {
      slab = Buffer.allocUnsafe(slabBytes);
      used = 0;
    }
    const { stream, handle, state } = kept;
    try {
      handle.writeSync(zlib.constants.ZSTD_e_end, body, 0, body.length, slab, used, slab.length - used);
    } catch {
      stream.destroy();
    }
    // Done when the whole body was read with room to spare (none left could mean the frame is not finished).
    if (stream.destroyed || state[1] !== 0 || state[0] === 0) {
      if (!stream.destroyed) stream.destroy();
      kept = undefined;
      return once(body);
    }
    const end = slab.length - (state[0] ?? 0);
    const frame = slab.subarray(used, end);
    used = end;
    return frame;
  };
}
