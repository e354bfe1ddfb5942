// The scheduled publishes' endpoints, written against AdminDeps (and the shop's time zone) so tests run them with their
// own database and sessions; the files under src/pages/api/admin/catalogue/schedule* only hand them the server's
// services. Each asks requireEditorOf first: a guest or a shopper gets the admin's 404 before the body is read.
import { z } from 'astro/zod';
import type { AdminDeps } from '@/features/admin/admin.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { json, problem, readJson } from '@/server/http.server';
import { requireEditorOf } from './editors.server';
import { cancelScheduledPublish, schedulePublish, scheduleState } from './publish-schedule.server';
import { WALL_TIME, wallToInstant } from './shop-time';

/** What the scheduled publishes' endpoints need: the admin's deps and the shop's time zone (SHOP_TIME_ZONE). */
export interface ScheduleDeps extends AdminDeps {
  timeZone: string;
}

const TIME_MESSAGE = 'Choose the date and time to publish at, for example 2026-12-25T00:00.';

const scheduleBody = z
  .object({
    /** On the shop's clock, as a datetime-local field sends it: 'YYYY-MM-DDTHH:MM' (':SS' allowed). */
    runAt: z.string({ error: TIME_MESSAGE }).max(19, { error: TIME_MESSAGE }).regex(WALL_TIME, { error: TIME_MESSAGE }),
  })
  .strict();

/** GET: the scheduled publishes, upcoming (soonest first) and done (newest first). */
export async function scheduleStateRoute(deps: AdminDeps, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  return json(await scheduleState(deps.db));
}

/** POST {runAt}: schedules a publish of what is saved for that moment on the shop's clock; recorded in the activity log. */
export async function scheduleRoute(deps: ScheduleDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, scheduleBody);
  if ('response' in body) return body.response;
  const runAt = wallToInstant(body.data.runAt, deps.timeZone);
  if (!runAt) return problem(400, 'bad_time', `There is no such time as ${body.data.runAt}: ${TIME_MESSAGE}`);
  const result = await schedulePublish(me, runAt, deps.timeZone);
  if (!result.ok) return problem(result.status, result.code, result.message);
  return json({ scheduled: result.scheduled, message: result.message, state: await scheduleState(deps.db) }, 201);
}

const cancelBody = z
  .object({
    id: z
      .number({ error: 'Say which scheduled publish to cancel (its id).' })
      .int()
      .positive()
      .max(2 ** 53 - 1),
  })
  .strict();

/** POST {id}: cancels that scheduled publish unless it has started; recorded in the activity log. */
export async function cancelScheduleRoute(deps: ScheduleDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireEditorOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, cancelBody);
  if ('response' in body) return body.response;
  const result = await cancelScheduledPublish(me, body.data.id, deps.timeZone);
  if (!result.ok) return problem(result.status, result.code, result.message);
  return json({ scheduled: result.scheduled, message: result.message, state: await scheduleState(deps.db) });
}
