import { z } from 'astro/zod';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { shopperRule } from '@/features/discounts/discounts';
import type { CookieJar } from '@/server/auth/auth.port';
import { json, problem, readJson } from '@/server/http.server';
import { type AdminDeps, requireAdminOf } from '../admin.server';
import {
  type CommandResult,
  createBody,
  createCode,
  editBody,
  editCode,
  offerBody,
  saveOffer,
  setCodeStatus,
  statusBody,
} from './discount-commands.server';
import { codeReport, listCodes, offerRow } from './discount-queries.server';
import type { AdminOffer } from './discounts-admin';

// The admin's discount endpoints under /api/admin/discounts…, written against their dependencies so the test suites
// call them as the routes do: a Request and the browser's cookies in, a Response out. Each first asks whether the
// caller is an admin (a guest or a shopper gets the same 404 as a path that does not exist, before an id or a body is
// read); the middleware has already refused a state-changing request from another site; readJson limits the body
// before reading it and answers a bad one in words.

/** What the discount endpoints need of the services (a subset, so tests can hand in their own). */
export interface AdminDiscountDeps extends AdminDeps {
  /** The shop's time zone (SHOP_TIME_ZONE): a code's start and end are typed and shown on its clock. */
  timeZone: string;
  /** The catalogue a code's products and categories are checked against. */
  catalogue: () => Promise<CatalogueIndex>;
}

const codeId = z.uuid();
const noSuchCode = () => problem(404, 'not_found', 'No such discount code.');

function respond(result: CommandResult, created = false): Response {
  if (!result.ok) return problem(result.status, result.code, result.message);
  return json(result.answer, created && result.answer.changed ? 201 : 200);
}

/** The offer and the sentence shoppers read about how it meets a code. */
const offerAnswer = (offer: AdminOffer) => ({ offer, rule: shopperRule(offer) });

/** GET /api/admin/discounts: every code with its uses, and the automatic offer. */
export async function adminDiscountsList(deps: AdminDiscountDeps, jar: CookieJar): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const { codes, offer } = await me.run(async (tx) => ({ codes: await listCodes(tx), offer: await offerRow(tx) }));
  return json({ codes, ...offerAnswer(offer) });
}

/** POST /api/admin/discounts {code, kind, …}: 201 {changed, message, code}; 400 for a bad rule, 409 for a taken name. */
export async function adminDiscountCreate(deps: AdminDiscountDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, createBody);
  if ('response' in body) return body.response;
  return respond(await createCode(me, body.data, await deps.catalogue(), deps.timeZone), true);
}

/** GET /api/admin/discounts/{id}: the code, its latest orders, its revenue and the discount it gave; 404. */
export async function adminDiscountGet(deps: AdminDiscountDeps, jar: CookieJar, id: string | undefined): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const code = codeId.safeParse(id);
  if (!code.success) return noSuchCode();
  const report = await me.run((tx) => codeReport(tx, code.data));
  return report ? json(report) : noSuchCode();
}

/** POST /api/admin/discounts/{id} {kind, …, version?}: 200 {changed, message, code}; 400, 404, 409 (ended, or changed). */
export async function adminDiscountEdit(
  deps: AdminDiscountDeps,
  request: Request,
  jar: CookieJar,
  id: string | undefined,
): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const code = codeId.safeParse(id);
  if (!code.success) return noSuchCode();
  const body = await readJson(request, editBody);
  if ('response' in body) return body.response;
  return respond(await editCode(me, code.data, body.data, await deps.catalogue(), deps.timeZone));
}

/** POST /api/admin/discounts/{id}/status {to}: pause, resume or end; 200 {changed, message, code}; 400, 404, 409. */
export async function adminDiscountStatus(
  deps: AdminDiscountDeps,
  request: Request,
  jar: CookieJar,
  id: string | undefined,
): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const code = codeId.safeParse(id);
  if (!code.success) return noSuchCode();
  const body = await readJson(request, statusBody);
  if ('response' in body) return body.response;
  return respond(await setCodeStatus(me, code.data, body.data.to));
}

/** GET /api/admin/discounts/offer: {offer, rule}. */
export async function adminOfferGet(deps: AdminDiscountDeps, jar: CookieJar): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  return json(offerAnswer(await me.run((tx) => offerRow(tx))));
}

/** POST /api/admin/discounts/offer {thresholdCents, percent, active, combines, version?}: 200 {changed, message, offer, rule}. */
export async function adminOfferSave(deps: AdminDiscountDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const body = await readJson(request, offerBody);
  if ('response' in body) return body.response;
  const result = await saveOffer(me, body.data);
  if (!result.ok) return respond(result);
  const offer = result.answer.offer;
  return json({ ...result.answer, ...(offer ? { rule: shopperRule(offer) } : {}) });
}
