// What the edge answers with, and the switch between them (decision 019): the app's code, loaded once from the build
// (Astro's handler in middleware mode, from dist/server/entry.mjs), and a file table: the build's files (dist/client)
// with the files of the release of the catalogue served, which the app's publisher renders through the app itself and
// hands over (ReleaseSwitch in src/edge/switch.ts). A switch replaces the table in a single assignment, from the next
// request on; requests under way finish on what they started on. No module is loaded for a release: a server's memory
// does not grow with publishes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { compressing, windowBits } from './compression.ts';
import { policyForPage } from './csp.ts';
import { type FileTable, fileTable, releaseFilesIn } from './file-table.ts';
import { isText, MIN_BYTES } from './file-types.ts';
import { type Handler, markingApp } from './log.ts';
import {
  type AnswerHeaders,
  answerHeaders,
  builtPolicies,
  fitPolicy,
  policyFromPages,
  withSecurityHeaders,
} from './security-headers.ts';
import { reportingSlowAnswers } from './slow-answers.ts';
import { servingFiles } from './static-files.ts';
import type { ReleaseFile, ReleaseFiles, ReleaseSwitch, RenderedFile } from './switch.ts';

/** How releases are loaded: the security headers' options, and where the app's slow answers are reported. */
export interface ReleaseOptions {
  https: boolean;
  stripe: boolean;
  slow?: ((line: string) => void) | undefined;
}

/** What is served: how it answers, its files, and the build it came from. */
export interface Release {
  readonly dir: string;
  readonly files: ReleaseFiles;
  readonly table: FileTable;
  readonly handle: Handler;
}

/** The build in `dir`: its app (Astro's handler), its files (dist/client), and the policies Astro wrote for them. */
export interface Build {
  readonly dir: string;
  readonly app: Handler;
  readonly files: ReleaseFiles;
  readonly policies: readonly string[];
}

/** Loads the build in `dir` (its server code, once: the app is the same for every release) and its files. */
export async function loadBuild(dir: string): Promise<Build> {
  const { handler } = (await import(pathToFileURL(join(dir, 'server/entry.mjs')).href)) as { handler: Handler };
  return { dir, app: handler, files: releaseFilesIn(join(dir, 'client')), policies: builtPolicies(dir) };
}

/** The build's own release: its files alone (the catalogue's pages are rendered by the app until one is served). */
export function buildRelease(build: Build, { https, stripe, slow }: ReleaseOptions): Release {
  const app = slow ? reportingSlowAnswers(build.app, { report: slow }) : build.app;
  return releaseOf(
    build.dir,
    app,
    build.files,
    answerHeaders({ policy: policyFromPages([], [...build.policies]), https, stripe }),
  );
}

/** A release of `files` answering with `app` (Astro's handler) for what no file answers, under `security`. */
export function releaseOf(dir: string, app: Handler, files: ReleaseFiles, security: AnswerHeaders): Release {
  const table = fileTable(files, security);
  // On-demand answers (pages, /api JSON) are compressed as they are sent; the built files were compressed at build time.
  const wrapped = withSecurityHeaders(markingApp(compressing(app, { wholeBody: fitPolicy })), security);
  return { dir, files, table, handle: servingFiles(wrapped, () => table, security) };
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Where a rendered page is kept in the table: as the build would write it (/ is /index.html, /about is /about.html). */
export function filePath(file: Pick<RenderedFile, 'path' | 'headers'>): string {
  const html = /^\s*text\/html/i.test(file.headers['content-type'] ?? '');
  if (!html || /\.[a-z0-9]+$/i.test(file.path)) return file.path;
  return file.path === '/' ? '/index.html' : `${file.path}.html`;
}

/** A rendered file as the table holds it: its bytes, and brotli (at its best) and gzip when they are smaller. */
export async function releaseFile(file: RenderedFile, modifiedMs: number): Promise<ReleaseFile> {
  const path = filePath(file);
  const bytes = file.body;
  const dot = path.lastIndexOf('.');
  if (bytes.length < MIN_BYTES || !isText(dot >= 0 ? path.slice(dot) : '')) return { bytes, modifiedMs };
  // The window no larger than the file (windowBits): at the default 22 bits brotli allocates 4 MB and more for each.
  const params = {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    [zlib.constants.BROTLI_PARAM_LGWIN]: windowBits(bytes.length),
  };
  const [br, gz] = await Promise.all([brotli(bytes, { params }), gzip(bytes, { level: 9 })]);
  return {
    bytes,
    modifiedMs,
    encoded: { br: br.length < bytes.length ? br : undefined, gzip: gz.length < bytes.length ? gz : undefined },
  };
}

/**
 * Renders pages through `app` (Astro's handler) on a listener of its own on the loopback, with the locals each render
 * is given (the app's middleware reads them; no request from outside can set them): a render's id, in a header only
 * this process knows, names them.
 */
export async function pageRenderer(app: Handler): Promise<ReleaseSwitch['render']> {
  const pending = new Map<string, Readonly<Record<string, unknown>>>();
  const server = http.createServer((req, res) => {
    const locals = pending.get(String(req.headers['x-aurelia-render'] ?? ''));
    (app as (...args: unknown[]) => void)(req, res, undefined, locals ? { ...locals } : {});
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  server.unref();
  const { port } = server.address() as AddressInfo;
  let n = 0;
  return async (path, locals) => {
    const id = `${process.pid}-${++n}-${Math.random().toString(36).slice(2)}`;
    pending.set(id, locals);
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-aurelia-render': id }, redirect: 'manual' });
      const body = new Uint8Array(await res.arrayBuffer());
      return { path, status: res.status, headers: Object.fromEntries(res.headers), body };
    } finally {
      pending.delete(id);
    }
  };
}

/**
 * Asks the readiness endpoint of `handle` through a private loopback listener (the first opens the database and
 * migrates it, before the server listens); resolves to its status and body.
 */
export async function readiness(handle: Handler): Promise<{ status: number; body: string }> {
  const server = http.createServer(handle);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/health`);
    return { status: res.status, body: await res.text() };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** The switch of what is served: the release served now, and ReleaseSwitch for the app to drive. */
export interface Switch extends ReleaseSwitch {
  /** The release served now: read once per request. */
  current(): Release;
}

/** A switch serving the build's own files until the app's publisher hands it a release of the catalogue. */
export async function releaseSwitch(build: Build, options: ReleaseOptions): Promise<Switch> {
  const app = options.slow ? reportingSlowAnswers(build.app, { report: options.slow }) : build.app;
  let served = buildRelease(build, options);
  return {
    caughtUp: undefined,
    current: () => served,
    render: await pageRenderer(build.app),
    async prepare(files) {
      // The release's policy: every directive of the build's and of the policies the app rendered the pages with; each
      // page is sent with the hashes of its own inline scripts and styles only (about 1 KB less in a head that is never
      // compressed, as fitPolicy does for pages rendered on demand).
      const rendered = files.flatMap((f) => f.headers['content-security-policy'] ?? []);
      const security = answerHeaders({ ...options, policy: policyFromPages([], [...build.policies, ...rendered]) });
      const policy = security.document['content-security-policy'] ?? '';
      const modifiedMs = Date.now();
      const merged = new Map(build.files);
      for (const file of files) {
        const served = await releaseFile(file, modifiedMs);
        const page = filePath(file).endsWith('.html');
        merged.set(filePath(file), page ? { ...served, policy: policyForPage(policy, Buffer.from(file.body)) } : served);
      }
      const next = releaseOf(build.dir, app, merged, security);
      return () => {
        served = next;
      };
    },
  };
}
