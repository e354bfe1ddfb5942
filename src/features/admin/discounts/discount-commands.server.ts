import { z } from 'astro/zod';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { normaliseCode } from '@/features/discounts/discounts';
import { productIdValue } from '@/server/product-id.server';
import { type AdminCaller, recordAction } from '../admin.server';
import { zonedIso } from '../sales/sales';
import { codeById, offerRow } from './discount-queries.server';
import {
  type AdminCode,
  type DiscountChangeAnswer,
  MAX_AMOUNT_CENTS,
  MAX_PER_CUSTOMER_LIMIT,
  MAX_USAGE_LIMIT,
  STATUS_MOVES,
  WALL_TIME,
  wallToInstant,
} from './discounts-admin';

// The owner's changes to discount codes and the automatic offer: create, edit, pause, resume, end; the offer's
// settings. Each runs in one transaction with its admin_actions row, so neither exists without the other, and each
// refuses bad input in words before it changes anything. An edit changes the code's rules from now on: orders keep
// what they were charged (their amounts are their own columns), and uses already held or used stay counted.

const PERCENT = 'The percent off must be a whole number from 1 to 100.';
const cents = (what: string) =>
  z
    .int({ error: `${what} must be a whole number of cents.` })
    .min(1, { error: `${what} must be more than $0.` })
    .max(MAX_AMOUNT_CENTS, { error: `${what} can be at most $999,999.99.` });
const limit = (what: string, max: number) =>
  z
    .int({ error: `${what} must be a whole number, or null for no limit.` })
    .min(1, { error: `${what} must be at least 1 (leave it empty for no limit).` })
    .max(max, { error: `${what} can be at most ${max.toLocaleString('en-US')}.` })
    .nullable();
const wallTime = (what: string) =>
  z
    .string({ error: `${what} must be a day and time (YYYY-MM-DDTHH:MM, the shop’s time), or null.` })
    .regex(WALL_TIME, { error: `${what} must be a day and time written YYYY-MM-DDTHH:MM, in the shop’s time zone.` })
    .nullable();

/** A code's rules as the owner sends them (create and edit alike); amounts in cents, times on the shop's clock. */
const rulesShape = {
  kind: z.enum(['percent', 'amount', 'free_shipping'], {
    error: 'kind must be "percent", "amount" or "free_shipping".',
  }),
  percent: z.int({ error: PERCENT }).min(1, { error: PERCENT }).max(100, { error: PERCENT }).nullable().optional(),
  amountCents: cents('The amount off').nullable().optional(),
  minSubtotalCents: cents('The minimum subtotal').nullable(),
  startsAt: wallTime('The start'),
  endsAt: wallTime('The end'),
  usageLimit: limit('The limit of uses', MAX_USAGE_LIMIT),
  perCustomerLimit: limit('The limit per customer', MAX_PER_CUSTOMER_LIMIT),
  productIds: z
    .array(productIdValue('Each product must be a product id (a whole number).'), { error: 'productIds must be a list.' })
    .max(1000, { error: 'At most 1,000 products.' }),
  categories: z
    .array(z.string({ error: 'Each category must be text.' }).max(60, { error: 'A category is at most 60 characters.' }), {
      error: 'categories must be a list.',
    })
    .max(100, { error: 'At most 100 categories.' }),
};

type Rules = z.infer<z.ZodObject<typeof rulesShape>>;

/** The value fits the kind: a percent for 'percent', an amount for 'amount', neither for free shipping. */
function kindFits(r: Pick<Rules, 'kind' | 'percent' | 'amountCents'>, ctx: z.RefinementCtx) {
  if (r.kind === 'percent' && (r.percent ?? null) === null) ctx.addIssue({ code: 'custom', message: PERCENT });
  if (r.kind === 'amount' && (r.amountCents ?? null) === null)
    ctx.addIssue({ code: 'custom', message: 'An amount-off code needs the amount off (amountCents).' });
}

const CODE_TEXT = 'A code is 3 to 32 letters or digits (and - or _), such as SUMMER10.';

/** The body of POST /api/admin/discounts: a new code. */
export const createBody = z
  .object(
    {
      code: z
        .string({ error: CODE_TEXT })
        .max(64, { error: CODE_TEXT })
        .transform((typed, ctx) => {
          const code = normaliseCode(typed);
          if (code) return code;
          ctx.addIssue({ code: 'custom', message: CODE_TEXT });
          return z.NEVER;
        }),
      ...rulesShape,
    },
    { error: 'Send {"code", "kind", "percent" or "amountCents", "minSubtotalCents", "startsAt", "endsAt", …}.' },
  )
  .superRefine(kindFits);
export type CreateBody = z.infer<typeof createBody>;

/** The body of POST /api/admin/discounts/{id}: the code's rules, and the version the owner edited. */
export const editBody = z
  .object(
    {
      ...rulesShape,
      version: z.string({ error: 'version must be the version the page showed.' }).max(40).optional(),
    },
    { error: 'Send the code’s rules: {"kind", "percent" or "amountCents", "minSubtotalCents", "startsAt", "endsAt", …}.' },
  )
  .superRefine(kindFits);
export type EditBody = z.infer<typeof editBody>;

/** The body of POST /api/admin/discounts/{id}/status. */
export const statusBody = z.object(
  { to: z.enum(['active', 'paused', 'ended'], { error: 'to must be "paused", "active" (resume) or "ended".' }) },
  { error: 'Send {"to": "paused" | "active" | "ended"}.' },
);

const OFFER_PERCENT = 'The offer’s percent off must be a whole number from 1 to 100.';
/** The body of POST /api/admin/discounts/offer. */
export const offerBody = z.object(
  {
    thresholdCents: z
      .int({ error: 'The threshold must be a whole number of cents.' })
      .min(0, { error: 'The threshold cannot be below $0.' })
      .max(MAX_AMOUNT_CENTS, { error: 'The threshold can be at most $999,999.99.' }),
    percent: z.int({ error: OFFER_PERCENT }).min(1, { error: OFFER_PERCENT }).max(100, { error: OFFER_PERCENT }),
    active: z.boolean({ error: 'active must be true or false.' }),
    combines: z.boolean({ error: 'combines must be true or false.' }),
    version: z.string({ error: 'version must be the version the page showed.' }).max(40).optional(),
  },
  { error: 'Send {"thresholdCents", "percent", "active", "combines"}.' },
);
export type OfferBody = z.infer<typeof offerBody>;

export type CommandResult =
  | { ok: true; answer: DiscountChangeAnswer; id?: string }
  | { ok: false; status: 400 | 404 | 409; code: string; message: string };

const refuse = (status: 400 | 404 | 409, code: string, message: string): CommandResult => ({ ok: false, status, code, message });

/** A code's rules as stored: the value its kind takes (the other null), and the instants. */
interface StoredRules {
  kind: AdminCode['kind'];
  percent: number | null;
  amountCents: number | null;
  minSubtotalCents: number | null;
  startsAt: string | null;
  endsAt: string | null;
  usageLimit: number | null;
  perCustomerLimit: number | null;
  productIds: number[];
  categories: string[];
}

/**
 * The rules to store, checked against the catalogue and the shop's clock, or why not: products that exist, categories
 * the catalogue has (stored as it spells them), a start and end that are real times on the shop's clock and in order,
 * and an end that is still ahead when it is new. `before`: the code as it was (an unchanged end in the past is kept).
 */
function storedRules(
  body: Rules,
  catalogue: CatalogueIndex,
  timeZone: string,
  now: Date,
  before: AdminCode | null,
): { ok: true; rules: StoredRules } | { ok: false; message: string } {
  const productIds = [...new Set(body.productIds)].sort((a, b) => a - b);
  const unknown = productIds.find((id) => !catalogue.has(id));
  if (unknown !== undefined) return { ok: false, message: `There is no product ${unknown} in the catalogue.` };
  const spelled = new Map([...catalogue.values()].map((p) => [p.category.trim().toLowerCase(), p.category]));
  const categories: string[] = [];
  for (const typed of body.categories) {
    const category = spelled.get(typed.trim().toLowerCase());
    if (!category)
      return {
        ok: false,
        message: `The catalogue has no category “${typed.slice(0, 60)}”. Categories: ${[...new Set(spelled.values())].join(', ')}.`,
      };
    if (!categories.includes(category)) categories.push(category);
  }
  const instant = (wall: string | null, what: string) => {
    if (wall === null) return { ok: true as const, iso: null };
    const at = wallToInstant(wall, timeZone);
    return at
      ? { ok: true as const, iso: at.toISOString() }
      : { ok: false as const, message: `${what} is not a real day and time.` };
  };
  const starts = instant(body.startsAt, 'The start');
  if (!starts.ok) return starts;
  const ends = instant(body.endsAt, 'The end');
  if (!ends.ok) return ends;
  if (starts.iso && ends.iso && Date.parse(ends.iso) <= Date.parse(starts.iso))
    return { ok: false, message: 'The end must be after the start.' };
  const endMoved = !before?.endsAt || !ends.iso || Date.parse(before.endsAt) !== Date.parse(ends.iso);
  if (ends.iso && endMoved && Date.parse(ends.iso) <= now.getTime())
    return { ok: false, message: 'The end is in the past: choose a later one, or end the code now with End.' };
  return {
    ok: true,
    rules: {
      kind: body.kind,
      percent: body.kind === 'percent' ? (body.percent ?? null) : null,
      amountCents: body.kind === 'amount' ? (body.amountCents ?? null) : null,
      minSubtotalCents: body.minSubtotalCents,
      startsAt: starts.iso,
      endsAt: ends.iso,
      usageLimit: body.usageLimit,
      perCustomerLimit: body.perCustomerLimit,
      productIds,
      categories,
    },
  };
}

const RULE_KEYS = [
  'kind',
  'percent',
  'amountCents',
  'minSubtotalCents',
  'startsAt',
  'endsAt',
  'usageLimit',
  'perCustomerLimit',
  'productIds',
  'categories',
] as const satisfies readonly (keyof StoredRules)[];

/**
 * A code's rules as the activity log records them: times on the shop's clock with their offset, and products by the
 * names they had (the log is read by people, and outlives a product's renaming).
 */
function logged(rules: Partial<StoredRules>, timeZone: string, catalogue: CatalogueIndex): Record<string, unknown> {
  const { productIds, ...rest } = rules;
  const out: Record<string, unknown> = { ...rest };
  for (const key of ['startsAt', 'endsAt'] as const)
    if (typeof rules[key] === 'string') out[key] = zonedIso(new Date(rules[key]), timeZone);
  if (productIds) out.products = productIds.map((id) => catalogue.get(id)?.name ?? `product ${id}`);
  return out;
}

const sameInstant = (a: string | null, b: string | null) =>
  a === null || b === null ? a === b : Date.parse(a) === Date.parse(b);
const sameValue = (key: keyof StoredRules, a: unknown, b: unknown) =>
  key === 'startsAt' || key === 'endsAt'
    ? sameInstant(a as string | null, b as string | null)
    : JSON.stringify(a) === JSON.stringify(b);

/** The rules' SQL parameters, $2 to $11, after the id or the code in $1. */
const ruleParams = (r: StoredRules) => [
  r.kind,
  r.percent,
  r.amountCents,
  r.minSubtotalCents,
  r.startsAt,
  r.endsAt,
  r.usageLimit,
  r.perCustomerLimit,
  r.productIds,
  r.categories,
];

/** Creates a code; a code of that name in any case is refused (409), as is any bad rule (400). */
export async function createCode(
  me: AdminCaller,
  body: CreateBody,
  catalogue: CatalogueIndex,
  timeZone: string,
  now = new Date(),
): Promise<CommandResult> {
  const checked = storedRules(body, catalogue, timeZone, now, null);
  if (!checked.ok) return refuse(400, 'invalid_request', checked.message);
  const { rules } = checked;
  return me.run(async (tx) => {
    // The code is stored upper case and unique: a taken name inserts nothing, with no error to end the transaction.
    const [row] = await tx.query<{ id: string }>(
      `insert into public.discount_codes (code, kind, percent, amount_cents, min_subtotal_cents, starts_at, ends_at,
         usage_limit, per_customer_limit, product_ids, categories)
       values ($1, $2, $3, $4, $5, $6::text::timestamptz, $7::text::timestamptz, $8, $9, $10::int[], $11::text[])
       on conflict (code) do nothing returning id::text`,
      [body.code, ...ruleParams(rules)],
    );
    if (!row)
      return refuse(409, 'code_taken', `There is already a code ${body.code} (codes are the same in any case). Choose another.`);
    await recordAction(tx, me.admin, {
      action: 'discount.create',
      target: `code ${body.code}`,
      // What was set: a rule left empty (no minimum, no limit, the whole cart) is not written out.
      after: logged(
        Object.fromEntries(
          Object.entries(rules).filter(([, v]) => v !== null && !(Array.isArray(v) && v.length === 0)),
        ) as Partial<StoredRules>,
        timeZone,
        catalogue,
      ),
    });
    const code = await codeById(tx, row.id);
    return { ok: true, id: row.id, answer: { changed: true, message: `Code ${body.code} created.`, ...(code ? { code } : {}) } };
  });
}

const noSuchCode = () => refuse(404, 'not_found', 'No such discount code.');
const changedMeanwhile = (code: string) =>
  refuse(
    409,
    'changed',
    `Code ${code} was changed (by another admin, or in another tab) since this page was loaded. Nothing was saved: reload the page and try again.`,
  );

/**
 * Changes a code's rules (its name stays: orders and uses name it). An ended code is not changed. With `version`,
 * only if the code is still as the owner saw it. Only what differs is written and recorded.
 */
export async function editCode(
  me: AdminCaller,
  id: string,
  body: EditBody,
  catalogue: CatalogueIndex,
  timeZone: string,
  now = new Date(),
): Promise<CommandResult> {
  return me.run(async (tx) => {
    const before = await codeById(tx, id, { lock: true });
    if (!before) return noSuchCode();
    if (body.version !== undefined && body.version !== before.version) return changedMeanwhile(before.code);
    if (before.status === 'ended')
      return refuse(409, 'ended', `Code ${before.code} has ended and cannot be changed. Create a new code instead.`);
    const checked = storedRules(body, catalogue, timeZone, now, before);
    if (!checked.ok) return refuse(400, 'invalid_request', checked.message);
    const { rules } = checked;
    const changed = RULE_KEYS.filter((k) => !sameValue(k, before[k], rules[k]));
    if (changed.length === 0)
      return { ok: true, answer: { changed: false, message: 'Nothing to save: the code is as it was.', code: before } };
    await tx.query(
      `update public.discount_codes set kind = $2, percent = $3, amount_cents = $4, min_subtotal_cents = $5,
         starts_at = $6::text::timestamptz, ends_at = $7::text::timestamptz, usage_limit = $8, per_customer_limit = $9,
         product_ids = $10::int[], categories = $11::text[], updated_at = clock_timestamp()
       where id = $1`,
      [id, ...ruleParams(rules)],
    );
    const pick = (from: StoredRules) => Object.fromEntries(changed.map((k) => [k, from[k]])) as Partial<StoredRules>;
    await recordAction(tx, me.admin, {
      action: 'discount.edit',
      target: `code ${before.code}`,
      before: logged(pick(before), timeZone, catalogue),
      after: logged(pick(rules), timeZone, catalogue),
    });
    const code = await codeById(tx, id);
    return { ok: true, answer: { changed: true, message: `Code ${before.code} saved.`, ...(code ? { code } : {}) } };
  });
}

/** Pauses, resumes or ends a code. Ending is final; asking for the status a code already has changes nothing. */
export async function setCodeStatus(me: AdminCaller, id: string, to: AdminCode['status']): Promise<CommandResult> {
  return me.run(async (tx) => {
    const before = await codeById(tx, id, { lock: true });
    if (!before) return noSuchCode();
    const move = STATUS_MOVES[to];
    if (before.status === to)
      return { ok: true, answer: { changed: false, message: `Code ${before.code} is already ${move.done}.`, code: before } };
    if (before.status === 'ended')
      return refuse(409, 'ended', `Code ${before.code} has ended: an ended code cannot be paused or resumed.`);
    await tx.query(`update public.discount_codes set status = $2, updated_at = clock_timestamp() where id = $1`, [id, to]);
    await recordAction(tx, me.admin, { action: move.action, target: `code ${before.code}`, before: before.status, after: to });
    const code = await codeById(tx, id);
    return { ok: true, answer: { changed: true, message: `Code ${before.code} ${move.done}.`, ...(code ? { code } : {}) } };
  });
}

const OFFER_KEYS = ['thresholdCents', 'percent', 'active', 'combines'] as const;

/** Sets the automatic offer (with `version`, only if it is still as the owner saw it); only what differs is recorded. */
export async function saveOffer(me: AdminCaller, body: OfferBody): Promise<CommandResult> {
  return me.run(async (tx) => {
    const before = await offerRow(tx, { lock: true });
    if (body.version !== undefined && body.version !== before.version)
      return refuse(
        409,
        'changed',
        'The automatic offer was changed (by another admin, or in another tab) since this page was loaded. Nothing was saved: reload the page and try again.',
      );
    const changed = OFFER_KEYS.filter((k) => before[k] !== body[k]);
    if (changed.length === 0)
      return { ok: true, answer: { changed: false, message: 'Nothing to save: the offer is as it was.', offer: before } };
    await tx.query(
      `update public.discount_offer set threshold_cents = $1, percent = $2, active = $3, combines = $4,
         updated_at = clock_timestamp()`,
      [body.thresholdCents, body.percent, body.active, body.combines],
    );
    const pick = (from: Record<(typeof OFFER_KEYS)[number], unknown>) => Object.fromEntries(changed.map((k) => [k, from[k]]));
    await recordAction(tx, me.admin, {
      action: 'offer.edit',
      target: 'automatic offer',
      before: pick(before),
      after: pick(body),
    });
    return { ok: true, answer: { changed: true, message: 'Automatic offer saved.', offer: await offerRow(tx) } };
  });
}
