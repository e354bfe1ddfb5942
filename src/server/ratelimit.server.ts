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
 * Counts a hit in a sliding window shared through the database, so every server process agrees. Hits are kept per
 * fixed window; the count is this window's hits plus the last window's, weighed by the part of it still within
 * `windowSeconds` of now, so the edge of a window is no moment to send twice the limit. A refused hit counts too:
 * hammering on keeps a client refused. Returns how many seconds to wait when the limit is passed. `at` is the moment
 * of the hit for tests; the database's clock otherwise.
 */
export async function hit(
  db: Database,
  bucket: string,
  { limit, windowSeconds }: Limit,
  at?: Date,
): Promise<{ ok: true } | { ok: false; retryAfter: number }> {
  const [row] = await serviceStatement<{ hits: number; previous: number; elapsed: number }>(
    db,
    `with moment as (select coalesce($3::timestamptz, now()) as now),
     current as (
       insert into public.rate_limits as r (bucket, window_start, hits)
       select $1, to_timestamp(floor(extract(epoch from moment.now) / $2::int) * $2::int), 1 from moment
       on conflict (bucket, window_start) do update set hits = r.hits + 1
       returning r.hits, r.window_start
     )
     select current.hits,
       coalesce((select p.hits from public.rate_limits p
                 where p.bucket = $1 and p.window_start = current.window_start - make_interval(secs => $2::int)), 0) as previous,
       extract(epoch from moment.now - current.window_start)::float8 as elapsed
     from current, moment`,
    [bucket, windowSeconds, at?.toISOString() ?? null],
  );
  if (!row) return { ok: true };
  const { hits, previous, elapsed } = row;
  if (previous * (1 - elapsed / windowSeconds) + hits <= limit) return { ok: true };
  const retryAfter = secondsUntilRoom({ limit, windowSeconds }, previous, hits, elapsed);
  const name = limitName(bucket);
  rateLimited.inc({ limit: name });
  log.warn({ limit: name, retryAfter }, 'rate limit hit');
  return { ok: false, retryAfter };
}

/**
 * Seconds until one more hit would be allowed, if none comes meanwhile: `hits` in this window (the refused one
 * included), `previous` in the last, `elapsed` seconds into this one.
 */
function secondsUntilRoom({ limit, windowSeconds }: Limit, previous: number, hits: number, elapsed: number): number {
  // This window's hits alone leave room: wait for enough of the last window's to age out.
  if (hits + 1 <= limit) return wholeSeconds((1 - (limit - hits - 1) / previous) * windowSeconds - elapsed);
  // They do not: the rest of this window, then the part of the next after which this one's weigh little enough.
  return wholeSeconds(windowSeconds - elapsed + (1 - (limit - 1) / hits) * windowSeconds);
}

/** At least a second, rounded up, and not up by the last bit of a floating-point sum (200.00000000000003 is 200). */
function wholeSeconds(seconds: number): number {
  return Math.max(1, Math.ceil(seconds - 1e-6));
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
