import { cleanTestStorage, getTestStorage, setTestStorageKey, useTestStorageEngine } from '@nanostores/persistent';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CartLine } from '../cart/cart';
import { DISCOUNT_MESSAGES, SHOPPER_RULE } from '../discounts/discounts';
import type { DiscountAnswer } from './discount.store';

// The persistent store reads its storage when it is created, so the test storage goes in before the store loads.
// biome-ignore lint/correctness/useHookAtTopLevel: not a React hook, nanostores' switch to an in-memory storage.
useTestStorageEngine();
const store = await import('./discount.store');
const {
  $discount,
  $discountCode,
  $discountInfo,
  answerFor,
  applyCode,
  discountKey,
  loadDiscountInfo,
  recheck,
  removeCode,
  settled,
  summaryDiscount,
} = store;

const soap: CartLine = { productId: 8, quantity: 2, selectedColor: null, selectedSize: null, cartId: '8' };
const scrubs: CartLine = { productId: 3, quantity: 1, selectedColor: 'blue', selectedSize: 'M', cartId: '3-blue-M' };

/** What POST /api/discount answers for SAVE10 on a cart: 10 % of `subtotal`. */
const save10 = (subtotal: number): DiscountAnswer => ({
  code: 'SAVE10',
  discountCents: Math.round(subtotal / 10),
  offerCents: 0,
  codeCents: Math.round(subtotal / 10),
  freeShipping: false,
  applied: [{ source: 'code', code: 'SAVE10', kind: 'percent', discountCents: Math.round(subtotal / 10), freeShipping: false }],
  notice: null,
  lines: [],
  rule: SHOPPER_RULE,
});

const refused = (message: string, status = 409) => ({ status, body: { error: { code: 'discount_refused', message } } });

/** The shop's endpoint, answered by `answer` for each request; every request's body is kept. */
function server(answer: (body: { discountCode: string; lines: unknown[] }) => { status: number; body: unknown }) {
  const bodies: { discountCode: string; lines: unknown[] }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_path: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body)) as { discountCode: string; lines: unknown[] };
      bodies.push(body);
      const { status, body: json } = answer(body);
      return new Response(JSON.stringify(json), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return bodies;
}

describe('the shopper’s discount code', () => {
  beforeEach(() => {
    $discountInfo.set({ offer: null, rule: SHOPPER_RULE });
  });
  afterEach(async () => {
    vi.unstubAllGlobals();
    // An empty cart forgets the code and the answer.
    await recheck([], 0);
    cleanTestStorage();
  });

  it('applies a code the server takes, keeps it in local storage (so a reload and the sign-in keep it) and shows the server’s amount', async () => {
    const sent = server(() => ({ status: 200, body: save10(2000) }));
    expect(await applyCode(' save10 ', [soap])).toBe(true);
    expect(sent).toEqual([
      { discountCode: ' save10 ', lines: [{ productId: 8, quantity: 2, selectedColor: null, selectedSize: null }] },
    ]);
    expect($discountCode.get()).toBe('SAVE10');
    expect(getTestStorage()['aurelia:discount-code']).toBe('SAVE10');
    expect(answerFor($discount.get(), [soap], 'SAVE10')?.discountCents).toBe(200);
    expect($discount.get().message).toBeNull();
  });

  it('names the payment this page opened, so the server sets its own use of the code aside', async () => {
    const { rememberPayment } = await import('./opened-payment');
    rememberPayment('pi_test_1_secret_abc');
    const sent = server(() => ({ status: 200, body: save10(2000) }));
    await applyCode('SAVE10', [soap]);
    expect(sent[0]).toMatchObject({ discountCode: 'SAVE10', previousClientSecret: 'pi_test_1_secret_abc' });
    rememberPayment(null);
  });

  it('reads a code kept by an earlier page', () => {
    setTestStorageKey('aurelia:discount-code', 'WELCOME');
    expect($discountCode.get()).toBe('WELCOME');
  });

  it('says why in the server’s words when a code is refused, and changes nothing else: the code applied before stays', async () => {
    server(() => ({ status: 200, body: save10(2000) }));
    await applyCode('SAVE10', [soap]);
    const before = $discount.get().answer;
    const message = DISCOUNT_MESSAGES.expired('OLD5');
    server(() => refused(message));
    expect(await applyCode('old5', [soap])).toBe(false);
    expect($discountCode.get()).toBe('SAVE10');
    expect($discount.get()).toMatchObject({ answer: before, checking: false, message: { kind: 'refused', text: message } });
    expect(answerFor($discount.get(), [soap], 'SAVE10')).toEqual(before);
  });

  it('a failed request is not a refusal: it says so, and keeps no code', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('offline'))),
    );
    expect(await applyCode('SAVE10', [soap])).toBe(false);
    expect($discountCode.get()).toBeUndefined();
    expect($discount.get().message?.kind).toBe('failed');
  });

  it('asks again when the cart changes, and an answer for another cart is never shown', async () => {
    const sent = server((body) => ({ status: 200, body: save10(body.lines.length === 1 ? 2000 : 6500) }));
    await applyCode('SAVE10', [soap]);
    const bigger = [soap, scrubs];
    expect(answerFor($discount.get(), bigger, 'SAVE10')).toBeNull();
    await recheck(bigger, 6500);
    expect(sent.at(-1)).toMatchObject({ discountCode: 'SAVE10' });
    expect(sent.at(-1)?.lines).toHaveLength(2);
    expect(answerFor($discount.get(), bigger, 'SAVE10')?.discountCents).toBe(650);
    // The same cart again: the answer it has is the server's for it, so nothing is asked.
    await recheck(bigger, 6500);
    expect(sent).toHaveLength(2);
  });

  it('takes off a code that stops applying as the cart changes, and says why', async () => {
    const minimum = DISCOUNT_MESSAGES.belowMinimum('BIG20', 5000);
    const sent = server((body) =>
      body.discountCode === ''
        ? { status: 500, body: {} }
        : body.lines.length === 2
          ? { status: 200, body: save10(6500) }
          : refused(minimum),
    );
    $discountInfo.set({ offer: null, rule: SHOPPER_RULE });
    await applyCode('BIG20', [soap, scrubs]);
    await recheck([soap], 2000);
    expect($discountCode.get()).toBeUndefined();
    expect($discount.get().message).toEqual({ kind: 'refused', text: minimum });
    // No offer to ask about: nothing more is sent.
    expect(sent).toHaveLength(2);
  });

  it('keeps the code when the check could not be made (the payment prices it anyway)', async () => {
    server(() => ({ status: 200, body: save10(2000) }));
    await applyCode('SAVE10', [soap]);
    expect(settled($discount.get(), [soap], 'SAVE10')).toBe(true);
    expect(settled($discount.get(), [soap, scrubs], 'SAVE10')).toBe(false);
    server(() => ({ status: 503, body: { error: { code: 'unavailable', message: 'Service unavailable' } } }));
    await recheck([soap, scrubs], 6500);
    expect($discountCode.get()).toBe('SAVE10');
    expect($discount.get().message).toEqual({ kind: 'failed', text: 'Service unavailable' });
    expect(answerFor($discount.get(), [soap, scrubs], 'SAVE10')).toBeNull();
    // The server has had its say on this cart: the drawer shows its totals (without the code) rather than wait.
    expect(settled($discount.get(), [soap, scrubs], 'SAVE10')).toBe(true);
  });

  it('asks about the automatic offer without a code only when the subtotal reaches its threshold', async () => {
    const offer = { thresholdCents: 5000, percent: 10, combines: false };
    const answer: DiscountAnswer = {
      ...save10(0),
      code: null,
      discountCents: 650,
      offerCents: 650,
      codeCents: 0,
      applied: [{ source: 'offer', percent: 10, thresholdCents: 5000, discountCents: 650 }],
    };
    const sent = server(() => ({ status: 200, body: answer }));
    await recheck([soap], 2000);
    $discountInfo.set({ offer, rule: SHOPPER_RULE });
    await recheck([soap], 2000);
    expect(sent).toHaveLength(0);
    await recheck([soap, scrubs], 6500);
    expect(sent).toEqual([expect.objectContaining({ discountCode: '' })]);
    const shown = answerFor($discount.get(), [soap, scrubs], undefined);
    expect(shown && summaryDiscount(shown)).toEqual({
      code: null,
      discountCents: 650,
      offerCents: 650,
      freeShipping: false,
      offerPercent: 10,
    });
  });

  it('Remove takes the code off and prices the cart without it', async () => {
    server(() => ({ status: 200, body: save10(2000) }));
    await applyCode('SAVE10', [soap]);
    await removeCode([soap], 2000);
    expect($discountCode.get()).toBeUndefined();
    expect(getTestStorage()['aurelia:discount-code']).toBeUndefined();
    expect(answerFor($discount.get(), [soap], undefined)).toBeNull();
  });

  it('an emptied cart (an order placed, a sign-out) forgets the code', async () => {
    server(() => ({ status: 200, body: save10(2000) }));
    await applyCode('SAVE10', [soap]);
    await recheck([], 0);
    expect($discountCode.get()).toBeUndefined();
    expect($discount.get()).toEqual({ key: null, answer: null, checking: false, message: null });
  });

  it('drops an answer that arrives after a newer check was sent', async () => {
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    $discountCode.set('SAVE10');
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_path: string, init: RequestInit) => {
        const { lines } = JSON.parse(String(init.body)) as { lines: unknown[] };
        if (lines.length === 1) await slow;
        return new Response(JSON.stringify(save10(lines.length === 1 ? 2000 : 6500)), { status: 200 });
      }),
    );
    const first = recheck([soap], 2000);
    await recheck([soap, scrubs], 6500);
    release();
    await first;
    expect($discount.get().key).toBe(discountKey([soap, scrubs], 'SAVE10'));
    expect($discount.get().answer?.discountCents).toBe(650);
  });

  it('a check made while an Apply waits for its answer (the drawer just opened, the offer just loaded) does not drop it', async () => {
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        await slow;
        return new Response(JSON.stringify(save10(2000)), { status: 200 });
      }),
    );
    const applied = applyCode('SAVE10', [soap]);
    // No code yet and no offer: nothing to ask, but the field stays busy with the Apply.
    await recheck([soap], 2000);
    expect($discount.get().checking).toBe(true);
    release();
    expect(await applied).toBe(true);
    expect($discountCode.get()).toBe('SAVE10');
    expect(answerFor($discount.get(), [soap], 'SAVE10')?.discountCents).toBe(200);
  });

  it('asks the server for the offer and the rule sentence once per page, and again after a failure', async () => {
    const offer = { thresholdCents: 10_000, percent: 10, combines: true };
    let calls = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        calls++;
        return calls === 1
          ? new Response('{}', { status: 503 })
          : new Response(JSON.stringify({ offer, rule: 'One code per order; a code adds to the automatic offer.' }), {
              status: 200,
            });
      }),
    );
    await loadDiscountInfo();
    expect($discountInfo.get().offer).toBeNull();
    await loadDiscountInfo();
    await loadDiscountInfo();
    expect(calls).toBe(2);
    expect($discountInfo.get()).toEqual({ offer, rule: 'One code per order; a code adds to the automatic offer.' });
  });
});
