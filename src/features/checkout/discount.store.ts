// The shopper's discount code in the cart drawer (decision 009). The code is kept in local storage like the cart, so it
// survives a reload, the sign-in and the cart's merge; what it takes off is always the server's answer for the cart as
// it is (POST /api/discount), asked again whenever the cart changes. Only the cart drawer's code imports this, so no
// page downloads it before the drawer opens. A code belongs to a cart: an emptied cart (an order placed, a sign-out,
// the last line removed) forgets it.
import { persistentAtom } from '@nanostores/persistent';
import { atom } from 'nanostores';
import { api } from '@/lib/api';
import type { CartLine } from '../cart/cart';
import type { AppliedDiscount } from '../discounts/discounts';
import type { OrderDiscount } from '../orders/discount-lines';
import { openedPayment } from './opened-payment';
import { wireLines } from './wire-lines';

/** What the server says a cart's discounts are (POST /api/discount, and `discount` of POST /api/create-payment-intent). */
export interface DiscountSummary {
  /** The code that applied (upper case), or null: none, or the automatic offer saves more. */
  code: string | null;
  discountCents: number;
  offerCents: number;
  codeCents: number;
  freeShipping: boolean;
  applied: AppliedDiscount[];
  /** Something to know that is not a refusal (the offer saves more than the code). */
  notice: string | null;
}

/** POST /api/discount's answer: the summary, each line's share, and the rule sentence. */
export interface DiscountAnswer extends DiscountSummary {
  lines: { cartId: string; discountCents: number }[];
  rule: string;
}

/** GET /api/discount: the automatic offer when it is on, and how it meets a code, in words. */
export interface DiscountInfo {
  offer: { thresholdCents: number; percent: number; combines: boolean } | null;
  rule: string;
}

/** What the field says under itself: the server's refusal, a notice, or a check that could not be made. */
export interface DiscountMessage {
  kind: 'refused' | 'notice' | 'failed';
  text: string;
}

export interface DiscountState {
  /** The cart and code the answer is for (discountKey): an answer for another cart is not shown. */
  key: string | null;
  answer: DiscountSummary | null;
  /** A check is under way. */
  checking: boolean;
  message: DiscountMessage | null;
}

/** The code the shopper applied (as the server normalised it), kept in local storage; undefined when none. */
export const $discountCode = persistentAtom<string | undefined>('aurelia:discount-code');

const IDLE: DiscountState = { key: null, answer: null, checking: false, message: null };

/** The server's last answer for the drawer's cart, and what the field says. */
export const $discount = atom<DiscountState>(IDLE);

/**
 * The offer and the rule sentence, asked once per page as the drawer opens (GET /api/discount). The sentence comes from
 * the server alone: the discount rules' module is not loaded with the drawer for one sentence of it.
 */
export const $discountInfo = atom<DiscountInfo>({ offer: null, rule: '' });

/** The summary as an order's discount, for the lines every order view shows (orders/discount-lines.ts). */
export function summaryDiscount(s: DiscountSummary): OrderDiscount {
  const offer = s.applied.find((a) => a.source === 'offer');
  return {
    code: s.code,
    discountCents: s.discountCents,
    offerCents: s.offerCents,
    freeShipping: s.freeShipping,
    offerPercent: offer?.source === 'offer' ? offer.percent : undefined,
  };
}

/** Names a cart and a code: an answer is shown only for the cart and code it was asked for. */
export function discountKey(lines: readonly CartLine[], code: string | undefined): string {
  return JSON.stringify([code ?? '', wireLines(lines)]);
}

/** The server's answer for this cart, when it has one (else nothing is taken off what the drawer shows). */
export function answerFor(state: DiscountState, lines: readonly CartLine[], code: string | undefined): DiscountSummary | null {
  return state.key === discountKey(lines, code) ? state.answer : null;
}

/** Whether the server has had its say on this cart and code (an answer, or a check that could not be made). */
export function settled(state: DiscountState, lines: readonly CartLine[], code: string | undefined): boolean {
  return state.key === discountKey(lines, code) && !state.checking;
}

/** Whether the server must be asked: a code is applied, or the automatic offer may apply to this subtotal. */
export function needsCheck(code: string | undefined, subtotalCents: number, info: DiscountInfo): boolean {
  return Boolean(code) || (info.offer !== null && subtotalCents > 0 && subtotalCents >= info.offer.thresholdCents);
}

let infoAsked: Promise<void> | null = null;

/** Asks for the offer and the rule once per page (again after a failure). */
export function loadDiscountInfo(): Promise<void> {
  infoAsked ??= api<DiscountInfo>('/api/discount').then((res) => {
    if (res.ok) $discountInfo.set(res.data);
    else infoAsked = null;
  });
  return infoAsked;
}

/**
 * Each request's number: an answer to Apply that arrives after a newer Apply is dropped, and so is a check's answer that
 * arrives after a newer check or Apply was sent. A check never drops an Apply: the code it sets is checked again for
 * the cart as it then is.
 */
let latestApply = 0;
let latestCheck = 0;
/** An Apply is waiting for its answer (a check meanwhile leaves the field busy). */
let applying = false;

const ask = (lines: readonly CartLine[], code: string) => {
  const previousClientSecret = openedPayment();
  return api<DiscountAnswer>('/api/discount', {
    discountCode: code,
    lines: wireLines(lines),
    ...(previousClientSecret ? { previousClientSecret } : {}),
  });
};

const summaryOf = ({ lines: _lines, rule: _rule, ...summary }: DiscountAnswer): DiscountSummary => summary;

/**
 * The shopper pressed Apply: the server checks `typed` against the cart. Taken, it becomes the applied code (even when
 * the automatic offer saves more, which the notice then says, so that it applies once it saves more). Refused, the
 * server's message says why and nothing else changes: the code applied before (if any) stays, and so do the totals.
 */
export async function applyCode(typed: string, lines: readonly CartLine[]): Promise<boolean> {
  const id = ++latestApply;
  latestCheck++;
  applying = true;
  $discount.set({ ...$discount.get(), checking: true, message: null });
  const res = await ask(lines, typed).finally(() => {
    if (id === latestApply) applying = false;
  });
  if (id !== latestApply) return false;
  if (!res.ok) {
    const kind = res.code === 'discount_refused' ? 'refused' : 'failed';
    $discount.set({ ...$discount.get(), checking: false, message: { kind, text: res.message } });
    return false;
  }
  const code = res.data.code ?? typed.trim().toUpperCase();
  $discountCode.set(code);
  const notice = res.data.notice ? ({ kind: 'notice', text: res.data.notice } as const) : null;
  $discount.set({ key: discountKey(lines, code), answer: summaryOf(res.data), checking: false, message: notice });
  return true;
}

/** The shopper took the code off: the cart is priced again without it (the automatic offer may still apply). */
export function removeCode(lines: readonly CartLine[], subtotalCents: number): Promise<void> {
  $discountCode.set(undefined);
  $discount.set({ ...$discount.get(), message: null });
  return recheck(lines, subtotalCents);
}

/**
 * Prices the cart's discounts again (the cart changed, or the drawer opened). A code that no longer applies (below its
 * minimum now, used up, ended meanwhile) is taken off and the server's message says why; a check that could not be
 * made keeps the code, and the payment's own pricing decides.
 */
export async function recheck(lines: readonly CartLine[], subtotalCents: number): Promise<void> {
  if (lines.length === 0) {
    latestCheck++;
    if ($discountCode.get() !== undefined) $discountCode.set(undefined);
    $discount.set(IDLE);
    return;
  }
  const code = $discountCode.get();
  const key = discountKey(lines, code);
  const state = $discount.get();
  if (!needsCheck(code, subtotalCents, $discountInfo.get())) {
    latestCheck++;
    $discount.set({ key, answer: null, checking: applying, message: state.message?.kind === 'refused' ? state.message : null });
    return;
  }
  if (state.key === key && state.answer && !state.checking) return;
  const id = ++latestCheck;
  $discount.set({ ...state, checking: true });
  const res = await ask(lines, code ?? '');
  if (id !== latestCheck) return;
  if (res.ok) {
    const notice = res.data.notice ? ({ kind: 'notice', text: res.data.notice } as const) : null;
    const kept = $discount.get().message?.kind === 'refused' ? $discount.get().message : null;
    $discount.set({ key, answer: summaryOf(res.data), checking: applying, message: notice ?? kept });
  } else if (res.code === 'discount_refused' && code) {
    // The code stopped applying to this cart: it comes off, the shopper is told why, and the offer alone is asked.
    $discountCode.set(undefined);
    $discount.set({ key: null, answer: null, checking: applying, message: { kind: 'refused', text: res.message } });
    await recheck(lines, subtotalCents);
  } else {
    $discount.set({ key, answer: null, checking: applying, message: { kind: 'failed', text: res.message } });
  }
}

/** The field's message goes once the shopper starts typing another code. */
export function clearDiscountMessage(): void {
  if ($discount.get().message) $discount.set({ ...$discount.get(), message: null });
}
