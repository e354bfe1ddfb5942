// The edge's configuration, read once from the environment when the server starts and validated, with the messages of
// the app's (src/server/config.server.ts, which validates the same HOST, PORT, SITE_URL, LOG_LEVEL and LOG_FORMAT when
// the app starts). A separate reader because that module is part of the app's bundle, which Node cannot load as it is
// (its `@/` imports are Vite's); what is read here is only what the edge itself needs.

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface EdgeConfig {
  host: string;
  port: number;
  /** The public origin is https (SITE_URL): HSTS on every answer. */
  https: boolean;
  /** Stripe is configured (STRIPE_SECRET_KEY set): its origins stay in the pages' policy. */
  stripe: boolean;
  /** After SIGTERM, how long readiness answers 503 while everything is still served (SHUTDOWN_DRAIN_SECONDS). */
  drainMs: number;
  /** Then, how long the requests under way get (SHUTDOWN_GRACE_SECONDS). */
  graceMs: number;
  log: { level: LogLevel; format: 'json' | 'pretty' | null };
}

/** A whole number of seconds from `min` to `max` in ms, `fallback` s when unset; else an error naming the variable. */
function seconds(value: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback * 1000;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be a whole number of seconds from ${min} to ${max}`);
  }
  return n * 1000;
}

/** SHUTDOWN_GRACE_SECONDS in ms: how long requests under way get after the drain (1 to 300 s, default 10). */
export const shutdownGraceMs = (value: string | undefined) => seconds(value, 'SHUTDOWN_GRACE_SECONDS', 1, 300, 10);

/**
 * SHUTDOWN_DRAIN_SECONDS in ms: how long the server keeps serving after SIGTERM with readiness answering 503, so that a
 * proxy's health check takes it out before it stops taking connections (0 to 120 s, default 5).
 */
export const shutdownDrainMs = (value: string | undefined) => seconds(value, 'SHUTDOWN_DRAIN_SECONDS', 0, 120, 5);

const set = (value: string | undefined) => value !== undefined && value.trim() !== '';

/** Reads and checks the edge's variables; throws with the variable's name and what it must be. */
export function loadEdgeConfig(env: NodeJS.ProcessEnv = process.env): EdgeConfig {
  const host = set(env.HOST) ? String(env.HOST) : '127.0.0.1';
  const port = set(env.PORT) ? Number(env.PORT) : 4321;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('PORT: PORT must be a port number');
  const site = set(env.SITE_URL) ? String(env.SITE_URL) : undefined;
  if (site !== undefined && !URL.canParse(site)) throw new Error('SITE_URL: SITE_URL must be a URL');
  const level = set(env.LOG_LEVEL) ? String(env.LOG_LEVEL) : 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`LOG_LEVEL: LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const format = set(env.LOG_FORMAT) ? String(env.LOG_FORMAT) : null;
  if (format !== null && format !== 'json' && format !== 'pretty') {
    throw new Error('LOG_FORMAT: LOG_FORMAT must be json or pretty');
  }
  return {
    host,
    port,
    https: site?.startsWith('https:') ?? false,
    stripe: set(env.STRIPE_SECRET_KEY),
    drainMs: shutdownDrainMs(env.SHUTDOWN_DRAIN_SECONDS),
    graceMs: shutdownGraceMs(env.SHUTDOWN_GRACE_SECONDS),
    log: { level: level as LogLevel, format },
  };
}
