import { describe, expect, it } from 'vitest';
import {
  arrivesBy,
  DEFAULT_VIEW,
  type Order,
  type OrderItem,
  orderNumber,
  reorderLines,
  shipToLines,
  statusOf,
  variantLabel,
  viewOrders,
  webLink,
} from './orders';

const item = (over: Partial<OrderItem> = {}): OrderItem => ({
  productId: 8,
  name: 'Turmeric Face Soap',
  image: '/soap.svg',
  priceCents: 1000,
  quantity: 1,
  selectedColor: null,
  selectedSize: null,
  available: true,
  ...over,
});

const order = (id: string, createdAt: string, totalCents: number, status: string | null = 'processing'): Order => ({
  id,
  createdAt,
  status,
  totalCents,
  trackingNumber: null,
  trackingUrl: null,
  estimatedDelivery: null,
  items: [item()],
});

describe('order history rules', () => {
  it('numbers an order ORD- and the id’s last 6 characters, uppercased', () => {
    expect(orderNumber('3f2a9c1e-7b4d-4e2a-9c1e-0a1b2c3d4e5f')).toBe('ORD-3D4E5F');
  });

  it('maps stored statuses case-insensitively, and unknown or missing ones to Processing (product spec)', () => {
    const table: [string | null | undefined, string][] = [
      ['processing', 'processing'],
      ['PENDING', 'processing'],
      ['Shipped', 'shipped'],
      ['shipping', 'shipped'],
      ['delivered', 'delivered'],
      ['Completed', 'delivered'],
      ['cancelled', 'cancelled'],
      ['CANCELED', 'cancelled'],
      ['lost in the post', 'processing'],
      ['', 'processing'],
      [null, 'processing'],
      [undefined, 'processing'],
    ];
    for (const [stored, shown] of table) expect(statusOf(stored), String(stored)).toBe(shown);
  });

  it('promises an arrival date only while the order is on its way: processing or shipped, never delivered or cancelled', () => {
    const estimated = (status: string | null): Order => ({
      ...order('g', '2026-11-20T10:00:00', 0, status),
      estimatedDelivery: '2026-11-27',
    });
    const table: [string | null, string | null][] = [
      ['processing', '2026-11-27'],
      ['pending', '2026-11-27'],
      [null, '2026-11-27'],
      ['shipped', '2026-11-27'],
      ['Shipping', '2026-11-27'],
      ['delivered', null],
      ['completed', null],
      ['cancelled', null],
      ['CANCELED', null],
    ];
    for (const [status, shown] of table) expect(arrivesBy(estimated(status)), String(status)).toBe(shown);
    expect(arrivesBy(order('h', '2026-11-20T10:00:00', 0, 'shipped'))).toBeNull(); // no estimate stored
  });

  const now = new Date('2026-11-22T12:00:00');
  const orders = [
    order('a', '2026-11-20T10:00:00', 4500, 'shipped'),
    order('b', '2026-10-01T10:00:00', 9000, 'Delivered'),
    order('c', '2026-07-01T10:00:00', 1500, 'cancelled'),
    order('d', '2025-12-31T23:00:00', 12000, 'completed'),
    order('e', '2024-05-01T10:00:00', 3000, null),
  ];
  const ids = (view: Partial<typeof DEFAULT_VIEW>) => viewOrders(orders, { ...DEFAULT_VIEW, ...view }, now).map((o) => o.id);

  it('shows every order newest first by default', () => {
    expect(ids({})).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('filters by status, whatever spelling was stored', () => {
    expect(ids({ status: 'delivered' })).toEqual(['b', 'd']);
    expect(ids({ status: 'processing' })).toEqual(['e']);
    expect(ids({ status: 'cancelled' })).toEqual(['c']);
  });

  it('filters by date: the last 30 or 90 days, this calendar year, last calendar year', () => {
    expect(ids({ date: 'last30' })).toEqual(['a']);
    expect(ids({ date: 'last90' })).toEqual(['a', 'b']);
    expect(ids({ date: 'thisYear' })).toEqual(['a', 'b', 'c']);
    expect(ids({ date: 'lastYear' })).toEqual(['d']);
  });

  it('sorts oldest first, or by value either way', () => {
    expect(ids({ sort: 'oldest' })).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect(ids({ sort: 'highest' })).toEqual(['d', 'b', 'a', 'e', 'c']);
    expect(ids({ sort: 'lowest' })).toEqual(['c', 'e', 'a', 'b', 'd']);
  });

  it('combines filters and sorting, and leaves the list it was given alone', () => {
    const before = orders.map((o) => o.id);
    expect(ids({ status: 'delivered', date: 'thisYear', sort: 'lowest' })).toEqual(['b']);
    expect(orders.map((o) => o.id)).toEqual(before);
  });

  it('reorders every line still sold, with its quantity, colour and size', () => {
    const past: Order = {
      ...order('f', '2026-11-01T10:00:00', 0),
      items: [
        item({ productId: 3, quantity: 2, selectedColor: 'navy', selectedSize: 'M' }),
        item({ productId: 42, available: false }),
        item({ productId: 8, quantity: 3 }),
      ],
    };
    expect(reorderLines(past)).toEqual([
      { productId: 3, quantity: 2, selectedColor: 'navy', selectedSize: 'M' },
      { productId: 8, quantity: 3, selectedColor: null, selectedSize: null },
    ]);
    expect(reorderLines({ ...past, items: [] })).toEqual([]);
  });
});

describe('reading a stored order', () => {
  it('follows only web links, whatever their case: a script URL or junk is no link', () => {
    expect(webLink('https://tracking.example/1Z')).toBe('https://tracking.example/1Z');
    expect(webLink('HTTPS://tracking.example/1Z')).toBe('HTTPS://tracking.example/1Z');
    expect(webLink('http://carrier.example/t?n=1')).toBe('http://carrier.example/t?n=1');
    for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,x', '/relative', 'not a url', '', null]) {
      expect(webLink(bad), String(bad)).toBeNull();
    }
  });

  it('names an item’s colour and size together, or nothing', () => {
    expect(variantLabel('powder-blue', 'M')).toBe('powder-blue, M');
    expect(variantLabel(null, 'M')).toBe('M');
    expect(variantLabel(null, null)).toBeNull();
  });

  it('writes an address as on a parcel, with the apartment or suite only when there is one', () => {
    const to = { name: 'Ann Lee', street1: '5 Elm St', street2: '', city: 'Austin', state: 'TX', zip: '78701' };
    expect(shipToLines(to)).toEqual(['Ann Lee', '5 Elm St', 'Austin, TX 78701', 'United States']);
    expect(shipToLines({ ...to, street2: 'Apt 2' })).toEqual([
      'Ann Lee',
      '5 Elm St',
      'Apt 2',
      'Austin, TX 78701',
      'United States',
    ]);
  });
});
