import type { Database } from './db/database.server';
import { pendingMigrations } from './db/migrate.server';
import { logger } from './log.server';
import { outboxState } from './outbox/outbox.server';

const log = logger('health');

/** What each readiness check found: 'ok', or why it failed (no secrets, no data: a load balancer may log it). */
export interface Readiness {
  ready: boolean;
  checks: { database: string; migrations: string; outbox: string; catalogue: string };
}

/** How long a readiness check may take before it counts as failed (a database that hangs is not ready). */
const CHECK_TIMEOUT_MS = 3000;

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Whether the server can take requests: the database answers `select 1`; every migration this build ships is
 * applied (a schema behind the code answers wrongly); and no outbox job has been due for longer than `stuckSeconds`
 * (the worker runs due jobs within seconds, so one waiting that long means e-mails and labels are not going out).
 * A job waiting for its retry is not stuck: failures are the metrics' and the log's business. `catalogue` is the
 * publisher's word on the catalogue served (src/features/editor/publish.server.ts, catalogueHealth): 'ok', or why this
 * server could not switch to the catalogue published (it serves the one before).
 */
export async function readiness(
  db: Database,
  { stuckSeconds, catalogue = 'ok' }: { stuckSeconds: number; catalogue?: string },
): Promise<Readiness> {
  const checks: Readiness['checks'] = { database: 'ok', migrations: 'not checked', outbox: 'not checked', catalogue };
  try {
    await within(db.query('select 1'), CHECK_TIMEOUT_MS);
  } catch (error) {
    checks.database = 'failed: the database does not answer';
    log.warn({ err: error }, 'not ready: the database does not answer');
    return { ready: false, checks };
  }
  try {
    const pending = await within(pendingMigrations(db), CHECK_TIMEOUT_MS);
    checks.migrations = pending.length === 0 ? 'ok' : `failed: ${pending.length} not applied (${pending.join(', ')})`;
  } catch (error) {
    checks.migrations = 'failed: could not be read';
    log.warn({ err: error }, 'not ready: the applied migrations could not be read');
  }
  try {
    const stuck = (await within(outboxState(db), CHECK_TIMEOUT_MS))
      .filter((kind) => kind.overdueSeconds > stuckSeconds)
      .sort((a, b) => b.overdueSeconds - a.overdueSeconds);
    checks.outbox =
      stuck.length === 0
        ? 'ok'
        : `failed: ${stuck.map((kind) => `${kind.kind} jobs due for ${Math.round(kind.overdueSeconds)} s`).join(', ')} (limit ${stuckSeconds} s)`;
  } catch (error) {
    checks.outbox = 'failed: could not be read';
    log.warn({ err: error }, 'not ready: the outbox could not be read');
  }
  const ready = Object.values(checks).every((check) => check === 'ok');
  if (!ready) log.warn({ checks }, 'not ready');
  return { ready, checks };
}
