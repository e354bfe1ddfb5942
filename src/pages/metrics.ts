import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { bearerMatches, registry, setDatabaseSize, setOutboxState } from '@/server/metrics.server';
import { JOBS } from '@/server/outbox/jobs.server';
import { outboxState } from '@/server/outbox/outbox.server';

export const prerender = false;

const text = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });

/**
 * Prometheus' scrape (text exposition format), for whoever holds METRICS_TOKEN: `Authorization: Bearer <token>`,
 * compared in constant time. Without METRICS_TOKEN the page does not exist (404). A browser's request from another
 * site is refused (403) even with the token: Prometheus sends no Origin, a page elsewhere does.
 *
 * A token rather than a second listener on a loopback port: Prometheus usually runs on another machine, which a
 * loopback port would shut out (or force an SSH tunnel), and the shop stays one process with one port to open, behind
 * the same TLS as the shop. The gauges that read the database (the outbox, its size) are read at each scrape.
 */
export const GET: APIRoute = async ({ request }) => {
  const services = await getServices();
  const token = services.config.metricsToken;
  if (!token) return text(404, 'Not found.');
  const fetchSite = request.headers.get('sec-fetch-site');
  if (request.headers.has('origin') || (fetchSite !== null && fetchSite !== 'none' && fetchSite !== 'same-origin'))
    return text(403, 'Metrics are not served to web pages.');
  if (!bearerMatches(request.headers.get('authorization'), token))
    return text(401, 'A bearer token is required.', { 'www-authenticate': 'Bearer realm="metrics"' });
  try {
    const { db } = services;
    setOutboxState(Object.keys(JOBS), await outboxState(db));
    const [size] = await db.query<{ bytes: string | number }>('select pg_database_size(current_database()) as bytes');
    setDatabaseSize(Number(size?.bytes ?? 0));
  } catch {
    // The database away: the process metrics are still worth having; the database's gauges keep their last values,
    // and readiness says what is wrong.
  }
  return text(200, await registry.metrics(), { 'content-type': registry.contentType });
};
