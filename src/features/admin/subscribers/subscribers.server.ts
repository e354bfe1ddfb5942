import type { CookieJar } from '@/server/auth/auth.port';
import type { Sql } from '@/server/db/database.server';
import { type AdminCaller, type AdminDeps, recordAction, requireAdminOf } from '../admin.server';
import { csvRow, csvStream } from '../csv.server';
import { type Cursor, isoText, type Page, toPage } from '../paging.server';

// The newsletter list: counts, pages, and a CSV export. Shoppers subscribe and unsubscribe only themselves
// (RLS); the admin reads everyone's as service_role.

/** A subscriber as the admin sees them. */
export interface Subscriber {
  userId: string;
  email: string;
  /** ISO 8601. */
  subscribedAt: string;
}

/** How many subscribe, and how many of them subscribed in the last 30 days. */
export async function countSubscribers(tx: Sql): Promise<{ total: number; recent: number }> {
  const [row] = await tx.query<{ total: number; recent: number }>(
    `select count(*)::int as total, count(*) filter (where subscribed_at > now() - interval '30 days')::int as recent
     from public.newsletter_subscribers`,
  );
  return { total: row?.total ?? 0, recent: row?.recent ?? 0 };
}

/** A page of subscribers, newest first, after `cursor` (the previous page's last one). */
export async function listSubscribers(
  tx: Sql,
  { limit, after }: { limit: number; after?: Cursor | undefined },
): Promise<Page<Subscriber & { cursorAt: string }>> {
  const rows = await tx.query<{ user_id: string; email: string; subscribed_at: string }>(
    `select user_id::text, email, ${isoText('subscribed_at')} as subscribed_at from public.newsletter_subscribers
     where $1::text is null or (subscribed_at, user_id) < ($1::text::timestamptz, $2::uuid)
     order by subscribed_at desc, user_id desc
     limit $3`,
    [after?.at ?? null, after?.id ?? null, limit + 1],
  );
  return toPage(
    rows.map((r) => ({
      userId: r.user_id,
      email: r.email,
      subscribedAt: new Date(r.subscribed_at).toISOString(),
      cursorAt: r.subscribed_at,
    })),
    limit,
    (r) => ({ at: r.cursorAt, id: r.userId }),
  );
}

/** How many subscribers the export reads per query: the answer streams, so a long list is never held whole. */
export const EXPORT_BATCH = 500;

/** The CSV's first line. */
export const CSV_HEADER = ['email', 'subscribed_at'] as const;

/**
 * The subscriber list as CSV text, a batch at a time (each batch a short query of its own, so the export holds no
 * transaction open while the client reads slowly). The export is recorded as an admin action before the first byte.
 */
export async function subscribersCsv(me: AdminCaller, batch = EXPORT_BATCH): Promise<ReadableStream<Uint8Array>> {
  await me.run(async (tx) => {
    const { total } = await countSubscribers(tx);
    await recordAction(tx, me.admin, { action: 'subscribers.export', target: 'subscribers', after: { rows: total } });
  });
  return csvStream<Cursor>(CSV_HEADER, async (after) => {
    const page = await me.run((tx) => listSubscribers(tx, { limit: batch, after }));
    return { lines: page.rows.map((s) => csvRow([s.email, s.subscribedAt])), next: page.next };
  });
}

/** GET /api/admin/subscribers.csv: the list as a CSV download, 404 for a caller who is no admin. */
export async function subscribersCsvRoute(deps: AdminDeps, jar: CookieJar, today = new Date()): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await subscribersCsv(me);
  return new Response(body, {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="aurelia-subscribers-${today.toISOString().slice(0, 10)}.csv"`,
      'cache-control': 'private, no-store',
    },
  });
}
