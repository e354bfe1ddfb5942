// Compression of what the shop answers as it answers it (on-demand pages, /api JSON), for the edge (src/edge/server.ts). The built
// files are compressed once, at build time (scripts/precompress.mjs); this is for answers that only exist per request.
//
// Our own small wrapper rather than the `compression` middleware (expressjs), which would fit Node's server but:
// - decides when the headers are written, so an answer of unknown length is always compressed. Astro never sends a
//   Content-Length, so every small JSON answer (`{"user":null}`) would get a compressor of its own: about 0.1-0.2 ms
//   of CPU each, on answers that cost the server little more than that, to save nothing;
// - buffers a streamed page inside the compressor until `res.flush()` is called, which Astro never does: the first
//   bytes of a page would wait for the last.
// Here the head of an answer of unknown length is held back until the end of the turn of the event loop in which its
// body began: if the answer has ended by then (all JSON does), a small one goes as it is and a larger one compressed
// whole, each with a Content-Length; if not (a page still rendering), it is compressed as a stream. What is written
// while a page is rendered is flushed through the compressor once each turn of the event loop, so a streamed page
// still arrives in pieces as it is rendered.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import { keptZstd, recentlyCompressed } from './kept-zstd.ts';
import type { Handler } from './log.ts';
import { negotiateEncoding } from './negotiate.ts';

/** What Node's write and end call once a chunk is handed on. */
type Callback = (error?: Error | null) => void;

export { keptZstd, recentlyCompressed } from './kept-zstd.ts';
export { negotiateEncoding, ON_DEMAND_ENCODINGS } from './negotiate.ts';

/** Answers smaller than this are sent as they are: compressing them saves a few bytes at most, for the same CPU. */
export const COMPRESS_MIN_BYTES = 1024;

/** A page streamed through the compressor is flushed at most this often after its first part (see flushSoon). */
const FLUSH_EVERY_MS = 50;

/** What is held back, at most, while waiting to see whether an answer ends this turn of the event loop. */
const HOLD_AT_MOST = 256 * 1024;

/** Types worth compressing: text (not a Server-Sent Events stream, whose events must not wait), JSON, XML, SVG. */
const COMPRESSIBLE = /^\s*(text\/(?!event-stream)|application\/([\w.-]+\+)?(json|xml|javascript)\b|image\/svg\+xml)/i;

/** Whether an answer with this status and these headers may be compressed at all (for some client). */
function compressible(res: ServerResponse): boolean {
  const status = res.statusCode;
  if (status < 200 || status === 204 || status === 206 || status === 304) return false;
  const type = res.getHeader('content-type');
  if (type === undefined || !COMPRESSIBLE.test(String(type))) return false;
  const encoding = res.getHeader('content-encoding');
  if (encoding !== undefined && String(encoding).toLowerCase() !== 'identity') return false;
  return !/(^|,)\s*no-transform\s*(,|$)/i.test(String(res.getHeader('cache-control') ?? ''));
}

/**
 * The brotli window for a body of `size` bytes (0: not known): no larger than the body. The encoder allocates memory
 * for its whole window (4 MB at the default 22 bits) for every answer; a page of 40 KB needs 64 KB of it.
 */
export function windowBits(size: number): number {
  if (!size) return 18;
  return Math.min(22, Math.max(16, Math.ceil(Math.log2(size))));
}

/**
 * Where the parts of a body held whole are put together before it is compressed: one buffer, reused by every answer.
 * Compressing is synchronous and takes a copy, so the next answer may overwrite it. A new buffer for each answer (what
 * Buffer.concat makes) cost a server with the shop's heap 14 µs of its thread and 23 µs of CPU for /orders' 35 KB,
 * copying into this one 5 and 8 µs.
 */
let assembly = Buffer.allocUnsafe(0);

/**
 * The parts of a body as one buffer. One that will be compressed (at least `minBytes`, at most HOLD_AT_MOST) is a
 * view of `assembly`, valid until the next call; a smaller one (sent as it is, after this turn) and a larger one are
 * each a buffer of their own.
 */
function wholeOf(parts: Buffer[], minBytes: number): Buffer {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  if (length < minBytes || length > HOLD_AT_MOST) return Buffer.concat(parts, length);
  if (assembly.length < length) assembly = Buffer.allocUnsafe(HOLD_AT_MOST);
  let at = 0;
  for (const part of parts) at += part.copy(assembly, at);
  return assembly.subarray(0, length);
}

/** Brotli's parameters for a body of `size` bytes (0: not known) at `quality`. */
const brotliParams = (size: number, quality: number) => ({
  [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
  [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
  [zlib.constants.BROTLI_PARAM_LGWIN]: windowBits(size),
  ...(size ? { [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size } : {}),
});

/** Adds Accept-Encoding to the answer's Vary, unless it is there already. */
function varyOnEncoding(res: ServerResponse): void {
  const vary = String(res.getHeader('vary') ?? '');
  if (vary.trim() === '*' || /(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) return;
  res.setHeader('vary', vary.trim() ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
}

/** The room a zstd frame of `length` bytes can take at most (ZSTD_compressBound, rounded up). */

/** Levels per encoding: of a stream or a body compressed for one answer, and of a body compressed once for anyone. */
type Encoding = 'zstd' | 'br' | 'gzip';
type Levels = Record<Encoding, number>;
const LEVELS: Levels = { zstd: 3, br: 0, gzip: 3 };
const ONCE_LEVELS: Levels = { zstd: 6, br: 3, gzip: 3 };
/** The size of zstd's match tables for a body compressed for one answer (2^12 entries; see keptZstd). */
const PER_ANSWER_ZSTD_TABLE_LOG = 12;

/** How each encoder is told to send what it has so far. */
const FLUSH: Record<Encoding, number> = {
  zstd: zlib.constants.ZSTD_e_flush,
  br: zlib.constants.BROTLI_OPERATION_FLUSH,
  gzip: zlib.constants.Z_SYNC_FLUSH,
};

/**
 * Wraps a Node request handler so its answers are compressed for clients that accept it (see the top of this file).
 * `wholeBody` is called with the body of an answer that ended while its head was held, just before the head is sent:
 *   headers that depend on the page (the edge fits the Content-Security-Policy to it) can still be set. The
 *   body may be a view of a buffer the next answer reuses: what is kept of it must be copied.
 *   zstd 3 first (what Chromium and Firefox send), then brotli 0, then gzip 3; a body compressed once and sent again
 *   (recentlyCompressed: the 404 page) at zstd 6 or brotli 3. Chosen by measuring the shop's own pages (43 KB admin
 *   pages, the 39 KB on-demand 404 page, /orders): alone, compressing one takes about 0.1-0.2 ms at zstd 3 or brotli 0,
 *   but zstd 3 is 12 % smaller (the same size as brotli 3 at half its time), and a streamed page flushed in parts is
 *   15.3 KB at brotli 0 against 12.2 KB at zstd 3. In a server answering /orders' 41 KB in 60 writes, the CPU each
 *   answer costs more than sending it as it is: brotli 0 0.13 ms (13.8 KB), zstd 1 0.15 ms (12.9 KB), zstd 3 0.21 ms
 *   (12.2 KB). Harder levels cost more: brotli 3 cost the shop 0.8 ms per /orders answer (0.79 x its requests per
 *   second; scripts/bench-pages.mjs). zstd 3 rather than 1 for the bytes: a document under 14.6 KB with its head, what
 *   TCP sends in its first round trip, arrives a whole round trip sooner on a phone network (Lighthouse's slow 4G:
 *   0.15 s of LCP), and zstd 1 puts three admin pages back over it. A body compressed whole for one answer goes through
 *   a kept compressor with small match tables (keptZstd): a third less CPU for 1 % more bytes. Gzip 3 is for the
 *   clients that take neither.
 */
export function compressing(
  handler: Handler,
  {
    minBytes = COMPRESS_MIN_BYTES,
    levels = LEVELS,
    onceLevels = ONCE_LEVELS,
    wholeBody = () => {},
  }: { minBytes?: number; levels?: Levels; onceLevels?: Levels; wholeBody?: (res: ServerResponse, body: Buffer) => void } = {},
): Handler {
  /** A new encoder for a stream (its length not known). */
  const encoderFor = (encoding: Encoding): zlib.ZstdCompress | zlib.BrotliCompress | zlib.Gzip =>
    encoding === 'zstd'
      ? zlib.createZstdCompress({
          // Its window no larger than brotli's below: the default 2 MB is allocated for every stream.
          params: { [zlib.constants.ZSTD_c_compressionLevel]: levels.zstd, [zlib.constants.ZSTD_c_windowLog]: 18 },
        })
      : encoding === 'br'
        ? zlib.createBrotliCompress({ params: brotliParams(0, levels.br) })
        : zlib.createGzip({ level: levels.gzip });

  // Small tables for what is compressed per answer (see keptZstd); zstd's own for a body compressed once for anyone.
  const zstdAt: Record<number, (body: Buffer) => Buffer> = {
    [onceLevels.zstd]: keptZstd(onceLevels.zstd),
    [levels.zstd]: keptZstd(levels.zstd, { tableLog: PER_ANSWER_ZSTD_TABLE_LOG }),
  };
  /** A whole body compressed at `level` (one of `levels` or `onceLevels`). */
  const compressed = (body: Buffer, encoding: Encoding, level: number): Buffer =>
    encoding === 'zstd'
      ? (zstdAt[level] ?? keptZstd(level))(body)
      : encoding === 'br'
        ? zlib.brotliCompressSync(body, { params: brotliParams(body.length, level) })
        : zlib.gzipSync(body, { level });

  const recent = recentlyCompressed();
  return (req: IncomingMessage, res: ServerResponse) => {
    const writeHead = res.writeHead;
    const write = res.write;
    const end = res.end;
    /**
     * 'open': no head written yet; 'held': the head kept back until the body says whether it is worth compressing;
     * 'plain': sent as it is; 'encoding': streamed through `encoder`.
     */
    let state: 'open' | 'held' | 'plain' | 'encoding' = 'open';
    let encoding: Encoding | 'identity' = 'identity';
    /** What was written while the head was held, with the callbacks to call once it is sent. */
    let held: [Buffer, ((error?: Error | null) => void) | undefined][] = [];
    let heldBytes = 0;
    let waiting: NodeJS.Immediate | undefined;
    let encoder: zlib.ZstdCompress | zlib.BrotliCompress | zlib.Gzip | undefined;
    let flushing = false;
    /** When the stream was last flushed (performance.now()), 0 before its first flush. */
    let lastFlush = 0;

    // A Uint8Array (what Astro writes) is viewed, not copied: as with any Node stream, a writer hands its chunk over.
    const bytesOf = (chunk: unknown, enc: BufferEncoding | undefined): Buffer =>
      Buffer.isBuffer(chunk)
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
          : Buffer.from(String(chunk), enc);
    // Node's write and end take (chunk, encoding, callback), either of the last two left out.
    const split = (enc: unknown, cb: unknown): [BufferEncoding | undefined, Callback | undefined] =>
      typeof enc === 'function' ? [undefined, enc as Callback] : [enc as BufferEncoding | undefined, cb as Callback | undefined];
    const sendHead = () => writeHead.call(res, res.statusCode);

    /**
     * 'plain', or 'encode' in `encoding`: from the head, and from the body's length when it is known (NaN when not).
     */
    function choose(length: number): 'plain' | 'encode' {
      if (!compressible(res) || length < minBytes) return 'plain';
      // From here on, which bytes are sent depends on the request's Accept-Encoding (a HEAD's answer says so too).
      varyOnEncoding(res);
      if (req.method === 'HEAD') return 'plain';
      encoding = negotiateEncoding(req) as Encoding | 'identity';
      return encoding === 'identity' ? 'plain' : 'encode';
    }

    function startEncoder() {
      state = 'encoding';
      res.removeHeader('content-length');
      res.setHeader('content-encoding', encoding);
      sendHead();
      const stream = encoderFor(encoding as Encoding);
      encoder = stream;
      stream.on('data', (chunk: Buffer) => {
        if ((write as (...args: unknown[]) => boolean).call(res, chunk) === false) {
          stream.pause();
          res.once('drain', () => stream.resume());
        }
      });
      stream.on('error', (error: Error) => res.destroy(error));
      res.once('close', () => stream.destroy());
    }

    /**
     * What was written goes out as the page is rendered: the first part at the end of the turn of the event loop it
     * was written in (the head, and what the browser can start on), later parts at most every FLUSH_EVERY_MS. Each flush
     * is a round trip to the compressor's thread and a block of its own: flushing every turn cost a page rendered in
     * five turns 0.6-0.9 ms, more than compressing it.
     */
    function flushSoon() {
      if (flushing) return;
      flushing = true;
      const run = () => {
        flushing = false;
        lastFlush = performance.now();
        if (!encoder || encoder.destroyed || encoder.writableEnded) return;
        encoder.flush(FLUSH[encoding as Encoding]);
      };
      const wait = lastFlush === 0 ? 0 : lastFlush + FLUSH_EVERY_MS - performance.now();
      if (wait <= 0) setImmediate(run);
      else setTimeout(run, wait).unref();
    }

    /** Streams what is held (and what comes after) through the compressor. */
    function encodeHeld() {
      clearImmediate(waiting);
      startEncoder();
      for (const [chunk, cb] of held) encoder?.write(chunk, cb);
      held = [];
      flushSoon();
    }

    /** The whole body is known while its head is held: sent as it is when small, else compressed whole; with its length. */
    function sendWhole(body: Buffer, callbacks: (Callback | undefined)[]): ServerResponse {
      clearImmediate(waiting);
      held = [];
      let sent = body;
      if (body.length >= minBytes) {
        const name = encoding as Encoding;
        // An answer to a request without credentials is the same for anyone who asks: the 404 page, public JSON. Its
        // bytes are compressed once for everyone who gets them, so harder.
        const anyones = req.headers.cookie === undefined && req.headers.authorization === undefined;
        sent = anyones
          ? recent.compressed(body, name, () => compressed(body, name, onceLevels[name]))
          : compressed(body, name, levels[name]);
        res.setHeader('content-encoding', encoding);
      }
      state = 'plain';
      res.setHeader('content-length', sent.length);
      wholeBody(res, body);
      sendHead();
      (end as (...args: unknown[]) => ServerResponse).call(res, sent, () => {
        for (const cb of callbacks) cb?.();
      });
      return res;
    }

    res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
      if (state !== 'open') return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
      const message = typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
      const headers = rest[0] as OutgoingHttpHeaders | readonly string[] | undefined;
      if (Array.isArray(headers)) {
        // A raw list of headers: passed on untouched.
        state = 'plain';
        return (writeHead as (...args: unknown[]) => ServerResponse).call(
          this,
          status,
          ...(message === undefined ? [] : [message]),
          headers,
        );
      }
      // The head's headers onto the response, where they can be read and changed (as the `on-headers` package does).
      res.statusCode = status;
      if (message !== undefined) res.statusMessage = message;
      if (headers)
        for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders))
          if (value !== undefined) res.setHeader(name, value);
      const length = Number(res.getHeader('content-length') ?? Number.NaN);
      if (choose(length) === 'plain') {
        state = 'plain';
        return sendHead();
      }
      if (Number.isFinite(length)) startEncoder();
      else state = 'held';
      return this;
    };

    res.write = function (this: ServerResponse, chunk: unknown, enc?: unknown, cb?: unknown) {
      const [encodingName, callback] = split(enc, cb);
      if (state === 'open') res.writeHead(res.statusCode);
      if (state === 'plain') return (write as (...args: unknown[]) => boolean).call(this, chunk, encodingName, callback);
      const bytes = bytesOf(chunk, encodingName);
      if (state === 'encoding') {
        const more = encoder?.write(bytes, callback) ?? false;
        flushSoon();
        return more;
      }
      held.push([bytes, callback]);
      heldBytes += bytes.length;
      // The rest may come, and the answer end, this same turn of the event loop (Astro writes a JSON body, then ends
      // it): then it is compressed whole, with its length. If it has not ended by the end of the turn, it is streamed
      // (a page waiting on the database should not hold back what it has rendered); so it is past HOLD_AT_MOST.
      if (heldBytes >= HOLD_AT_MOST) encodeHeld();
      else waiting ??= setImmediate(() => state === 'held' && encodeHeld());
      return true;
    };

    res.end = function (this: ServerResponse, chunk?: unknown, enc?: unknown, cb?: unknown) {
      let [encodingName, callback] = split(enc, cb);
      if (typeof chunk === 'function') [chunk, callback] = [undefined, chunk as Callback];
      const bytes = () => (chunk === undefined || chunk === null ? undefined : bytesOf(chunk, encodingName));
      if (state === 'open') {
        // No head yet, so the whole body is this one chunk.
        const length = Number(res.getHeader('content-length') ?? bytes()?.length ?? 0);
        if (choose(length) === 'encode') return sendWhole(bytes() ?? Buffer.alloc(0), [callback]);
        state = 'plain';
      }
      if (state === 'plain') return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, encodingName, callback);
      const body = bytes();
      if (state === 'encoding') {
        if (body) encoder?.write(body);
        encoder?.once('end', () => (end as (...args: unknown[]) => ServerResponse).call(res, callback));
        encoder?.end();
        return this;
      }
      if (body) held.push([body, undefined]);
      const parts = held.map(([part]) => part);
      return sendWhole(wholeOf(parts, minBytes), [...held.map(([, after]) => after), callback]);
    };

    return handler(req, res);
  };
}
