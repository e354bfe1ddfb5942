// Publishing the catalogue editors saved (decision 008): a request is queued in public.catalogue_publishes; this
// server's publisher takes every queued request at once (so publishes made together run one build), builds the shop
// from the seed plus the saved revisions into a directory of its own, and switches shoppers to the new build once it
// succeeded (scripts/serve.mjs, SERVED_BUILD). Every server on the database follows the newest live publish the same way.
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import { logger, outsideRequest } from '@/server/log.server';
import { processShared } from '@/server/process-shared.server';
import { projectRoot } from './catalogue-files.server';
import {
  type Build,
  buildShop,
  catalogueSnapshot,
  codeDigest,
  OUT_DIR,
  PublishError,
  withoutPaths,
} from './publish-build.server';

export type PublishStatus = 'queued' | 'building' | 'live' | 'failed';

/** One publish as the editor sees it. */
export interface Publish {
  id: number;
  status: PublishStatus;
  requestedBy: string;
  requestedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** The newest save it includes (0: the seed alone); known once its build started. */
  upToRevision: number;
  /** Why the build failed, in words; null otherwise. */
  error: string | null;
}

/** What the editor's Publish panel shows. */
export interface PublishState {
  /** What shoppers are served: the newest publish that went live, or null (the seed as built). */
  live: Publish | null;
  /** The newest publish, whatever its state (the same as `live` when that is the newest). */
  latest: Publish | null;
  /** Saves made since what is live: what a publish now would add. */
  unpublishedSaves: number;
}

/** Who asked. */
export interface Publisher {
  id: string | null;
  email: string;
}

interface PublishRow {
  id: string | number;
  status: PublishStatus;
  requested_by_email: string;
  requested_at: Date | string;
  started_at: Date | string | null;
  finished_at: Date | string | null;
  up_to_revision: string | number;
  error: string | null;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

function toPublish(row: PublishRow): Publish {
  return {
    id: Number(row.id),
    status: row.status,
    requestedBy: row.requested_by_email,
    requestedAt: new Date(row.requested_at).toISOString(),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    upToRevision: Number(row.up_to_revision),
    // Stored before paths were taken out of what the editor is told, a row's reason may still name one.
    error: row.error === null ? null : withoutPaths(row.error),
  };
}

const COLUMNS = 'id, status, requested_by_email, requested_at, started_at, finished_at, up_to_revision, error';

/** The publish panel's state. */
export async function publishState(db: Database): Promise<PublishState> {
  const [row] = await serviceStatement<{ live: PublishRow | null; latest: PublishRow | null; unpublished: string | number }>(
    db,
    `with live as (select ${COLUMNS} from public.catalogue_publishes where status = 'live' order by id desc limit 1),
          latest as (select ${COLUMNS} from public.catalogue_publishes order by id desc limit 1)
     select (select to_jsonb(live) from live) as live, (select to_jsonb(latest) from latest) as latest,
            (select count(*) from public.catalogue_revisions
              where id > coalesce((select up_to_revision from live), 0)) as unpublished`,
  );
  return {
    live: row?.live ? toPublish(row.live) : null,
    latest: row?.latest ? toPublish(row.latest) : null,
    unpublishedSaves: Number(row?.unpublished ?? 0),
  };
}

/**
 * Queues a publish of everything saved so far and wakes this server's builder. Returns the publish; requests made while
 * another is still queued are built by the same build.
 */
export async function requestPublish(db: Database, by: Publisher): Promise<Publish> {
  const [row] = await serviceStatement<PublishRow>(
    db,
    `insert into public.catalogue_publishes (requested_by_id, requested_by_email) values ($1, $2) returning ${COLUMNS}`,
    [by.id, by.email],
  );
  if (!row) throw new Error('the publish was not recorded');
  wake.publisher();
  return toPublish(row);
}

/**
 * Wakes this server's publisher (set once it runs; see startPublisher). Kept per process: the publisher is the one the
 * first build started, and a request answered by a later build must reach it.
 */
const wake = processShared<{ publisher: () => void }>('publishWake', () => ({ publisher: () => {} }));

// The publisher ------------------------------------------------------------------------------------------------------

/** What scripts/serve.mjs offers the app (SERVED_BUILD there): the build it answers with, and how to switch it. */
export interface ServedBuild {
  dir: string;
  /** The server listens once this settles: set to the publisher's first look at what is live. */
  caughtUp?: Promise<void> | undefined;
  /** Loads the build in `dir`, checks it answers ready, and answers every request from then on with it. */
  switchTo(dir: string): Promise<void>;
}

/** Why this server does not serve the catalogue last published (it could not build or switch to it), or null. */
const health = processShared<{ problem: string | null }>('publishHealth', () => ({ problem: null }));

/** The readiness check's word on the catalogue served: 'ok', or why it is not the one last published. */
export function catalogueHealth(): string {
  return health.problem ? `failed: ${health.problem}` : 'ok';
}

/** The server's build switch, or null when the app does not run under scripts/serve.mjs (astro dev, tests). */
export function servedBuild(): ServedBuild | null {
  return (Reflect.get(globalThis, Symbol.for('aurelia.servedBuild')) as ServedBuild | undefined) ?? null;
}

/** The server this publisher is, as the publishes table names it: the host and the port it serves. */
const serverName = () => `${hostname()}:${process.env.PORT ?? ''}`;

export interface PublisherOptions {
  served: ServedBuild;
  /** How often to look for publishes made on other servers (and queued ones this server missed). */
  checkEveryMs: number;
  buildsDir: string;
  root?: string;
  /** Builds a snapshot (buildShop; tests give their own). */
  build?: typeof buildShop;
}

export interface PublishWorker {
  /** Settles once the publisher has looked at what is live (and switched to it) for the first time. */
  caughtUp: Promise<void>;
  /** Looks for work now (a publish was just requested). */
  nudge(): void;
  /** Stops looking; a build under way is stopped, and its publish marked failed. */
  stop(): Promise<void>;
}

const log = logger('publish');

/** How long after a publish request the publisher looks: requests made within it are built in one build. */
const PUBLISH_SETTLE_MS = 300;

/**
 * Starts this server's publisher: it builds the publishes queued on the database (all of them in one build), and
 * switches the server to the build of the newest live publish, whichever server published it. The first look happens
 * now (caughtUp); then every `checkEveryMs`, and whenever a publish is requested on this server.
 */
export function startPublisher(db: Database, options: PublisherOptions): PublishWorker {
  const root = options.root ?? projectRoot();
  const buildsDir = resolve(root, options.buildsDir);
  const build = options.build ?? buildShop;
  const { served } = options;
  const name = serverName();
  const abort = new AbortController();
  const code = codeDigest(root);
  /** The build this server answers with (null: dist/, as `npm start` built it), and the live publish it is. */
  let servedKey: string | null = null;
  let servedPublish = 0;
  /** A live publish this server could not build, and when it last tried: it tries again after a while, not every look. */
  let failed: { publish: number; at: number } | null = null;
  const made: string[] = [];

  async function switchTo(done: Build): Promise<void> {
    await served.switchTo(join(done.dir, OUT_DIR));
    const previous = servedKey;
    servedKey = done.key;
    // This server's older builds go, but the one it served last: requests that started on it may still be reading it.
    made.push(done.dir);
    const keep = new Set([done.dir, made.find((dir) => previous !== null && dir.includes(previous))]);
    for (const dir of made.splice(0).filter((d) => !keep.has(d))) await rm(dir, { recursive: true, force: true });
    made.push(...[...keep].filter((d): d is string => d !== undefined));
  }

  async function buildAndSwitch(upTo: number): Promise<Build> {
    const now = await codeDigest(root);
    if (now !== (await code)) {
      throw new PublishError(
        "The shop's code on this server changed since it started (an update was installed): restart the shop, then publish again.",
      );
    }
    const snapshot = await catalogueSnapshot(db, upTo, root);
    const done = await build(snapshot, { root, buildsDir, code: now, signal: abort.signal });
    if (done.key !== servedKey) await switchTo(done);
    return done;
  }

  /** Builds every queued publish, in one build. Returns whether there were any. */
  async function publishQueued(): Promise<boolean> {
    const claimed = await serviceStatement<{ id: string | number; up_to_revision: string | number }>(
      db,
      `update public.catalogue_publishes
          set status = 'building', started_at = now(), built_by = $1,
              up_to_revision = (select coalesce(max(id), 0) from public.catalogue_revisions)
        where status = 'queued'
        returning id, up_to_revision`,
      [name],
    );
    if (claimed.length === 0) return false;
    const ids = claimed.map((row) => Number(row.id));
    const upTo = Number(claimed[0]?.up_to_revision ?? 0);
    try {
      const done = await buildAndSwitch(upTo);
      await serviceStatement(
        db,
        `update public.catalogue_publishes set status = 'live', finished_at = now(), digest = $2 where id = any($1::bigint[])`,
        [ids, done.key],
      );
      servedPublish = Math.max(...ids);
      health.problem = null;
      log.info(
        { event: 'catalogue.published', publishes: ids, upTo, buildMs: done.ms },
        `published the catalogue as of save ${upTo}`,
      );
    } catch (error) {
      const reason = withoutPaths(
        error instanceof PublishError
          ? error.message
          : `The build could not finish: ${error instanceof Error ? error.message : String(error)}`,
        [root, buildsDir],
      );
      // The editor reads the reason in words; the log keeps the detail (the build's output, the path, the stack).
      const detail = error instanceof PublishError ? error.detail : undefined;
      log.error({ event: 'catalogue.publish_failed', publishes: ids, err: error, detail }, reason);
      await serviceStatement(
        db,
        `update public.catalogue_publishes set status = 'failed', finished_at = now(), error = left($2, 4000) where id = any($1::bigint[])`,
        [ids, reason],
      );
    }
    return true;
  }

  /** Switches to the newest live publish when this server does not serve it yet (it was published on another server). */
  async function followLive(): Promise<void> {
    const [live] = await serviceStatement<{ id: string | number; up_to_revision: string | number }>(
      db,
      `select id, up_to_revision from public.catalogue_publishes where status = 'live' order by id desc limit 1`,
    );
    if (!live || Number(live.id) === servedPublish) return;
    const id = Number(live.id);
    if (failed?.publish === id && Date.now() - failed.at < 5 * 60_000) return;
    try {
      const done = await buildAndSwitch(Number(live.up_to_revision));
      servedPublish = id;
      failed = null;
      health.problem = null;
      log.info({ event: 'catalogue.followed', publish: id, buildMs: done.ms, reused: done.reused }, `serving publish ${id}`);
    } catch (error) {
      failed = { publish: id, at: Date.now() };
      const reason = withoutPaths(error instanceof Error ? error.message : String(error), [root, buildsDir]);
      health.problem = `publish ${id} is live but this server could not switch to it (it tries again every 5 minutes): ${reason}`;
      const detail = error instanceof PublishError ? error.detail : undefined;
      log.error({ event: 'catalogue.follow_failed', publish: id, err: error, detail }, `cannot serve publish ${id}`);
    }
  }

  let running: Promise<void> | null = null;
  let again = false;
  // Looks run outside any request (the first was set going by the server's first readiness check, a later one by a
  // publish request), so their log lines do not carry a request id that is not theirs.
  const look = (): Promise<void> => outsideRequest(lookNow);
  function lookNow(): Promise<void> {
    if (abort.signal.aborted) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          while (!abort.signal.aborted && (await publishQueued()));
          if (!abort.signal.aborted) await followLive();
        } catch (error) {
          log.warn({ err: error }, 'looking for publishes failed');
        }
      } while (again && !abort.signal.aborted);
    })().finally(() => {
      running = null;
    });
    return running;
  }

  // A publish this server was building when it stopped will not finish: the editor is told, and can publish again.
  const caughtUp = serviceStatement(
    db,
    `update public.catalogue_publishes
        set status = 'failed', finished_at = now(), error = 'The server stopped before the build finished: publish again.'
      where status = 'building' and (built_by = $1 or started_at < now() - interval '15 minutes')`,
    [name],
  )
    .catch((error: unknown) => log.warn({ err: error }, 'could not clear unfinished publishes'))
    // The code this server started with is read before it takes a request (a later change is refused, not built).
    .then(() => code)
    .then(look);
  const timer = setInterval(() => void look(), options.checkEveryMs);
  timer.unref();
  // A publish requested here is looked at a moment later, so that publishes pressed together are built together.
  let soon: NodeJS.Timeout | undefined;
  wake.publisher = () => {
    clearTimeout(soon);
    soon = setTimeout(() => void look(), PUBLISH_SETTLE_MS);
  };
  return {
    caughtUp,
    nudge: () => void look(),
    async stop() {
      clearInterval(timer);
      clearTimeout(soon);
      wake.publisher = () => {};
      abort.abort();
      await running;
    },
  };
}
