import { z } from 'astro/zod';
import { isEmail } from '@/lib/email';
import { limitsFor } from './ratelimit.server';

/** Reads one group of variables that must be set together: all of them, or none (then the embedded default runs). */
function group<K extends string>(env: NodeJS.ProcessEnv, name: string, keys: readonly K[]): Record<K, string> | null {
  const set = keys.filter((k) => (env[k] ?? '').trim() !== '');
  if (set.length === 0) return null;
  if (set.length < keys.length) {
    const missing = keys.filter((k) => !set.includes(k));
    throw new Error(
      `${name} is half-configured: ${set.join(', ')} set but ${missing.join(', ')} missing. Set all of them, or none for the embedded default.`,
    );
  }
  return Object.fromEntries(keys.map((k) => [k, (env[k] ?? '').trim()])) as Record<K, string>;
}

const FACTOR_ERROR = 'ADDRESS_LIMIT_FACTOR must be a whole number from 1 to 1000';
const HOPS_ERROR = 'TRUST_PROXY_HOPS must be a whole number from 0 to 10';
const KEEP_ERROR = 'BACKUP_KEEP must be a whole number from 1 to 1000';
const STUCK_ERROR = 'OUTBOX_STUCK_SECONDS must be a whole number of seconds from 60 to 86400';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const url = (name: string) => z.url({ error: `${name} must be a URL` });

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** Node's timers wait at most 2^31 - 1 ms (24.8 days). */
const MAX_INTERVAL_MS = 24 * 86_400_000;

/** A duration such as `30m`, `6h` or `1d` (s, m, h, d), up to 24 days, in milliseconds; `off` (when allowed) is null. */
function duration(name: string, { off }: { off: boolean }) {
  const error = `${name} must be a duration such as 30m, 6h or 1d (s, m, h or d, at most 24d)${off ? ', or off' : ''}`;
  return z.string().transform((value, ctx) => {
    const text = value.trim().toLowerCase();
    if (off && text === 'off') return null;
    const match = /^(\d{1,9})\s*(s|m|h|d)$/.exec(text);
    const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : Number.NaN;
    if (!(ms >= 1000 && ms <= MAX_INTERVAL_MS)) {
      ctx.addIssue({ code: 'custom', message: error });
      return z.NEVER;
    }
    return ms;
  });
}

/** A sender as mail clients write it: `hello@example.com` or `Aurelia <hello@example.com>`. */
const sender = z.string().refine(
  (value) => {
    const address = /^[^<>]*<([^<>]+)>$/.exec(value.trim())?.[1] ?? value.trim();
    return isEmail(address.trim());
  },
  { error: 'MAIL_FROM must be an e-mail address, optionally with a name: Aurelia <hello@example.com>' },
);

/** ADMIN_EMAILS: addresses separated by commas (or spaces), each an e-mail, compared lower-cased. */
const adminEmails = z
  .string()
  .transform((value) =>
    value
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((e) => e.toLowerCase()),
  )
  .refine((emails) => emails.every(isEmail), {
    error: 'ADMIN_EMAILS must be e-mail addresses separated by commas: owner@example.com,helper@example.com',
  });

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The shop's public origin, which every link in an e-mail and the Origin check use: SITE_URL, else the address the
 * server listens on. Never a request's Host header, which the sender chooses.
 */
function publicOrigin(siteUrl: string | undefined, host: string, port: number): string {
  if (siteUrl) return new URL(siteUrl).origin;
  if (WILDCARD_HOSTS.has(host))
    throw new Error(`SITE_URL is required when HOST is ${host}: links in e-mails need the shop's public address.`);
  return new URL(`http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`).origin;
}

/** The server's configuration, validated once at start-up; a wrong or half-set value stops the server with a clear message. */
/** Whether `zone` is an IANA time zone this runtime knows. */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.includes('/') || zone === 'UTC';
  } catch {
    return false;
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const supabase = group(env, 'Supabase Auth', ['SUPABASE_URL', 'SUPABASE_ANON_KEY'] as const);
  const ses = withS3Hint(env, () =>
    group(env, 'AWS SES e-mail', ['AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'SES_FROM'] as const),
  );
  const s3Keys = group(env, 'S3 credentials', ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const);
  const stripe = group(env, 'Stripe payments', [
    'STRIPE_SECRET_KEY',
    'PUBLIC_STRIPE_PUBLISHABLE_KEY',
    'STRIPE_WEBHOOK_SECRET',
  ] as const);
  const result = z
    .object({
      HOST: z.string().default('127.0.0.1'),
      PORT: z.coerce.number({ error: 'PORT must be a port number' }).int().min(1).max(65535).default(4321),
      DATABASE_URL: url('DATABASE_URL')
        .refine((v) => /^postgres(ql)?:\/\//.test(v), { error: 'DATABASE_URL must be a postgres:// URL' })
        .optional(),
      PGLITE_DIR: z.string().min(1).default('.data/pglite'),
      SITE_URL: url('SITE_URL').optional(),
      DEV_MAILBOX_PORT: z.coerce.number().int().min(1).max(65535).default(8005),
      MAIL_FROM: sender.default('Aurelia <hello@aurelia-care.com>'),
      ADDRESS_LIMIT_FACTOR: z.coerce
        .number({ error: FACTOR_ERROR })
        .int({ error: FACTOR_ERROR })
        .min(1, { error: FACTOR_ERROR })
        .max(1000, { error: FACTOR_ERROR })
        .default(1),
      SHOP_ADMIN_EMAIL: z
        .string()
        .trim()
        .refine(isEmail, { error: 'SHOP_ADMIN_EMAIL must be an e-mail address' })
        .default('orders@aurelia-care.com'),
      ADMIN_EMAILS: adminEmails.default([]),
      SHOP_TIME_ZONE: z
        .string()
        .default('America/New_York')
        .refine(isTimeZone, { error: 'SHOP_TIME_ZONE must be an IANA time zone, such as America/New_York' }),
      TRUST_PROXY_HOPS: z.coerce
        .number({ error: HOPS_ERROR })
        .int({ error: HOPS_ERROR })
        .min(0, { error: HOPS_ERROR })
        .max(10, { error: HOPS_ERROR })
        .default(0),
      BACKUP_EVERY: duration('BACKUP_EVERY', { off: false }).optional(),
      BACKUP_KEEP: z.coerce
        .number({ error: KEEP_ERROR })
        .int({ error: KEEP_ERROR })
        .min(1, { error: KEEP_ERROR })
        .max(1000, { error: KEEP_ERROR })
        .default(7),
      BACKUP_DIR: z.string().trim().min(1).default('.data/backups'),
      VACUUM_EVERY: duration('VACUUM_EVERY', { off: true }).prefault('24h'),
      PUBLISH_CHECK_EVERY: duration('PUBLISH_CHECK_EVERY', { off: false }).prefault('10s'),
      LOG_LEVEL: z.enum(LOG_LEVELS, { error: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
      LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'LOG_FORMAT must be json or pretty' }).optional(),
      // Sent by Prometheus with every scrape: long enough that it cannot be guessed, and nothing a header cannot carry.
      METRICS_TOKEN: z
        .string()
        .regex(/^[A-Za-z0-9._~+/=-]{32,256}$/, {
          error: 'METRICS_TOKEN must be 32 to 256 letters, digits or ._~+/=- (e.g. openssl rand -hex 32)',
        })
        .optional(),
      RELEASE_STORE: z.enum(['database', 's3'], { error: 'RELEASE_STORE must be database or s3' }).default('database'),
      S3_BUCKET: z
        .string()
        .trim()
        .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
          error: 'S3_BUCKET must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens',
        })
        .optional(),
      S3_ENDPOINT: url('S3_ENDPOINT')
        .refine((v) => /^https?:\/\//.test(v), { error: 'S3_ENDPOINT must be an http:// or https:// URL' })
        .optional(),
      S3_REGION: z
        .string()
        .trim()
        .regex(/^[a-z0-9-]{1,40}$/, { error: 'S3_REGION must be a region name, such as eu-west-1 (auto for R2)' })
        .optional(),
      S3_PREFIX: z
        .string()
        .regex(/^(?!\/)[A-Za-z0-9!_.*'()/-]*\/$/, {
          error: "S3_PREFIX must end with / and hold only letters, digits and !_.*'()/- (for example shop/releases/)",
        })
        .optional(),
      OUTBOX_STUCK_SECONDS: z.coerce
        .number({ error: STUCK_ERROR })
        .int({ error: STUCK_ERROR })
        .min(60, { error: STUCK_ERROR })
        .max(86400, { error: STUCK_ERROR })
        .default(900),
    })
    .safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')));
  if (!result.success) {
    throw new Error(result.error.issues.map((i) => `${i.path.join('.') || 'configuration'}: ${i.message}`).join('; '));
  }
  const parsed = result.data;
  if (supabase) url('SUPABASE_URL').parse(supabase.SUPABASE_URL);
  // Supabase Auth keeps the password of the first sign-up of an unconfirmed address (and confirms without a link when
  // the project auto-confirms): whoever signed up first with the owner's address would hold the admin's password.
  if (supabase && (parsed.ADMIN_EMAILS as readonly string[]).length > 0) {
    throw new Error(
      "ADMIN_EMAILS is not accepted with Supabase accounts: the shop cannot tell who chose a Supabase account's password. " +
        'Sign up and log in to the shop with your own password, then promote that account with npm run admin:create -- <email>.',
    );
  }
  // The publishable key is sent to every browser: a secret key pasted into its slot must stop the server, not leak.
  if (stripe) {
    for (const [key, prefix] of [
      ['STRIPE_SECRET_KEY', /^(sk|rk)_/],
      ['PUBLIC_STRIPE_PUBLISHABLE_KEY', /^pk_/],
      ['STRIPE_WEBHOOK_SECRET', /^whsec_/],
    ] as const) {
      if (!prefix.test(stripe[key])) throw new Error(`${key} does not look like a Stripe key of that kind (${prefix.source}…).`);
    }
  }
  // The shop copies only its embedded database: PostgreSQL has its own tools, and its own vacuuming.
  if (parsed.DATABASE_URL && parsed.BACKUP_EVERY) {
    throw new Error(
      "BACKUP_EVERY is for the embedded database: on PostgreSQL use pg_dump or your provider's point-in-time recovery (see docs/operating.md, Backups).",
    );
  }
  const stripeApi = stripeApiBase(env, stripe);
  const releaseFiles = releaseFilesConfig(parsed, s3Keys, env);
  return {
    database: parsed.DATABASE_URL
      ? ({ kind: 'postgres', url: parsed.DATABASE_URL } as const)
      : ({ kind: 'pglite', dir: parsed.PGLITE_DIR } as const),
    auth: supabase
      ? ({ kind: 'supabase', url: supabase.SUPABASE_URL, anonKey: supabase.SUPABASE_ANON_KEY } as const)
      : ({ kind: 'built-in' } as const),
    mail: ses
      ? ({
          kind: 'ses',
          region: ses.AWS_REGION,
          from: ses.SES_FROM,
          accessKeyId: ses.AWS_ACCESS_KEY_ID,
          secretAccessKey: ses.AWS_SECRET_ACCESS_KEY,
        } as const)
      : ({ kind: 'dev-mailbox', port: parsed.DEV_MAILBOX_PORT, from: parsed.MAIL_FROM } as const),
    /** Where links in e-mails point and the only Origin /api accepts (see publicOrigin). */
    publicOrigin: publicOrigin(parsed.SITE_URL, parsed.HOST, parsed.PORT),
    /** Proxies in front of the server that append to X-Forwarded-For (0: the connection's address is the client's). */
    trustProxyHops: parsed.TRUST_PROXY_HOPS,
    /** Verified accounts with these e-mails (lower-cased) may use /admin, besides those promoted by admin:create. */
    adminEmails: parsed.ADMIN_EMAILS as readonly string[],
    /** The shop's time zone: the admin shows and filters times in it (IANA name, e.g. America/New_York). */
    shopTimeZone: parsed.SHOP_TIME_ZONE,
    /** The least severe log level written, and whether lines are JSON or for a person (unset: pretty on a terminal). */
    log: { level: parsed.LOG_LEVEL, format: parsed.LOG_FORMAT ?? null },
    /** The bearer token /metrics asks for; null: /metrics answers 404. */
    metricsToken: parsed.METRICS_TOKEN ?? null,
    /** Readiness fails when a due outbox job has waited longer than this (the worker is not running them). */
    outboxStuckSeconds: parsed.OUTBOX_STUCK_SECONDS,
    /** Where the shop's copy of every order goes. */
    shopEmail: parsed.SHOP_ADMIN_EMAIL,
    payments: stripe
      ? ({
          kind: 'stripe',
          secretKey: stripe.STRIPE_SECRET_KEY,
          publishableKey: stripe.PUBLIC_STRIPE_PUBLISHABLE_KEY,
          webhookSecret: stripe.STRIPE_WEBHOOK_SECRET,
          ...(stripeApi ? { api: stripeApi } : {}),
        } as const)
      : ({ kind: 'test' } as const),
    /** The rate limits, per-address ones multiplied by ADDRESS_LIMIT_FACTOR (see limitsFor). */
    limits: limitsFor(parsed.ADDRESS_LIMIT_FACTOR),
    /** How many shoppers may share one client address: every per-address limit is multiplied by it. */
    addressLimitFactor: parsed.ADDRESS_LIMIT_FACTOR,
    shipping: shippingConfig(env),
    address: addressConfig(env),
    /** Backups of the embedded database: where (`npm run backup` writes there too) and, when set, how often and how many. */
    backups: { dir: parsed.BACKUP_DIR, everyMs: parsed.BACKUP_EVERY ?? null, keep: parsed.BACKUP_KEEP },
    /** How often the embedded database is vacuumed (PGlite runs no autovacuum); null: never. */
    vacuumEveryMs: parsed.DATABASE_URL ? null : parsed.VACUUM_EVERY,
    /**
     * Publishing the catalogue: how often this server looks for a publish made on another server on the same database,
     * and where it builds (inside the project, so a build's server bundle finds the project's node_modules).
     */
    publishing: { checkEveryMs: parsed.PUBLISH_CHECK_EVERY ?? 10_000 },
    /** Where releases' files (pages, pictures) are kept: the database, or an S3 bucket (decision 020). */
    releaseFiles,
  };
}

interface ReleaseStoreVariables {
  RELEASE_STORE: 'database' | 's3';
  S3_BUCKET?: string | undefined;
  S3_ENDPOINT?: string | undefined;
  S3_REGION?: string | undefined;
  S3_PREFIX?: string | undefined;
}

/**
 * RELEASE_STORE=s3 keeps releases' files in S3_BUCKET (under S3_PREFIX, at S3_ENDPOINT for an S3-compatible store),
 * with S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, else the SDK's own chain (the AWS_* variables, the instance's role).
 * Without the bucket it stops the server; S3_* set without RELEASE_STORE=s3 would change nothing, so they do too.
 */
function releaseFilesConfig(
  parsed: ReleaseStoreVariables,
  keys: { S3_ACCESS_KEY_ID: string; S3_SECRET_ACCESS_KEY: string } | null,
  env: NodeJS.ProcessEnv,
) {
  const { RELEASE_STORE, S3_BUCKET: bucket, S3_ENDPOINT: endpoint, S3_REGION, S3_PREFIX } = parsed;
  if (RELEASE_STORE !== 's3') {
    const set: string[] = (['S3_BUCKET', 'S3_ENDPOINT', 'S3_REGION', 'S3_PREFIX'] as const).filter(
      (k) => parsed[k] !== undefined,
    );
    if (keys) set.push('S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY');
    if (set.length > 0)
      throw new Error(`${set.join(', ')} set but RELEASE_STORE is not s3: set RELEASE_STORE=s3, or unset them.`);
    return { kind: 'database' } as const;
  }
  if (!bucket) {
    throw new Error("RELEASE_STORE=s3 needs S3_BUCKET: the bucket releases' pages and pictures are kept in.");
  }
  return {
    kind: 's3',
    bucket,
    region: S3_REGION ?? (env.AWS_REGION?.trim() || 'us-east-1'),
    prefix: S3_PREFIX ?? '',
    ...(endpoint ? { endpoint } : {}),
    ...(keys ? { credentials: { accessKeyId: keys.S3_ACCESS_KEY_ID, secretAccessKey: keys.S3_SECRET_ACCESS_KEY } } : {}),
  } as const;
}

/** Runs `read` (the SES group); a half-set SES says how to give the bucket keys of its own when RELEASE_STORE=s3. */
function withS3Hint<T>(env: NodeJS.ProcessEnv, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (env.RELEASE_STORE?.trim() !== 's3' || !(error instanceof Error)) throw error;
    throw new Error(`${error.message} For the release bucket alone, use S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY.`);
  }
}

export type Config = ReturnType<typeof loadConfig>;

const API_BASE_ERROR = 'STRIPE_API_BASE must be an http:// or https:// origin, such as http://127.0.0.1:12111';

/**
 * STRIPE_API_BASE, for tests and mocks only: sends the Stripe adapter's API calls to a local server that speaks
 * Stripe's wire format (tests/mocks/stripe.ts, stripe-mock) instead of api.stripe.com. The secret key goes wherever
 * this points, so it is refused with live keys, and without Stripe configured it would change nothing, so it is
 * refused there too rather than silently ignored.
 */
function stripeApiBase(
  env: NodeJS.ProcessEnv,
  stripe: { STRIPE_SECRET_KEY: string; PUBLIC_STRIPE_PUBLISHABLE_KEY: string } | null,
): { host: string; port: number; protocol: 'http' | 'https' } | null {
  const raw = (env.STRIPE_API_BASE ?? '').trim();
  if (raw === '') return null;
  if (!stripe) {
    throw new Error('STRIPE_API_BASE is set but Stripe is not configured: set the three Stripe variables too, or unset it.');
  }
  if (!/^(sk|rk)_test_/.test(stripe.STRIPE_SECRET_KEY) || !/^pk_test_/.test(stripe.PUBLIC_STRIPE_PUBLISHABLE_KEY)) {
    throw new Error('STRIPE_API_BASE is for tests and mocks only: it is refused with live Stripe keys (sk_live_…, pk_live_…).');
  }
  let base: URL;
  try {
    base = new URL(raw);
  } catch {
    throw new Error(API_BASE_ERROR);
  }
  const protocol = base.protocol === 'http:' ? 'http' : base.protocol === 'https:' ? 'https' : null;
  // Stripe's SDK takes a host, a port and a protocol: a path, query or credentials would be silently dropped.
  if (!protocol || base.pathname !== '/' || base.search || base.hash || base.username || base.password) {
    throw new Error(API_BASE_ERROR);
  }
  const port = base.port === '' ? (protocol === 'https' ? 443 : 80) : Number(base.port);
  return { host: base.hostname.replace(/^\[(.*)\]$/, '$1'), port, protocol };
}

/**
 * The shipping port: Shippo when SHIPPO_API_KEY is set, else the embedded rate table (spec rules, test labels).
 * SHIPPO_API_BASE, for tests and mocks only, sends its calls to a local server that speaks Shippo's wire format
 * (tests/mocks/shippo.ts): with a test token, and to this machine only.
 */
function shippingConfig(env: NodeJS.ProcessEnv) {
  const apiKey = (env.SHIPPO_API_KEY ?? '').trim();
  const rawBase = (env.SHIPPO_API_BASE ?? '').trim();
  if (apiKey === '') {
    if (rawBase !== '') throw new Error('SHIPPO_API_BASE is set but SHIPPO_API_KEY is not: set the key too, or unset it.');
    return { kind: 'rate-table' } as const;
  }
  // Catches a pasted publishable or OAuth value early: the adapter sends the key as a ShippoToken.
  if (!/^shippo_(live|test)_\w+$/.test(apiKey)) {
    throw new Error('SHIPPO_API_KEY must be a Shippo API token (shippo_live_… or shippo_test_…)');
  }
  if (rawBase === '') return { kind: 'shippo', apiKey } as const;
  if (apiKey.startsWith('shippo_live_')) {
    throw new Error('SHIPPO_API_BASE is for tests and mocks only: it is refused with a live token (shippo_live_…).');
  }
  return { kind: 'shippo', apiKey, apiBase: loopbackOrigin('SHIPPO_API_BASE', rawBase) } as const;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A tests-only API base as an origin on this machine, or a start-up error naming `name`: the key goes wherever the
 * base points, so a typo must not hand it to another host.
 */
function loopbackOrigin(name: string, raw: string): string {
  const malformed = `${name} must be an http:// or https:// origin, such as http://127.0.0.1:4599`;
  let base: URL;
  try {
    base = new URL(raw);
  } catch {
    throw new Error(malformed);
  }
  if (
    !['http:', 'https:'].includes(base.protocol) ||
    base.pathname !== '/' ||
    base.search ||
    base.hash ||
    base.username ||
    base.password
  ) {
    throw new Error(malformed);
  }
  if (!LOOPBACK_HOSTS.has(base.hostname)) {
    throw new Error(
      `${name} is for tests and mocks only: it must point to this machine (127.0.0.1, localhost or [::1]), since the API key goes wherever it points.`,
    );
  }
  return base.origin;
}

/**
 * The address-suggestions port: Geoapify when GEOAPIFY_API_KEY is set, else none (the address form works by hand).
 * GEOAPIFY_API_BASE, for tests and mocks only, sends its calls to a local server that speaks Geoapify's wire format
 * (tests/mocks/geoapify.ts). Geoapify keys have no test kind the way Stripe's do, and the key goes wherever the base
 * points, so only this machine is accepted: a typo cannot hand the key to another host.
 */
function addressConfig(env: NodeJS.ProcessEnv) {
  const apiKey = (env.GEOAPIFY_API_KEY ?? '').trim();
  const rawBase = (env.GEOAPIFY_API_BASE ?? '').trim();
  if (apiKey === '') {
    if (rawBase !== '') {
      throw new Error('GEOAPIFY_API_BASE is set but GEOAPIFY_API_KEY is not: set the key too, or unset it.');
    }
    return { kind: 'none' } as const;
  }
  // Geoapify's keys are 32 hexadecimal characters; this also catches quotes, spaces or a pasted URL.
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(apiKey)) {
    throw new Error("GEOAPIFY_API_KEY must be a Geoapify API key (letters and digits, as shown in Geoapify's MyProjects)");
  }
  if (rawBase === '') return { kind: 'geoapify', apiKey } as const;
  return { kind: 'geoapify', apiKey, apiBase: loopbackOrigin('GEOAPIFY_API_BASE', rawBase) } as const;
}
