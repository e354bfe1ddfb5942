// What the built files are served as: the Content-Type of each kind of file, and the encodings the build writes beside
// a text file (scripts/precompress.mjs writes them, src/edge/file-table.ts reads them).

/**
 * The text files worth compressing, by extension, with the Content-Type sent for them, whichever encoding is sent.
 * Pictures other than SVG and fonts are compressed already.
 */
export const TEXT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
} as const;

/** The other files a build may hold, as the `send` package typed them before the edge served from memory. */
const OTHER_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/vnd.microsoft.icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.pdf': 'application/pdf',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.csv': 'text/csv; charset=utf-8',
};

/** The Content-Type of a file by its extension ('.html'). */
export function typeOf(extension: string): string {
  const ext = extension.toLowerCase();
  return (
    (Object.hasOwn(TEXT_TYPES, ext) ? TEXT_TYPES[ext as keyof typeof TEXT_TYPES] : OTHER_TYPES[ext]) ?? 'application/octet-stream'
  );
}

/** Whether a file of this extension is text worth compressing. */
export const isText = (extension: string) => Object.hasOwn(TEXT_TYPES, extension);

/** Smaller files are sent as they are: a few hundred bytes fit in the packets the headers go in anyway. */
export const MIN_BYTES = 1024;

/** The encodings written beside a file, by the suffix of their file. */
export const ENCODINGS = { br: '.br', gzip: '.gz' } as const;
export type FileEncoding = keyof typeof ENCODINGS;
