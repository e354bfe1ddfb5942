// Publishing the catalogue editors saved (decision 008): a request is queued in public.catalogue_publishes; this
// server's builder takes every queued request at once (so publishes made together run one build), builds the shop's
// pages from the seed plus the saved revisions, and switches shoppers to the new build once it succeeded.
import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';

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
    error: row.error,
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
  publishRequested();
  return toPublish(row);
}

/** Wakes the builder (set once it runs; see startPublisher). */
const publishRequested: () => void = () => {};
