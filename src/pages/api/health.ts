import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { json, problem } from '@/server/http.server';

export const prerender = false;

/**
 * Readiness: 200 once the server's ports have started and the database answers, 503 otherwise. The server in front
 * asks it before it listens (scripts/serve.mjs), so a bad configuration stops start-up instead of answering 500s.
 */
export const GET: APIRoute = async () => {
  try {
    const { db } = await getServices();
    await db.query('select 1');
    return json({ status: 'ok' });
  } catch {
    return problem(503, 'unavailable', 'The shop is starting or its database is unavailable.');
  }
};
