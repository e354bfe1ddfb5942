import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  exchangeProblem,
  type ReturnableLine,
  requestProblem,
  returnNumber,
  returnRefund,
  returnWindow,
  unitsLeft,
  windowNote,
  windowProblem,
} from './returns';

const day = (iso: string) => iso.slice(0, 10);
const delivered = '2026-11-01T15:00:00.000Z';
const shipped = '2026-10-29T09:00:00.000Z';

describe('the 30-day return window', () => {
  it('counts 30 days from delivery, open up to the moment it closes', () => {
    const order = { status: 'delivered', shippedAt: shipped, deliveredAt: delivered };
    const closes = '2026-12-01T15:00:00.000Z';
    expect(returnWindow(order, new Date('2026-11-20T00:00:00Z'))).toEqual({
      state: 'open',
      from: 'delivery',
      startedAt: delivered,
      closesAt: closes,
    });
    expect(returnWindow(order, new Date(closes)).state).toBe('open');
    expect(returnWindow(order, new Date(Date.parse(closes) + 1)).state).toBe('closed');
  });

  it('counts from shipping when the order was never marked delivered, and says so', () => {
    const order = { status: 'shipped', shippedAt: shipped, deliveredAt: null };
    const window = returnWindow(order, new Date('2026-11-05T00:00:00Z'));
    expect(window).toMatchObject({ state: 'open', from: 'shipping', closesAt: '2026-11-28T09:00:00.000Z' });
    expect(windowNote(window, day)).toBe(
      'You can return items until 2026-11-28: 30 days from shipping on 2026-10-29, as the order has not been marked delivered.',
    );
    expect(windowNote(returnWindow({ ...order, deliveredAt: delivered }, new Date('2026-11-05T00:00:00Z')), day)).toBe(
      'You can return items until 2026-12-01: 30 days from delivery on 2026-11-01.',
    );
  });

  it('is not open before the order ships, once it is cancelled, or after 30 days; each says why', () => {
    const now = new Date('2026-11-05T00:00:00Z');
    expect(returnWindow({ status: 'processing', shippedAt: null, deliveredAt: null }, now)).toEqual({ state: 'not_shipped' });
    expect(returnWindow({ status: 'Canceled', shippedAt: shipped, deliveredAt: null }, now)).toEqual({ state: 'cancelled' });
    const late = returnWindow(
      { status: 'delivered', shippedAt: shipped, deliveredAt: delivered },
      new Date('2027-01-01T00:00:00Z'),
    );
    expect(windowProblem(late, day)).toBe('The 30-day return window closed on 2026-12-01 (30 days from delivery on 2026-11-01).');
    expect(windowProblem({ state: 'not_shipped' }, day)).toBe('Items can be returned once the order has shipped.');
    expect(windowProblem({ state: 'cancelled' }, day)).toBe('This order was cancelled, so there is nothing to return.');
  });
});

const line = (over: Partial<ReturnableLine> = {}): ReturnableLine => ({
  itemId: '1',
  productId: 7,
  name: 'Kojic Acid Soap',
  variant: null,
  quantity: 3,
  inReturns: 0,
  refundedApart: 0,
  finalSale: false,
  color: '',
  size: '',
  options: null,
  ...over,
});

describe('what can be asked back', () => {
  it('is what was bought less what is in returns and what was refunded apart', () => {
    expect(unitsLeft(line())).toBe(3);
    expect(unitsLeft(line({ inReturns: 1, refundedApart: 1 }))).toBe(1);
    expect(unitsLeft(line({ inReturns: 3, refundedApart: 1 }))).toBe(0);
  });

  it('is nothing of a final-sale line, and a request for one is refused in words', () => {
    const serum = line({ name: 'Opened Serum', finalSale: true });
    expect(unitsLeft(serum)).toBe(0);
    expect(requestProblem([serum], [{ itemId: '1', quantity: 1 }])).toBe('Opened Serum is final sale and cannot be returned.');
  });

  it('refuses more than is left, none, a line twice, a line of another order, and fractions', () => {
    const soap = line({ inReturns: 2 });
    expect(requestProblem([soap], [{ itemId: '1', quantity: 2 }])).toBe('At most 1 of Kojic Acid Soap can be returned.');
    expect(requestProblem([line({ inReturns: 3 })], [{ itemId: '1', quantity: 1 }])).toBe(
      'Kojic Acid Soap is already being returned or was refunded.',
    );
    expect(requestProblem([soap], [])).toBe('Choose at least one item to return.');
    expect(
      requestProblem(
        [line()],
        [
          { itemId: '1', quantity: 1 },
          { itemId: '1', quantity: 1 },
        ],
      ),
    ).toBe('Kojic Acid Soap is listed twice.');
    expect(requestProblem([line()], [{ itemId: '99', quantity: 1 }])).toBe('One of the items is not part of this order.');
    expect(requestProblem([line()], [{ itemId: '1', quantity: 1.5 }])).toBe('At most 3 of Kojic Acid Soap can be returned.');
    expect(requestProblem([line()], [{ itemId: '1', quantity: 0 }])).toBe('At most 3 of Kojic Acid Soap can be returned.');
    expect(requestProblem([soap], [{ itemId: '1', quantity: 1 }])).toBeNull();
  });

  it('numbers returns as RMA-…', () => {
    expect(returnNumber(1001)).toBe('RMA-1001');
  });
});

describe('what a return refunds', () => {
  it('is what was paid for its lines, without the shipping unless the owner ticks it', () => {
    expect(returnRefund({ linesCents: 2_940, includeShipping: false, shippingLeftCents: 1_000, leftCents: 10_000 })).toEqual({
      amountCents: 2_940,
      shippingCents: 0,
      capped: false,
    });
    expect(returnRefund({ linesCents: 2_940, includeShipping: true, shippingLeftCents: 1_000, leftCents: 10_000 })).toEqual({
      amountCents: 3_940,
      shippingCents: 1_000,
      capped: false,
    });
  });

  it('gives the shipping back once: what earlier returns left of it', () => {
    expect(returnRefund({ linesCents: 1_500, includeShipping: true, shippingLeftCents: 0, leftCents: 10_000 })).toEqual({
      amountCents: 1_500,
      shippingCents: 0,
      capped: false,
    });
  });

  it('never gives back more than is left to refund of the order; the shipping gives way first', () => {
    expect(returnRefund({ linesCents: 2_940, includeShipping: true, shippingLeftCents: 1_000, leftCents: 3_000 })).toEqual({
      amountCents: 3_000,
      shippingCents: 60,
      capped: true,
    });
    expect(returnRefund({ linesCents: 2_940, includeShipping: false, shippingLeftCents: 1_000, leftCents: 2_000 })).toEqual({
      amountCents: 2_000,
      shippingCents: 0,
      capped: true,
    });
    expect(returnRefund({ linesCents: 2_940, includeShipping: true, shippingLeftCents: 1_000, leftCents: 0 })).toEqual({
      amountCents: 0,
      shippingCents: 0,
      capped: true,
    });
  });

  it('for any lines, shipping and what is left: never negative, never over what is left, never over lines and shipping', () => {
    fc.assert(
      fc.property(
        fc.nat(1_000_000),
        fc.boolean(),
        fc.nat(100_000),
        fc.integer({ min: -1_000, max: 2_000_000 }),
        (lines, tick, ship, left) => {
          const r = returnRefund({ linesCents: lines, includeShipping: tick, shippingLeftCents: ship, leftCents: left });
          return (
            r.amountCents >= 0 &&
            r.amountCents <= Math.max(0, left) &&
            r.amountCents <= lines + (tick ? ship : 0) &&
            r.shippingCents >= 0 &&
            r.shippingCents <= (tick ? ship : 0) &&
            r.shippingCents <= r.amountCents
          );
        },
      ),
    );
  });
});

describe('an exchange', () => {
  const scrubs = line({
    name: 'Clinical Scrubs',
    productId: 3,
    quantity: 1,
    color: 'blue',
    size: 'M',
    options: {
      colors: [
        { value: 'blue', name: 'Blue' },
        { value: 'grey', name: 'Grey' },
      ],
      sizes: ['S', 'M', 'L'],
    },
  });

  it('is another colour or size of the same product, one it comes in', () => {
    expect(exchangeProblem(scrubs, { color: 'grey', size: 'M' })).toBeNull();
    expect(exchangeProblem(scrubs, { color: 'blue', size: 'L' })).toBeNull();
    expect(exchangeProblem(scrubs, { color: 'blue', size: 'M' })).toBe(
      'Choose another colour or size of Clinical Scrubs than yours.',
    );
    expect(exchangeProblem(scrubs, { color: 'red', size: 'M' })).toBe('Choose a colour and size Clinical Scrubs comes in.');
    expect(exchangeProblem(scrubs, { color: 'grey', size: 'XXXL' })).toBe('Choose a colour and size Clinical Scrubs comes in.');
    expect(exchangeProblem(scrubs, { color: '', size: 'L' })).toBe('Choose a colour and size Clinical Scrubs comes in.');
  });

  it('is not offered for a product that comes in one kind only', () => {
    expect(exchangeProblem(line(), { color: '', size: '' })).toBe(
      'Kojic Acid Soap cannot be exchanged (it comes in one kind, or is no longer sold): return it for a refund.',
    );
  });

  it('names what each line is exchanged for; a refund names nothing; final sale and quantities hold as for a return', () => {
    expect(requestProblem([scrubs], [{ itemId: '1', quantity: 1 }], 'exchange')).toBe(
      'Choose what to exchange Clinical Scrubs for.',
    );
    expect(
      requestProblem([scrubs], [{ itemId: '1', quantity: 1, exchangeFor: { color: 'grey', size: 'M' } }], 'exchange'),
    ).toBeNull();
    expect(requestProblem([scrubs], [{ itemId: '1', quantity: 1, exchangeFor: { color: 'grey', size: 'M' } }])).toBe(
      'A return for a refund names no colour or size to exchange for.',
    );
    expect(
      requestProblem(
        [{ ...scrubs, finalSale: true }],
        [{ itemId: '1', quantity: 1, exchangeFor: { color: 'grey', size: 'M' } }],
        'exchange',
      ),
    ).toBe('Clinical Scrubs is final sale and cannot be returned.');
    expect(requestProblem([scrubs], [{ itemId: '1', quantity: 2, exchangeFor: { color: 'grey', size: 'M' } }], 'exchange')).toBe(
      'At most 1 of Clinical Scrubs can be returned.',
    );
    expect(requestProblem([scrubs], [], 'exchange')).toBe('Choose at least one item to exchange.');
  });
});
