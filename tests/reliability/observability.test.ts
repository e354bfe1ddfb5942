/**
 * What an operator reads and scrapes. A shopper's whole visit (sign-up, verification, a wrong password, a reset, a
 * cart, a declined card and a paid checkout with an address, the order, its e-mails and label, a refund by an admin,
 * a contact message, the newsletter) runs through every endpoint with the log captured; no line may hold a password,
 * a token, a session cookie, a client secret, a card number, a full e-mail address or the street. Every request has
 * its line and its id, which reaches the lines of the outbox jobs it queued. Then /metrics: refused without its token,
 * from another site, and unset; its counters moved with the visit. Then the health answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as scrapeEndpoint } from '@/pages/metrics';
import { asService } from '@/server/db/roles.server';
import { captureLogs, type LogRecord } from '@/server/log.server';
import { readiness } from '@/server/readiness.server';
import {
  ADMIN_EMAIL,
  apiRequest,
  type Browser,
  browser,
  call,
  expectJson,
  ORIGIN,
  openCheckout,
  SOAP,
  signedIn,
  startShop,
  stopShop,
  type TestShop,
} from './harness';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef0123456789abcdef';
const EMAIL = 'zoe.observer@example.com';
const CONTACT_EMAIL = 'carl.contact@example.net';
const PASSWORD = 'Observed-Passphrase-7781';
const NEW_PASSWORD = 'Renewed-Passphrase-9932';
const WRONG_PASSWORD = 'Wrong-Guess-Passphrase-4410';
const STREET = '1234 Observatory Lane';
const APARTMENT = 'Suite 77B';
const DECLINED_CARD = '4000000000000002';
const GOOD_CARD = '4242424242424242';
const ADDRESS = {
  name: 'Zoe Observer',
  email: EMAIL,
  street1: STREET,
  street2: APARTMENT,
  city: 'Austin',
  state: 'TX',
  zip: '78701',
  country: 'US',
};
const REQUEST_ID = 'obs-reset-request-0001';

let shop: TestShop;
let logs: ReturnType<typeof captureLogs>;
/** Everything secret the visit used, found along the way: none may be in any line. */
const secrets = new Set<string>([
  EMAIL,
  CONTACT_EMAIL,
  ADMIN_EMAIL,
  PASSWORD,
  NEW_PASSWORD,
  WRONG_PASSWORD,
  'lavender-fields-42',
  STREET,
  APARTMENT,
  DECLINED_CARD,
  GOOD_CARD,
  METRICS_TOKEN,
]);
let orderId = '';
let metricsBefore = '';
let resetAnswer: Response;

const scrape = (headers: Record<string, string> = { authorization: `Bearer ${METRICS_TOKEN}` }) =>
  scrapeEndpoint({ request: new Request(`${ORIGIN}/metrics`, { headers }) } as never) as Promise<Response>;

/** A series' value in a scrape (0 when absent). */
function value(metrics: string, series: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** The link token in the newest e-mail to `to`. */
function mailedToken(to: string): string {
  const mail = [...shop.sent].reverse().find((m) => m.to === to);
  const token = /token=([\w-]+)/.exec(mail?.text ?? '')?.[1];
  if (!token) throw new Error(`no link mailed to ${to}`);
  secrets.add(token);
  return token;
}

/** The session cookies a browser holds: secrets too. */
function keepCookies(jar: Browser): void {
  for (const { value } of jar.getAll()) if (value.length >= 16) secrets.add(value);
}

beforeAll(async () => {
  shop = await startShop({ METRICS_TOKEN, ADDRESS_LIMIT_FACTOR: '1000' });
  metricsBefore = await (await scrape()).text();
  logs = captureLogs('debug');
  const zoe = browser();

  // Sign-up and verification (the link's token, and the password typed again).
  const signup = { firstName: 'Zoe', lastName: 'Observer', email: EMAIL, password: PASSWORD, confirmPassword: PASSWORD };
  await expectJson(call(apiRequest('POST', '/api/auth/signup', signup), { jar: zoe }), 200).catch(() =>
    expectJson(call(apiRequest('POST', '/api/auth/signup', signup), { jar: zoe }), 201),
  );
  await shop.runOutbox();
  const verify = { token: mailedToken(EMAIL), password: PASSWORD };
  expect((await call(apiRequest('POST', '/api/auth/verify', verify), { jar: zoe })).status).toBeLessThan(300);
  keepCookies(zoe);

  // Wrong passwords from another address, until its limit answers 429.
  const stranger = { jar: browser(), clientAddress: '10.9.8.7' };
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++)
    statuses.push(
      (await call(apiRequest('POST', '/api/auth/login', { email: EMAIL, password: WRONG_PASSWORD }), stranger)).status,
    );
  expect(statuses.at(-1)).toBe(429);

  // A reset asked for with a request id of the proxy's. Its job queues the e-mail, which fails once (the mail service
  // down), then goes.
  resetAnswer = await call(apiRequest('POST', '/api/auth/reset-request', { email: EMAIL }, { 'x-request-id': REQUEST_ID }));
  expect(resetAnswer.status).toBe(200);
  await shop.runOutbox();
  shop.mailDown.value = true;
  await shop.runOutbox();
  shop.mailDown.value = false;
  await shop.runOutbox(new Date(Date.now() + 3_600_000));
  const reset = { token: mailedToken(EMAIL), password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD };
  expect((await call(apiRequest('POST', '/api/auth/reset', reset))).status).toBe(200);
  await expectJson(call(apiRequest('POST', '/api/auth/login', { email: EMAIL, password: NEW_PASSWORD }), { jar: zoe }), 200);
  keepCookies(zoe);

  // A cart, a checkout with an address, a declined card, then a good one.
  await expectJson(call(apiRequest('PUT', '/api/cart', { lines: [SOAP] }), { jar: zoe }), 200);
  const checkout = await openCheckout(zoe, [SOAP], {}, ADDRESS);
  secrets.add(checkout.client_secret);
  const card = (number: string) => ({ clientSecret: checkout.client_secret, number, expMonth: 12, expYear: 30, cvc: '123' });
  // The processor answers the card's decline as the payment's state; the shop hears of it when the order is asked for.
  await call(apiRequest('POST', '/api/test-payments/confirm', card(DECLINED_CARD)));
  const confirm = () =>
    call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: checkout.paymentIntentId }), { jar: zoe });
  expect((await confirm()).status).toBe(402);
  await expectJson(call(apiRequest('POST', '/api/test-payments/confirm', card(GOOD_CARD))), 200);
  ({
    order: { id: orderId },
  } = await expectJson<{ order: { id: string } }>(confirm(), 201));
  await shop.runOutbox();
  expect((await call(apiRequest('GET', `/api/orders/${orderId}/label`), { jar: zoe })).status).toBe(200);

  // The admin refunds part of it; a contact message; the newsletter.
  const admin = await signedIn(shop, ADMIN_EMAIL);
  keepCookies(admin);
  await expectJson(call(apiRequest('POST', `/api/admin/orders/${orderId}/refund`, { amountCents: 100 }), { jar: admin }), 200);
  const contact = { name: 'Carl Contact', email: CONTACT_EMAIL, message: 'Where is my parcel? I live at 1 Quiet Road.' };
  expect((await call(apiRequest('POST', '/api/contact', contact))).status).toBeLessThan(300);
  expect((await call(apiRequest('POST', '/api/newsletter', { email: EMAIL }), { jar: zoe })).status).toBeLessThan(300);
  await shop.runOutbox();
  logs.restore();
}, 120_000);
afterAll(async () => {
  logs?.restore();
  await stopShop();
});

const records = (): LogRecord[] => logs.records;

describe('the log of a whole visit', () => {
  it('holds no password, token, cookie, client secret, card number, full e-mail address or street', () => {
    const text = logs.text();
    expect(text.length).toBeGreaterThan(5_000);
    for (const secret of secrets) expect(text, `the log holds ${secret}`).not.toContain(secret);
    for (const email of [EMAIL, CONTACT_EMAIL, ADMIN_EMAIL])
      expect(text.toLowerCase(), email).not.toContain(email.split('@')[0]?.toLowerCase());
    // Masked, the shopper can still be told apart by domain.
    expect(text).toContain('z***@example.com');
  });

  it('has a JSON line per request: method, route pattern, status, duration, request id and the adapters', () => {
    const lines = records().filter((r) => r.msg === 'request answered');
    expect(lines.length).toBeGreaterThan(20);
    for (const line of lines) {
      expect(line).toMatchObject({ component: 'http', method: expect.any(String), status: expect.any(Number) });
      expect(line.ms).toEqual(expect.any(Number));
      expect(String(line.requestId)).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:-]{7,63}$/);
      // The pattern, never the order's id.
      expect(String(line.route)).not.toContain(orderId);
    }
    expect(lines).toContainEqual(expect.objectContaining({ route: '/api/orders/[id]/label', method: 'GET', status: 200 }));
    expect(lines).toContainEqual(
      expect.objectContaining({ route: '/api/admin/orders/[id]/refund', status: 200, adapters: expect.any(Object) }),
    );
  });

  it('has a line for each notable event, at its level', () => {
    const saw = (msg: string | RegExp, level?: string) =>
      expect(records(), String(msg)).toContainEqual(
        expect.objectContaining({ msg: typeof msg === 'string' ? msg : expect.stringMatching(msg), ...(level ? { level } : {}) }),
      );
    saw('order recorded', 'info');
    saw('payment failed', 'warn');
    saw('label bought', 'info');
    saw('e-mail sent', 'info');
    saw('e-mail not sent', 'warn');
    saw(/^job failed; retrying in \d+ s$/, 'warn');
    saw('refund made', 'info');
    saw('rate limit hit', 'warn');
    expect(records()).toContainEqual(expect.objectContaining({ msg: 'rate limit hit', limit: 'login:pair' }));
  });

  it('sends the request id back, and puts it on the lines of the jobs the request queued', () => {
    expect(resetAnswer.headers.get('x-request-id')).toBe(REQUEST_ID);
    const jobLines = (kind: string) => records().filter((r) => r.component === 'outbox' && r.kind === kind);
    // The reset's job, then the e-mail job it queued: the id goes from one to the next, through a failure and a retry.
    expect(jobLines('password-reset')).toEqual([expect.objectContaining({ msg: 'job done', requestId: REQUEST_ID })]);
    const mailJob = jobLines('email').filter((r) => r.requestId === REQUEST_ID);
    expect(mailJob.map((r) => r.msg)).toEqual([expect.stringMatching(/^job failed; retrying/), 'job done']);
    // What the job did, logged inside it, carries the id too.
    expect(records()).toContainEqual(expect.objectContaining({ msg: 'e-mail not sent', requestId: REQUEST_ID }));
    expect(records()).toContainEqual(expect.objectContaining({ msg: 'e-mail sent', requestId: REQUEST_ID }));
    // Jobs other requests queued do not carry it.
    expect(records().filter((r) => r.requestId === REQUEST_ID && r.component === 'outbox')).toHaveLength(3);
  });

  it('replaces a request id that is not a sane one with its own', async () => {
    for (const sent of [
      'short',
      'has space in it',
      'x'.repeat(65),
      'semi;colon-request-id',
      '"quoted-request-id"',
      '-starts-with-dash',
    ]) {
      const answer = await call(apiRequest('GET', '/api/health/live', undefined, { 'x-request-id': sent }));
      expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe('/metrics', () => {
  it('refuses a scrape without the token, with another, and from a web page even with it', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer not-the-token-0123456789abcdef0123456789' },
      { authorization: `Bearer ${METRICS_TOKEN}x` },
      { authorization: `Basic ${btoa(`prometheus:${METRICS_TOKEN}`)}` },
      { authorization: METRICS_TOKEN },
    ]) {
      const answer = await scrape(headers);
      expect(answer.status).toBe(401);
      expect(await answer.text()).not.toContain('shop_');
    }
    for (const headers of [
      { authorization: `Bearer ${METRICS_TOKEN}`, origin: 'https://evil.example' },
      { authorization: `Bearer ${METRICS_TOKEN}`, 'sec-fetch-site': 'cross-site' },
    ]) {
      const answer = await scrape(headers);
      expect(answer.status).toBe(403);
      expect(await answer.text()).not.toContain('shop_');
    }
  });

  it('does not exist without METRICS_TOKEN', async () => {
    const { config } = shop.services;
    shop.services.config = { ...config, metricsToken: null };
    try {
      expect((await scrape()).status).toBe(404);
      expect((await scrape({})).status).toBe(404);
    } finally {
      shop.services.config = config;
    }
  });

  it('counts what the visit did, in Prometheus’ names and units', async () => {
    const answer = await scrape();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const after = await answer.text();
    const moved = (series: string) => value(after, series) - value(metricsBefore, series);
    expect(moved('shop_orders_recorded_total')).toBe(1);
    expect(moved('shop_payments_failed_total')).toBe(1);
    expect(moved('shop_refunds_total{kind="refund"}')).toBe(1);
    expect(moved('shop_labels_bought_total')).toBe(1);
    expect(moved('shop_emails_failed_total')).toBe(1);
    expect(moved('shop_emails_sent_total')).toBeGreaterThanOrEqual(5);
    expect(moved('shop_rate_limited_total{limit="login:pair"}')).toBe(1);
    expect(moved('shop_outbox_job_failures_total{kind="email",retried="yes"}')).toBe(1);
    expect(moved('http_requests_total{method="POST",route="/api/orders/confirm",status="201"}')).toBe(1);
    expect(moved('http_requests_total{method="POST",route="/api/orders/confirm",status="402"}')).toBe(1);
    expect(moved('http_request_duration_seconds_count{method="POST",route="/api/orders/confirm"}')).toBe(2);
    expect(value(after, 'shop_db_pool_wait_seconds_count')).toBeGreaterThan(0);
    expect(value(after, 'shop_database_size_bytes')).toBeGreaterThan(1_000_000);
    expect(after).toMatch(/^shop_outbox_jobs\{kind="email",state="due"\} \d+$/m);
    expect(after).toMatch(/^shop_outbox_oldest_job_age_seconds\{kind="order-label"\} [\d.]+$/m);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds [\d.e-]+$/m);
    expect(after).toMatch(/^process_resident_memory_bytes \d+$/m);
    // No series is labelled with a raw path (an id) or a shopper.
    expect(after).not.toContain(orderId);
    expect(after).not.toContain('@');
  });
});

describe('health', () => {
  it('liveness answers without the database; readiness checks it, the migrations and the outbox', async () => {
    expect(await expectJson(call(apiRequest('GET', '/api/health/live')), 200)).toEqual({ status: 'ok' });
    expect(await expectJson(call(apiRequest('GET', '/api/health/ready')), 200)).toEqual({
      status: 'ok',
      checks: { database: 'ok', migrations: 'ok', outbox: 'ok', catalogue: 'ok' },
    });
    // The start-up check the server in front and the e2e suite wait for is still there.
    expect(await expectJson(call(apiRequest('GET', '/api/health')), 200)).toEqual({ status: 'ok' });
  });

  it('is not ready while an outbox job has been due for longer than OUTBOX_STUCK_SECONDS', async () => {
    const [job] = await asService(shop.db, (tx) =>
      tx.query<{ id: string }>(
        `insert into public.outbox (kind, payload, next_attempt_at)
         values ('contact-notice', '{"messageId": 999999}', now() - interval '20 minutes') returning id::text`,
      ),
    );
    try {
      const body = await expectJson<{ status: string; checks: Record<string, string> }>(
        call(apiRequest('GET', '/api/health/ready')),
        503,
      );
      expect(body.status).toBe('unavailable');
      expect(body.checks).toMatchObject({ database: 'ok', migrations: 'ok' });
      expect(body.checks.outbox).toMatch(/^failed: contact-notice jobs due for 1[23]\d\d s \(limit 900 s\)$/);
    } finally {
      await asService(shop.db, (tx) => tx.query('delete from public.outbox where id = $1::bigint', [job?.id]));
    }
    expect((await call(apiRequest('GET', '/api/health/ready'))).status).toBe(200);
  });

  it('is not ready while a migration this build ships is not applied', async () => {
    const [newest] = await shop.db.query<{ version: string; name: string }>(
      'delete from supabase_migrations.schema_migrations where version = (select max(version) from supabase_migrations.schema_migrations) returning version, name',
    );
    try {
      const body = await expectJson<{ checks: Record<string, string> }>(call(apiRequest('GET', '/api/health/ready')), 503);
      expect(body.checks.migrations).toBe(`failed: 1 not applied (${newest?.version}_${newest?.name}.sql)`);
    } finally {
      await shop.db.query('insert into supabase_migrations.schema_migrations (version, name) values ($1, $2)', [
        newest?.version,
        newest?.name,
      ]);
    }
  });

  it('is not ready when the database does not answer, and says only that', async () => {
    const gone = {
      ...shop.db,
      query: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    };
    const result = await readiness(gone, { stuckSeconds: 900 });
    expect(result).toEqual({
      ready: false,
      checks: {
        database: 'failed: the database does not answer',
        migrations: 'not checked',
        outbox: 'not checked',
        catalogue: 'ok',
      },
    });
  });
});
