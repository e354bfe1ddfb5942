/**
 * How the embedded database's PostgreSQL runs, for the thread that serves it (pglite-worker.ts) and the process that
 * makes a new one (pglite-init.ts). Loaded by Node itself (type stripping): erasable TypeScript only.
 *
 * `shared_buffers` is PostgreSQL's page cache. It lives in PGlite's WebAssembly memory, which grows and never shrinks,
 * and PostgreSQL's default of 128 MB is most of what the embedded database holds at rest; 16 MB is several times a
 * shop's working set (its catalogue, carts and recent orders), and what misses it is read from the operating system's
 * file cache. The rest are PGlite's own defaults.
 */
export const POSTGRES_SETTINGS = ['-c', 'shared_buffers=16MB'];
