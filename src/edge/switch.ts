// The one meeting point of the HTTP edge (src/edge, run by Node as it is) and the app (the Vite bundle it loads): the
// switch of what is served, which the app's publisher drives, the app's stop, which the edge calls on SIGTERM, and
// the one destination both write their log lines to.
//
// Both sides import this module, but they are two module graphs: the edge loads it from src/edge/switch.ts, the app's
// bundle has its own copy compiled in. So the object they share lives on globalThis under one symbol; this module is
// only its types and the calls to reach it. It imports nothing, so the app's bundle takes in nothing of the edge with
// it (tests/unit/import-rules.test.ts).

/** One file of a release, as the edge serves it from memory: its bytes, and the encodings the build wrote beside it. */
export interface ReleaseFile {
  readonly bytes: Uint8Array;
  /** The same content, compressed (what scripts/precompress.mjs wrote as file.br, file.gz), when smaller. */
  readonly encoded?: { readonly br?: Uint8Array | undefined; readonly gzip?: Uint8Array | undefined } | undefined;
  /** Last-Modified (ms since the epoch); by default when the release was loaded. */
  readonly modifiedMs?: number | undefined;
  /** A page's own Content-Security-Policy (the hashes of its own inline scripts and styles), else the release's. */
  readonly policy?: string | undefined;
}

/** The files of a release by URL path ('/about.html', '/_astro/app.Ab12.js'). */
export type ReleaseFiles = ReadonlyMap<string, ReleaseFile>;

/** A file as the app hands it to the edge: a page it rendered (status, headers, body) or a picture it holds. */
export interface RenderedFile {
  readonly path: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/**
 * What the edge offers the app's publisher (decision 019): how a release of the catalogue is rendered by the app
 * itself, and how it is served. The app's code is loaded once; a release is files only.
 */
export interface ReleaseSwitch {
  /** The edge listens once this settles: set by the app to its publisher's first look at what is live. */
  caughtUp?: Promise<void> | undefined;
  /**
   * Renders `path` through the app (a GET on a private listener of the edge), with `locals` as the request's
   * Astro.locals: what no request from outside can set. Resolves to the answer whole.
   */
  render(path: string, locals: Readonly<Record<string, unknown>>): Promise<RenderedFile>;
  /**
   * Readies `files` to be served (compressed, their heads made, beside the build's own files); resolves to the function
   * that serves them from the moment it is called, in one assignment. Requests under way finish as they started.
   */
  prepare(files: readonly RenderedFile[]): Promise<() => void>;
}

/** Where log lines go: each `write` is whole lines of JSON. */
export interface LogDestination {
  write(lines: string): unknown;
}

/** What the two sides put in the shared object. */
interface EdgeLink {
  served?: ReleaseSwitch | undefined;
  stopServices?: (() => Promise<void>) | undefined;
  log?: LogDestination | undefined;
}

const LINK = Symbol.for('aurelia.edge');

function link(): EdgeLink {
  const holder = globalThis as Record<symbol, unknown>;
  holder[LINK] ??= {};
  return holder[LINK] as EdgeLink;
}

/** The edge: offers its switch to the app (before it loads the app). */
export function offerReleaseSwitch(served: ReleaseSwitch): void {
  link().served = served;
}

/** The app: the edge's switch, or null when the app does not run under the edge (astro dev, tests). */
export function releaseSwitch(): ReleaseSwitch | null {
  return link().served ?? null;
}

/** The app: how its services stop, for the edge to call once no request is answered any more. */
export function offerStopServices(stop: () => Promise<void>): void {
  link().stopServices = stop;
}

/** The edge: stops the app's services (nothing when they never started). */
export async function stopServices(): Promise<void> {
  await link().stopServices?.();
}

/**
 * The edge: offers the destination its own lines go to (stdout, written in blocks rather than a write per line), so
 * that the app's lines join them there: two writers on one descriptor could cut into each other's lines.
 */
export function offerLogDestination(destination: LogDestination): void {
  link().log = destination;
}

/** The app: the edge's log destination, or null when the app does not run under the edge (astro dev, tests). */
export function logDestination(): LogDestination | null {
  return link().log ?? null;
}
