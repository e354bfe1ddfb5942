import { normalizeEmail } from '@/lib/auth.rules';
import type { Database } from '../db/database.server';
import { asService, serviceStatement } from '../db/roles.server';
import { forget, hitAll, KNOWN_ADDRESS_DAYS, type Limit, type Limits, refund } from '../ratelimit.server';
import type { AuthResult } from './auth.port';
import { tokenHash } from './tokens.server';

/**
 * The login policy (docs/decisions/001-built-in-accounts.md, "Login limits"), after OWASP's Authentication Cheat
 * Sheet: only failed attempts count; per account and address, per account from addresses it was never used from, and
 * per address across accounts. A success clears its address's failures for that account and remembers the address.
 */
export type LoginLimits = Pick<Limits, 'loginPerAddress' | 'loginFailuresPerAccountAndAddress' | 'loginFailuresPerAccount'>;

export type LimitedSignIn<T> = { ok: true; result: AuthResult<T> } | { ok: false; retryAfter: number };

/** Runs one login attempt under the login limits: refused with the seconds to wait, or the attempt's own result. */
export async function signInWithLimits<T>(
  db: Database,
  limits: LoginLimits,
  who: { email: string; address: string },
  signIn: () => Promise<AuthResult<T>>,
): Promise<LimitedSignIn<T>> {
  const email = normalizeEmail(who.email);
  const known = knownKey(email, who.address);
  // A distinct prefix per kind: the e-mail is whatever the client typed, so `login:fail:<e-mail>` could otherwise be
  // made to spell another account's `<e-mail>:<address>` counter and fill it.
  const buckets = {
    address: `login:ip:${who.address}`,
    accountAndAddress: `login:pair:${email} ${who.address}`,
    account: `login:account:${email}`,
  };
  // The account-wide budget is where a stranger with many addresses could lock the owner out, so an address the
  // owner signed in from lately is exempt from it; from there only its own per-address failures count.
  const checks: [string, Limit][] = [
    [buckets.address, limits.loginPerAddress],
    [buckets.accountAndAddress, limits.loginFailuresPerAccountAndAddress],
  ];
  if (!(await isKnown(db, known))) checks.push([buckets.account, limits.loginFailuresPerAccount]);

  // Counted before the password is checked, so concurrent guesses cannot all slip under the limit; taken back below
  // when the attempt turns out not to be a wrong password.
  const limited = await hitAll(db, checks);
  if (!limited.ok) return limited;
  const result = await signIn();
  if (!result.ok && result.error.code === 'invalid_credentials') return { ok: true, result };

  await asService(db, async (tx) => {
    for (const [bucket] of checks) await refund(tx, bucket);
    if (result.ok) {
      // The owner is back: earlier typos from this address are forgiven, and the address is trusted from now on.
      await forget(tx, buckets.accountAndAddress);
      await tx.query(
        `insert into public.login_known_addresses (key_hash) values ($1)
         on conflict (key_hash) do update set last_success_at = now()`,
        [known],
      );
    }
  });
  return { ok: true, result };
}

/** The stored form of an (account, address) pair: a hash, so the table does not say who signs in from where. */
function knownKey(email: string, address: string): string {
  return tokenHash(`${email}\n${address}`);
}

async function isKnown(db: Database, key: string): Promise<boolean> {
  const rows = await serviceStatement(
    db,
    `select 1 from public.login_known_addresses where key_hash = $1 and last_success_at > now() - make_interval(days => $2)`,
    [key, KNOWN_ADDRESS_DAYS],
  );
  return rows.length > 0;
}
