// Serves the built shop (dist/) with what Astro's standalone server leaves out:
// - the server's configuration and ports start BEFORE it listens: a bad configuration, an unreachable database or a
//   second server on the same data directory exits non-zero with the message, instead of answering 500s;
// - security headers: nosniff on every answer (and HSTS when the public origin is https); on every document, pre-rendered
//   pages included, the CSP with frame-ancestors, Referrer-Policy, X-Frame-Options and COOP; on every picture (and other
//   XML), wherever it comes from, a policy under which nothing in it runs or loads (PICTURE_POLICY, scripts/csp.mjs);
// - compression: the built files in the encoding the browser accepts, from the brotli and gzip files the build wrote
//   beside them (scripts/precompress.mjs); on-demand pages and JSON compressed as they are sent (scripts/compress.mjs);
// - time limits on slow clients (headers, whole request), so a body that never arrives does not hold a connection;
// - a warning line for every answer slower than SLOW_ANSWER_MS, so a stall shows where it happened;
// - a request id on every request and answer (X-Request-Id), and a log line for every answer the app does not give
//   (scripts/log.mjs; the app's middleware logs its own, with their route patterns);
// - the built files, served here rather than by Astro's standalone server, so that /api requests go straight to the
//   app: the standalone server first looks on disk for a file of every path (two stat calls, about 13 % of the
//   server's time while orders were placed);
// - switching to another build without a restart (SERVED_BUILD: the app builds what editors publish), requests under
//   way finishing on the build they started on;
// - a graceful stop on SIGTERM or SIGINT (gracefulShutdown): no new connections, the requests under way answered (at
//   most SHUTDOWN_GRACE_SECONDS, default 10), then the app's services stopped (the outbox's job finished or handed
//   back, the database closed) and exit 0; a second signal, a second or more after the first, exits at once;
// - NODE_ENV=production unless it is set, and umask 077: what the server writes (the database, backups) is its own.
// HOST and PORT choose where (default 127.0.0.1:4321).
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { extname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import send from 'send';
import { compressing, negotiateEncoding } from './compress.mjs';
import { PICTURE_POLICY, policyForPage, withoutStripe } from './csp.mjs';
import { markingApp, serverLogger, withRequestIds } from './log.mjs';
import { ENCODINGS, TEXT_TYPES } from './precompress.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const serverLog = serverLogger();

// The built shop is production: libraries that read NODE_ENV when they load (React, which renders the order e-mails
// on the server) pick their production builds, not the development ones meant for debugging. Set before anything loads.
process.env.NODE_ENV ??= 'production';

/** Headers every answer carries, whatever it is: no sniffing of its type, and HTTPS only when the shop is on it. */
export function securityHeaders({ https }) {
  return {
    'x-content-type-options': 'nosniff',
    ...(https ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

/**
 * Headers only a document heeds, sent with documents alone (with the Content-Security-Policy): a script, a picture or a
 * JSON answer is never framed, never has links to send a referrer from, nor a window to open; the 1.4 KB policy on
 * each of them was as large as a brotli-compressed product picture (1.1-2.2 KB) and sent uncompressed (HTTP/1.1).
 */
export const DOCUMENT_HEADERS = {
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * Whether an answer is a document, or might be shown as one: HTML, or a body that does not say what it is (an error
 * in plain words, a redirect). A 304 or 204 is not: it has no body, and a 304 leaves the headers the browser stored.
 */
export function isDocument(status, contentType) {
  if (status === 304 || status === 204) return false;
  if (contentType === undefined || String(contentType).trim() === '') return true;
  return /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i.test(String(contentType));
}

/**
 * Whether an answer that is not a document is a picture, or other XML a browser would show as a document of its own
 * when it is opened directly (an SVG is one; any XML may hold XHTML's <script>): every image type, XML and any type
 * ending in +xml. Each is sent with PICTURE_POLICY, under which nothing in it runs or loads; the pages' policy is for
 * pages.
 */
export function isPicture(contentType) {
  return /^\s*(?:image\/[^\s;]+|[\w.+-]+\/(?:[\w.+-]+\+)?xml)\s*(?:;|$)/i.test(String(contentType ?? ''));
}

/** Every HTML file under `dir`. */
function htmlFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return htmlFiles(path);
    return entry.name.endsWith('.html') ? [path] : [];
  });
}

/**
 * One Content-Security-Policy header for every answer, from the policies Astro wrote for the built pages: those in
 * `written` (what the adapter put in _headers.json, see builtPolicies) and any in the pages' own <meta> tags. The same
 * directives, with the hashes of every page's inline scripts and styles. A <meta> policy cannot forbid framing, so
 * `frame-ancestors 'none'` is added here.
 * @param {string[]} pages the built pages' HTML
 * @param {string[]} [written] policies as they are
 */
export function policyFromPages(pages, written = []) {
  const directives = new Map();
  const metas = pages.map((html) => /<meta http-equiv="content-security-policy" content="([^"]*)"/i.exec(html)?.[1]);
  for (const content of [...written, ...metas]) {
    if (!content) continue;
    for (const directive of content.split(';')) {
      const [name, ...sources] = directive.trim().split(/\s+/);
      if (!name) continue;
      const known = directives.get(name) ?? new Set();
      for (const source of sources) known.add(source);
      directives.set(name, known);
    }
  }
  directives.set('frame-ancestors', new Set(["'none'"]));
  if (!directives.has('default-src')) directives.set('default-src', new Set(["'self'"]));
  return [...directives].map(([name, sources]) => [name, ...sources].join(' ')).join('; ');
}

/**
 * The policies @astrojs/node wrote for the built pages in `dir` (its `staticHeaders`: _headers.json, a list of
 * { pathname, headers: [{ key, value }] }); none when the build has no such file.
 */
export function builtPolicies(dir) {
  let entries;
  try {
    entries = JSON.parse(readFileSync(join(dir, '_headers.json'), 'utf8'));
  } catch {
    return [];
  }
  return entries.flatMap((/** @type {{ headers?: { key: string, value: string }[] }} */ entry) =>
    (entry.headers ?? []).filter((h) => h.key.toLowerCase() === 'content-security-policy').map((h) => h.value),
  );
}

/** A policy that also forbids framing. */
function framingForbidden(policy) {
  return policy.includes('frame-ancestors') ? policy : `${policy.replace(/;\s*$/, '')}; frame-ancestors 'none'`;
}

/** Answers slower than this are reported on stderr with their method, path, status and time. */
export const SLOW_ANSWER_MS = 2000;

/** Wraps a Node request handler so an answer that takes longer than `slowMs` (or never comes) is reported. */
export function reportingSlowAnswers(handler, { slowMs = SLOW_ANSWER_MS, report = (line) => serverLog.warn(line) } = {}) {
  return (req, res) => {
    const started = performance.now();
    res.once('close', () => {
      const ms = Math.round(performance.now() - started);
      if (ms < slowMs) return;
      const path = (req.url ?? '').split('?')[0];
      const outcome = res.writableFinished ? String(res.statusCode) : 'closed before answering';
      report(`[aurelia] slow answer: ${req.method} ${path} ${outcome} after ${ms} ms`);
    });
    handler(req, res);
  };
}

/**
 * A redirect's target as a path on this shop. A browser reads a Location that starts with two slashes (or a slash and a
 * backslash, or either with blanks between) as another host: `//evil.com/x` leaves the shop. Any such run at the
 * start is one slash here, whatever produced the Location (our trailing-slash redirect, Astro's own).
 */
export function onThisSite(location) {
  return typeof location === 'string' && location.startsWith('/') ? `/${location.replace(/^[/\\\s]+/, '')}` : location;
}

/**
 * Wraps a Node request handler so every answer carries the security headers, every document (isDocument) the
 * document headers and the CSP, and every picture (isPicture) the policy for pictures. Without `stripe`, Stripe's origins are taken out of every policy sent (see
 * scripts/csp.mjs).
 */
export function withSecurityHeaders(handler, { policy: pagesPolicy, https, stripe = false }) {
  const headers = securityHeaders({ https });
  // Astro sends the same few policies with its on-demand pages: each is rewritten once, not on every answer.
  const rewritten = new Map();
  const allowed = (value) => {
    if (stripe) return value;
    let policy = rewritten.get(value);
    if (policy === undefined) {
      policy = withoutStripe(value);
      if (rewritten.size < 64) rewritten.set(value, policy);
    }
    return policy;
  };
  const policy = allowed(pagesPolicy);
  return (req, res) => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    const writeHead = res.writeHead;
    res.writeHead = function (status, ...rest) {
      // Headers given to writeHead itself (Astro gives them all there) win over those set before.
      const given = rest.find((arg) => arg && typeof arg === 'object' && !Array.isArray(arg));
      const givenName = (name) => (given ? Object.keys(given).find((key) => key.toLowerCase() === name) : undefined);
      const header = (name) => {
        const key = givenName(name);
        return key === undefined ? res.getHeader(name) : given[key];
      };
      /** Sets a header where the answer will take it from. */
      const put = (name, value) => {
        const key = givenName(name);
        if (key === undefined) res.setHeader(name, value);
        else given[key] = value;
      };
      if (isDocument(status, header('content-type'))) {
        for (const [name, value] of Object.entries(DOCUMENT_HEADERS)) if (header(name) === undefined) put(name, value);
        // Astro sends its own policy for on-demand pages: keep it, and forbid framing in it too.
        const existing = header('content-security-policy');
        put('content-security-policy', existing === undefined ? policy : framingForbidden(allowed(String(existing))));
      } else if (isPicture(header('content-type'))) {
        // Whoever answers with a picture (a built or carried-over file, the app), it can do nothing but be one.
        put('content-security-policy', PICTURE_POLICY);
      }
      const location = header('location');
      if (location !== undefined) put('location', onThisSite(location));
      return writeHead.call(this, status, ...rest);
    };
    handler(req, res);
  };
}

/** What a request Node's parser refuses is answered with, by the parser's error code. */
const UNREADABLE = {
  HPE_INVALID_METHOD: [405, 'Method Not Allowed', 'method_not_allowed', 'The request uses a method this shop does not know.'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'headers_too_large', "The request's headers are too large."],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout', 'The request took too long to arrive.'],
  other: [400, 'Bad Request', 'bad_request', 'The request could not be read.'],
};

/**
 * Answers a request Node cannot read (an unknown method, a malformed line, headers too large, one too slow to arrive)
 * as every /api error is answered, JSON in the one error shape, instead of Node's bare 400. Returns the server.
 */
export function answeringClientErrors(server) {
  server.on('clientError', (error, socket) => {
    // As Node itself does: nothing is written into an answer already under way on this connection.
    if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?._headerSent) return socket.destroy();
    const [status, reason, code, message] = UNREADABLE[error.code] ?? UNREADABLE.other;
    const body = JSON.stringify({ error: { code, message } });
    const head = [
      `HTTP/1.1 ${status} ${reason}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      'X-Content-Type-Options: nosniff',
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
  return server;
}

/** Whether a path is for the app alone: /api is only ever answered by its endpoints, never from a file. */
const forTheApp = (path) => path === '/api' || path.startsWith('/api/');

/**
 * The files under `root` ('/about.html'), its directories ('/', '/product'), and the encodings the build wrote beside
 * each file (['br', 'gzip']).
 */
function builtFiles(root) {
  const files = new Set();
  const dirs = new Set(['/']);
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = `/${relative(root, join(entry.parentPath, entry.name)).split(sep).join('/')}`;
    if (entry.isFile()) files.add(path);
    else if (entry.isDirectory()) dirs.add(path);
  }
  const encoded = new Map();
  for (const file of files) {
    if (!Object.hasOwn(TEXT_TYPES, extname(file))) continue;
    const encodings = Object.entries(ENCODINGS)
      .filter(([, suffix]) => files.has(`${file}${suffix}`))
      .map(([encoding]) => encoding);
    if (encodings.length > 0) encoded.set(file, encodings);
  }
  return { files, dirs, encoded };
}

/** ETag of a file as `send` makes it (size and modification time), with the encoding of the bytes named. */
const encodedEtag = (stat, encoding) => `W/"${stat.size.toString(16)}-${stat.mtime.getTime().toString(16)}-${encoding}"`;

/**
 * Serves the built files in `client` (dist/client), and hands `app` (Astro's handler, middleware mode) every request
 * for /api and every path no file answers, as Astro's standalone server does for this build (trailingSlash 'never',
 * build.format 'file'): /about is about.html, /about/ redirects to /about, fingerprinted /_astro files are cached for
 * a year, dot files and paths outside `client` are never served.
 *
 * A file the build precompressed (scripts/precompress.mjs: file.br, file.gz beside it) is sent in the encoding the
 * request accepts, brotli first (negotiateEncoding: q-values count, q=0 refuses), with that file's length, an ETag of
 * its own (so a 304 answers for the encoding the browser holds) and `Vary: Accept-Encoding` on every answer for it,
 * whichever encoding. A request with a Range gets the file itself: its byte ranges are the ones a client can reassemble.
 * Which files were precompressed is read once, here: the build does not change under a running server.
 */
export function withBuiltFiles(app, client) {
  const root = resolve(client);
  const { files, dirs, encoded } = builtFiles(root);
  return (req, res) => {
    const url = req.url ?? '/';
    try {
      decodeURI(url);
    } catch {
      res.writeHead(400);
      res.end('Bad request.');
      return;
    }
    const cut = url.search(/[?#]/);
    const path = cut >= 0 ? url.slice(0, cut) : url;
    if (forTheApp(path)) return app(req, res);
    const query = url.indexOf('?') >= 0 ? url.slice(url.indexOf('?')).split('#')[0] : '';
    // Whether the path names a directory of the build: known from start-up, no file system call per request.
    const isDirectory = dirs.has(posix.normalize(decodeURI(path)).replace(/(.)\/+$/, '$1'));
    if (isDirectory && path !== '/' && path.endsWith('/')) {
      res.writeHead(301, { location: onThisSite(`${path.slice(0, -1)}${query}`) });
      res.end();
      return;
    }
    const pathname = posix.normalize(isDirectory && !path.endsWith('/') ? `${path}/index.html` : path);
    const dotfiles = pathname.startsWith('/.well-known/') ? 'allow' : 'deny';

    // The file `send` would find for this path (the directory's index.html; itself; else with .html when it names no
    // extension), if the build precompressed it. `built` is its URL path.
    let built = pathname;
    let encodings;
    try {
      const decoded = decodeURIComponent(pathname);
      if (pathname.endsWith('/')) built = `${pathname}index.html`;
      else if (!files.has(decoded) && extname(decoded) === '') built = `${pathname}.html`;
      encodings = encoded.get(decodeURIComponent(built));
    } catch {}
    const type = TEXT_TYPES[/** @type {keyof typeof TEXT_TYPES} */ (extname(built))];
    // No such file in the build: the app answers (a page rendered on demand, or the 404 page) without `send` first
    // looking on disk for it and its .html (two failed stat calls and an error object on each such request).
    let inBuild = true;
    try {
      inBuild = files.has(decodeURIComponent(built));
    } catch {}
    if (!inBuild) return app(req, res);

    /** Sends `target` (a URL path under root); `missing` is called instead when there is no such file. */
    function serveFile(target, options, { encoding, missing }) {
      const stream = send(req, target, { root, dotfiles, ...options });
      // Before a file is found, an error means there is none. After, it is a failure to read it.
      let found = false;
      stream.on('file', () => {
        found = true;
      });
      stream.on('error', (error) => {
        if (!found) return missing();
        const status = error.statusCode ?? error.status ?? 500;
        if (status >= 500) serverLog.error({ path: pathname, err: String(error) }, 'a built file could not be read');
        res.writeHead(status);
        res.end(status >= 500 ? 'Internal server error' : '');
      });
      // Set before `send` looks at conditional and range headers, so a 304 or a HEAD says them too.
      stream.on('headers', (_res, _path, stat) => {
        if (pathname.startsWith('/_astro/')) res.setHeader('cache-control', 'public, max-age=31536000, immutable');
        if (!encodings) return;
        res.setHeader('vary', 'Accept-Encoding');
        res.setHeader('content-type', type);
        if (encoding === 'identity') return;
        res.setHeader('content-encoding', encoding);
        res.setHeader('etag', encodedEtag(stat, encoding));
      });
      stream.pipe(res);
    }

    // Not found: the app answers (a page rendered on demand, or the 404 page).
    const plain = () => serveFile(pathname, { extensions: ['html'] }, { encoding: 'identity', missing: () => app(req, res) });
    if (!encodings) return plain();
    const encoding = req.headers.range === undefined ? negotiateEncoding(req, encodings) : 'identity';
    if (encoding === 'identity') return plain();
    const suffix = ENCODINGS[/** @type {keyof typeof ENCODINGS} */ (encoding)];
    // Ranges of the encoded bytes are not offered (a Range request gets the file itself); should the encoded file have
    // gone since start-up, the file itself is sent.
    serveFile(`${built}${suffix}`, { acceptRanges: false }, { encoding, missing: plain });
  };
}

/** Where the app's bundle leaves the function that stops its services (src/app/services.server.ts, STOP_SERVICES). */
const STOP_SERVICES = Symbol.for('aurelia.stopServices');

/** SHUTDOWN_GRACE_SECONDS in ms: how long requests under way get after SIGTERM (1 to 300 s, default 10). */
export function shutdownGraceMs(value = process.env.SHUTDOWN_GRACE_SECONDS) {
  if (value === undefined || value.trim() === '') return 10_000;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 300) {
    throw new Error('SHUTDOWN_GRACE_SECONDS must be a whole number of seconds from 1 to 300');
  }
  return seconds * 1000;
}

/**
 * Stops `server` without dropping a request it took: from the call on, it accepts no connection, closes the kept-alive
 * ones that are idle, and answers the requests under way, each with `Connection: close`, for at most `graceMs`
 * (past that, their connections are closed). Then `stop` runs (the app's services), within what is left of the grace
 * and at least 2 s. Resolves to the exit code: 0 when everything finished, 1 when something had to be cut.
 * Install it before the server takes requests: it counts them from their start.
 */
export function gracefulShutdown(server, { graceMs, stop, log = console.log }) {
  const inFlight = new Set();
  let draining = false;
  let drained = () => {};
  server.prependListener('request', (_req, res) => {
    inFlight.add(res);
    // After the answer, a kept-alive connection would wait for a next request that must go to the next server.
    if (draining) res.setHeader('connection', 'close');
    res.once('close', () => {
      inFlight.delete(res);
      if (draining && inFlight.size === 0) drained();
    });
  });
  const within = (promise, ms) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      promise
        .then(
          () => resolve(true),
          () => resolve(false),
        )
        .finally(() => clearTimeout(timer));
    });
  return async function shutdown(signal) {
    const started = Date.now();
    draining = true;
    log(`${signal}: taking no new connections; answering ${inFlight.size} request(s) under way (at most ${graceMs / 1000} s)`);
    server.close();
    server.closeIdleConnections();
    for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
    const answered = inFlight.size === 0 || (await within(new Promise((resolve) => (drained = resolve)), graceMs));
    if (!answered) {
      log(`${inFlight.size} request(s) still under way after ${graceMs / 1000} s: their connections are closed`);
      server.closeAllConnections();
    }
    const stopped = await within(Promise.resolve().then(stop), Math.max(2_000, graceMs - (Date.now() - started)));
    if (!stopped) log('the services did not stop in time (an outbox job under way runs again when its lease ends)');
    log(`stopped after ${Date.now() - started} ms`);
    return answered && stopped ? 0 : 1;
  };
}

/**
 * Asks the shop's readiness endpoint through a private loopback listener; resolves to its status and body. When it is
 * ready, `warm` paths are asked too (their answers do not matter): their code is then loaded before a shopper asks.
 */
async function readiness(server, warm = []) {
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/health`);
    const answer = { status: res.status, body: await res.text() };
    if (answer.status === 200) {
      for (const path of warm)
        await fetch(`http://127.0.0.1:${port}${path}`).then(
          (r) => r.arrayBuffer(),
          () => {},
        );
    }
    return answer;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * Where the app finds the build this server answers with, and how to switch it (src/features/editor/publish.server.ts,
 * which builds the catalogue editors publish). `switchTo(dir)` loads the build in `dir`, checks that it answers ready, then
 * sends every request that arrives from then on to it; requests under way finish on the build they started on. The app
 * may set `caughtUp`: the server listens once it has settled (the published catalogue is served from the first request).
 */
export const SERVED_BUILD = Symbol.for('aurelia.servedBuild');

/**
 * Copies into the build in `to` the fingerprinted files (/_astro/…: scripts, styles, pictures) of the build in `from` that
 * it lacks. A page a shopper opened before a switch still asks for the files it was built with (a script loaded on first
 * use, a picture further down): they must keep answering. Only ever adds files, whose names carry a digest of their bytes.
 */
export function carryAssets(from, to) {
  const source = join(from, '_astro');
  const target = join(to, '_astro');
  let names;
  try {
    names = readdirSync(source);
  } catch {
    return;
  }
  mkdirSync(target, { recursive: true });
  const present = new Set(readdirSync(target));
  for (const name of names) if (!present.has(name)) copyFileSync(join(source, name), join(target, name));
}

/** Paths a new build is asked before it takes requests, so the code they run is loaded (see readiness). */
const WARM_PATHS = ['/api/auth/session', '/api/cart', '/api/stock', '/orders', '/a-page-that-is-not-here'];

/**
 * An on-demand page known whole before its head is sent gets a policy with only the hashes of its own inline scripts
 * and styles (policyForPage): about 0.8 KB less in a head that is never compressed, which brings documents such as
 * /orders under the 14.6 KB TCP sends in its first round trip. A page sent as a stream keeps Astro's whole list.
 * @param {import('node:http').ServerResponse} res
 * @param {Buffer} body
 */
export function fitPolicy(res, body) {
  const policy = res.getHeader('content-security-policy');
  if (policy === undefined || !/^\s*text\/html/i.test(String(res.getHeader('content-type') ?? ''))) return;
  res.setHeader('content-security-policy', policyForPage(String(policy), body));
}

/** Loads the build in `dir` (dist/ or a publish's) as one request handler: its app, its files, its pages' policy. */
async function loadBuild(dir, { https, stripe }) {
  // The adapter's middleware mode: Astro's handler for what the app answers; withBuiltFiles serves the files.
  const { handler: app } = await import(pathToFileURL(join(dir, 'server/entry.mjs')).href);
  // On-demand answers (pages, /api JSON) are compressed as they are sent; the built files were compressed at build time.
  const handler = withBuiltFiles(markingApp(compressing(app, { wholeBody: fitPolicy })), join(dir, 'client'));
  const pages = htmlFiles(join(dir, 'client')).map((file) => readFileSync(file, 'utf8'));
  const written = builtPolicies(dir);
  // Without the hashes of the pages' inline scripts every page would be broken, and quietly: better not to start.
  if (written.length === 0 && !pages.some((html) => /<meta http-equiv="content-security-policy"/i.test(html)))
    throw new Error(`the build in ${dir} has no Content-Security-Policy for its pages (_headers.json)`);
  const policy = policyFromPages(pages, written);
  return withSecurityHeaders(handler, { policy, https, stripe });
}

/** Starts the shop: ports first, then listening on HOST:PORT. Exits non-zero when the shop cannot start. */
export async function serve({ host = process.env.HOST ?? '127.0.0.1', port = Number(process.env.PORT ?? 4321) } = {}) {
  process.env.HOST = host;
  process.env.PORT = String(port);
  // Stripe is configured when its keys are set (the server refuses to start with only some of them, see readiness).
  const stripe = (process.env.STRIPE_SECRET_KEY ?? '').trim() !== '';
  const https = (process.env.SITE_URL ?? '').startsWith('https:');
  let answer = await loadBuild(join(root, 'dist'), { https, stripe });
  const served = {
    dir: join(root, 'dist'),
    /** @type {Promise<void> | undefined} */
    caughtUp: undefined,
    /** @param {string} dir */
    async switchTo(dir) {
      carryAssets(join(served.dir, 'client'), join(dir, 'client'));
      const next = await loadBuild(dir, { https, stripe });
      // What shoppers ask of the app most (a cart, a session, stock, a page rendered on demand) is loaded first.
      const ready = await readiness(http.createServer(next), WARM_PATHS);
      if (ready.status !== 200)
        throw new Error(`the new build did not answer ready (${ready.status}: ${ready.body.slice(0, 200)})`);
      answer = next;
      served.dir = dir;
    },
  };
  Reflect.set(globalThis, SERVED_BUILD, served);
  const current = (req, res) => answer(req, res);
  const server = answeringClientErrors(http.createServer(withRequestIds(reportingSlowAnswers(current), serverLog)));
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  // An idle kept-alive connection is closed by the client, not by us: with Node's 5 s default, a client reusing a
  // connection at the moment the server drops it gets ECONNRESET (seen in the e2e suite). 65 s outlasts the 60 s idle
  // timeout of common load balancers, so a proxy never sends a request down a connection we are closing.
  server.keepAliveTimeout = 65_000;
  const graceMs = shutdownGraceMs();
  const shutdown = gracefulShutdown(server, {
    graceMs,
    log: (line) => serverLog.info(line),
    stop: async () => {
      await globalThis[STOP_SERVICES]?.();
    },
  });

  // The first readiness check opens the database and migrates it: slow by nature, so not reported.
  const ready = await readiness(http.createServer(current));
  if (ready.status !== 200) {
    // The reason was printed by the server as it failed to start ("[aurelia] cannot start: …").
    console.error(`Aurelia could not start (readiness answered ${ready.status}).`);
    process.exit(1);
  }
  // The catalogue last published (which dist/, built from the repository's files, does not have) is served from the
  // first request on: the app builds it now if no build of it is on disk. Should that fail, the app said why, and it
  // tries again as it checks for publishes.
  await served.caughtUp;
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  console.log(`Aurelia is being served at ${origin}/`);
  // A second signal stops at once, unless it comes within a second of the first: Ctrl-C reaches npm start and this
  // process both, and npm start passes its own on (and systemd's default kill mode signals every process of the unit).
  let first = 0;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (first === 0) {
        first = Date.now();
        shutdown(signal).then((code) => process.exit(code));
      } else if (Date.now() - first > 1000) {
        serverLog.warn(`${signal} again: stopping now`);
        process.exit(1);
      }
    });
  }
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Nothing the server creates is open to another local account: the embedded database and its backups above all
  // (src/server/db/private-dir.ts), whatever umask the service was started with. Only when run as the server, not
  // when a test imports this file.
  process.umask(0o077);
  serve().catch((error) => {
    console.error(`Aurelia could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
