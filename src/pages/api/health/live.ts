import type { APIRoute } from 'astro';
import { json } from '@/server/http.server';

export const prerender = false;

/**
 * Liveness: 200 whenever the process answers requests, without asking the database or any other service. A load
 * balancer or supervisor restarts the process when this fails; a database that is away is readiness' business
 * (/api/health/ready), and restarting the shop would not bring it back.
 */
export const GET: APIRoute = () => json({ status: 'ok' });
