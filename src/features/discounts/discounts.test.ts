import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderTotals, taxCents } from '@/lib/pricing';
import {
  type AutomaticOffer,
  allocate,
  appliesTo,
  applyDiscounts,
  DISCOUNT_MESSAGES,
  type DiscountCodeRules,
  normaliseCode,
  normaliseEmail,
  type PricedLine,
  SHOPPER_RULE,
  SHOPPER_RULES,
  shopperRule,
} from './discounts';

const NOW = new Date('2026-12-02T12:00:00Z');

const code = (over: Partial<DiscountCodeRules> = {}): DiscountCodeRules => ({
  code: 'SAVE10',
  kind: 'percent',
  percent: 10,
  amountCents: null,
  minSubtotalCents: null,
  startsAt: null,
  endsAt: null,
  usageLimit: null,
  perCustomerLimit: null,
  productIds: [],
  categories: [],
  status: 'active',
  ...over,
});

const line = (key: string, productId: number, unitPriceCents: number, quantity = 1, category = 'Body Soap'): PricedLine => ({
  key,
  productId,
  category,
  unitPriceCents,
  quantity,
});

const offer = (over: Partial<AutomaticOffer> = {}): AutomaticOffer => ({
  thresholdCents: 10_000,
  percent: 10,
  active: true,
  combines: false,
  ...over,
});

describe('a discount code', () => {
  it('takes its percent off what it applies to, rounded half up, shared by line', () => {
    const out = applyDiscounts({ lines: [line('1', 1, 1_000, 2), line('2', 2, 1_005)], code: 'save10', rules: code(), now: NOW });
    expect(out.refusal).toBeNull();
    expect(out.code).toBe('SAVE10');
    expect(out.discountCents).toBe(301); // 10 % of $30.05 = 300.5 → 301
    expect(out.lines.map((l) => l.discountCents).reduce((a, b) => a + b)).toBe(301);
    expect(out.lines.find((l) => l.key === '1')?.discountCents).toBe(200);
  });

  it('takes an amount off, never more than what it applies to', () => {
    const rules = code({ kind: 'amount', percent: null, amountCents: 5_000, productIds: [2] });
    const out = applyDiscounts({ lines: [line('1', 1, 10_000), line('2', 2, 3_000)], code: 'SAVE10', rules, now: NOW });
    expect(out.discountCents).toBe(3_000);
    expect(out.lines).toEqual([
      { key: '1', discountCents: 0 },
      { key: '2', discountCents: 3_000 },
    ]);
  });

  it('applies to the products or categories it lists (in any case), and to everything when it lists none', () => {
    const soap = line('1', 1, 100);
    expect(appliesTo(code(), soap)).toBe(true);
    expect(appliesTo(code({ productIds: [1] }), soap)).toBe(true);
    expect(appliesTo(code({ productIds: [2] }), soap)).toBe(false);
    expect(appliesTo(code({ categories: ['body soap'] }), soap)).toBe(true);
    expect(appliesTo(code({ categories: ['scrubs'] }), soap)).toBe(false);
  });

  it('waives shipping with a free-shipping code and leaves the goods as they are', () => {
    const rules = code({ code: 'SHIPFREE', kind: 'free_shipping', percent: null });
    const out = applyDiscounts({ lines: [line('1', 1, 2_000)], code: 'shipfree', rules, now: NOW });
    expect(out).toMatchObject({ freeShipping: true, discountCents: 0, code: 'SHIPFREE', refusal: null });
  });

  it('says in words why it cannot be used, one message per case, and then changes nothing but the offer', () => {
    const lines = [line('1', 1, 2_000)];
    const cases: [Partial<DiscountCodeRules> | null, string, string][] = [
      [null, 'unknown', DISCOUNT_MESSAGES.unknown('SAVE10')],
      [{ status: 'ended' }, 'ended', DISCOUNT_MESSAGES.ended('SAVE10')],
      [{ status: 'paused' }, 'paused', DISCOUNT_MESSAGES.paused('SAVE10')],
      [{ endsAt: new Date('2026-12-02T12:00:00Z') }, 'expired', DISCOUNT_MESSAGES.expired('SAVE10')],
      [{ startsAt: new Date('2026-12-02T12:00:01Z') }, 'not_started', DISCOUNT_MESSAGES.notStarted('SAVE10')],
      [{ usageLimit: 3 }, 'used_up', DISCOUNT_MESSAGES.usedUp('SAVE10')],
      [{ perCustomerLimit: 1 }, 'customer_limit', DISCOUNT_MESSAGES.customerLimit('SAVE10')],
      [{ minSubtotalCents: 2_001 }, 'below_minimum', DISCOUNT_MESSAGES.belowMinimum('SAVE10', 2_001)],
      [{ productIds: [9] }, 'not_applicable', DISCOUNT_MESSAGES.notApplicable('SAVE10')],
    ];
    const messages = new Set<string>();
    for (const [over, reason, message] of cases) {
      const out = applyDiscounts({
        lines,
        code: ' Save10 ',
        rules: over ? code(over) : null,
        usage: { uses: 3, customerUses: 1 },
        now: NOW,
      });
      expect(out.refusal, reason).toEqual({ reason, message });
      expect(out).toMatchObject({ discountCents: 0, freeShipping: false, code: null, applied: [] });
      messages.add(message);
    }
    expect(messages.size).toBe(cases.length);
    expect(DISCOUNT_MESSAGES.belowMinimum('SAVE10', 2_001)).toContain('$20.01');
    expect(applyDiscounts({ lines, code: 'a b', rules: code(), now: NOW }).refusal?.reason).toBe('malformed');
    // Within its limits and dates it applies: the start is inclusive, the end exclusive.
    const open = code({ usageLimit: 4, perCustomerLimit: 2, startsAt: NOW, endsAt: new Date('2026-12-02T12:00:01Z') });
    expect(applyDiscounts({ lines, code: 'SAVE10', rules: open, usage: { uses: 3, customerUses: 1 }, now: NOW }).refusal).toBe(
      null,
    );
  });

  it('judges the minimum on the subtotal before any discount', () => {
    const rules = code({ minSubtotalCents: 10_000 });
    const out = applyDiscounts({
      lines: [line('1', 1, 10_000)],
      code: 'SAVE10',
      rules,
      offer: offer({ combines: true }),
      now: NOW,
    });
    expect(out.refusal).toBeNull();
  });
});

describe('the automatic offer and a code', () => {
  const lines = [line('1', 1, 6_000), line('2', 2, 6_000)]; // $120

  it('applies from its threshold, to every line', () => {
    expect(applyDiscounts({ lines, offer: offer(), now: NOW })).toMatchObject({ discountCents: 1_200, offerCents: 1_200 });
    expect(applyDiscounts({ lines, offer: offer({ thresholdCents: 12_001 }), now: NOW }).discountCents).toBe(0);
    expect(applyDiscounts({ lines, offer: offer({ active: false }), now: NOW }).discountCents).toBe(0);
  });

  it('does not add up with a code: the better one for the shopper applies, the code on a tie', () => {
    const better = applyDiscounts({ lines, code: 'SAVE10', rules: code({ percent: 20 }), offer: offer(), now: NOW });
    expect(better).toMatchObject({ discountCents: 2_400, code: 'SAVE10', offerCents: 0, notice: null });
    expect(better.applied.map((a) => a.source)).toEqual(['code']);
    const worse = applyDiscounts({ lines, code: 'SAVE10', rules: code({ percent: 5 }), offer: offer(), now: NOW });
    expect(worse).toMatchObject({ discountCents: 1_200, code: null, offerCents: 1_200, refusal: null });
    expect(worse.notice).toBe(DISCOUNT_MESSAGES.offerBetter('SAVE10'));
    const tie = applyDiscounts({ lines, code: 'SAVE10', rules: code(), offer: offer(), now: NOW });
    expect(tie).toMatchObject({ discountCents: 1_200, code: 'SAVE10', offerCents: 0 });
  });

  it('adds up when the offer combines: the code applies to what the offer left', () => {
    const out = applyDiscounts({ lines, code: 'SAVE10', rules: code(), offer: offer({ combines: true }), now: NOW });
    expect(out).toMatchObject({ offerCents: 1_200, codeCents: 1_080, discountCents: 2_280, code: 'SAVE10' });
    expect(out.applied.map((a) => a.source)).toEqual(['offer', 'code']);
  });

  it('lets a free-shipping code add to the offer', () => {
    const rules = code({ kind: 'free_shipping', percent: null });
    const out = applyDiscounts({ lines, code: 'SAVE10', rules, offer: offer(), now: NOW });
    expect(out).toMatchObject({ offerCents: 1_200, discountCents: 1_200, freeShipping: true, code: 'SAVE10' });
  });

  it('states its rule in one sentence for the shopper, as the offer is set', () => {
    expect(shopperRule(offer())).toBe(SHOPPER_RULES.better);
    expect(shopperRule(offer({ combines: true }))).toBe(SHOPPER_RULES.combines);
    expect(shopperRule(null)).toBe(SHOPPER_RULE);
    for (const rule of Object.values(SHOPPER_RULES)) expect(rule.split('. ').length).toBe(1);
  });
});

describe('normalising', () => {
  it('codes: trimmed and upper case, 3 to 32 letters, digits, - or _', () => {
    expect(normaliseCode('  summer-10 ')).toBe('SUMMER-10');
    expect(normaliseCode('ab')).toBeNull();
    expect(normaliseCode('a'.repeat(33))).toBeNull();
    expect(normaliseCode('DROP TABLE')).toBeNull();
    expect(normaliseCode('-AB')).toBeNull();
  });

  it('e-mails: lower case, no +tag, and at Gmail no dots (googlemail is gmail)', () => {
    expect(normaliseEmail(' Ann.Lee+shop@Example.COM ')).toBe('ann.lee@example.com');
    expect(normaliseEmail('a.n.n+x@googlemail.com')).toBe('ann@gmail.com');
    expect(normaliseEmail('ANN@gmail.com')).toBe('ann@gmail.com');
  });
});

describe('sharing cents among lines', () => {
  it('gives each line the floor of its share and the rest by largest remainder, never past a line', () => {
    expect(allocate(10, [1, 1, 1], [0, 1, 2])).toEqual([4, 3, 3]);
    expect(allocate(10, [1, 1, 1], [2, 1, 0])).toEqual([3, 3, 4]);
    expect(allocate(5, [0, 5], [0, 1])).toEqual([0, 5]);
    expect(allocate(0, [3], [0])).toEqual([0]);
  });
});

// Properties over any cart, code and offer.
const lineArb = fc.record({
  productId: fc.integer({ min: 1, max: 12 }),
  category: fc.constantFrom('Body Soap', 'Body Oil', 'scrubs'),
  // Often the same few prices, so lines tie for a cent that cannot be shared evenly.
  unitPriceCents: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(1, 3, 333, 1_000) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 18_347_107 }) },
  ),
  quantity: fc.integer({ min: 1, max: 5 }),
});
const linesArb = fc
  .uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 6 }), lineArb), { selector: ([key]) => key, maxLength: 8 })
  .map((entries) => entries.map(([key, l]): PricedLine => ({ key, ...l })));
const rulesArb: fc.Arbitrary<DiscountCodeRules> = fc
  .record({
    kind: fc.constantFrom('percent' as const, 'amount' as const, 'free_shipping' as const),
    percent: fc.integer({ min: 1, max: 100 }),
    amountCents: fc.integer({ min: 1, max: 99_999_999 }),
    minSubtotalCents: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: null }),
    // Mostly the whole cart, so the code applies often enough to be tested.
    productIds: fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 3 })),
    categories: fc.oneof(
      { weight: 2, arbitrary: fc.constant([]) },
      fc.array(fc.constantFrom('Body Soap', 'scrubs'), { maxLength: 2 }),
    ),
  })
  .map((r) =>
    code({
      ...r,
      percent: r.kind === 'percent' ? r.percent : null,
      amountCents: r.kind === 'amount' ? r.amountCents : null,
    }),
  );
const offerArb = fc.option(
  fc.record({
    thresholdCents: fc.integer({ min: 0, max: 200_000 }),
    percent: fc.integer({ min: 1, max: 100 }),
    active: fc.boolean(),
    combines: fc.boolean(),
  }),
  { nil: null },
);

describe('properties of any cart, code and offer', () => {
  const run = (lines: PricedLine[], rules: DiscountCodeRules, o: AutomaticOffer | null) =>
    applyDiscounts({ lines, code: rules.code, rules, offer: o, now: NOW });

  it('no line and no total is negative, and the total paid is never below nothing (total ≥ 0)', () => {
    fc.assert(
      fc.property(linesArb, rulesArb, offerArb, fc.nat(100_000), (lines, rules, o, rate) => {
        const out = run(lines, rules, o);
        const subtotal = lines.reduce((s, l) => s + l.unitPriceCents * l.quantity, 0);
        const totals = orderTotals(subtotal, rate, out);
        return (
          out.lines.every((l) => Number.isSafeInteger(l.discountCents) && l.discountCents >= 0) &&
          out.discountCents >= 0 &&
          totals.totalCents >= 0 &&
          totals.totalCents === subtotal - out.discountCents + totals.shippingCents + totals.taxCents
        );
      }),
    );
  });

  it('a discount is never more than what it applies to: per line, the code on its lines, and in all', () => {
    fc.assert(
      fc.property(linesArb, rulesArb, offerArb, (lines, rules, o) => {
        const out = run(lines, rules, o);
        const perLine = out.lines.every((d, i) => {
          const l = lines[i];
          return l !== undefined && d.discountCents <= l.unitPriceCents * l.quantity;
        });
        const eligible = lines.filter((l) => appliesTo(rules, l)).reduce((s, l) => s + l.unitPriceCents * l.quantity, 0);
        const onlyItsLines =
          out.offerCents > 0 || out.lines.every((d, i) => d.discountCents === 0 || appliesTo(rules, lines[i] as PricedLine));
        const sum = out.lines.reduce((s, d) => s + d.discountCents, 0);
        return perLine && out.codeCents <= eligible && onlyItsLines && sum === out.discountCents;
      }),
    );
  });

  it('tax is 8.9 % of the discounted subtotal', () => {
    fc.assert(
      fc.property(linesArb, rulesArb, offerArb, fc.nat(100_000), (lines, rules, o, rate) => {
        const out = run(lines, rules, o);
        const subtotal = lines.reduce((s, l) => s + l.unitPriceCents * l.quantity, 0);
        return orderTotals(subtotal, rate, out).taxCents === taxCents(subtotal - out.discountCents);
      }),
    );
  });

  it('the result does not depend on the order of the lines', () => {
    fc.assert(
      fc.property(
        linesArb.chain((lines) => fc.tuple(fc.constant(lines), fc.shuffledSubarray(lines, { minLength: lines.length }))),
        rulesArb,
        offerArb,
        ([lines, shuffled], rules, o) => {
          const a = run(lines, rules, o);
          const b = run(shuffled, rules, o);
          const byKey = (out: typeof a) => Object.fromEntries(out.lines.map((l) => [l.key, l.discountCents]));
          expect(byKey(b)).toEqual(byKey(a));
          expect({ ...b, lines: [] }).toEqual({ ...a, lines: [] });
        },
      ),
      { numRuns: 500 },
    );
  });
});
