import type { Database, Sql } from '../db/database.server';
import { serviceStatement } from '../db/roles.server';
import { currentRequestId, logger, outsideRequest, withRequestId } from '../log.server';
import { type OutboxKindState, outboxJobsFailed } from '../metrics.server';

const log = logger('outbox');

/** Runs one kind of job. Throwing means "not done": the job is retried later. */
export type JobHandler = (payload: unknown) => Promise<void>;

/** A failure that retrying cannot fix (e.g. a malformed payload): the job is set aside for a person at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/** After this many attempts a job is left in public.outbox for a person to look at, not retried. */
export const MAX_ATTEMPTS = 10;
const FIRST_RETRY_SECONDS = 30;
const MAX_RETRY_SECONDS = 3600;
/**
 * How long a claimed job stays invisible to other workers. Longer than HANDLER_TIMEOUT_MS, so a job is only claimed
 * again when the process that had it died before recording the outcome.
 */
const LEASE_SECONDS = 300;
const HANDLER_TIMEOUT_MS = 120_000;

/** Seconds until the next try after `attempts` failed tries: 30 s, 60 s, 2 min, … capped at 1 h. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1));
}

/**
 * Queues a job in the caller's transaction, so it commits or rolls back with the work that caused it. The caller's
 * transaction must run as service_role (`asService`): the table has no policy for any other role. With a dedupeKey
 * already queued, nothing is added (one order, one e-mail). Returns whether a job was added.
 * The shop queues through `queueJob` (jobs.server.ts), which knows each kind's payload; this is the untyped engine.
 */
export async function enqueue(tx: Sql, job: { kind: string; payload: unknown; dedupeKey?: string }): Promise<boolean> {
  if (job.payload === undefined) throw new Error(`An outbox job of kind ${job.kind} needs a payload`);
  // The payload goes over as JSON text, so both drivers store exactly what JSON.stringify made of it. The request
  // queuing it is kept with it, so the job's log lines carry the request's id.
  const rows = await tx.query(
    `insert into public.outbox (kind, payload, dedupe_key, request_id) values ($1, $2::text::jsonb, $3, $4)
     on conflict (dedupe_key) do nothing
     returning id`,
    [job.kind, JSON.stringify(job.payload), job.dedupeKey ?? null, currentRequestId() ?? null],
  );
  return rows.length > 0;
}

type ClaimedJob = {
  id: string;
  kind: string;
  payload: string;
  attempts: number;
  request_id: string | null;
};

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 2000);

function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the handler did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs the jobs that are due (at `now`, default the database's clock) and have a handler here. Each job is claimed in
 * a short transaction (`for update skip locked`, so two server processes never run the same job), its handler runs
 * outside it, and the outcome is recorded after: done, or the error and the next attempt with exponential backoff.
 * Never throws: failures are logged and stay in the table.
 */
export async function processDue(
  db: Database,
  handlers: Record<string, JobHandler>,
  { now, limit = 20, stopping = () => false }: { now?: Date; limit?: number; stopping?: () => boolean } = {},
): Promise<{ sent: number; failed: number }> {
  const at = now?.toISOString() ?? null;
  const counts = { sent: 0, failed: 0 };
  let jobs: ClaimedJob[];
  try {
    jobs = await serviceStatement<ClaimedJob>(
      db,
      `update public.outbox o
            set attempts = o.attempts + 1,
                locked_until = coalesce($1::timestamptz, now()) + make_interval(secs => $4)
          where o.id in (
            select id from public.outbox
             where done_at is null
               and next_attempt_at <= coalesce($1::timestamptz, now())
               and (locked_until is null or locked_until <= coalesce($1::timestamptz, now()))
               and attempts < $3
               and kind in (select jsonb_array_elements_text($5::text::jsonb))
             order by next_attempt_at, id
             limit $2
             for update skip locked)
        returning o.id::text as id, o.kind, o.payload::text as payload, o.attempts, o.request_id`,
      [at, limit, MAX_ATTEMPTS, LEASE_SECONDS, JSON.stringify(Object.keys(handlers))],
    );
  } catch (error) {
    log.warn({ err: message(error) }, 'could not claim due jobs');
    return counts;
  }

  // One after another: the batch is small, and a slow mail service is not hammered in parallel.
  const claimed = [...jobs].sort((a, b) => Number(a.id) - Number(b.id));
  for (const [index, job] of claimed.entries()) {
    if (stopping()) {
      await handBack(db, claimed.slice(index));
      break;
    }
    // The job runs as part of the request that queued it (its lines, and those of the work it does, carry its id).
    const ran = await (job.request_id
      ? withRequestId(job.request_id, () => runJob(db, handlers, job, at))
      : runJob(db, handlers, job, at));
    counts[ran ? 'sent' : 'failed']++;
  }
  return counts;
}

/**
 * Gives back claimed jobs that never started (the server is stopping): claimable again at once, by this process after a
 * restart or by another, and the attempt their claim counted is not counted. Should this fail, their lease runs out.
 */
async function handBack(db: Database, jobs: ClaimedJob[]): Promise<void> {
  try {
    await serviceStatement(
      db,
      `update public.outbox set locked_until = null, attempts = greatest(attempts - 1, 0)
        where id in (select jsonb_array_elements_text($1::text::jsonb)::bigint) and done_at is null`,
      [JSON.stringify(jobs.map((job) => job.id))],
    );
  } catch (error) {
    log.warn({ jobs: jobs.length, err: message(error) }, 'could not hand back claimed jobs; they run when their lease ends');
  }
}

/** What every line about a job says: which job, which attempt, and the request that queued it. */
const about = (job: ClaimedJob) => ({
  jobId: job.id,
  kind: job.kind,
  attempt: job.attempts,
  requestId: job.request_id ?? undefined,
});

/** Runs one claimed job and records its outcome; whether it succeeded. */
async function runJob(db: Database, handlers: Record<string, JobHandler>, job: ClaimedJob, at: string | null): Promise<boolean> {
  const handler = handlers[job.kind];
  const started = performance.now();
  try {
    if (!handler) throw new PermanentJobError(`no handler for kind ${job.kind}`);
    await withTimeout(handler(JSON.parse(job.payload)), HANDLER_TIMEOUT_MS);
  } catch (error) {
    await recordFailure(db, job, error, at);
    return false;
  }
  log.info({ ...about(job), ms: Math.round(performance.now() - started) }, 'job done');
  try {
    await serviceStatement(db, `update public.outbox set done_at = now(), locked_until = null where id = $1::bigint`, [job.id]);
  } catch (error) {
    // The work was done but not recorded: when the lease ends it runs again (at least once, never lost).
    log.warn({ ...about(job), err: message(error) }, 'job ran, but marking it done failed');
  }
  return true;
}

async function recordFailure(db: Database, job: ClaimedJob, error: unknown, at: string | null): Promise<void> {
  const permanent = error instanceof PermanentJobError;
  const givingUp = permanent || job.attempts >= MAX_ATTEMPTS;
  const delay = retryDelaySeconds(job.attempts);
  try {
    await serviceStatement(
      db,
      `update public.outbox
            set last_error = $2,
                locked_until = null,
                attempts = greatest(attempts, $5),
                next_attempt_at = coalesce($3::timestamptz, now()) + make_interval(secs => $4)
          where id = $1::bigint`,
      // A permanent failure counts as all attempts used, so no worker picks it up again.
      [job.id, message(error), at, delay, permanent ? MAX_ATTEMPTS : 0],
    );
  } catch (recordError) {
    log.warn({ ...about(job), err: message(recordError) }, 'could not record a job’s failure');
  }
  outboxJobsFailed.inc({ kind: job.kind, retried: givingUp ? 'no' : 'yes' });
  if (givingUp) {
    log.error(
      { ...about(job), err: message(error), retry: false },
      'job failed and will not be retried; it stays in public.outbox for a person to look at',
    );
  } else {
    log.warn({ ...about(job), err: message(error), retry: true, retryInSeconds: delay }, `job failed; retrying in ${delay} s`);
  }
}

/**
 * The outbox by kind, for the metrics and readiness: jobs due to run now, scheduled for a retry, and given up; the
 * age of the oldest job still to run; and how long the oldest due job has been due (the worker runs due jobs within
 * seconds, so a large value means it is not running them).
 */
export async function outboxState(db: Database): Promise<(OutboxKindState & { overdueSeconds: number })[]> {
  const rows = await serviceStatement<Record<string, string | number | null>>(
    db,
    `select kind,
            count(*) filter (where attempts < $1 and next_attempt_at <= now()) as due,
            count(*) filter (where attempts < $1 and next_attempt_at > now()) as scheduled,
            count(*) filter (where attempts >= $1) as failed,
            coalesce(extract(epoch from now() - min(created_at) filter (where attempts < $1)), 0)::float8 as oldest,
            coalesce(extract(epoch from now() - min(next_attempt_at) filter (
              where attempts < $1 and next_attempt_at <= now() and (locked_until is null or locked_until <= now()))), 0)::float8 as overdue
       from public.outbox
      where done_at is null
      group by kind`,
    [MAX_ATTEMPTS],
  );
  return rows.map((row) => ({
    kind: String(row.kind),
    due: Number(row.due),
    scheduled: Number(row.scheduled),
    failed: Number(row.failed),
    oldestSeconds: Number(row.oldest),
    overdueSeconds: Number(row.overdue),
  }));
}

export interface OutboxWorker {
  /** Runs the queue now instead of at the next tick (call it after the transaction that enqueued has committed). */
  nudge(): void;
  /**
   * Stops the timer and waits for a run in progress: the job under way finishes, and the jobs it had claimed but not
   * started are handed back (another process, or this one after a restart, runs them).
   */
  stop(): Promise<void>;
}

/**
 * Runs `processDue` every `intervalMs`, at once on start (jobs left from before a restart) and whenever nudged.
 * Runs never overlap within a process; across processes the row locks keep jobs apart.
 */
export function startOutboxWorker(
  db: Database,
  handlers: Record<string, JobHandler>,
  { intervalMs }: { intervalMs: number },
): OutboxWorker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const limit = 20;

  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(run, ms);
    // The worker alone should not keep a process (a test, a script) alive.
    timer.unref();
  };

  function run(): void {
    if (stopped) return;
    // A nudge comes from a request: the worker's runs are not part of it (each job carries its own request's id).
    if (currentRequestId()) {
      outsideRequest(run);
      return;
    }
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = (async () => {
      let full: boolean;
      do {
        again = false;
        const { sent, failed } = await processDue(db, handlers, { limit, stopping: () => stopped });
        // A full batch means more may be waiting: keep going rather than wait a whole interval.
        full = sent + failed >= limit;
      } while ((again || full) && !stopped);
    })().finally(() => {
      running = undefined;
      schedule(intervalMs);
    });
  }

  run();
  return {
    nudge: run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
