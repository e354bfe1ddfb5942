import { z } from 'astro/zod';
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
const url = (name: string) => z.url({ error: `${name} must be a URL` });

/** The server's configuration, validated once at start-up; a wrong or half-set value stops the server with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const supabase = group(env, 'Supabase Auth', ['SUPABASE_URL', 'SUPABASE_ANON_KEY'] as const);
  const ses = group(env, 'AWS SES e-mail', ['AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'SES_FROM'] as const);
  const stripe = group(env, 'Stripe payments', [
    'STRIPE_SECRET_KEY',
    'PUBLIC_STRIPE_PUBLISHABLE_KEY',
    'STRIPE_WEBHOOK_SECRET',
  ] as const);
  const parsed = z
    .object({
      DATABASE_URL: url('DATABASE_URL').optional(),
      PGLITE_DIR: z.string().min(1).default('.data/pglite'),
      SITE_URL: url('SITE_URL').optional(),
      DEV_MAILBOX_PORT: z.coerce.number().int().min(1).max(65535).default(8005),
      MAIL_FROM: z.email().default('Aurelia <hello@aurelia-care.com>'),
      ADDRESS_LIMIT_FACTOR: z.coerce
        .number({ error: FACTOR_ERROR })
        .int({ error: FACTOR_ERROR })
        .min(1, { error: FACTOR_ERROR })
        .max(1000, { error: FACTOR_ERROR })
        .default(1),
    })
    .parse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')));
  if (supabase) url('SUPABASE_URL').parse(supabase.SUPABASE_URL);
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
    payments: stripe
      ? ({
          kind: 'stripe',
          secretKey: stripe.STRIPE_SECRET_KEY,
          publishableKey: stripe.PUBLIC_STRIPE_PUBLISHABLE_KEY,
          webhookSecret: stripe.STRIPE_WEBHOOK_SECRET,
        } as const)
      : ({ kind: 'test' } as const),
    siteUrl: parsed.SITE_URL ?? null,
    /** The rate limits, per-address ones multiplied by ADDRESS_LIMIT_FACTOR (see limitsFor). */
    limits: limitsFor(parsed.ADDRESS_LIMIT_FACTOR),
  };
}

export type Config = ReturnType<typeof loadConfig>;
