import { describe, expect, it } from 'vitest';
import { orderNumber, STATUS_LABELS, type StatusKey } from '@/features/orders/orders';
import {
  containsPattern,
  dollarsToCents,
  NEXT_STATUSES,
  orderListQuery,
  orderSearch,
  queryParams,
  refundKey,
  restockOffered,
  storedSpellings,
  transitionProblem,
} from './order-admin';

const STATUSES = Object.keys(STATUS_LABELS) as StatusKey[];

describe('order status changes', () => {
  it('go processing → shipped → delivered, or processing → cancelled, and nowhere else', () => {
    const allowed = STATUSES.flatMap((from) =>
      STATUSES.filter((to) => transitionProblem(from, to) === null).map((to) => `${from}→${to}`),
    );
    expect(allowed.sort()).toEqual(['processing→cancelled', 'processing→shipped', 'shipped→delivered']);
    expect(Object.values(NEXT_STATUSES).flat()).not.toContain('processing');
  });

  it('say why a change is refused', () => {
    expect(transitionProblem('shipped', 'processing')).toBe('A shipped order cannot go back to Processing.');
    expect(transitionProblem('delivered', 'shipped')).toBe('A delivered order is final: its status cannot change.');
    expect(transitionProblem('cancelled', 'shipped')).toBe('A cancelled order is final: its status cannot change.');
    expect(transitionProblem('shipped', 'cancelled')).toBe('Only an order that has not shipped can be cancelled.');
    expect(transitionProblem('processing', 'delivered')).toBe(
      'A processing order can become Shipped or Cancelled, not Delivered.',
    );
    expect(transitionProblem('shipped', 'shipped')).toBe('The order is already Shipped.');
  });

  it('filter every stored spelling of a status (product spec)', () => {
    expect(storedSpellings('processing')).toEqual(['processing', 'pending']);
    expect(storedSpellings('shipped')).toEqual(['shipped', 'shipping']);
    expect(storedSpellings('delivered')).toEqual(['delivered', 'completed']);
    expect(storedSpellings('cancelled')).toEqual(['cancelled', 'canceled']);
  });
});

describe('the order list’s search', () => {
  const id = '3f2a9c1e-7b4d-4e2a-9c1e-0a1b2c3d4e5f';

  it('reads an order number as shoppers see it, in any case, with or without the dash, or its first characters', () => {
    expect(orderSearch(orderNumber(id))).toEqual({ kind: 'number', prefix: '3d4e5f' });
    expect(orderSearch(' ord-3d4e5f ')).toEqual({ kind: 'number', prefix: '3d4e5f' });
    expect(orderSearch('ORD3D4')).toEqual({ kind: 'number', prefix: '3d4' });
    expect(orderSearch(id.toUpperCase())).toEqual({ kind: 'id', id });
  });

  it('looks for anything else in e-mails and names, with LIKE’s wildcards taken literally', () => {
    expect(orderSearch('grace@')).toEqual({ kind: 'text', pattern: '%grace@%', number: null });
    expect(orderSearch('100%_off\\')).toEqual({ kind: 'text', pattern: '%100\\%\\_off\\\\%', number: null });
    expect(orderSearch('3d4e5f')).toEqual({ kind: 'text', pattern: '%3d4e5f%', number: '3d4e5f' });
    expect(orderSearch('   ')).toEqual({ kind: 'none' });
    expect(containsPattern('a_b')).toBe('%a\\_b%');
  });

  it('reads filters from the address, leaving out what is malformed', () => {
    const query = orderListQuery(new URLSearchParams('q=%20Ada%20&status=shipped&from=2026-11-01&to=2026-02-30'));
    expect(query).toEqual({ q: 'Ada', status: 'shipped', from: '2026-11-01', to: null });
    expect(orderListQuery(new URLSearchParams('status=lost&from=yesterday'))).toEqual({
      q: '',
      status: null,
      from: null,
      to: null,
    });
    expect(orderListQuery(new URLSearchParams(`q=${'x'.repeat(500)}`)).q).toHaveLength(200);
    expect(queryParams(query).toString()).toBe('q=Ada&status=shipped&from=2026-11-01');
  });
});

describe('refund idempotency keys', () => {
  it('are the same for a double click and differ once a refund has been recorded or another amount is asked', () => {
    const id = '3f2a9c1e-7b4d-4e2a-9c1e-0a1b2c3d4e5f';
    expect(refundKey(id, { refundedCents: 0 })).toBe(refundKey(id, { refundedCents: 0 }));
    expect(refundKey(id, { refundedCents: 0 })).not.toBe(refundKey(id, { refundedCents: 500 }));
    expect(refundKey(id, { refundedCents: 0 })).not.toBe(refundKey(id, { refundedCents: 0, amountCents: 500 }));
    expect(refundKey(id, { refundedCents: 0, amountCents: 500 })).toBe(`refund:${id}:0:500`);
    // After a failed refund, the same request is a new refund.
    expect(refundKey(id, { refundedCents: 0, failedRefunds: 1 })).not.toBe(refundKey(id, { refundedCents: 0 }));
    expect(refundKey(id, { refundedCents: 0, failedRefunds: 1 })).toBe(refundKey(id, { refundedCents: 0, failedRefunds: 1 }));
  });
});

describe('refund amounts typed in dollars', () => {
  it('become cents; anything else is refused', () => {
    expect(dollarsToCents('12')).toBe(1200);
    expect(dollarsToCents(' 12.5 ')).toBe(1250);
    expect(dollarsToCents('$1,012.05')).toBe(101_205);
    expect(dollarsToCents('0.01')).toBe(1);
    for (const bad of ['', '0', '0.00', '-5', '1.234', 'ten', '1e3', '12.']) expect(dollarsToCents(bad), bad).toBeNull();
  });
});

describe('putting an order’s items back in stock on its own', () => {
  it('is offered once the order is cancelled or something was refunded, never on a live order with no refund', () => {
    expect(STATUSES.filter((s) => restockOffered(s, 0))).toEqual(['cancelled']);
    expect(STATUSES.filter((s) => restockOffered(s, 100))).toEqual(STATUSES);
  });
});
