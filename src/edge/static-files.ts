// The built files, answered from the release's file table (src/edge/file-table.ts), and every other request handed to
// the app (Astro's handler in middleware mode), as Astro's standalone server does for this build (trailingSlash
// 'never', build.format 'file'): /about is about.html, /product/ redirects to /product, dot files and paths outside
// the build are never served, /api always goes to the app (never looked for among the files).
//
// A file the build precompressed is sent in the encoding the request accepts, brotli first (negotiateEncoding: q-values
// count, q=0 refuses), with that encoding's length and ETag (so a 304 answers for the encoding the browser holds) and
// `Vary: Accept-Encoding` on every answer for it. A Range request gets the file itself: its byte ranges are the ones a
// client can reassemble. Conditional requests (If-None-Match, If-Modified-Since), HEAD and single byte ranges are
// answered as the `send` package answered them before the files were held in memory.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, posix } from 'node:path';
import { type FileTable, fileTable, releaseFilesIn, type ServedFile, type Variant } from './file-table.ts';
import { type Handler, requestIdOf } from './log.ts';
import { negotiateEncoding } from './negotiate.ts';
import { type AnswerHeaders, headersFor, onThisSite } from './security-headers.ts';

/** Whether a path is for the app alone: /api is only ever answered by its endpoints, never from a file. */
const forTheApp = (path: string) => path === '/api' || path.startsWith('/api/');

/** The file a decoded, normalised path names: itself, its directory's index.html, or with .html when it has no extension. */
function fileFor(table: FileTable, path: string): ServedFile | undefined {
  if (path.endsWith('/')) return table.files.get(`${path}index.html`);
  const file = table.files.get(path);
  if (file !== undefined) return file;
  if (table.dirs.has(path)) return table.files.get(`${path}/index.html`);
  return extname(path) === '' ? table.files.get(`${path}.html`) : undefined;
}

/** Whether the client's copy (If-None-Match, else If-Modified-Since) is still the file's. */
function fresh(req: IncomingMessage, file: ServedFile, etag: string): boolean {
  const cacheControl = req.headers['cache-control'];
  if (cacheControl !== undefined && /(?:^|,)\s*no-cache\s*(?:,|$)/.test(cacheControl)) return false;
  const noneMatch = req.headers['if-none-match'];
  if (noneMatch !== undefined) {
    if (noneMatch.trim() === '*') return true;
    return noneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
  }
  const since = req.headers['if-modified-since'];
  if (since === undefined) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && Math.floor(file.modifiedMs / 1000) * 1000 <= time;
}

/** A single byte range of a file of `size` bytes: [start, end], 'unsatisfiable', or null to send it all. */
function byteRange(header: string, size: number): [number, number] | 'unsatisfiable' | null {
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  // Not bytes, malformed, or several ranges: the whole file (as `send` did).
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) return 'unsatisfiable';
  return [start, end];
}

/** Whether an If-Range lets a Range be honoured (it names this file's ETag or its date). */
function rangeStillValid(req: IncomingMessage, file: ServedFile, etag: string): boolean {
  const ifRange = req.headers['if-range'] as string | undefined;
  if (ifRange === undefined) return true;
  if (ifRange.includes('"')) return ifRange.trim() === etag;
  const time = Date.parse(ifRange);
  return !Number.isNaN(time) && Math.floor(file.modifiedMs / 1000) * 1000 <= time;
}

/**
 * Writes a status, a flat list of headers and a body (none on a HEAD). The request id goes in the list when no header
 * was set before (see withRequestIds): then Node writes the list as it is.
 */
function answer(req: IncomingMessage, res: ServerResponse, status: number, head: readonly string[], body?: Buffer) {
  const id = req.headers['x-request-id'];
  res.writeHead(
    status,
    id === undefined || res.hasHeader('x-request-id') ? (head as string[]) : [...head, 'x-request-id', requestIdOf(req)],
  );
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Answers `file`: a 304, a 206 or 416 for a Range, else a 200 in the negotiated encoding. */
function sendFile(req: IncomingMessage, res: ServerResponse, file: ServedFile, security: AnswerHeaders | undefined) {
  const range = req.headers.range;
  const encoding = range === undefined && file.encodings.length > 0 ? negotiateEncoding(req, file.encodings) : 'identity';
  const variant: Variant = (encoding !== 'identity' && file.encoded[encoding as keyof ServedFile['encoded']]) || file.identity;
  if (fresh(req, file, variant.etag)) {
    return answer(req, res, 304, ['etag', variant.etag, 'last-modified', file.lastModified, ...file.notModified]);
  }
  if (range !== undefined && variant === file.identity && rangeStillValid(req, file, variant.etag)) {
    const size = variant.body.length;
    const wanted = byteRange(range, size);
    if (wanted === 'unsatisfiable') {
      const head = [
        'content-range',
        `bytes */${size}`,
        ...Object.entries(security ? headersFor(security, 416, undefined) : {}).flat(),
      ];
      return answer(req, res, 416, head, Buffer.alloc(0));
    }
    if (wanted !== null) {
      const [start, end] = wanted;
      const head = [...variant.head];
      head[head.indexOf('content-length') + 1] = String(end - start + 1);
      head.push('content-range', `bytes ${start}-${end}/${size}`);
      return answer(req, res, 206, head, variant.body.subarray(start, end + 1));
    }
  }
  return answer(req, res, 200, variant.head, variant.body);
}

/**
 * Serves the files of `table()` (read on every request: a switch takes effect from the next one) and hands `app` every
 * request for /api and every path no file answers. `security`: the headers of the edge's own answers (a redirect, a
 * refusal, a 416); a file's are in its table.
 */
export function servingFiles(app: Handler, table: () => FileTable, security?: AnswerHeaders): Handler {
  const own = (status: number) => Object.entries(security ? headersFor(security, status, undefined) : {}).flat();
  return (req, res) => {
    const url = req.url ?? '/';
    const cut = url.search(/[?#]/);
    const path = cut >= 0 ? url.slice(0, cut) : url;
    if (forTheApp(path)) return app(req, res);
    const files = table();
    // The common case first: a path written as the table has it, nothing to decode or normalise.
    const exact = path.includes('%') || path.includes('/.') || path.includes('//') ? undefined : fileFor(files, path);
    if (exact !== undefined && !(path !== '/' && path.endsWith('/'))) return sendFile(req, res, exact, security);
    let decoded: string;
    try {
      decodeURI(url);
      decoded = decodeURIComponent(path);
    } catch {
      return answer(req, res, 400, own(400), Buffer.from('Bad request.'));
    }
    if (decoded.includes('\0')) return app(req, res);
    const normalised = posix.normalize(decoded);
    // A directory of the build, written with its trailing slash: to its one URL, keeping the query.
    const directory = normalised.replace(/(.)\/+$/, '$1');
    if (path !== '/' && path.endsWith('/') && files.dirs.has(directory)) {
      const query = url.indexOf('?') >= 0 ? url.slice(url.indexOf('?')).split('#')[0] : '';
      return answer(req, res, 301, [...own(301), 'location', String(onThisSite(`${path.slice(0, -1)}${query}`))]);
    }
    const file = fileFor(files, normalised);
    // No such file in the build: the app answers (a page rendered on demand, or the 404 page).
    if (file === undefined) return app(req, res);
    return sendFile(req, res, file, security);
  };
}

/** Serves the files of the build in `client`, read into memory now, and hands `app` the rest (as servingFiles). */
export function withBuiltFiles(app: Handler, client: string, security?: AnswerHeaders): Handler {
  const table = fileTable(releaseFilesIn(client), security);
  return servingFiles(app, () => table, security);
}
