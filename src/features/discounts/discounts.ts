// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// Discount codes and the automatic offer as rules: what a code and the offer take off a cart, line by line, in integer
// cents, or why a code cannot be used. Plain TypeScript with no database and no zod, shared by the server (which
// alone decides what is charged, at every stage) and the islands (which show what the server answered). Decision 009.
import { formatPrice } from '../catalogue/catalogue';

/** What a code takes off: a percentage of what it applies to, an amount of it, or the shipping. */
export type DiscountKind = 'percent' | 'amount' | 'free_shipping';
export type DiscountStatus = 'active' | 'paused' | 'ended';

/** A code as the shop stores it (a row of the codes table, decision 009): `code` normalised, amounts in cents. */
export interface DiscountCodeRules {
  code: string;
  kind: DiscountKind;
  /** 1 to 100, for 'percent'. */
  percent: number | null;
  /** For 'amount'. */
  amountCents: number | null;
  /** The least cart subtotal (before any discount) the code takes. */
  minSubtotalCents: number | null;
  startsAt: Date | null;
  endsAt: Date | null;
  usageLimit: number | null;
  perCustomerLimit: number | null;
  /** What it applies to: both empty means the whole cart; else lines whose product or category is listed. */
  productIds: readonly number[];
  categories: readonly string[];
  status: DiscountStatus;
}

/** How often a code is taken: `uses` in all (held and used), `customerUses` by this customer (account or e-mail). */
export interface DiscountUsage {
  uses: number;
  customerUses: number;
}

/** The one automatic offer: from `thresholdCents` of subtotal, `percent` off every line. */
export interface AutomaticOffer {
  thresholdCents: number;
  percent: number;
  active: boolean;
  /** A code's discount adds to the offer (taken from what the offer left) instead of the better of the two applying. */
  combines: boolean;
}

/**
 * A cart line priced from the catalogue. `key` names the line uniquely in its cart (its cart id, '3-blue-M'): a cent
 * that cannot be shared evenly goes by it, so the answer does not depend on the order of the lines.
 */
export interface PricedLine {
  key: string;
  productId: number;
  /** The product's category as the catalogue names it ('Body Soap'); a code's categories match it in any case. */
  category: string;
  unitPriceCents: number;
  quantity: number;
}

export type RefusalReason =
  | 'malformed'
  | 'unknown'
  | 'ended'
  | 'paused'
  | 'not_started'
  | 'expired'
  | 'used_up'
  | 'customer_limit'
  | 'address_limit'
  | 'below_minimum'
  | 'not_applicable';

/**
 * What the shopper is told when a code cannot be used, one message per case, in words. The server answers these; the
 * islands show them as they are.
 */
export const DISCOUNT_MESSAGES = {
  malformed: 'A discount code is 3 to 32 letters or digits (and - or _). Please check it.',
  unknown: (code: string) => `There is no discount code ${code}. Please check the spelling.`,
  ended: (code: string) => `Code ${code} has ended.`,
  paused: (code: string) => `Code ${code} is paused at the moment. Please try it again later.`,
  notStarted: (code: string) => `Code ${code} is not valid yet.`,
  expired: (code: string) => `Code ${code} has expired.`,
  usedUp: (code: string) => `Code ${code} has been used as many times as it can be.`,
  customerLimit: (code: string) => `You have already used code ${code} as many times as one customer can.`,
  /** Checkouts from the shopper's network already hold as many of a limited code's uses as one network may at once. */
  addressLimit: (code: string) =>
    `Code ${code} is already held by other checkouts from your network. Please pay or close one of them, or try again in 15 minutes.`,
  belowMinimum: (code: string, minCents: number) =>
    `Code ${code} is for orders of ${formatPrice(minCents)} or more (before discounts). Please add to your cart to use it.`,
  notApplicable: (code: string) => `Code ${code} does not apply to anything in your cart.`,
  /** Not a refusal: the code is valid, but the automatic offer saves the shopper more, so it applies instead. */
  offerBetter: (code: string) => `The automatic offer saves you more than code ${code}, so the offer applies instead.`,
} as const;

/** How the offer meets a code, in one sentence, as the shopper reads it beside the code field. */
export const SHOPPER_RULES = {
  better:
    'One code per order; a code and the automatic offer do not add up, so you get whichever saves you more (free shipping adds to either), and orders of $500 or more after discounts ship free.',
  combines:
    'One code per order; a code adds to the automatic offer (it applies to what the offer left), and orders of $500 or more after discounts ship free.',
} as const;

/** The rule as it stands with the offer's settings (no offer, or one that does not combine: the better one applies). */
export const shopperRule = (offer: AutomaticOffer | null | undefined): string =>
  offer?.active && offer.combines ? SHOPPER_RULES.combines : SHOPPER_RULES.better;

/** The default sentence (the offer does not combine): what the shop says until it knows the offer's settings. */
export const SHOPPER_RULE: string = SHOPPER_RULES.better;

/** A code as typed, normalised as the shop stores it (trimmed, upper case), or null when it cannot be a code. */
export const CODE_PATTERN = /^[A-Z0-9][A-Z0-9_-]{2,31}$/;
export function normaliseCode(typed: string): string | null {
  const code = typed.trim().toUpperCase();
  return CODE_PATTERN.test(code) ? code : null;
}

const GMAIL = new Set(['gmail.com', 'googlemail.com']);

/**
 * An e-mail as a customer's limit counts it: trimmed, lower case, without a +tag ('ann+shop@x.com' is 'ann@x.com', at
 * every domain), and at Gmail without dots in the name and with googlemail.com as gmail.com, since Gmail delivers all
 * of those spellings to one mailbox.
 */
export function normaliseEmail(email: string): string {
  const lower = email.trim().toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 1) return lower;
  let local = lower.slice(0, at);
  let domain = lower.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (GMAIL.has(domain)) {
    local = local.replaceAll('.', '');
    domain = 'gmail.com';
  }
  return `${local}@${domain}`;
}

/**
 * What holding a use of a code needs (app_private.hold_discount): the code, the customer (account and e-mails,
 * normalised) and what the use saves them, goods and shipping.
 */
export interface DiscountHoldRequest {
  code: string;
  userId: string | null;
  email: string;
  accountEmail: string | null;
  amountCents: number;
  /**
   * How many uses of a limited code the live checkouts from one client address may hold at once (what it may hold of
   * an item, HOLD_CAP × ADDRESS_LIMIT_FACTOR: room for several shoppers sharing it); null when the address is unknown.
   */
  addressCap: number | null;
}

/** Why the database would not hold or use a code (it asks again under the code's lock what the rules asked before). */
export type HoldRefusalReason = Extract<
  RefusalReason,
  'unknown' | 'ended' | 'paused' | 'not_started' | 'expired' | 'used_up' | 'customer_limit' | 'address_limit'
>;

const HOLD_MESSAGES: Record<HoldRefusalReason, (code: string) => string> = {
  unknown: DISCOUNT_MESSAGES.unknown,
  ended: DISCOUNT_MESSAGES.ended,
  paused: DISCOUNT_MESSAGES.paused,
  not_started: DISCOUNT_MESSAGES.notStarted,
  expired: DISCOUNT_MESSAGES.expired,
  used_up: DISCOUNT_MESSAGES.usedUp,
  customer_limit: DISCOUNT_MESSAGES.customerLimit,
  address_limit: DISCOUNT_MESSAGES.addressLimit,
};

/** The refusal, in words, for a reason the database answered (an unknown reason reads as used up: it never passes). */
export function holdRefusal(reason: string, code: string): { reason: RefusalReason; message: string } {
  const known = (Object.hasOwn(HOLD_MESSAGES, reason) ? reason : 'used_up') as HoldRefusalReason;
  return { reason: known, message: HOLD_MESSAGES[known](code) };
}

/** One applied discount, as a line of its own on the cart, the order and its e-mails. */
export type AppliedDiscount =
  | { source: 'code'; code: string; kind: DiscountKind; discountCents: number; freeShipping: boolean }
  | { source: 'offer'; percent: number; thresholdCents: number; discountCents: number };

export interface LineDiscount {
  key: string;
  discountCents: number;
}

/** What the discounts do to a cart. */
export interface DiscountOutcome {
  /** Each input line's discount, in the input's order. */
  lines: LineDiscount[];
  /** The goods' discount in all: `offerCents` + `codeCents`. */
  discountCents: number;
  offerCents: number;
  codeCents: number;
  /** A free-shipping code applied: shipping costs nothing. */
  freeShipping: boolean;
  /** The code that applied (normalised), or null. */
  code: string | null;
  applied: AppliedDiscount[];
  /** Why the code entered cannot be used (the offer, if any, still applies): a checkout with one is refused. */
  refusal: { reason: RefusalReason; message: string } | null;
  /** Something the shopper should know that is not a refusal (DISCOUNT_MESSAGES.offerBetter). */
  notice: string | null;
}

export interface DiscountInput {
  lines: readonly PricedLine[];
  /** The code as the shopper typed it (none: no code). */
  code?: string | null | undefined;
  /** The stored code of that name (null: no such code). */
  rules?: DiscountCodeRules | null | undefined;
  /** How often the code is taken (none: not counted, as when only its effect is shown). */
  usage?: DiscountUsage | null | undefined;
  offer?: AutomaticOffer | null | undefined;
  now: Date;
}

const lineTotal = (l: PricedLine) => l.unitPriceCents * l.quantity;

/** The order lines are shared in when cents do not divide evenly: by key, then by every value, never by position. */
function stableOrder(lines: readonly PricedLine[]): number[] {
  const rank = (l: PricedLine) =>
    [l.key, String(l.productId).padStart(12, '0'), l.category, String(lineTotal(l)).padStart(16, '0')].join('\u0000');
  return lines
    .map((l, i) => ({ i, r: rank(l) }))
    .sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0))
    .map((x) => x.i);
}

/**
 * Shares `total` cents among the lines in proportion to `weights` (integers ≥ 0, total ≤ their sum): each gets the
 * floor of its exact share, and the cents left go one each to the largest remainders, ties broken by `order`. No share
 * passes its weight. BigInt, since total × weight can pass 2^53.
 */
export function allocate(total: number, weights: readonly number[], order: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  const shares = weights.map(() => 0);
  if (total <= 0 || sum <= 0) return shares;
  const T = BigInt(total);
  const S = BigInt(sum);
  const remainders = weights.map(() => 0n);
  let given = 0;
  weights.forEach((w, i) => {
    const exact = T * BigInt(w);
    shares[i] = Number(exact / S);
    remainders[i] = exact % S;
    given += shares[i] ?? 0;
  });
  const byRemainder = [...order].sort((a, b) => {
    const ra = remainders[a] ?? 0n;
    const rb = remainders[b] ?? 0n;
    return ra === rb ? order.indexOf(a) - order.indexOf(b) : ra > rb ? -1 : 1;
  });
  for (let k = 0; given < total && k < byRemainder.length; k++) {
    const i = byRemainder[k] ?? 0;
    if ((remainders[i] ?? 0n) === 0n) break;
    shares[i] = (shares[i] ?? 0) + 1;
    given++;
  }
  return shares;
}

/** p % of `cents`, rounded half up, in integers. */
export const percentOf = (cents: number, percent: number) => Math.floor((cents * percent + 50) / 100);

/** Whether the code applies to the line: it lists nothing (the whole cart), or the line's product or its category. */
export function appliesTo(rules: Pick<DiscountCodeRules, 'productIds' | 'categories'>, line: PricedLine): boolean {
  if (rules.productIds.length === 0 && rules.categories.length === 0) return true;
  if (rules.productIds.includes(line.productId)) return true;
  const category = line.category.trim().toLowerCase();
  return rules.categories.some((c) => c.trim().toLowerCase() === category);
}

/** Why the code cannot be used on these lines now, or null. */
function refusalOf(
  code: string,
  rules: DiscountCodeRules,
  lines: readonly PricedLine[],
  usage: DiscountUsage | null | undefined,
  now: Date,
): DiscountOutcome['refusal'] {
  const no = (reason: RefusalReason, message: string) => ({ reason, message });
  if (rules.status === 'ended') return no('ended', DISCOUNT_MESSAGES.ended(code));
  if (rules.endsAt && now.getTime() >= rules.endsAt.getTime()) return no('expired', DISCOUNT_MESSAGES.expired(code));
  if (rules.status === 'paused') return no('paused', DISCOUNT_MESSAGES.paused(code));
  if (rules.startsAt && now.getTime() < rules.startsAt.getTime()) return no('not_started', DISCOUNT_MESSAGES.notStarted(code));
  if (usage && rules.usageLimit !== null && usage.uses >= rules.usageLimit) return no('used_up', DISCOUNT_MESSAGES.usedUp(code));
  if (usage && rules.perCustomerLimit !== null && usage.customerUses >= rules.perCustomerLimit)
    return no('customer_limit', DISCOUNT_MESSAGES.customerLimit(code));
  const subtotal = lines.reduce((s, l) => s + lineTotal(l), 0);
  if (rules.minSubtotalCents !== null && subtotal < rules.minSubtotalCents)
    return no('below_minimum', DISCOUNT_MESSAGES.belowMinimum(code, rules.minSubtotalCents));
  if (!lines.some((l) => appliesTo(rules, l))) return no('not_applicable', DISCOUNT_MESSAGES.notApplicable(code));
  return null;
}

/** The code's discount per line, taken from `base` (what is left of each line), and the total. */
function codeShares(rules: DiscountCodeRules, lines: readonly PricedLine[], base: readonly number[], order: readonly number[]) {
  const weights = lines.map((l, i) => (appliesTo(rules, l) ? (base[i] ?? 0) : 0));
  const eligible = weights.reduce((s, w) => s + w, 0);
  const total =
    rules.kind === 'percent'
      ? percentOf(eligible, rules.percent ?? 0)
      : rules.kind === 'amount'
        ? Math.min(rules.amountCents ?? 0, eligible)
        : 0;
  return { shares: allocate(Math.min(total, eligible), weights, order), total: Math.min(total, eligible) };
}

/**
 * What the code (if any) and the automatic offer (if any) take off the lines at `now`. The offer applies from its
 * threshold of subtotal (before any discount) to every line. A code applies to its lines when it is active, within its
 * dates, not used up (in all or by this customer) and the cart's subtotal (before any discount) reaches its minimum;
 * else `refusal` says why and only the offer applies. A free-shipping code adds to the offer. Otherwise, when both
 * apply, the one that takes more off applies (the code on a tie), unless the offer `combines`: then the code applies
 * to what the offer left of each line. No line's discount passes its total, so nothing is negative; a total is shared
 * among lines by largest remainder in a stable order, so the answer does not depend on the order of the lines.
 */
export function applyDiscounts(input: DiscountInput): DiscountOutcome {
  const { lines, now } = input;
  const order = stableOrder(lines);
  const totals = lines.map(lineTotal);
  const subtotal = totals.reduce((s, t) => s + t, 0);
  const offer = input.offer;
  const offerApplies = Boolean(offer?.active && subtotal > 0 && subtotal >= (offer?.thresholdCents ?? 0));
  const offerTotal = offer && offerApplies ? Math.min(percentOf(subtotal, offer.percent), subtotal) : 0;
  const offerShares = allocate(offerTotal, totals, order);
  const offerLine: AppliedDiscount[] =
    offer && offerApplies
      ? [{ source: 'offer', percent: offer.percent, thresholdCents: offer.thresholdCents, discountCents: offerTotal }]
      : [];
  const outcome = (
    shares: readonly number[],
    withOffer: boolean,
    code: { code: string; rules: DiscountCodeRules; cents: number } | null,
    extra: Pick<DiscountOutcome, 'refusal' | 'notice'> = { refusal: null, notice: null },
  ): DiscountOutcome => {
    const offerCents = withOffer ? offerTotal : 0;
    const codeCents = code?.cents ?? 0;
    const freeShipping = code?.rules.kind === 'free_shipping';
    return {
      lines: lines.map((l, i) => ({ key: l.key, discountCents: shares[i] ?? 0 })),
      discountCents: offerCents + codeCents,
      offerCents,
      codeCents,
      freeShipping,
      code: code?.code ?? null,
      applied: [
        ...(withOffer ? offerLine : []),
        ...(code
          ? [{ source: 'code' as const, code: code.code, kind: code.rules.kind, discountCents: codeCents, freeShipping }]
          : []),
      ],
      ...extra,
    };
  };
  const offerOnly = (extra?: Pick<DiscountOutcome, 'refusal' | 'notice'>) => outcome(offerShares, true, null, extra);

  if (input.code == null || input.code.trim() === '') return offerOnly();
  const code = normaliseCode(input.code);
  if (!code) return offerOnly({ refusal: { reason: 'malformed', message: DISCOUNT_MESSAGES.malformed }, notice: null });
  const rules = input.rules;
  if (!rules || rules.code !== code)
    return offerOnly({ refusal: { reason: 'unknown', message: DISCOUNT_MESSAGES.unknown(code) }, notice: null });
  const refusal = refusalOf(code, rules, lines, input.usage, now);
  if (refusal) return offerOnly({ refusal, notice: null });

  if (rules.kind === 'free_shipping' || (offerApplies && offer?.combines)) {
    // On what the offer left of each line (all of it, with no offer).
    const left = totals.map((t, i) => t - (offerShares[i] ?? 0));
    const own = codeShares(rules, lines, left, order);
    const shares = offerShares.map((s, i) => s + (own.shares[i] ?? 0));
    return outcome(shares, true, { code, rules, cents: own.total });
  }
  const own = codeShares(rules, lines, totals, order);
  if (offerApplies && offerTotal > own.total) return offerOnly({ refusal: null, notice: DISCOUNT_MESSAGES.offerBetter(code) });
  return outcome(own.shares, false, { code, rules, cents: own.total });
}
