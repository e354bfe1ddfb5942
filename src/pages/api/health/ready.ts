import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { catalogueHealth } from '@/features/editor/publish.server';
import { json } from '@/server/http.server';
import { readiness } from '@/server/readiness.server';

export const prerender = false;

/**
 * Readiness: 200 when this server can take shoppers' requests (its database answers, its schema has every migration
 * this build ships, its outbox is not stuck, it serves the catalogue last published), 503 otherwise with the check that failed. A load balancer sends traffic
 * only to a server that is ready. See src/server/readiness.server.ts.
 */
export const GET: APIRoute = async () => {
  let services: Awaited<ReturnType<typeof getServices>>;
  try {
    services = await getServices();
  } catch {
    return json({ status: 'unavailable', checks: { services: 'failed: the shop could not start' } }, 503);
  }
  const { ready, checks } = await readiness(services.db, {
    stuckSeconds: services.config.outboxStuckSeconds,
    catalogue: catalogueHealth(),
  });
  return json({ status: ready ? 'ok' : 'unavailable', checks }, ready ? 200 : 503);
};
