import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.server';
import { LIMITS } from './ratelimit.server';

describe('configuration', () => {
  it('runs on the embedded defaults with no variables', () => {
    expect(loadConfig({})).toEqual({
      database: { kind: 'pglite', dir: '.data/pglite' },
      auth: { kind: 'built-in' },
      mail: { kind: 'dev-mailbox', port: 8005, from: 'Aurelia <hello@aurelia-care.com>' },
      publicOrigin: 'http://127.0.0.1:4321',
      trustProxyHops: 0,
      adminEmails: [],
      shopTimeZone: 'America/New_York',
      log: { level: 'info', format: null },
      metricsToken: null,
      outboxStuckSeconds: 900,
      shopEmail: 'orders@aurelia-care.com',
      payments: { kind: 'test' },
      limits: LIMITS,
      addressLimitFactor: 1,
      shipping: { kind: 'rate-table' },
      address: { kind: 'none' },
      backups: { dir: '.data/backups', everyMs: null, keep: 7 },
      vacuumEveryMs: 86_400_000,
      publishing: { checkEveryMs: 10_000 },
      releaseFiles: { kind: 'database' },
    });
  });

  it('reads how often to look for publishes made on another server, and refuses what is not a duration', () => {
    expect(loadConfig({ PUBLISH_CHECK_EVERY: '30s' }).publishing.checkEveryMs).toBe(30_000);
    expect(() => loadConfig({ PUBLISH_CHECK_EVERY: 'often' })).toThrow(
      'PUBLISH_CHECK_EVERY must be a duration such as 30m, 6h or 1d (s, m, h or d, at most 24d)',
    );
    expect(() => loadConfig({ PUBLISH_CHECK_EVERY: 'off' })).toThrow('PUBLISH_CHECK_EVERY must be a duration');
  });

  it('reads ADMIN_EMAILS as a list of lower-cased addresses, and refuses anything else', () => {
    expect(loadConfig({ ADMIN_EMAILS: 'Owner@Example.com, helper@example.com' }).adminEmails).toEqual([
      'owner@example.com',
      'helper@example.com',
    ]);
    expect(() => loadConfig({ ADMIN_EMAILS: 'owner@example.com,not-an-address' })).toThrow(
      /ADMIN_EMAILS must be e-mail addresses/,
    );
  });

  it('refuses ADMIN_EMAILS with Supabase accounts, where the first sign-up of an address chooses its password', () => {
    const supabase = { SUPABASE_URL: 'https://x.supabase.co', SUPABASE_ANON_KEY: 'anon' };
    expect(() => loadConfig({ ...supabase, ADMIN_EMAILS: 'owner@example.com' })).toThrow(
      /ADMIN_EMAILS is not accepted with Supabase accounts.*npm run admin:create/,
    );
    expect(loadConfig(supabase).adminEmails).toEqual([]);
  });

  it('keeps the shop’s time zone, New York unless told, and refuses one that is not a zone', () => {
    expect(loadConfig({}).shopTimeZone).toBe('America/New_York');
    expect(loadConfig({ SHOP_TIME_ZONE: 'Europe/London' }).shopTimeZone).toBe('Europe/London');
    for (const zone of ['Mars/Olympus', 'EST5', 'nowhere'])
      expect(() => loadConfig({ SHOP_TIME_ZONE: zone }), zone).toThrow(/SHOP_TIME_ZONE must be an IANA time zone/);
  });

  it('switches each port to its production adapter', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@db.example.com:5432/shop',
      SUPABASE_URL: 'https://x.supabase.co',
      SUPABASE_ANON_KEY: 'anon',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
      SES_FROM: 'shop@example.com',
      SHIPPO_API_KEY: 'shippo_live_0123abcd',
      STRIPE_SECRET_KEY: 'sk_live_1',
      PUBLIC_STRIPE_PUBLISHABLE_KEY: 'pk_live_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
      GEOAPIFY_API_KEY: '0123456789abcdef0123456789abcdef',
    });
    expect(config.database.kind).toBe('postgres');
    expect(config.address).toEqual({ kind: 'geoapify', apiKey: '0123456789abcdef0123456789abcdef' });
    expect(config.auth).toEqual({ kind: 'supabase', url: 'https://x.supabase.co', anonKey: 'anon' });
    expect(config.mail.kind).toBe('ses');
    expect(config.shipping).toEqual({ kind: 'shippo', apiKey: 'shippo_live_0123abcd' });
    expect(config.payments).toEqual({
      kind: 'stripe',
      secretKey: 'sk_live_1',
      publishableKey: 'pk_live_1',
      webhookSecret: 'whsec_1',
    });
  });

  it('refuses a half-set adapter instead of silently falling back', () => {
    expect(() => loadConfig({ SUPABASE_URL: 'https://x.supabase.co' })).toThrow(
      'Supabase Auth is half-configured: SUPABASE_URL set but SUPABASE_ANON_KEY missing',
    );
    expect(() => loadConfig({ AWS_REGION: 'us-east-1', SES_FROM: 'a@example.com' })).toThrow(/AWS SES e-mail is half-configured/);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_1', PUBLIC_STRIPE_PUBLISHABLE_KEY: 'pk_test_1' })).toThrow(
      'Stripe payments is half-configured: STRIPE_SECRET_KEY, PUBLIC_STRIPE_PUBLISHABLE_KEY set but STRIPE_WEBHOOK_SECRET missing',
    );
  });

  it('refuses Stripe keys in the wrong slots, so a secret key is never sent to browsers as the publishable one', () => {
    const keys = { STRIPE_SECRET_KEY: 'sk_test_1', PUBLIC_STRIPE_PUBLISHABLE_KEY: 'pk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' };
    expect(() => loadConfig({ ...keys, PUBLIC_STRIPE_PUBLISHABLE_KEY: 'sk_test_1' })).toThrow(/PUBLIC_STRIPE_PUBLISHABLE_KEY/);
    expect(() => loadConfig({ ...keys, STRIPE_SECRET_KEY: 'pk_test_1' })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ ...keys, STRIPE_WEBHOOK_SECRET: 'secret' })).toThrow(/STRIPE_WEBHOOK_SECRET/);
    expect(loadConfig({ ...keys, STRIPE_SECRET_KEY: 'rk_test_1' }).payments.kind).toBe('stripe');
  });

  it('points the Stripe adapter at another API base for tests and mocks, with test keys only', () => {
    const keys = { STRIPE_SECRET_KEY: 'sk_test_1', PUBLIC_STRIPE_PUBLISHABLE_KEY: 'pk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' };
    expect(loadConfig({ ...keys, STRIPE_API_BASE: 'http://127.0.0.1:12111' }).payments).toEqual({
      kind: 'stripe',
      secretKey: 'sk_test_1',
      publishableKey: 'pk_test_1',
      webhookSecret: 'whsec_1',
      api: { host: '127.0.0.1', port: 12111, protocol: 'http' },
    });
    expect(loadConfig({ ...keys, STRIPE_API_BASE: 'https://stripe-mock.internal/' }).payments).toMatchObject({
      api: { host: 'stripe-mock.internal', port: 443, protocol: 'https' },
    });
    expect(loadConfig({ ...keys, STRIPE_API_BASE: 'http://[::1]:12111' }).payments).toMatchObject({
      api: { host: '::1', port: 12111, protocol: 'http' },
    });
    expect(loadConfig({ ...keys, STRIPE_SECRET_KEY: 'rk_test_1', STRIPE_API_BASE: 'http://localhost' }).payments).toMatchObject({
      api: { host: 'localhost', port: 80, protocol: 'http' },
    });
    // Unset or blank: Stripe's own API.
    expect(loadConfig({ ...keys, STRIPE_API_BASE: ' ' }).payments).not.toHaveProperty('api');
  });

  it('refuses an API base that is not an origin, one without Stripe configured, and one with live keys', () => {
    const keys = { STRIPE_SECRET_KEY: 'sk_test_1', PUBLIC_STRIPE_PUBLISHABLE_KEY: 'pk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' };
    for (const bad of ['localhost:12111', 'ftp://127.0.0.1', 'http://127.0.0.1:12111/v1', 'http://u:p@127.0.0.1', 'not a url']) {
      expect(() => loadConfig({ ...keys, STRIPE_API_BASE: bad }), bad).toThrow(
        /STRIPE_API_BASE must be an http:\/\/ or https:\/\/ origin/,
      );
    }
    expect(() => loadConfig({ STRIPE_API_BASE: 'http://127.0.0.1:12111' })).toThrow(
      /STRIPE_API_BASE is set but Stripe is not configured/,
    );
    // The secret key goes wherever the base points: never a live one.
    for (const live of [
      { STRIPE_SECRET_KEY: 'sk_live_1' },
      { STRIPE_SECRET_KEY: 'rk_live_1' },
      { PUBLIC_STRIPE_PUBLISHABLE_KEY: 'pk_live_1' },
    ]) {
      expect(() => loadConfig({ ...keys, ...live, STRIPE_API_BASE: 'http://127.0.0.1:12111' })).toThrow(
        /STRIPE_API_BASE is for tests and mocks only/,
      );
    }
  });

  it('points the Geoapify adapter at a local mock for tests, and nowhere else', () => {
    const key = { GEOAPIFY_API_KEY: 'aurelia0test0geoapify0key' };
    expect(loadConfig({ ...key, GEOAPIFY_API_BASE: 'http://127.0.0.1:4599' }).address).toEqual({
      kind: 'geoapify',
      apiKey: 'aurelia0test0geoapify0key',
      apiBase: 'http://127.0.0.1:4599',
    });
    expect(loadConfig({ ...key, GEOAPIFY_API_BASE: 'http://localhost:8080/' }).address).toMatchObject({
      apiBase: 'http://localhost:8080',
    });
    expect(loadConfig({ ...key, GEOAPIFY_API_BASE: 'https://[::1]:8443' }).address).toMatchObject({
      apiBase: 'https://[::1]:8443',
    });
    expect(loadConfig({ ...key, GEOAPIFY_API_BASE: ' ' }).address).not.toHaveProperty('apiBase');
    for (const bad of ['127.0.0.1:4599', 'ftp://127.0.0.1', 'http://127.0.0.1:4599/v1', 'http://u:p@127.0.0.1', 'not a url']) {
      expect(() => loadConfig({ ...key, GEOAPIFY_API_BASE: bad }), bad).toThrow(
        /GEOAPIFY_API_BASE must be an http:\/\/ or https:\/\/ origin/,
      );
    }
    // The key goes wherever the base points: only to this machine, never to another host.
    for (const remote of ['https://api.geoapify.com', 'http://geoapify-mock.internal:8080', 'http://10.0.0.5']) {
      expect(() => loadConfig({ ...key, GEOAPIFY_API_BASE: remote }), remote).toThrow(
        /GEOAPIFY_API_BASE is for tests and mocks only/,
      );
    }
    expect(() => loadConfig({ GEOAPIFY_API_BASE: 'http://127.0.0.1:4599' })).toThrow(
      /GEOAPIFY_API_BASE is set but GEOAPIFY_API_KEY is not/,
    );
  });

  it('points the Shippo adapter at a local mock for tests, with a test token, and nowhere else', () => {
    const key = { SHIPPO_API_KEY: 'shippo_test_0123456789abcdef' };
    expect(loadConfig({ ...key, SHIPPO_API_BASE: 'http://127.0.0.1:4598/' }).shipping).toEqual({
      kind: 'shippo',
      apiKey: key.SHIPPO_API_KEY,
      apiBase: 'http://127.0.0.1:4598',
    });
    expect(loadConfig({ ...key, SHIPPO_API_BASE: ' ' }).shipping).not.toHaveProperty('apiBase');
    expect(() => loadConfig({ ...key, SHIPPO_API_BASE: 'https://api.goshippo.com' })).toThrow(
      /SHIPPO_API_BASE is for tests and mocks only/,
    );
    expect(() => loadConfig({ ...key, SHIPPO_API_BASE: 'http://127.0.0.1:4598/v1' })).toThrow(/SHIPPO_API_BASE must be an http/);
    expect(() =>
      loadConfig({ SHIPPO_API_KEY: 'shippo_live_0123456789abcdef', SHIPPO_API_BASE: 'http://127.0.0.1:4598' }),
    ).toThrow(/refused with a live token/);
    expect(() => loadConfig({ SHIPPO_API_BASE: 'http://127.0.0.1:4598' })).toThrow(
      /SHIPPO_API_BASE is set but SHIPPO_API_KEY is not/,
    );
  });

  it('refuses malformed values', () => {
    for (const bad of ['short', 'has spaces in the key value', '"0123456789abcdef0123456789abcdef"', 'x'.repeat(200)]) {
      expect(() => loadConfig({ GEOAPIFY_API_KEY: bad }), bad).toThrow(/GEOAPIFY_API_KEY must be a Geoapify API key/);
    }
    expect(() => loadConfig({ DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL must be a URL/);
    expect(() => loadConfig({ DATABASE_URL: 'notaurl' })).toThrow(/DATABASE_URL must be/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u@db/shop' })).toThrow(/DATABASE_URL must be a postgres:\/\/ URL/);
    expect(() => loadConfig({ DEV_MAILBOX_PORT: '70000' })).toThrow();
    for (const bad of ['pk_live_123', 'oauth.abc', 'shippo_123']) {
      expect(() => loadConfig({ SHIPPO_API_KEY: bad })).toThrow(/SHIPPO_API_KEY must be a Shippo API token/);
    }
    for (const bad of ['0', '2.5', 'many', '2000']) {
      expect(() => loadConfig({ ADDRESS_LIMIT_FACTOR: bad })).toThrow(
        /ADDRESS_LIMIT_FACTOR must be a whole number from 1 to 1000/,
      );
    }
  });

  it('takes the public origin from SITE_URL, else from where the server listens, never from a request', () => {
    expect(loadConfig({ SITE_URL: 'https://shop.example.com/some/path' }).publicOrigin).toBe('https://shop.example.com');
    expect(loadConfig({ HOST: 'localhost', PORT: '8080' }).publicOrigin).toBe('http://localhost:8080');
    expect(loadConfig({ HOST: '::1', PORT: '8080' }).publicOrigin).toBe('http://[::1]:8080');
    expect(() => loadConfig({ HOST: '0.0.0.0' })).toThrow(/SITE_URL is required when HOST is 0.0.0.0/);
    expect(loadConfig({ HOST: '0.0.0.0', SITE_URL: 'https://shop.example.com' }).publicOrigin).toBe('https://shop.example.com');
  });

  it('accepts a sender with or without a name, and refuses what is not an address', () => {
    for (const from of ['Aurelia <hello@aurelia-care.com>', 'hello@aurelia-care.com', '"Aurelia Care" <a@b.co>']) {
      expect(loadConfig({ MAIL_FROM: from }).mail).toMatchObject({ from });
    }
    for (const bad of ['Aurelia', 'Aurelia <nobody>', '<a@b.co> trailing']) {
      expect(() => loadConfig({ MAIL_FROM: bad })).toThrow(/MAIL_FROM must be an e-mail address/);
    }
  });

  it('reads the number of trusted proxies, 0 to 10', () => {
    expect(loadConfig({ TRUST_PROXY_HOPS: '2' }).trustProxyHops).toBe(2);
    for (const bad of ['-1', '11', '1.5', 'yes']) {
      expect(() => loadConfig({ TRUST_PROXY_HOPS: bad })).toThrow(/TRUST_PROXY_HOPS must be a whole number from 0 to 10/);
    }
  });

  it('reads the backup schedule and the vacuum interval, refusing what it cannot follow', () => {
    expect(loadConfig({}).backups).toEqual({ dir: '.data/backups', everyMs: null, keep: 7 });
    expect(loadConfig({}).vacuumEveryMs).toBe(86_400_000);
    expect(loadConfig({ BACKUP_EVERY: '6h', BACKUP_KEEP: '3', BACKUP_DIR: '/srv/backups' }).backups).toEqual({
      dir: '/srv/backups',
      everyMs: 6 * 3_600_000,
      keep: 3,
    });
    expect(loadConfig({ BACKUP_EVERY: '30m' }).backups.everyMs).toBe(1_800_000);
    expect(loadConfig({ VACUUM_EVERY: 'off' }).vacuumEveryMs).toBeNull();
    expect(loadConfig({ VACUUM_EVERY: '1d' }).vacuumEveryMs).toBe(86_400_000);
    for (const bad of ['6', 'six hours', '0h', '25d', '-1h', '1w', 'off']) {
      expect(() => loadConfig({ BACKUP_EVERY: bad })).toThrow(/BACKUP_EVERY must be a duration such as 30m, 6h or 1d/);
    }
    expect(() => loadConfig({ VACUUM_EVERY: 'never' })).toThrow(/VACUUM_EVERY must be a duration .*, or off/);
    for (const bad of ['0', '1001', '2.5', 'all']) {
      expect(() => loadConfig({ BACKUP_KEEP: bad })).toThrow(/BACKUP_KEEP must be a whole number from 1 to 1000/);
    }
    // PostgreSQL is copied with its own tools, and vacuumed by its own autovacuum.
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/shop', BACKUP_EVERY: '6h' })).toThrow(/pg_dump/);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/shop' }).vacuumEveryMs).toBeNull();
  });

  it('reads the log level and format, the metrics token and when the outbox counts as stuck, and refuses bad values', () => {
    const token = 'a'.repeat(64);
    const config = loadConfig({ LOG_LEVEL: 'debug', LOG_FORMAT: 'json', METRICS_TOKEN: token, OUTBOX_STUCK_SECONDS: '120' });
    expect(config.log).toEqual({ level: 'debug', format: 'json' });
    expect(config.metricsToken).toBe(token);
    expect(config.outboxStuckSeconds).toBe(120);
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(/LOG_LEVEL must be one of/);
    expect(() => loadConfig({ LOG_FORMAT: 'text' })).toThrow(/LOG_FORMAT must be json or pretty/);
    // Too short to be unguessable, or with characters a header would mangle.
    for (const bad of ['short', `${'a'.repeat(40)} b`, `${'a'.repeat(40)}"`]) {
      expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(/METRICS_TOKEN must be 32 to 256/);
    }
    for (const bad of ['59', '86401', '1.5', 'soon']) {
      expect(() => loadConfig({ OUTBOX_STUCK_SECONDS: bad })).toThrow(/OUTBOX_STUCK_SECONDS must be a whole number/);
    }
  });

  it('lets a shop whose shoppers share addresses multiply the per-address limits, and only those', () => {
    const { limits, addressLimitFactor } = loadConfig({ ADDRESS_LIMIT_FACTOR: '10' });
    // The factor itself too: what one guest's address may hold of an item at once is multiplied by it (stock.server.ts).
    expect(addressLimitFactor).toBe(10);
    expect(limits.signupPerAddress).toEqual({ limit: 200, windowSeconds: 3600 });
    expect(limits.loginPerAddress).toEqual({ limit: 500, windowSeconds: 300 });
    expect(limits.contactPerAddress.limit).toBe(50);
    expect(limits.loginFailuresPerAccountAndAddress).toEqual(LIMITS.loginFailuresPerAccountAndAddress);
    expect(limits.loginFailuresPerAccount).toEqual(LIMITS.loginFailuresPerAccount);
    expect(limits.reviewsPerShopper).toEqual(LIMITS.reviewsPerShopper);
  });

  it('keeps releases’ files in an S3 bucket when RELEASE_STORE=s3, with keys of its own or the SDK’s chain', () => {
    expect(loadConfig({ RELEASE_STORE: 's3', S3_BUCKET: 'aurelia-releases' }).releaseFiles).toEqual({
      kind: 's3',
      bucket: 'aurelia-releases',
      region: 'us-east-1',
      prefix: '',
    });
    const r2 = loadConfig({
      RELEASE_STORE: 's3',
      S3_BUCKET: 'shop',
      S3_ENDPOINT: 'https://acc.r2.cloudflarestorage.com',
      S3_REGION: 'auto',
      S3_PREFIX: 'aurelia/releases/',
      S3_ACCESS_KEY_ID: 'key',
      S3_SECRET_ACCESS_KEY: 'secret',
    });
    expect(r2.releaseFiles).toEqual({
      kind: 's3',
      bucket: 'shop',
      region: 'auto',
      prefix: 'aurelia/releases/',
      endpoint: 'https://acc.r2.cloudflarestorage.com',
      credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
    });
    // On AWS, with SES: the bucket is in the shop's region unless told, and the AWS keys serve both.
    const aws = loadConfig({
      RELEASE_STORE: 's3',
      S3_BUCKET: 'shop',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
      SES_FROM: 'shop@example.com',
    });
    expect(aws.releaseFiles).toEqual({ kind: 's3', bucket: 'shop', region: 'eu-west-1', prefix: '' });
    expect(loadConfig({ RELEASE_STORE: 'database' }).releaseFiles).toEqual({ kind: 'database' });
  });

  it('refuses a bucket store without its bucket, S3 variables that would change nothing, and malformed ones', () => {
    expect(() => loadConfig({ RELEASE_STORE: 's3' })).toThrow(
      "RELEASE_STORE=s3 needs S3_BUCKET: the bucket releases' pages and pictures are kept in.",
    );
    expect(() => loadConfig({ S3_BUCKET: 'shop' })).toThrow(
      'S3_BUCKET set but RELEASE_STORE is not s3: set RELEASE_STORE=s3, or unset them.',
    );
    expect(() => loadConfig({ S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' })).toThrow(
      /^S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY set but RELEASE_STORE is not s3/,
    );
    expect(() => loadConfig({ RELEASE_STORE: 's3', S3_BUCKET: 'shop', S3_ACCESS_KEY_ID: 'k' })).toThrow(
      'S3 credentials is half-configured: S3_ACCESS_KEY_ID set but S3_SECRET_ACCESS_KEY missing',
    );
    // The AWS keys alone are SES's half: the message says how to give the bucket keys of its own.
    expect(() =>
      loadConfig({ RELEASE_STORE: 's3', S3_BUCKET: 'shop', AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'secret' }),
    ).toThrow(/AWS SES e-mail is half-configured: .* use S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY\.$/);
    expect(() => loadConfig({ RELEASE_STORE: 'bucket' })).toThrow('RELEASE_STORE: RELEASE_STORE must be database or s3');
    expect(() => loadConfig({ RELEASE_STORE: 's3', S3_BUCKET: 'My_Bucket' })).toThrow(/S3_BUCKET must be a bucket name/);
    expect(() => loadConfig({ RELEASE_STORE: 's3', S3_BUCKET: 'shop', S3_PREFIX: 'releases' })).toThrow(
      /S3_PREFIX must end with \//,
    );
    expect(() => loadConfig({ RELEASE_STORE: 's3', S3_BUCKET: 'shop', S3_PREFIX: '/releases/' })).toThrow(
      /S3_PREFIX must end with \//,
    );
    expect(() => loadConfig({ RELEASE_STORE: 's3', S3_BUCKET: 'shop', S3_ENDPOINT: 'ftp://x' })).toThrow(
      /S3_ENDPOINT must be an http/,
    );
  });
});
