// This server's publisher (decisions 008, 018): it makes a release of the publishes queued on the database (all of them
// in one release) and switches the server to the release of the newest live publish, whichever server published it.
// A release holds its pages for each stretch of time in which the same sales run: the publisher sends the next
// stretch's pages from the moment a sale starts or ends. A scheduled publish is started at its time, exactly once
// across servers (decision 017). What editors ask for and see of a publish is publish.server.ts.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { serveCatalogue } from '@/features/catalogue/served-catalogue.server';
import type { Database } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import { logger, outsideRequest } from '@/server/log.server';
import type { ReleaseFiles } from '@/server/release-files/release-files.port';
import { publishedWords, publishFailedWords } from './activity-words';
import { projectRoot } from './catalogue-files.server';
import { logPublishOutcome, type Requester } from './catalogue-log.server';
import { type CatalogueSnapshot, catalogueSnapshot, codeDigest, PublishError, withoutPaths } from './catalogue-snapshot.server';
import { changedSinceLive, health, REQUESTERS, type ReleaseSwitch, wake } from './publish.server';
import { PUBLISHES_CHANNEL } from './publish-again.server';
import { nextScheduledRun, startDuePublishes } from './publish-schedule.server';
import { makeRelease, nextPhaseAt, phaseAt, type Release, type ReleaseFile, type RenderPage, releaseKey } from './release.server';
import { dropLease, loadRelease, pruneReleases, storeRelease, takeLease } from './release-store.server';
import { pruneRevisions } from './revision-prune.server';

/** The server this publisher is, as the publishes table names it: the host and the port it serves. */
const serverName = () => `${hostname()}:${process.env.PORT ?? ''}`;

export interface PublisherOptions {
  served: ReleaseSwitch;
  /** How often to look for publishes made on other servers (and queued ones this server missed). */
  checkEveryMs: number;
  root?: string;
  /** Makes a release (makeRelease; tests give their own). */
  make?: typeof makeRelease;
  /** Names the code releases are made with (codeDigest of the project, read as the server starts; tests give their own). */
  code?: string;
  /** Where releases' files are kept (the database's table unless the configuration names a bucket). */
  files?: ReleaseFiles;
}

export interface PublishWorker {
  /** Settles once the publisher has looked at what is live (and switched to it) for the first time. */
  caughtUp: Promise<void>;
  /** Looks for work now (a publish was just requested). */
  nudge(): void;
  /** Stops looking; a release being made is stopped, and its publish marked failed. */
  stop(): Promise<void>;
}

const log = logger('publish');

/** How long after a publish request the publisher looks: requests made within it are made into one release. */
const PUBLISH_SETTLE_MS = 300;

/** How long after its time a scheduled publish is looked for: the database's clock, which starts it, may lag a little. */
const SCHEDULE_MARGIN_MS = 250;

/** How often a server looks while a publish is under way on another: it serves it about this soon after it is live. */
const UNDERWAY_LOOK_MS = 1000;

/** How long before a sale starts or ends the pages for then are readied (compressed), so they go out at the moment. */
const PHASE_READY_MS = 30_000;

/** How long a server may take to make a release before another takes its lease over (it stopped, or it is stuck). */
const LEASE_MS = 120_000;

/** How often a server waiting for a release another is making looks for it. */
const LEASE_WAIT_MS = 200;

/** Waits until `at` by the wall clock, or until `signal` aborts (a timer may fire a millisecond early: it waits again). */
async function until(at: number, signal: AbortSignal): Promise<void> {
  for (let ms = at - Date.now(); ms > 0 && !signal.aborted; ms = at - Date.now()) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(ms, 2 ** 31 - 1));
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}

/**
 * Starts this server's publisher: it makes releases of the publishes queued on the database (all of them in one), and
 * switches the server to the release of the newest live publish, whichever server published it. The first look happens
 * now (caughtUp); then every `checkEveryMs`, and whenever a publish is requested on this server.
 */
export function startPublisher(db: Database, options: PublisherOptions): PublishWorker {
  const root = options.root ?? projectRoot();
  const make = options.make ?? makeRelease;
  const code = options.code === undefined ? codeDigest(root) : Promise.resolve(options.code);
  const { served, files } = options;
  const name = serverName();
  /** This publisher, as a lease names it: one of its own, whatever other publishers share its host and port (tests). */
  const holder = `${name}#${randomUUID().slice(0, 8)}`;
  const abort = new AbortController();
  /** The release served, the live publish it is (0: none, the seed), and the save it is made up to. */
  let shown: Release | null = null;
  let shownPublish = -1;
  /** The pictures of the release served before: a page opened before the switch still asks for them. */
  let earlierPictures: readonly ReleaseFile[] = [];
  /** Releases made on this server, by key: the last few (following the live publish again reuses them). */
  const made = new Map<string, Release>();
  /** A publish this server could not switch to, and when it last tried: it tries again after a while, not every look. */
  let failed: { publish: number; at: number } | null = null;

  /** Marks the publishes `where` picks failed, and records it with the reason in the activity log, in one transaction. */
  function markFailed(where: string, params: unknown[], reason: string): Promise<void> {
    return asService(db, async (tx) => {
      const asked = await tx.query<Requester>(
        `update public.catalogue_publishes set status = 'failed', finished_at = now(), error = left($${params.length + 1}, 4000)
          where ${where} returning ${REQUESTERS}`,
        [...params, reason],
      );
      const words = publishFailedWords(reason);
      await logPublishOutcome(tx, asked, { action: 'catalogue.publish-failed', target: 'catalogue', words });
    });
  }

  /**
   * The release of the catalogue as of save `upTo`: one this server has, or one stored (made by whichever server first
   * took its lease), or made here now and stored for the others.
   */
  async function releaseOf(upTo: number): Promise<Release> {
    const snapshot = await catalogueSnapshot(db, upTo, root);
    const key = releaseKey(await code, snapshot);
    const release = made.get(key) ?? (await storedOrMade(key, snapshot));
    made.delete(key);
    made.set(key, release);
    for (const old of made.keys()) if (made.size > 3 && old !== shown?.key) made.delete(old);
    return release;
  }

  async function storedOrMade(key: string, snapshot: CatalogueSnapshot): Promise<Release> {
    for (;;) {
      const stored = await loadRelease(db, key, files);
      if (stored) {
        log.debug({ event: 'catalogue.release_fetched', release: key }, 'release fetched');
        return stored;
      }
      if (await takeLease(db, key, holder, LEASE_MS)) {
        try {
          // Stored between the look and the lease: served as it is.
          const again = await loadRelease(db, key, files);
          if (again) return again;
          const render: RenderPage = (path, catalogue) => served.render(path, { catalogueRender: catalogue });
          const release = await make(snapshot, { code: await code, render });
          await storeRelease(db, release, name, files);
          log.info({ event: 'catalogue.release_made', release: key, ms: release.ms }, 'release made');
          void pruneReleases(db, files).catch((error: unknown) => log.warn({ err: error }, 'pruning releases failed'));
          return release;
        } finally {
          await dropLease(db, key, holder).catch(() => {});
        }
      }
      if (abort.signal.aborted) throw new PublishError('The server is stopping: publish again.');
      await new Promise((resolve) => setTimeout(resolve, LEASE_WAIT_MS));
    }
  }

  /** Files of `release` to send at `at`: the pages of the sales running then, its pictures and the ones before. */
  function filesAt(release: Release, at: number): ReleaseFile[] {
    const pictures = new Map([...earlierPictures, ...release.pictures].map((f) => [f.path, f]));
    return [...(phaseAt(release, new Date(at))?.pages ?? []), ...pictures.values()];
  }

  /** Serves `release` from now on: its pages of the sales running now, and its catalogue to the app, in one step. */
  async function show(release: Release): Promise<void> {
    if (shown?.key === release.key) return;
    const readiedFor = Date.now();
    const flip = await served.prepare(filesAt(release, readiedFor));
    flip();
    serveCatalogue(release.catalogue);
    if (shown) earlierPictures = shown.pictures;
    shown = release;
    // From the moment the pages were readied for, not from now: a sale that started while they were readied (a busy
    // machine) has its pages sent at once, where following from now would wait for its end.
    void followSales(release, readiedFor);
  }

  /**
   * While `release` is served: from each moment after `from` that a sale starts or ends, its pages for then (readied
   * just before; at once for a moment already past).
   */
  async function followSales(release: Release, from: number): Promise<void> {
    for (let next = nextPhaseAt(release, new Date(from)); next !== null; next = nextPhaseAt(release, new Date(next))) {
      await until(next - PHASE_READY_MS, abort.signal);
      if (abort.signal.aborted || shown !== release) return;
      try {
        const flip = await served.prepare(filesAt(release, next));
        await until(next, abort.signal);
        if (abort.signal.aborted || shown !== release) return;
        flip();
        log.info({ event: 'catalogue.sales_changed', release: release.key }, 'serving the pages of the sales running now');
      } catch (error) {
        log.error({ err: error }, 'could not ready the pages for a sale starting or ending');
      }
    }
  }

  /** Makes one release of every queued publish (and every scheduled one now due). Returns whether there were any. */
  async function publishQueued(): Promise<boolean> {
    await startDuePublishes(db, name);
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
      const release = await releaseOf(upTo);
      await show(release);
      // Live, and in the activity log with the products it changed, in one transaction: once, by the server that made it.
      await asService(db, async (tx) => {
        const words = publishedWords(await changedSinceLive(tx, upTo, root));
        const asked = await tx.query<Requester>(
          `update public.catalogue_publishes set status = 'live', finished_at = now(), digest = $2
            where id = any($1::bigint[]) returning ${REQUESTERS}`,
          [ids, release.key],
        );
        await logPublishOutcome(tx, asked, { action: 'catalogue.published', target: 'catalogue', words });
        // Every other server switches as this commits (those listening; the rest at their next look).
        await tx.query('select pg_notify($1, $2)', [PUBLISHES_CHANNEL, String(Math.max(...ids))]);
      });
      shownPublish = Math.max(...ids);
      health.problem = null;
      // A publish live moves the last publishes that can be served again: saves only older ones read may go.
      void pruneRevisions(db, root).catch((error: unknown) => log.warn({ err: error }, 'pruning catalogue saves failed'));
      log.info(
        { event: 'catalogue.published', publishes: ids, upTo, release: release.key, ms: release.ms },
        `published the catalogue as of save ${upTo}`,
      );
    } catch (error) {
      const reason = withoutPaths(
        error instanceof PublishError
          ? error.message
          : `The catalogue could not be published: ${error instanceof Error ? error.message : String(error)}`,
        [root],
      );
      // The editor reads the reason in words; the log keeps the detail (the path, the stack).
      log.error({ event: 'catalogue.publish_failed', publishes: ids, err: error }, reason);
      await markFailed(`id = any($1::bigint[])`, [ids], reason);
    }
    return true;
  }

  /** Switches to the newest live publish when this server does not serve it yet (the seed's catalogue when none is). */
  async function followLive(): Promise<void> {
    const [live] = await serviceStatement<{ id: string | number; up_to_revision: string | number }>(
      db,
      `select id, up_to_revision from public.catalogue_publishes where status = 'live' order by id desc limit 1`,
    );
    const id = Number(live?.id ?? 0);
    if (id === shownPublish) return;
    if (failed?.publish === id && Date.now() - failed.at < 5 * 60_000) return;
    try {
      const release = await releaseOf(Number(live?.up_to_revision ?? 0));
      await show(release);
      shownPublish = id;
      failed = null;
      health.problem = null;
      log.info({ event: 'catalogue.followed', publish: id, release: release.key }, `serving publish ${id}`);
    } catch (error) {
      failed = { publish: id, at: Date.now() };
      const reason = withoutPaths(error instanceof Error ? error.message : String(error), [root]);
      health.problem = `publish ${id} is live but this server could not switch to it (it tries again every 5 minutes): ${reason}`;
      log.error({ event: 'catalogue.follow_failed', publish: id, err: error }, health.problem);
    }
  }

  /** When this server should look next: a scheduled publish's time, or soon while a publish is under way elsewhere. */
  async function nextLook(): Promise<number | null> {
    const wakes: number[] = [];
    const [underway] = await serviceStatement<{ yes: boolean }>(
      db,
      `select exists (select 1 from public.catalogue_publishes where status in ('queued', 'building')) as yes`,
    );
    if (underway?.yes) wakes.push(Date.now() + UNDERWAY_LOOK_MS);
    const run = await nextScheduledRun(db);
    if (run) wakes.push(run.getTime() + SCHEDULE_MARGIN_MS);
    return wakes.length === 0 ? null : Math.min(...wakes);
  }

  let running: Promise<void> | null = null;
  let again = false;
  let soonest: NodeJS.Timeout | undefined;
  /** Looks again at `at` (a scheduled publish, or a publish under way on another server). */
  function wakeAt(at: number | null): void {
    clearTimeout(soonest);
    if (at === null || abort.signal.aborted) return;
    soonest = setTimeout(() => void look(), Math.min(Math.max(at - Date.now(), 0), 2 ** 31 - 1));
    soonest.unref();
  }
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
          if (!abort.signal.aborted) wakeAt(await nextLook());
        } catch (error) {
          log.warn({ err: error }, 'looking for publishes failed');
        }
      } while (again && !abort.signal.aborted);
    })().finally(() => {
      running = null;
    });
    return running;
  }

  // A publish this server was making when it stopped will not finish: the editor is told, and can publish again.
  const caughtUp = markFailed(
    `status = 'building' and (built_by = $1 or started_at < now() - interval '15 minutes')`,
    [name],
    'The server stopped before the release was made: publish again.',
  )
    .catch((error: unknown) => log.warn({ err: error }, 'could not clear unfinished publishes'))
    .then(look);
  const timer = setInterval(() => void look(), options.checkEveryMs);
  timer.unref();
  // On PostgreSQL, a publish gone live on another server is heard at once (the look every checkEveryMs stays, for a
  // notification missed while the listening connection was down).
  void db
    .watch?.(PUBLISHES_CHANNEL, { changed: () => void look(), live: (live) => live && void look() })
    .catch((error: unknown) => log.warn({ err: error }, 'could not listen for publishes'));
  // A publish requested here is looked at a moment later, so that publishes pressed together are made together.
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
      clearTimeout(soonest);
      wake.publisher = () => {};
      abort.abort();
      await running;
    },
  };
}
