import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { beforeEach, describe, expect, it } from 'vitest';
import { asService } from '@/server/db/roles.server';
import { captureLogs } from '@/server/log.server';
import { readDevMailbox, startDevMailbox } from '@/server/mail/dev-mailbox.server';
import type { MailMessage, MailPort } from '@/server/mail/mail.port';
import { createSesMail } from '@/server/mail/ses.server';
import { JOBS, jobHandlers, queueJob } from '@/server/outbox/jobs.server';
import { enqueue, MAX_ATTEMPTS, processDue, retryDelaySeconds, startOutboxWorker } from '@/server/outbox/outbox.server';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

// Failures are logged by design; tests that expect one read the log's lines from here.
let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs('warn');
  return () => logs.restore();
});

/** A job kind of the test's own, so one test's jobs never reach another test's handlers. */
const newKind = () => `test-${randomUUID()}`;

type JobRow = {
  attempts: number;
  last_error: string | null;
  done: boolean;
  locked: boolean;
  /** Seconds since the epoch. */
  next_at: number;
  /** Seconds from the database's now() to next_attempt_at. */
  due_in: number;
};

async function jobsOf(kind: string): Promise<JobRow[]> {
  return asService(db, (tx) =>
    tx.query<JobRow>(
      `select attempts, last_error, done_at is not null as done, locked_until is not null as locked,
              extract(epoch from next_attempt_at)::float8 as next_at,
              extract(epoch from next_attempt_at - now())::float8 as due_in
         from public.outbox where kind = $1 order by id`,
      [kind],
    ),
  );
}

async function onlyJob(kind: string): Promise<JobRow> {
  const rows = await jobsOf(kind);
  expect(rows).toHaveLength(1);
  const [row] = rows;
  if (!row) throw new Error(`no job of kind ${kind}`);
  return row;
}

/** Just after the job's next attempt is due. */
const justAfter = (row: JobRow) => new Date(Math.ceil((row.next_at + 1) * 1000));

/** A port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

describe(`outbox on ${TEST_DATABASE_KIND}`, () => {
  it('delivers a queued job through its handler and marks it done', async () => {
    const kind = newKind();
    const seen: unknown[] = [];
    const handlers = { [kind]: async (payload: unknown) => void seen.push(payload) };

    expect(await asService(db, (tx) => enqueue(tx, { kind, payload: { orderId: 7, note: 'café' } }))).toBe(true);
    expect(await processDue(db, handlers)).toEqual({ sent: 1, failed: 0 });

    expect(seen).toEqual([{ orderId: 7, note: 'café' }]);
    expect(await onlyJob(kind)).toMatchObject({ attempts: 1, done: true, locked: false, last_error: null });
    expect(await processDue(db, handlers)).toEqual({ sent: 0, failed: 0 });
  });

  it('rolls the job back with the transaction that queued it', async () => {
    const kind = newKind();
    const failed = asService(db, async (tx) => {
      await enqueue(tx, { kind, payload: { orderId: 8 } });
      throw new Error('payment not verified');
    });
    await expect(failed).rejects.toThrow('payment not verified');
    expect(await jobsOf(kind)).toEqual([]);
  });

  it('treats a repeated dedupeKey as a no-op: one order, one e-mail', async () => {
    const kind = newKind();
    const dedupeKey = `order-confirmation:${randomUUID()}`;
    const seen: unknown[] = [];

    expect(await asService(db, (tx) => enqueue(tx, { kind, payload: { n: 1 }, dedupeKey }))).toBe(true);
    expect(await asService(db, (tx) => enqueue(tx, { kind, payload: { n: 2 }, dedupeKey }))).toBe(false);

    expect(await processDue(db, { [kind]: async (payload) => void seen.push(payload) })).toEqual({ sent: 1, failed: 0 });
    expect(seen).toEqual([{ n: 1 }]);
    // Still a no-op once the first one was sent.
    expect(await asService(db, (tx) => enqueue(tx, { kind, payload: { n: 3 }, dedupeKey }))).toBe(false);
  });

  it('records a failure, waits out the backoff, then retries and succeeds', async () => {
    const kind = newKind();
    let down = true;
    const handlers = {
      [kind]: async () => {
        if (down) throw new Error('mail service unavailable');
      },
    };
    await asService(db, (tx) => enqueue(tx, { kind, payload: {} }));

    expect(await processDue(db, handlers)).toEqual({ sent: 0, failed: 1 });
    const first = await onlyJob(kind);
    expect(first).toMatchObject({ attempts: 1, done: false, locked: false, last_error: 'mail service unavailable' });
    expect(first.due_in).toBeGreaterThan(25);
    expect(first.due_in).toBeLessThanOrEqual(30);
    expect(logs.records).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'job failed; retrying in 30 s',
        kind,
        attempt: 1,
        retry: true,
        err: 'mail service unavailable',
      }),
    );

    // Not due yet: nothing runs.
    expect(await processDue(db, handlers)).toEqual({ sent: 0, failed: 0 });

    // The second failure waits twice as long.
    const retriedAt = justAfter(first);
    expect(await processDue(db, handlers, { now: retriedAt })).toEqual({ sent: 0, failed: 1 });
    const second = await onlyJob(kind);
    expect(second.attempts).toBe(2);
    expect(second.next_at - retriedAt.getTime() / 1000).toBeCloseTo(60, 3);

    down = false;
    expect(await processDue(db, handlers, { now: justAfter(second) })).toEqual({ sent: 1, failed: 0 });
    expect(await onlyJob(kind)).toMatchObject({ attempts: 3, done: true, locked: false });
  });

  it('backs off exponentially from 30 s, capped at an hour', () => {
    expect(Array.from({ length: MAX_ATTEMPTS }, (_, i) => retryDelaySeconds(i + 1))).toEqual([
      30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600,
    ]);
  });

  it(`stops retrying after ${MAX_ATTEMPTS} attempts and leaves the job for a person`, async () => {
    const kind = newKind();
    const handlers = {
      [kind]: async () => {
        throw new Error('address rejected');
      },
    };
    await asService(db, (tx) => enqueue(tx, { kind, payload: {} }));

    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const row = await onlyJob(kind);
      expect(await processDue(db, handlers, { now: justAfter(row) })).toEqual({ sent: 0, failed: 1 });
    }
    const row = await onlyJob(kind);
    expect(row).toMatchObject({ attempts: MAX_ATTEMPTS, done: false, last_error: 'address rejected' });
    expect(await processDue(db, handlers, { now: new Date(Date.now() + 365 * 86_400_000) })).toEqual({ sent: 0, failed: 0 });
    expect(logs.records.at(-1)).toMatchObject({
      level: 'error',
      attempt: 10,
      retry: false,
      msg: expect.stringMatching(/will not be retried/),
    });
  });

  it('sets a malformed e-mail payload aside at once instead of retrying it', async () => {
    const kind = newKind();
    const sent: MailMessage[] = [];
    const mail: MailPort = { name: 'fake', send: async (m) => void sent.push(m) };
    await asService(db, (tx) => enqueue(tx, { kind, payload: { to: 'not an address', subject: 'Hi' } }));

    expect(await processDue(db, { [kind]: jobHandlers({ email: mail.send }).email })).toEqual({ sent: 0, failed: 1 });

    expect(sent).toEqual([]);
    expect(await onlyJob(kind)).toMatchObject({ attempts: MAX_ATTEMPTS, done: false });
    expect(logs.records).toContainEqual(
      expect.objectContaining({
        msg: expect.stringMatching(/will not be retried/),
        err: expect.stringMatching(/email payload is not what the job expects/),
      }),
    );
  });

  it('checks a typed job’s payload when it is queued, and queues one job per de-duplication key', async () => {
    const key = `typed:${randomUUID()}`;
    const message: MailMessage = { to: 'lena@example.com', subject: key, text: 'Hi', html: '<p>Hi</p>' };
    await expect(asService(db, (tx) => queueJob(tx, 'email', { ...message, to: 'not an address' }, key))).rejects.toThrow(
      /email has a malformed payload/,
    );
    expect(await asService(db, (tx) => queueJob(tx, 'email', message, key))).toBe(true);
    expect(await asService(db, (tx) => queueJob(tx, 'email', { ...message, text: 'again' }, key))).toBe(false);
    expect(Object.keys(JOBS)).toContain('email');
    // Out of the way of the tests below, which run every due 'email' job.
    await asService(db, (tx) => tx.query(`update public.outbox set done_at = now() where dedupe_key = $1`, [key]));
  });

  it('keeps an e-mail queued while SES is down and delivers it once the endpoint is up', { timeout: 30_000 }, async () => {
    const port = await closedPort();
    const endpoint = `http://127.0.0.1:${port}`;
    const mail = createSesMail({
      region: 'us-east-1',
      from: 'Aurelia <hello@aurelia-care.com>',
      endpoint,
      credentials: { accessKeyId: 'dev', secretAccessKey: 'dev' },
    });
    const handlers = jobHandlers({ email: (m) => mail.send(m) });
    const subject = `Order ${randomUUID()} confirmed`;
    const message: MailMessage = { to: 'maya@example.com', subject, text: 'Thank you.', html: '<p>Thank you.</p>' };

    await asService(db, (tx) => queueJob(tx, 'email', message, `order:${subject}`));
    expect(await processDue(db, handlers)).toEqual({ sent: 0, failed: 1 });
    const failed = await onlyJobWhere(subject);
    expect(failed).toMatchObject({ attempts: 1, done: false });
    expect(failed.last_error).toMatch(/ECONNREFUSED/);

    const box = await startDevMailbox({ port });
    try {
      expect(await processDue(db, handlers)).toEqual({ sent: 0, failed: 0 });
      expect(await processDue(db, handlers, { now: justAfter(failed) })).toEqual({ sent: 1, failed: 0 });
      expect(await onlyJobWhere(subject)).toMatchObject({ attempts: 2, done: true });
      const received = (await readDevMailbox(box.endpoint)).filter((m) => m.subject === subject);
      expect(received).toEqual([expect.objectContaining(message)]);
    } finally {
      await box.stop();
    }
  });

  it('never runs the same job twice when several workers process at once', { timeout: 30_000 }, async () => {
    const kind = newKind();
    const runs = new Map<number, number>();
    const handlers = {
      [kind]: async (payload: unknown) => {
        const n = (payload as { n: number }).n;
        runs.set(n, (runs.get(n) ?? 0) + 1);
        // Hold the job a moment, so the other workers are claiming while it runs.
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
    };
    const count = 30;
    await asService(db, async (tx) => {
      for (let n = 0; n < count; n++) await enqueue(tx, { kind, payload: { n } });
    });

    const worker = async () => {
      while ((await processDue(db, handlers, { limit: 4 })).sent > 0);
    };
    await Promise.all([worker(), worker(), worker()]);

    expect(runs.size).toBe(count);
    expect([...runs.values()].every((times) => times === 1)).toBe(true);
    expect((await jobsOf(kind)).every((row) => row.done && row.attempts === 1)).toBe(true);
  });

  it('runs a nudged job at once rather than at the next interval', async () => {
    const kind = newKind();
    let delivered: (payload: unknown) => void = () => {};
    const received = new Promise<unknown>((resolve) => {
      delivered = resolve;
    });
    const worker = startOutboxWorker(db, { [kind]: async (payload) => delivered(payload) }, { intervalMs: 60_000 });
    try {
      await asService(db, (tx) => enqueue(tx, { kind, payload: { hello: 'now' } }));
      worker.nudge();
      expect(await received).toEqual({ hello: 'now' });
    } finally {
      await worker.stop();
    }
    expect(await onlyJob(kind)).toMatchObject({ done: true });
  });
});

describe('the outbox worker stopping with the server', () => {
  it('finishes the job under way and hands back the ones it had claimed, which then run exactly once', async () => {
    const kind = newKind();
    const ran: string[] = [];
    let release = () => {};
    let handler: (payload: unknown) => Promise<void> = async () => {};
    const firstStarted = new Promise<void>((started) => {
      let first = true;
      handler = async (payload) => {
        ran.push((payload as { n: string }).n);
        if (first) {
          first = false;
          started();
          await new Promise<void>((resolve) => (release = resolve));
        }
      };
    });
    await asService(db, async (tx) => {
      for (const n of ['1', '2', '3']) await enqueue(tx, { kind, payload: { n } });
    });
    const worker = startOutboxWorker(db, { [kind]: (payload) => handler(payload) }, { intervalMs: 60_000 });
    await firstStarted;
    // All three are claimed; the first is running when the server stops.
    expect((await jobsOf(kind)).map((j) => j.locked)).toEqual([true, true, true]);
    const stopped = worker.stop();
    release();
    await stopped;
    expect(ran).toEqual(['1']);
    expect(await jobsOf(kind)).toMatchObject([
      { done: true, attempts: 1 },
      { done: false, locked: false, attempts: 0 },
      { done: false, locked: false, attempts: 0 },
    ]);
    // The next server (or this one restarted) runs them at once, and only them.
    expect(await processDue(db, { [kind]: (payload) => handler(payload) })).toEqual({ sent: 2, failed: 0 });
    expect(ran).toEqual(['1', '2', '3']);
    expect(await processDue(db, { [kind]: (payload) => handler(payload) })).toEqual({ sent: 0, failed: 0 });
  });
});

/** The e-mail job with this subject (e-mail jobs share the kind 'email'). */
async function onlyJobWhere(subject: string): Promise<JobRow> {
  const rows = await asService(db, (tx) =>
    tx.query<JobRow>(
      `select attempts, last_error, done_at is not null as done, locked_until is not null as locked,
              extract(epoch from next_attempt_at)::float8 as next_at,
              extract(epoch from next_attempt_at - now())::float8 as due_in
         from public.outbox where kind = 'email' and payload ->> 'subject' = $1`,
      [subject],
    ),
  );
  const [row] = rows;
  if (rows.length !== 1 || !row) throw new Error(`expected one e-mail job with subject ${subject}, found ${rows.length}`);
  return row;
}
