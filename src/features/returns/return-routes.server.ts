// The shopper's return endpoints, written against their dependencies so the database suites call them as the routes do:
// a Request and the browser's cookies in, a Response out. Whose order it is is decided first: a signed-in shopper's
// own (row-level security answers, as their order page asks), or anyone holding the order's link (its token). Someone
// else's order, or a wrong token, is the same 404 as an order that does not exist.
import { z } from 'astro/zod';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { orderIdByToken } from '@/features/orders/order-page.server';
import type { CookieJar, CurrentSession } from '@/server/auth/auth.port';
import { activeSession } from '@/server/auth/session.server';
import type { CallerDeps } from '@/server/caller.server';
import type { Database } from '@/server/db/database.server';
import { asShopper, serviceStatement } from '@/server/db/roles.server';
import { json, problem, readJson } from '@/server/http.server';
import { MAX_RETURN_TEXT, REASON_KEYS } from './returns';
import { requestReturn } from './returns.server';

/** What the return endpoints need of the services (a subset, so tests can hand in their own). */
export interface ReturnDeps extends CallerDeps {
  /** The catalogue an exchange's colour or size is checked against. */
  catalogue: () => Promise<CatalogueIndex>;
  /** Runs the outbox now (after a transaction that queued a job has committed). */
  nudgeOutbox: () => void;
  /** The shop's time zone (SHOP_TIME_ZONE): the days a refusal names. */
  timeZone: string;
  /** The clock the window is read by (tests move it). */
  now?: () => Date;
}

const token = z.string().min(20).max(100);

export const returnBody = z.object(
  {
    orderId: z.uuid({ error: 'orderId is the order’s id.' }),
    /** The order link's token, for a guest (the page at /order?token=… sends it). */
    token: token.optional(),
    /** The form's own key: a double click or a retry sends the same, and one return is recorded. */
    key: z.uuid({ error: 'key must be a UUID the form made.' }),
    reason: z.enum(REASON_KEYS, { error: 'Choose a reason from the list.' }),
    /** A refund (the default), or an exchange: each item then names the colour and size wanted instead. */
    kind: z.enum(['return', 'exchange'], { error: 'kind is return or exchange.' }).optional(),
    comment: z
      .string()
      .trim()
      .max(MAX_RETURN_TEXT, { error: `Keep the note to ${MAX_RETURN_TEXT} characters.` })
      .optional(),
    items: z
      .array(
        z.object({
          itemId: z.string().regex(/^\d{1,18}$/, { error: 'itemId is a line of the order.' }),
          quantity: z.number({ error: 'quantity must be a whole number.' }).int({ error: 'quantity must be a whole number.' }),
          exchangeFor: z
            .object(
              {
                color: z.string().max(40, { error: 'That colour is not one the product comes in.' }),
                size: z.string().max(10, { error: 'That size is not one the product comes in.' }),
              },
              { error: 'exchangeFor is {"color", "size"} ("" for none).' },
            )
            .optional(),
        }),
        { error: 'Choose at least one item to return.' },
      )
      .min(1, { error: 'Choose at least one item to return.' })
      .max(100, { error: 'An order has at most 100 lines.' }),
  },
  { error: 'Send {"orderId", "key", "reason", "items": [{"itemId", "quantity"}]}.' },
);

const NOT_FOUND = () => problem(404, 'not_found', 'No such order.');

/** Who may act on an order: its owner, signed in, or whoever holds its link. */
export type OrderAccess = { orderId: string; session: CurrentSession | null; token: string | null };

/**
 * The order `orderId` if the caller may act on it (their own, as row-level security sees it, or the one `token` opens),
 * else the answer to return as it is: 404 for an order that is not theirs, 401 when a guest sends no token.
 */
export async function orderAccess(
  deps: CallerDeps,
  jar: CookieJar,
  orderId: string,
  sentToken: string | null | undefined,
): Promise<OrderAccess | Response> {
  if (sentToken) {
    const opened = await orderIdByToken(deps.db, sentToken);
    // The session, when there is one, counts the call as activity; the link decides alone.
    const session = await activeSession(deps.db, deps.auth, jar, { touch: true });
    return opened === orderId ? { orderId, session, token: sentToken } : NOT_FOUND();
  }
  const session = await activeSession(deps.db, deps.auth, jar, { touch: true });
  if (!session) return problem(401, 'unauthenticated', 'Please log in to return items from your order.');
  return (await ownsOrder(deps.db, session, orderId)) ? { orderId, session, token: null } : NOT_FOUND();
}

/** Whether the signed-in shopper's own query finds the order (row-level security decides). */
async function ownsOrder(db: Database, session: CurrentSession, orderId: string): Promise<boolean> {
  const rows = await asShopper(db, session.claims, (tx) => tx.query('select id from public.orders where id = $1', [orderId]));
  return rows.length > 0;
}

/**
 * POST /api/returns {orderId, token?, key, reason, comment?, items}: 201 {return} for a new request, 200 for one the
 * same key recorded; 400 (a line, a quantity, final sale), 401, 404, 409 (the window, an order refunded in full).
 */
export async function postReturn(deps: ReturnDeps, request: Request, jar: CookieJar): Promise<Response> {
  const body = await readJson(request, returnBody);
  if ('response' in body) return body.response;
  const access = await orderAccess(deps, jar, body.data.orderId, body.data.token);
  if (access instanceof Response) return access;
  const result = await requestReturn(
    deps.db,
    access.orderId,
    {
      key: body.data.key,
      kind: body.data.kind,
      reason: body.data.reason,
      comment: body.data.comment,
      items: body.data.items,
    },
    {
      userId: access.session?.user.id ?? null,
      now: deps.now?.() ?? new Date(),
      timeZone: deps.timeZone,
      catalogue: await deps.catalogue(),
      ...(access.token ? { accessToken: access.token } : {}),
    },
  );
  if (!result.ok) return problem(result.status, result.code, result.message);
  if (result.changed) deps.nudgeOutbox();
  return json({ return: result.return }, result.changed ? 201 : 200);
}

/**
 * GET /api/returns/{id}/label[?token=…]: the return label PDF the shop drew, for the order's owner or whoever holds
 * the order's link; 404 otherwise, and before there is one.
 */
export async function returnLabel(deps: CallerDeps, request: Request, jar: CookieJar, id: string | undefined) {
  const returnId = z.uuid().safeParse(id);
  if (!returnId.success) return problem(404, 'not_found', 'No such return.');
  const [row] = await serviceStatement<{ order_id: string }>(deps.db, `select order_id from public.order_returns where id = $1`, [
    returnId.data,
  ]);
  const sent = new URL(request.url).searchParams.get('token');
  const access = row ? await orderAccess(deps, jar, row.order_id, token.safeParse(sent).success ? sent : null) : null;
  if (!access || access instanceof Response)
    return access?.status === 401 ? access : problem(404, 'not_found', 'No such return.');
  const [label] = await serviceStatement<{ pdf: Uint8Array }>(
    deps.db,
    `select pdf from public.return_labels where return_id = $1`,
    [returnId.data],
  );
  if (!label) return problem(404, 'not_found', 'This return has no label yet.');
  return new Response(new Uint8Array(label.pdf), {
    headers: {
      'content-type': 'application/pdf',
      'content-disposition': `inline; filename="return-label-${returnId.data.slice(0, 8)}.pdf"`,
      'cache-control': 'private, no-store',
    },
  });
}
