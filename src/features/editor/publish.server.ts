// Publishing the catalogue editors saved (decisions 008, 018): a request is queued in public.catalogue_publishes, and
// what the editor's panel shows of it; this server's publisher (publisher.server.ts) takes every queued request at
// once, makes a release of the seed plus the saved revisions, and switches shoppers to it once it succeeded (through
// the edge's switch, src/edge/switch.ts). Every server on the database follows the newest live publish the same way.
import { type Database, jsonColumn, type Sql } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import { processShared } from '@/server/process-shared.server';
import { productsChanged, publishRequestWords } from './activity-words';
import { liveRevision, projectRoot, savedCatalogue } from './catalogue-files.server';
import { logCatalogueAction } from './catalogue-log.server';
import { withoutPaths } from './catalogue-snapshot.server';

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
  /** The earlier publish this one served again, or null. */
  againOf: number | null;
}

/** What the editor's Publish panel shows. */
export interface PublishState {
  /** What shoppers are served: the newest publish that went live, or null (the seed as built). */
  live: Publish | null;
  /** The newest publish, whatever its state (the same as `live` when that is the newest). */
  latest: Publish | null;
  /** Saves made since what is live: what a publish now would add. */
  unpublishedSaves: number;
  /** The publishes that went live before the one live now, newest first: each can be served again. */
  earlier: Publish[];
}

/** How many earlier publishes the panel offers to serve again. */
export const EARLIER_LISTED = 10;

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
  again_of: string | number | null;
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
    againOf: row.again_of === null || row.again_of === undefined ? null : Number(row.again_of),
  };
}

const COLUMNS = 'id, status, requested_by_email, requested_at, started_at, finished_at, up_to_revision, error, again_of';

/** The publish panel's state. */
export async function publishState(db: Database): Promise<PublishState> {
  const [row] = await serviceStatement<{
    live: PublishRow | null;
    latest: PublishRow | null;
    unpublished: string | number;
    earlier: PublishRow[] | string | null;
  }>(
    db,
    `with live as (select ${COLUMNS} from public.catalogue_publishes where status = 'live' order by id desc limit 1),
          latest as (select ${COLUMNS} from public.catalogue_publishes order by id desc limit 1),
          earlier as (select ${COLUMNS} from public.catalogue_publishes where status = 'live'
                       and id < coalesce((select id from live), 0) order by id desc limit ${EARLIER_LISTED})
     select (select to_jsonb(live) from live) as live, (select to_jsonb(latest) from latest) as latest,
            (select count(*) from public.catalogue_revisions
              where id > coalesce((select up_to_revision from live), 0)) as unpublished,
            (select coalesce(jsonb_agg(to_jsonb(earlier) order by earlier.id desc), '[]'::jsonb) from earlier) as earlier`,
  );
  return {
    live: row?.live ? toPublish(row.live) : null,
    latest: row?.latest ? toPublish(row.latest) : null,
    unpublishedSaves: Number(row?.unpublished ?? 0),
    earlier: jsonColumn(row?.earlier ?? []).map(toPublish),
  };
}

/** The products whose text as of save `upTo` (every save when omitted) differs from what shoppers are served. */
export async function changedSinceLive(tx: Sql, upTo?: number, root = projectRoot()): Promise<string[]> {
  const texts = async (at?: number) => new Map([...(await savedCatalogue(tx, at, root))].map(([file, { text }]) => [file, text]));
  return productsChanged(await texts(await liveRevision(tx)), await texts(upTo));
}

/**
 * Queues a publish of everything saved so far and wakes this server's builder; recorded in the activity log. Returns
 * the publish; requests made while another is still queued are built by the same build. Someone whose own request is
 * still queued (a double click, a retried request) gets that one back: nothing more is queued or recorded.
 */
export async function requestPublish(db: Database, by: Publisher): Promise<Publish> {
  const row = await asService(db, async (tx) => {
    await tx.query('select pg_advisory_xact_lock(2801131)');
    const [queued] = await tx.query<PublishRow>(
      `select ${COLUMNS} from public.catalogue_publishes where status = 'queued' and requested_by_email = $1
        order by id desc limit 1`,
      [by.email],
    );
    if (queued) return queued;
    const [added] = await tx.query<PublishRow>(
      `insert into public.catalogue_publishes (requested_by_id, requested_by_email) values ($1, $2) returning ${COLUMNS}`,
      [by.id, by.email],
    );
    const words = publishRequestWords(await changedSinceLive(tx));
    await logCatalogueAction(tx, by, { action: 'catalogue.publish', target: 'catalogue', words });
    return added;
  });
  if (!row) throw new Error('the publish was not recorded');
  wake.publisher();
  return toPublish(row);
}

/** Who asked for the publishes a statement changed (`returning ${REQUESTERS}`), for the activity log. */
export const REQUESTERS = 'requested_by_id as id, requested_by_email as email';

/**
 * Wakes this server's publisher (set once it runs; see startPublisher). Kept per process: the publisher is the one the
 * first build started, and a request answered by a later build must reach it.
 */
export const wake = processShared<{ publisher: () => void }>('publishWake', () => ({ publisher: () => {} }));

// What the server and its publisher share ------------------------------------------------------------------------------

/** What the edge offers the app's publisher (src/edge/switch.ts): how it renders a release and serves it. */
export type { ReleaseSwitch, RenderedFile } from '@/edge/switch';

/** Why this server does not serve the catalogue last published (it could not build or switch to it), or null. */
export const health = processShared<{ problem: string | null }>('publishHealth', () => ({ problem: null }));

/** The readiness check's word on the catalogue served: 'ok', or why it is not the one last published. */
export function catalogueHealth(): string {
  return health.problem ? `failed: ${health.problem}` : 'ok';
}

/** The edge's release switch, or null when the app does not run under the edge (astro dev, tests). */
export { releaseSwitch } from '@/edge/switch';
