// Publishes at a chosen time (decision 017): an editor schedules a publish of what is saved for a moment; at that
// moment one server starts it (a conditional update on the schedule's row, in the statement that queues its publish),
// and the publisher builds it as any publish, from the saves made by then. Cancellable until it starts; listed in the
// editor's publish panel, upcoming and done, with who scheduled it and what became of it.
import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import { logCatalogueAction } from './catalogue-log.server';
import { withoutPaths } from './catalogue-snapshot.server';
import type { EditorCaller } from './editors.server';
import { type PublishStatus, wake } from './publish.server';
import { shopTimeWords } from './shop-time';

/** A scheduled publish as the panel lists it. */
export interface ScheduledPublish {
  id: number;
  runAt: string;
  scheduledBy: string;
  scheduledAt: string;
  /** Waiting ('scheduled'), cancelled, or started: then what became of its publish (queued … live, failed). */
  status: 'scheduled' | 'cancelled' | PublishStatus;
  cancelledBy: string | null;
  cancelledAt: string | null;
  /** When it went live or failed. */
  finishedAt: string | null;
  /** Why its publish failed, in words; null otherwise. */
  error: string | null;
}

/** The panel's list: what is to come, soonest first, and the last ones done (started or cancelled), newest first. */
export interface ScheduleState {
  upcoming: ScheduledPublish[];
  done: ScheduledPublish[];
}

/** How many publishes may wait at once: a list an editor can read, not a queue to fill. */
export const MAX_UPCOMING = 20;
/** How far ahead a publish may be scheduled. */
export const MAX_AHEAD_DAYS = 366;
/** How many done schedules the panel lists. */
const DONE_LISTED = 10;

interface ScheduleRow {
  id: string | number;
  run_at: Date | string;
  scheduled_by_email: string;
  scheduled_at: Date | string;
  status: 'scheduled' | 'started' | 'cancelled';
  cancelled_by_email: string | null;
  cancelled_at: Date | string | null;
  publish_status: PublishStatus | null;
  finished_at: Date | string | null;
  error: string | null;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

function toScheduled(row: ScheduleRow): ScheduledPublish {
  return {
    id: Number(row.id),
    runAt: new Date(row.run_at).toISOString(),
    scheduledBy: row.scheduled_by_email,
    scheduledAt: new Date(row.scheduled_at).toISOString(),
    // Started, its publish row is what it became (a publish row removed by hand: counted as queued).
    status: row.status === 'started' ? (row.publish_status ?? 'queued') : row.status,
    cancelledBy: row.cancelled_by_email,
    cancelledAt: iso(row.cancelled_at),
    finishedAt: iso(row.finished_at),
    error: row.error === null ? null : withoutPaths(row.error),
  };
}

const LISTED = `select s.id, s.run_at, s.scheduled_by_email, s.scheduled_at, s.status, s.cancelled_by_email,
       s.cancelled_at, p.status as publish_status, p.finished_at, p.error
  from public.catalogue_scheduled_publishes s left join public.catalogue_publishes p on p.schedule_id = s.id`;

/** The scheduled publishes the panel lists. */
export async function scheduleState(db: Database): Promise<ScheduleState> {
  const [upcoming, done] = await Promise.all([
    serviceStatement<ScheduleRow>(db, `${LISTED} where s.status = 'scheduled' order by s.run_at, s.id`),
    serviceStatement<ScheduleRow>(
      db,
      `${LISTED} where s.status <> 'scheduled' order by coalesce(s.cancelled_at, s.started_at) desc, s.id desc limit $1`,
      [DONE_LISTED],
    ),
  ]);
  return { upcoming: upcoming.map(toScheduled), done: done.map(toScheduled) };
}

export type ScheduleResult =
  | { ok: true; scheduled: ScheduledPublish; message: string }
  | { ok: false; status: 400 | 404 | 409; code: string; message: string };

/** Why a publish cannot be scheduled for `runAt` at `now`, in words, or null. */
export function scheduleProblem(runAt: Date, now: Date): string | null {
  if (runAt.getTime() <= now.getTime()) return 'Choose a time that is still to come (to publish now, press Publish).';
  if (runAt.getTime() > now.getTime() + MAX_AHEAD_DAYS * 86_400_000)
    return `Choose a time within a year (${MAX_AHEAD_DAYS} days) from now.`;
  return null;
}

/**
 * Schedules a publish of what is saved for `runAt` (judged against the database's clock, as starting it is), and
 * records it in the activity log in the same transaction. `timeZone` says it in the shop's words.
 */
export async function schedulePublish(me: EditorCaller, runAt: Date, timeZone: string): Promise<ScheduleResult> {
  const result = await me.run(async (tx): Promise<ScheduleResult> => {
    const [clock] = await tx.query<{ now: Date | string; upcoming: number }>(
      `select now(), (select count(*)::int from public.catalogue_scheduled_publishes where status = 'scheduled') as upcoming`,
    );
    const problem = scheduleProblem(runAt, new Date(clock?.now ?? Date.now()));
    if (problem) return { ok: false, status: 400, code: 'bad_time', message: problem };
    if ((clock?.upcoming ?? 0) >= MAX_UPCOMING)
      return {
        ok: false,
        status: 409,
        code: 'too_many',
        message: `${MAX_UPCOMING} publishes are scheduled already: cancel one you no longer need first.`,
      };
    const [row] = await tx.query<ScheduleRow>(
      `with made as (
         insert into public.catalogue_scheduled_publishes (run_at, scheduled_by_id, scheduled_by_email)
         values ($1, $2, $3) returning *)
       select id, run_at, scheduled_by_email, scheduled_at, status, cancelled_by_email, cancelled_at,
              null as publish_status, null as finished_at, null as error from made`,
      [runAt.toISOString(), me.editor.id, me.editor.email],
    );
    if (!row) throw new Error('the schedule was not recorded');
    const words = shopTimeWords(runAt, timeZone);
    await logCatalogueAction(tx, me.editor, {
      action: 'catalogue.publish-scheduled',
      target: 'catalogue',
      words: `scheduled a publish for ${words}`,
    });
    return { ok: true, scheduled: toScheduled(row), message: `A publish is scheduled for ${words}.` };
  });
  // This server's publisher looks now, and so learns to look again at the publish's time.
  if (result.ok) wake.publisher();
  return result;
}

/**
 * Cancels scheduled publish `id`, unless it has started (or was cancelled) meanwhile: the same conditional update that
 * starts it decides which came first. Recorded in the activity log.
 */
export function cancelScheduledPublish(me: EditorCaller, id: number, timeZone: string): Promise<ScheduleResult> {
  return me.run(async (tx) => {
    const [row] = await tx.query<ScheduleRow>(
      `with cancelled as (
         update public.catalogue_scheduled_publishes
            set status = 'cancelled', cancelled_by_email = $2, cancelled_at = now()
          where id = $1 and status = 'scheduled' returning *)
       select id, run_at, scheduled_by_email, scheduled_at, status, cancelled_by_email, cancelled_at,
              null as publish_status, null as finished_at, null as error from cancelled`,
      [id, me.editor.email],
    );
    if (!row) {
      const [other] = await tx.query<{ status: string; cancelled_by_email: string | null }>(
        'select status, cancelled_by_email from public.catalogue_scheduled_publishes where id = $1',
        [id],
      );
      if (!other) return { ok: false, status: 404, code: 'not_found', message: 'There is no such scheduled publish.' };
      return {
        ok: false,
        status: 409,
        code: 'not_scheduled',
        message:
          other.status === 'cancelled'
            ? `It was cancelled already${other.cancelled_by_email ? ` by ${other.cancelled_by_email}` : ''}.`
            : 'It has started already, so it can no longer be cancelled: to take a change back, undo it and publish again.',
      };
    }
    const words = shopTimeWords(new Date(row.run_at), timeZone);
    await logCatalogueAction(tx, me.editor, {
      action: 'catalogue.schedule-cancelled',
      target: 'catalogue',
      words: `cancelled the publish scheduled for ${words} (scheduled by ${row.scheduled_by_email})`,
    });
    return { ok: true, scheduled: toScheduled(row), message: `The publish scheduled for ${words} is cancelled.` };
  });
}

/**
 * Starts every scheduled publish whose time has come (by the database's clock), each by the conditional update that
 * moves it to 'started' and, in the same statement, queues its publish as its editor's: whichever servers run this at
 * once, each schedule starts once. Returns the publishes queued (by this call).
 */
export async function startDuePublishes(db: Database, server: string): Promise<number[]> {
  const rows = await serviceStatement<{ id: string | number }>(
    db,
    `with due as (
       update public.catalogue_scheduled_publishes set status = 'started', started_by = $1, started_at = now()
        where status = 'scheduled' and run_at <= now()
        returning id, scheduled_by_id, scheduled_by_email)
     insert into public.catalogue_publishes (requested_by_id, requested_by_email, schedule_id)
     select scheduled_by_id, scheduled_by_email, id from due order by id
     returning id`,
    [server],
  );
  return rows.map((row) => Number(row.id));
}

/** When the next scheduled publish is due, or null. */
export async function nextScheduledRun(db: Database): Promise<Date | null> {
  const [row] = await serviceStatement<{ run_at: Date | string }>(
    db,
    `select run_at from public.catalogue_scheduled_publishes where status = 'scheduled' order by run_at limit 1`,
  );
  return row ? new Date(row.run_at) : null;
}
