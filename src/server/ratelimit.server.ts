import type { Database, Sql } from './db/database.server';
import { asService, serviceStatement } from './db/roles.server';
import { logger } from './log.server';
import { rateLimited } from './metrics.server';

const log = logger('rate-limit');

export interface Limit {
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
}

/** Named limits for the endpoints that invite guessing or spam. */
export const LIMITS = {
  /** Reviews one shopper may send: room for a few products at once, not for flooding the approval queue. */
  reviewsPerShopper: { limit: 5, windowSeconds: 600 },
  /** Wrong passwords for one account from one address; a success there clears them (src/server/auth/login-limits.server.ts). */
  loginFailuresPerAccountAndAddress: { limit: 5, windowSeconds: 900 },
  /** Wrong passwords for one account from all the addresses it was not signed in from lately: guessing stays slow. */
  loginFailuresPerAccount: { limit: 20, windowSeconds: 3600 },
  /** Wrong passwords from one address, many accounts tried (a shared office or school network still gets room). */
  loginPerAddress: { limit: 50, windowSeconds: 300 },
  signupPerAddress: { limit: 20, windowSeconds: 3600 },
  /**
   * Sign-ups for one e-mail address, whoever sends them: each mails that address (a confirmation, or 'you already have
   * an account'), so the shop is no way to flood someone's mailbox.
   */
  signupPerEmail: { limit: 3, windowSeconds: 3600 },
  resetPerEmail: { limit: 5, windowSeconds: 900 },
  resetPerAddress: { limit: 20, windowSeconds: 900 },
  contactPerAddress: { limit: 5, windowSeconds: 600 },
  /** Shipping quotes: each may cost a carrier API call; a shopper changing their address a few times has room. */
  shippingRatesPerAddress: { limit: 60, windowSeconds: 600 },
  /**
   * Address suggestions: each costs a call to the vendor. Typing a street asks about once per pause (250 ms), so a
   * shopper trying a few addresses has room; a script using the shop as a free geocoder does not.
   */
  addressSuggestionsPerAddress: { limit: 120, windowSeconds: 600 },
  /** Payments opened (each is a row here and an intent at the processor): a shopper retrying has room, a script not. */
  checkoutsPerAddress: { limit: 30, windowSeconds: 600 },
  /**
   * Discount codes checked (the cart drawer checks its code again as the cart changes): room for a shopper editing a
   * cart, not for a script.
   */
  discountChecksPerAddress: { limit: 120, windowSeconds: 600 },
  /**
   * Codes tried that do not exist (in the drawer or at payment): a shopper's typos have room; guessing the shop's codes
   * one after another does not. A check of a code that exists takes its hit back.
   */
  discountGuessesPerAddress: { limit: 10, windowSeconds: 600 },
  /** Subscribe and unsubscribe requests by one shopper. */
  newsletterPerShopper: { limit: 10, windowSeconds: 600 },
  /**
   * Card attempts on one test-processor intent: room for typos and every test card, not for running through card
   * numbers (card testing) with one client secret.
   */
  testCardPerIntent: { limit: 20, windowSeconds: 900 },
} as const satisfies Record<string, Limit>;

/** How long an address an account signed in from is exempt from that account's failure budget. */
export const KNOWN_ADDRESS_DAYS = 30;

export type Limits = { [K in keyof typeof LIMITS]: Limit };

/**
 * The limits with every per-address one multiplied by `addressFactor`: where many shoppers reach the shop from one
 * address (a shared proxy, a campus, the end-to-end tests), the counters per address need room for all of them.
 * Limits per e-mail and per shopper stay as they are.
 */
export function limitsFor(addressFactor: number): Limits {
  return Object.fromEntries(
    Object.entries(LIMITS).map(([name, l]) => [name, name.endsWith('PerAddress') ? { ...l, limit: l.limit * addressFactor } : l]),
  ) as Limits;
}

/**
 * Counts a hit in a fixed window shared through the database, so every server process agrees.
 * Returns how many seconds to wait when the limit is passed.
 */
export async function hit(
  db: Database,
  bucket: string,
  { limit, windowSeconds }: Limit,
): Promise<{ ok: true } | { ok: false; retryAfter: number }> {
  const [row] = await serviceStatement<{ hits: number; retry_after: number }>(
    db,
    `insert into public.rate_limits as r (bucket, window_start, hits)
     values ($1, to_timestamp(floor(extract(epoch from now()) / $2) * $2), 1)
     on conflict (bucket, window_start) do update set hits = r.hits + 1
     returning r.hits, ceil(extract(epoch from r.window_start) + $2 - extract(epoch from now()))::int as retry_after`,
    [bucket, windowSeconds],
  );
  if (!row || row.hits <= limit) return { ok: true };
  const retryAfter = Math.max(1, row.retry_after);
  const name = limitName(bucket);
  rateLimited.inc({ limit: name });
  log.warn({ limit: name, retryAfter }, 'rate limit hit');
  return { ok: false, retryAfter };
}

/**
 * What a bucket counts, without whom it counts (its address, e-mail or shopper): `signup`, `signup:email`,
 * `login:pair`. Names a limit in the log and the metrics without a shopper's address or e-mail in either.
 */
export function limitName(bucket: string): string {
  const [kind = 'unknown', scope] = bucket.split(':');
  return scope && /^(email|ip|user|pair|account|address)$/.test(scope) ? `${kind}:${scope}` : kind;
}

/** Counts a hit in each bucket, in order; the first refusal wins (so a refused first check does not count the rest). */
export async function hitAll(
  db: Database,
  checks: readonly (readonly [string, Limit])[],
): Promise<{ ok: true } | { ok: false; retryAfter: number }> {
  for (const [bucket, limit] of checks) {
    const result = await hit(db, bucket, limit);
    if (!result.ok) return result;
  }
  return { ok: true };
}

/** Takes back one hit from the bucket's newest window: the request turned out not to be what the limit counts. */
export async function refund(tx: Sql, bucket: string): Promise<void> {
  await tx.query(
    `update public.rate_limits set hits = hits - 1
     where bucket = $1 and hits > 0 and window_start = (select max(window_start) from public.rate_limits where bucket = $1)`,
    [bucket],
  );
}

/** Clears a bucket in every window. */
export async function forget(tx: Sql, bucket: string): Promise<void> {
  await tx.query(`delete from public.rate_limits where bucket = $1`, [bucket]);
}

/** Drops windows that ended long ago and addresses no longer trusted for logins (the server calls it hourly). */
export async function pruneRateLimits(db: Database): Promise<void> {
  await asService(db, async (tx) => {
    await tx.query(`delete from public.rate_limits where window_start < now() - interval '1 day'`);
    await tx.query(`delete from public.login_known_addresses where last_success_at < now() - make_interval(days => $1)`, [
      KNOWN_ADDRESS_DAYS,
    ]);
  });
}
