import type { APIContext } from 'astro';
import { getServices, type Services } from '@/app/services.server';
import type { CurrentSession } from '@/server/auth/auth.port';
import { activeSession } from '@/server/auth/session.server';
import { signInRequired } from '@/server/caller.server';
import type { Sql } from '@/server/db/database.server';
import { asShopper } from '@/server/db/roles.server';
import { cookieJar } from '@/server/http.server';

export interface ShopperContext {
  services: Services;
  /** The signed-in shopper, or null for a guest. */
  session: CurrentSession | null;
  /** Runs queries as this shopper (RLS decides what they see and change). */
  run<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

/** Who is asking, for an endpoint: every call by a signed-in shopper counts as activity for idle sign-out. */
export async function shopper({ request, cookies }: Pick<APIContext, 'request' | 'cookies'>): Promise<ShopperContext> {
  const services = await getServices();
  const session = await activeSession(services.db, services.auth, cookieJar(request, cookies), { touch: true });
  const claims = session?.claims ?? null;
  return {
    services,
    session,
    run: (fn) => asShopper(services.db, claims, fn),
  };
}

/** A shopper context for a request known to come from a signed-in shopper. */
export type SignedInShopper = ShopperContext & { session: CurrentSession };

function isSignedIn(me: ShopperContext): me is SignedInShopper {
  return me.session !== null;
}

/**
 * Who is asking, for an endpoint that needs an account: the signed-in shopper, or the 401 answer to return as it is
 * (`message` is the spec's wording for that action). `const me = await requireShopper(ctx, MSG); if (me instanceof
 * Response) return me;`
 */
export async function requireShopper(
  context: Pick<APIContext, 'request' | 'cookies'>,
  message: string,
): Promise<SignedInShopper | Response> {
  const me = await shopper(context);
  return isSignedIn(me) ? me : signInRequired(message);
}
