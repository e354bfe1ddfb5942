// The built files as the edge serves them: held in memory, one table per release, each file with its bytes in every
// encoding the build wrote and the whole head of its answer made once (type, length, ETag, Last-Modified, caching,
// Vary, the security headers). A request for a built file then costs a lookup and a write: no stat, no file opened,
// no header computed. A release switch replaces the whole table at once (src/edge/release.ts).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { ENCODINGS, type FileEncoding, isText, typeOf } from './file-types.ts';
import { type AnswerHeaders, headersFor } from './security-headers.ts';
import type { ReleaseFile, ReleaseFiles } from './switch.ts';

/** One encoding of a file: its bytes, its ETag and the head of a 200 with them, as a flat list of names and values. */
export interface Variant {
  readonly body: Buffer;
  readonly etag: string;
  readonly head: readonly string[];
}

/** A file as served. */
export interface ServedFile {
  readonly type: string;
  readonly lastModified: string;
  readonly modifiedMs: number;
  readonly cacheControl: string;
  readonly identity: Variant;
  /** The encodings the build wrote, best first (brotli, then gzip); empty when the file is sent as it is. */
  readonly encodings: readonly FileEncoding[];
  readonly encoded: Partial<Record<FileEncoding, Variant>>;
  /** The headers of a 304 for it besides its ETag and date (caching, Vary, the headers every answer carries). */
  readonly notModified: readonly string[];
}

/** The files of a release by URL path ('/about.html'), and its directories ('/', '/product'). */
export interface FileTable {
  readonly files: ReadonlyMap<string, ServedFile>;
  readonly dirs: ReadonlySet<string>;
}

/** Fingerprinted files (/_astro/…, a release's /pictures/…) are cached for a year; the others revalidate. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'public, max-age=0';

/** Whether a URL path is served at all: no dot file or dot directory, but /.well-known/. */
const servable = (path: string) => path.startsWith('/.well-known/') || !/\/\./.test(path);

/** A strong ETag from the bytes' digest, so that every server and every release give a file the same one. */
const etagOf = (bytes: Uint8Array, encoding?: string) =>
  `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}${encoding ? `-${encoding}` : ''}"`;

const flat = (headers: Record<string, string>) => Object.entries(headers).flat();

/** One file's entry: its variants and their heads, under `security` (no security headers when absent). */
function servedFile(path: string, file: ReleaseFile, security: AnswerHeaders | undefined): ServedFile {
  const type = typeOf(extname(path));
  const modifiedMs = file.modifiedMs ?? Date.now();
  const lastModified = new Date(modifiedMs).toUTCString();
  const cacheControl = path.startsWith('/_astro/') || path.startsWith('/pictures/') ? IMMUTABLE : REVALIDATE;
  const encodings = (Object.keys(ENCODINGS) as FileEncoding[]).filter((e) => file.encoded?.[e] !== undefined);
  const common = {
    'cache-control': cacheControl,
    ...(encodings.length > 0 ? { vary: 'Accept-Encoding' } : {}),
    ...(security ? headersFor(security, 200, type) : {}),
    ...(file.policy ? { 'content-security-policy': file.policy } : {}),
  };
  const variant = (bytes: Uint8Array, encoding?: FileEncoding): Variant => {
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const etag = etagOf(body, encoding);
    const head = {
      'content-type': type,
      'content-length': String(body.length),
      etag,
      'last-modified': lastModified,
      ...(encoding ? { 'content-encoding': encoding } : { 'accept-ranges': 'bytes' }),
      ...common,
    };
    return { body, etag, head: flat(head) };
  };
  const encoded: Partial<Record<FileEncoding, Variant>> = {};
  for (const encoding of encodings) {
    const bytes = file.encoded?.[encoding];
    if (bytes) encoded[encoding] = variant(bytes, encoding);
  }
  return {
    type,
    lastModified,
    modifiedMs,
    cacheControl,
    identity: variant(file.bytes),
    encodings,
    encoded,
    notModified: flat({
      'cache-control': cacheControl,
      ...(encodings.length > 0 ? { vary: 'Accept-Encoding' } : {}),
      ...security?.every,
    }),
  };
}

/**
 * The files of the build in `client` (dist/client) as a release's files: every file, with the .br and .gz the build
 * wrote beside a text file (scripts/precompress.mjs) as its encodings rather than as files of their own.
 */
export function releaseFilesIn(client: string): Map<string, ReleaseFile> {
  const paths = new Map<string, string>();
  for (const entry of readdirSync(client, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    paths.set(`/${relative(client, full).split(sep).join('/')}`, full);
  }
  const encodedPaths = new Set<string>();
  for (const path of paths.keys()) {
    if (!isText(extname(path))) continue;
    for (const suffix of Object.values(ENCODINGS)) if (paths.has(`${path}${suffix}`)) encodedPaths.add(`${path}${suffix}`);
  }
  const files = new Map<string, ReleaseFile>();
  for (const [path, full] of paths) {
    if (encodedPaths.has(path)) continue;
    const encoded: Partial<Record<FileEncoding, Buffer>> = {};
    for (const [encoding, suffix] of Object.entries(ENCODINGS) as [FileEncoding, string][]) {
      const beside = paths.get(`${path}${suffix}`);
      if (beside && encodedPaths.has(`${path}${suffix}`)) encoded[encoding] = readFileSync(beside);
    }
    files.set(path, { bytes: readFileSync(full), encoded, modifiedMs: statSync(full).mtimeMs });
  }
  return files;
}

/** The table a release's files are served from, with the heads made under `security`. */
export function fileTable(files: ReleaseFiles, security?: AnswerHeaders): FileTable {
  const table = new Map<string, ServedFile>();
  const dirs = new Set<string>(['/']);
  for (const [path, file] of files) {
    for (let at = path.indexOf('/', 1); at > 0; at = path.indexOf('/', at + 1)) dirs.add(path.slice(0, at));
    if (servable(path)) table.set(path, servedFile(path, file, security));
  }
  return { files: table, dirs };
}
