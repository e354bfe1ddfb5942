// Publishes at a chosen time on a real database (decision 017): scheduled, listed with who scheduled them, refused
// for a time gone or too far, cancelled until they start; started exactly once whichever servers look at once (two
// PostgreSQL pools, or PGlite's one connection taking turns), never both cancelled and started; and a publisher
// that makes the release at the moment and serves it seconds later. Rendering is a recorder (tests/e2e runs the real one).

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminDeps, listActions } from '@/features/admin/admin.server';
import { serveCatalogue } from '@/features/catalogue/served-catalogue.server';
import { PublishError } from '@/features/editor/catalogue-snapshot.server';
import type { EditorCaller } from '@/features/editor/editors.server';
import { publishState, type ReleaseSwitch } from '@/features/editor/publish.server';
import {
  cancelScheduledPublish,
  MAX_UPCOMING,
  schedulePublish,
  scheduleState,
  startDuePublishes,
} from '@/features/editor/publish-schedule.server';
import { type PublishWorker, startPublisher } from '@/features/editor/publisher.server';
import { makeRelease } from '@/features/editor/release.server';
import { cancelScheduleRoute, scheduleRoute } from '@/features/editor/schedule-routes.server';
import { instantToWall } from '@/features/editor/shop-time';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import type { Database } from '@/server/db/database.server';
import { openPostgres } from '@/server/db/postgres.server';
import { asService } from '@/server/db/roles.server';
import { captureLogs } from '@/server/log.server';
import { browser } from './browser';
import { orderFixtures } from './order-fixtures';
import { recordingSwitch } from './recording-switch';
import { databaseUrl, suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
/**
 * How soon after its moment a server serves a scheduled publish: the shop promises a minute; here the look's few
 * queries and the release's making, about a second alone, more beside the whole suite on two cores.
 */
const SWITCH_MS = 3000;
const NY = 'America/New_York';
const fixtures = () => orderFixtures(db, 'owner@schedules.example');

let editor: EditorCaller;
let other: EditorCaller;
beforeAll(async () => {
  const f = fixtures();
  const [a, b] = [await f.signedIn(), await f.signedIn()];
  editor = { editor: { id: a.id, email: a.email, admin: false }, run: (fn) => asService(db, fn) };
  other = { editor: { id: b.id, email: b.email, admin: false }, run: (fn) => asService(db, fn) };
}, 60_000);

beforeEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await db.query('delete from public.catalogue_publishes');
  await db.query('delete from public.catalogue_releases');
  await db.query('delete from public.catalogue_release_files');
  await db.query('delete from public.catalogue_scheduled_publishes');
  await db.query('delete from public.catalogue_revisions');
});

const inSeconds = (s: number) => new Date(Date.now() + s * 1000);
/** A schedule whose time has come, written as if made a while ago. */
async function dueSchedule(): Promise<number> {
  const [row] = await db.query<{ id: string | number }>(
    `insert into public.catalogue_scheduled_publishes (run_at, scheduled_by_id, scheduled_by_email)
     values (now() - interval '1 second', $1, $2) returning id`,
    [editor.editor.id, editor.editor.email],
  );
  return Number(row?.id);
}

describe(`scheduling a publish, on ${TEST_DATABASE_KIND}`, () => {
  it('lists it as to come with who scheduled it and when it runs, and records it in the activity log', async () => {
    const runAt = new Date('2027-01-01T05:00:00Z');
    const result = await schedulePublish(editor, runAt, NY);
    expect(result).toMatchObject({ ok: true, message: 'A publish is scheduled for Jan 1, 2027, 12:00 AM EST.' });
    const state = await scheduleState(db);
    expect(state.upcoming).toEqual([
      expect.objectContaining({ runAt: runAt.toISOString(), scheduledBy: editor.editor.email, status: 'scheduled' }),
    ]);
    expect(state.done).toEqual([]);
    const [logged] = await asService(db, (tx) => listActions(tx, { limit: 1 }));
    expect(logged).toMatchObject({
      adminEmail: editor.editor.email,
      action: 'catalogue.publish-scheduled',
      after: 'scheduled a publish for Jan 1, 2027, 12:00 AM EST',
    });
  });

  it('refuses a time gone by, one more than a year ahead, and more than 20 waiting; nothing is recorded', async () => {
    expect(await schedulePublish(editor, inSeconds(-1), NY)).toMatchObject({ ok: false, status: 400, code: 'bad_time' });
    expect(await schedulePublish(editor, inSeconds(367 * 86_400), NY)).toMatchObject({ ok: false, status: 400 });
    for (let i = 0; i < MAX_UPCOMING; i++) expect((await schedulePublish(editor, inSeconds(3600 + i), NY)).ok).toBe(true);
    expect(await schedulePublish(editor, inSeconds(7200), NY)).toMatchObject({ ok: false, status: 409, code: 'too_many' });
    expect((await scheduleState(db)).upcoming).toHaveLength(MAX_UPCOMING);
  });

  it('is cancelled by any editor until it starts, listed as done with who cancelled it; never cancelled twice', async () => {
    const made = await schedulePublish(editor, inSeconds(3600), NY);
    if (!made.ok) throw new Error(made.message);
    const cancelled = await cancelScheduledPublish(other, made.scheduled.id, NY);
    expect(cancelled).toMatchObject({ ok: true, scheduled: { status: 'cancelled', cancelledBy: other.editor.email } });
    expect(await cancelScheduledPublish(editor, made.scheduled.id, NY)).toEqual({
      ok: false,
      status: 409,
      code: 'not_scheduled',
      message: `It was cancelled already by ${other.editor.email}.`,
    });
    expect(await cancelScheduledPublish(editor, 987654, NY)).toMatchObject({ ok: false, status: 404 });
    const state = await scheduleState(db);
    expect(state.upcoming).toEqual([]);
    expect(state.done).toEqual([expect.objectContaining({ status: 'cancelled', scheduledBy: editor.editor.email })]);
    const [logged] = await asService(db, (tx) => listActions(tx, { limit: 1 }));
    expect(logged).toMatchObject({
      adminEmail: other.editor.email,
      action: 'catalogue.schedule-cancelled',
      after: expect.stringMatching(
        new RegExp(`^cancelled the publish scheduled for .* \\(scheduled by ${editor.editor.email}\\)$`),
      ),
    });
    // Cancelled, it never starts.
    await db.query(`update public.catalogue_scheduled_publishes set run_at = now() - interval '1 second'`);
    expect(await startDuePublishes(db, 'server-a')).toEqual([]);
  });

  it('cannot be cancelled once started: the editor is told to undo and publish again', async () => {
    const id = await dueSchedule();
    expect(await startDuePublishes(db, 'server-a')).toHaveLength(1);
    const refused = await cancelScheduledPublish(editor, id, NY);
    expect(refused).toMatchObject({ ok: false, status: 409, message: expect.stringMatching(/^It has started already/) });
    expect((await scheduleState(db)).done).toEqual([expect.objectContaining({ id, status: 'queued' })]);
  });
});

describe(`a scheduled publish starts once, on ${TEST_DATABASE_KIND}`, () => {
  // On PostgreSQL, the servers are two pools of connections on the same database, as two servers of the shop are.
  let servers: Database[] = [];
  beforeAll(() => {
    const url = databaseUrl(db);
    servers = url ? [openPostgres(url, { max: 5 }), openPostgres(url, { max: 5 })] : [db, db];
  });
  afterAll(async () => {
    if (databaseUrl(db)) await Promise.all(servers.map((s) => s.close()));
  });

  it('12 looks at once from two servers start it once: one publish, queued as its editor’s', async () => {
    const id = await dueSchedule();
    const started = await Promise.all(
      Array.from({ length: 12 }, (_, i) => startDuePublishes(servers[i % 2] ?? db, `server-${i % 2}`)),
    );
    expect(started.flat()).toHaveLength(1);
    const publishes = await db.query<{ schedule_id: string | number; requested_by_email: string; status: string }>(
      'select schedule_id, requested_by_email, status from public.catalogue_publishes',
    );
    expect(publishes.map((p) => [Number(p.schedule_id), p.requested_by_email, p.status])).toEqual([
      [id, editor.editor.email, 'queued'],
    ]);
  });

  it('a cancel racing its start: either cancelled with no publish, or started with one, never both (20 races)', async () => {
    const outcomes = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const id = await dueSchedule();
      const [cancelled, started] = await Promise.all([
        cancelScheduledPublish({ ...editor, run: (fn) => asService(servers[round % 2] ?? db, fn) }, id, NY),
        startDuePublishes(servers[(round + 1) % 2] ?? db, 'server-b'),
      ]);
      const [row] = await db.query<{ status: string; publishes: number }>(
        `select status, (select count(*)::int from public.catalogue_publishes where schedule_id = $1) as publishes
           from public.catalogue_scheduled_publishes where id = $1`,
        [id],
      );
      expect([cancelled.ok, started.length]).not.toEqual([true, 1]);
      expect(row?.publishes).toBe(row?.status === 'started' ? 1 : 0);
      expect(row?.status).toBe(cancelled.ok ? 'cancelled' : 'started');
      outcomes.add(row?.status ?? '');
    }
    expect([...outcomes].every((o) => o === 'cancelled' || o === 'started')).toBe(true);
  }, 60_000);
});

describe(`the endpoints, on ${TEST_DATABASE_KIND}`, () => {
  const deps = (): AdminDeps & { timeZone: string } => ({
    db,
    auth: createBuiltInAuth({ db, secureCookies: false }),
    adminEmails: ['owner@schedules.example'],
    timeZone: NY,
  });
  const post = (body: unknown) =>
    new Request('http://shop.test/api/admin/catalogue/schedule', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('a shopper or a guest gets the 404 a stranger gets, and nothing is scheduled or cancelled', async () => {
    const shopper = await fixtures().signedIn();
    for (const jar of [shopper.jar(), browser()]) {
      expect((await scheduleRoute(deps(), post({ runAt: '2027-01-01T00:00' }), jar)).status).toBe(404);
    }
    const id = await dueSchedule();
    await db.query(`update public.catalogue_scheduled_publishes set run_at = now() + interval '1 hour'`);
    expect((await cancelScheduleRoute(deps(), post({ id }), shopper.jar())).status).toBe(404);
    expect((await scheduleState(db)).upcoming).toHaveLength(1);
  });

  it('takes a time on the shop’s clock, says what is wrong with one it cannot take, and cancels by id', async () => {
    const owner = await fixtures().admin();
    const made = await scheduleRoute(deps(), post({ runAt: '2027-01-01T00:00' }), owner.jar());
    expect(made.status).toBe(201);
    const body = (await made.json()) as { scheduled: { id: number; runAt: string }; message: string };
    expect(body.scheduled.runAt).toBe('2027-01-01T05:00:00.000Z');
    for (const [runAt, message] of [
      ['2027-02-30T00:00', 'There is no such time as 2027-02-30T00:00: Choose the date and time to publish at'],
      ['tomorrow', 'Choose the date and time to publish at, for example 2026-12-25T00:00.'],
      [instantToWall(inSeconds(-120), NY), 'Choose a time that is still to come (to publish now, press Publish).'],
    ] as const) {
      const refused = await scheduleRoute(deps(), post({ runAt }), owner.jar());
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(message);
    }
    expect((await scheduleRoute(deps(), post({ runAt: '2027-01-01T00:00', extra: 1 }), owner.jar())).status).toBe(400);
    expect((await cancelScheduleRoute(deps(), post({ id: 'abc' }), owner.jar())).status).toBe(400);
    expect((await cancelScheduleRoute(deps(), post({ id: 987654 }), owner.jar())).status).toBe(404);
    const cancelled = await cancelScheduleRoute(deps(), post({ id: body.scheduled.id }), owner.jar());
    expect(cancelled.status).toBe(200);
    expect((await scheduleState(db)).upcoming).toEqual([]);
  });
});

// The publisher ---------------------------------------------------------------------------------------------------

const workers: PublishWorker[] = [];
function publisher(served: ReleaseSwitch, make: typeof makeRelease = makeRelease): PublishWorker {
  const worker = startPublisher(db, { served, checkEveryMs: 3_600_000, make });
  workers.push(worker);
  return worker;
}

async function saveScrubs(price: string): Promise<void> {
  const { readFileSync } = await import('node:fs');
  const text = readFileSync('content/products/03-clinical-scrubs.md', 'utf8').replace(/^price: 45$/m, `price: ${price}`);
  await db.query(
    `insert into public.catalogue_revisions (file, product_id, contents, author_email, summary)
     values ('03-clinical-scrubs.md', 3, $1, 'editor@example.com', 'price')`,
    [text],
  );
}

describe(`the publisher and scheduled publishes, on ${TEST_DATABASE_KIND}`, () => {
  afterAll(() => Promise.all(workers.splice(0).map((w) => w.stop())));

  it('publishes what is saved at the time: live within seconds of it', async () => {
    serveCatalogue(null);
    const served = recordingSwitch();
    await publisher(served).caughtUp;
    await saveScrubs('39');
    const runAt = inSeconds(2);
    const made = await schedulePublish(editor, runAt, NY);
    if (!made.ok) throw new Error(made.message);
    // The publisher looks once it is told (here, as the schedule is made elsewhere, at its next look) and wakes at the time.
    workers[0]?.nudge();
    await expect.poll(async () => (await publishState(db)).live?.status, { timeout: 8000 }).toBe('live');
    expect(served.prices()).toEqual([4500, 3900]);
    const switched = served.switches[1];
    expect(switched?.at).toBeGreaterThanOrEqual(runAt.getTime());
    expect((switched?.at ?? 0) - runAt.getTime()).toBeLessThan(SWITCH_MS);
    const [done] = (await scheduleState(db)).done;
    expect(done).toMatchObject({ id: made.scheduled.id, status: 'live', scheduledBy: editor.editor.email });
  });

  it('with two servers, one publish at the time, and both serve it', async () => {
    const here = recordingSwitch();
    const there = recordingSwitch();
    await Promise.all([publisher(here), publisher(there)].map((w) => w.caughtUp));
    await saveScrubs('41');
    const runAt = inSeconds(1.5);
    const made = await schedulePublish(editor, runAt, NY);
    if (!made.ok) throw new Error(made.message);
    for (const w of workers) w.nudge();
    // One starts it at its time, the other serves it about a second after it is live.
    await expect.poll(() => [here.prices().at(-1), there.prices().at(-1)], { timeout: 8000 }).toEqual([4100, 4100]);
    for (const switched of [here.switches.at(-1), there.switches.at(-1)])
      expect((switched?.at ?? 0) - runAt.getTime()).toBeLessThan(SWITCH_MS + 1500);
    const publishes = await db.query<{ status: string }>('select status from public.catalogue_publishes');
    expect(publishes.map((p) => p.status)).toEqual(['live']);
  });

  it('one that fails is listed as failed with why, shoppers keep what they had, and the failure is logged', async () => {
    const served = recordingSwitch();
    let failing = false;
    await publisher(served, async (snapshot, options) => {
      if (failing) throw new PublishError('The shop could not make the page of product 3 (it answered 500): publish again.');
      return makeRelease(snapshot, options);
    }).caughtUp;
    failing = true;
    const before = served.switches.length;
    await saveScrubs('43');
    const made = await schedulePublish(editor, inSeconds(1), NY);
    if (!made.ok) throw new Error(made.message);
    const logs = captureLogs('error');
    try {
      await expect.poll(async () => (await scheduleState(db)).done[0]?.status, { timeout: 8000 }).toBe('failed');
      expect(logs.text()).toMatch(/catalogue\.publish_failed/);
    } finally {
      logs.restore();
    }
    expect((await scheduleState(db)).done[0]).toMatchObject({
      id: made.scheduled.id,
      error: 'The shop could not make the page of product 3 (it answered 500): publish again.',
    });
    expect(served.switches).toHaveLength(before);
  });
});
