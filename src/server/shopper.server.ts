import type { APIContext } from 'astro';
import type { CurrentSession } from './auth/auth.port';
import { activeSession } from './auth/session.server';
import type { Sql } from './db/database.server';
import { asShopper } from './db/roles.server';
import { cookieJar, problem } from './http.server';
import { getServices, type Services } from './services.server';

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
  return { services, session, run: (fn) => asShopper(services.db, session?.claims ?? null, fn) };
}

/** The answer for an endpoint that needs an account; `message` is the spec's wording for that action. */
export function signInRequired(message: string): Response {
  return problem(401, 'unauthenticated', message);
}
