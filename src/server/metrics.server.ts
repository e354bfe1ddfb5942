import { createHash, timingSafeEqual } from 'node:crypto';
import client from 'prom-client';
import { processShared } from './process-shared.server';

/**
 * The shop's Prometheus metrics (prom-client), scraped from /metrics with METRICS_TOKEN (src/pages/metrics.ts). Names
 * follow Prometheus' conventions: base units (seconds, bytes), `_total` for counters, the `shop_` prefix for the shop's
 * own. Counters move where the event happens; the gauges read from the database (the outbox, its size) are set just
 * before each scrape (see setOutboxState, setDatabaseSize).
 *
 * The registry and every metric are made once per process (processShared): a publish loads a new build of the app, and
 * its counters must go on from the same values rather than start again from 0 in a registry no one scrapes.
 */
function createMetrics() {
  const registry = new client.Registry();

  // Process metrics: CPU, resident memory, heap, event-loop lag (nodejs_eventloop_lag_seconds), open handles, GC.
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

  const registers = [registry];

  const httpRequests = new client.Counter({
    name: 'http_requests_total',
    help: 'Requests answered by the app, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const httpDuration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to the answer’s headers, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });

  const ordersRecorded = new client.Counter({
    name: 'shop_orders_recorded_total',
    help: 'Paid orders recorded.',
    registers,
  });
  const paymentsFailed = new client.Counter({
    name: 'shop_payments_failed_total',
    help: 'Payments the processor reported failed (declined cards, failed confirmations).',
    registers,
  });
  const refunds = new client.Counter({
    name: 'shop_refunds_total',
    help: 'Refunds the shop made, by kind (partial refund, cancellation).',
    labelNames: ['kind'] as const,
    registers,
  });
  const emailsSent = new client.Counter({
    name: 'shop_emails_sent_total',
    help: 'E-mails handed to the mail service.',
    registers,
  });
  const emailsFailed = new client.Counter({
    name: 'shop_emails_failed_total',
    help: 'E-mails the mail service did not take (each failed attempt; the outbox retries).',
    registers,
  });
  const labelsBought = new client.Counter({
    name: 'shop_labels_bought_total',
    help: 'Shipping labels bought.',
    registers,
  });
  const labelsFailed = new client.Counter({
    name: 'shop_labels_failed_total',
    help: 'Attempts to buy a shipping label that failed (the outbox retries).',
    registers,
  });
  const outboxJobsFailed = new client.Counter({
    name: 'shop_outbox_job_failures_total',
    help: 'Outbox job attempts that failed, by kind and whether the job will be retried.',
    labelNames: ['kind', 'retried'] as const,
    registers,
  });
  const rateLimited = new client.Counter({
    name: 'shop_rate_limited_total',
    help: 'Requests refused by a rate limit, by the limit’s name.',
    labelNames: ['limit'] as const,
    registers,
  });
  const dbPoolWait = new client.Histogram({
    name: 'shop_db_pool_wait_seconds',
    help: 'Time a query or transaction waited for a database connection (PostgreSQL pool) or its turn (embedded database).',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });

  const outboxJobs = new client.Gauge({
    name: 'shop_outbox_jobs',
    help: 'Outbox jobs not done, by kind and state: due (to run now), scheduled (waiting for a retry), failed (given up).',
    labelNames: ['kind', 'state'] as const,
    registers,
  });
  const outboxOldest = new client.Gauge({
    name: 'shop_outbox_oldest_job_age_seconds',
    help: 'Age of the oldest outbox job still to run (due or scheduled), by kind; 0 when none.',
    labelNames: ['kind'] as const,
    registers,
  });
  const databaseSize = new client.Gauge({
    name: 'shop_database_size_bytes',
    help: 'Size of the shop’s database on disk (pg_database_size).',
    registers,
  });
  return {
    registry,
    httpRequests,
    httpDuration,
    ordersRecorded,
    paymentsFailed,
    refunds,
    emailsSent,
    emailsFailed,
    labelsBought,
    labelsFailed,
    outboxJobsFailed,
    rateLimited,
    dbPoolWait,
    outboxJobs,
    outboxOldest,
    databaseSize,
  };
}

const metrics = processShared('metrics', createMetrics);
const { httpRequests, httpDuration, outboxJobs, outboxOldest, databaseSize } = metrics;
export const {
  registry,
  ordersRecorded,
  paymentsFailed,
  refunds,
  emailsSent,
  emailsFailed,
  labelsBought,
  labelsFailed,
  outboxJobsFailed,
  rateLimited,
  dbPoolWait,
} = metrics;

/** Counts a request the app answered, under its route pattern (never its raw path: ids would make a series each). */
export function observeRequest(method: string, route: string, status: number, seconds: number): void {
  httpRequests.inc({ method, route, status: String(status) });
  httpDuration.observe({ method, route }, seconds);
}

/** One kind's outbox state, as outboxState (src/server/outbox/outbox.server.ts) reads it. */
export interface OutboxKindState {
  kind: string;
  due: number;
  scheduled: number;
  failed: number;
  oldestSeconds: number;
}

/** Sets the outbox gauges for every kind in `kinds` (0 for a kind with no jobs waiting). */
export function setOutboxState(kinds: readonly string[], states: readonly OutboxKindState[]): void {
  outboxJobs.reset();
  outboxOldest.reset();
  for (const kind of new Set([...kinds, ...states.map((s) => s.kind)])) {
    const state = states.find((s) => s.kind === kind);
    for (const name of ['due', 'scheduled', 'failed'] as const) outboxJobs.set({ kind, state: name }, state?.[name] ?? 0);
    outboxOldest.set({ kind }, state?.oldestSeconds ?? 0);
  }
}

export function setDatabaseSize(bytes: number): void {
  databaseSize.set(bytes);
}

/** Measures how long `acquire` takes to resolve, as a pool wait. */
export async function timedWait<T>(acquire: Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await acquire;
  } finally {
    dbPoolWait.observe((performance.now() - started) / 1000);
  }
}

/**
 * Whether an Authorization header carries `token` as a bearer token. Both sides are hashed first, so the comparison
 * takes the same time whatever the header holds (its length included).
 */
export function bearerMatches(header: string | null, token: string): boolean {
  const given = /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token)) && given !== '';
}
