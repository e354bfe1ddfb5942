import { inflateSync } from 'node:zlib';
import bwipjs from 'bwip-js/node';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { US_STATES } from '@/lib/us-states';
import { drawnText } from '../../../tests/unit/pdf-text';
import { createRateTableShipping } from './rate-table.server';
import { type Address, shopParcel, WAREHOUSE } from './shipping.port';
import { LABEL_SIZE, testTrackingNumber } from './test-label.server';

const shipping = createRateTableShipping();
const parcel = shopParcel;
const to = (state: string): Address => ({
  name: 'Maya Okafor',
  street1: '455 Market St',
  city: state === 'GA' ? 'Savannah' : 'San Francisco',
  state,
  zip: state === 'GA' ? '31401' : '94105',
  country: 'US',
});

/** The widths of the barcode's bars: the filled rectangles as tall as the barcode, left to right. */
function barWidths(pdf: Uint8Array): number[] {
  const raw = Buffer.from(pdf).toString('latin1');
  const bars: { x: number; width: number }[] = [];
  for (const [, body = ''] of raw.matchAll(/stream\r?\n([\s\S]*?)\r?\nendstream/g)) {
    let content: string;
    try {
      content = inflateSync(Buffer.from(body, 'latin1')).toString('latin1');
    } catch {
      continue;
    }
    // pdf-lib draws a rectangle as a move to its corner (`1 0 0 1 x y cm`) and a filled path round it.
    for (const [, x = '0', width = '0'] of content.matchAll(
      /1 0 0 1 ([\d.]+) [\d.]+ cm\n(?:1 0 0 1 0 0 cm\n)*0 0 m\n0 62 l\n([\d.]+) 62 l\n/g,
    ))
      bars.push({ x: Number(x), width: Number(width) });
  }
  return bars.sort((a, b) => a.x - b.x).map((b) => b.width);
}

describe('rate table: rates', () => {
  // Standard = $10 (GA and its neighbours) or $15, plus $3 per whole pound; Express = Standard + $15.
  const cases: [state: string, weightLb: number, standardCents: number][] = [
    ['GA', 0.5, 1000],
    ['GA', 1, 1300],
    ['GA', 1.99, 1300],
    ['GA', 2, 1600],
    ['GA', 10.5, 4000],
    ['CA', 0.5, 1500],
    ['CA', 1, 1800],
    ['CA', 1.99, 1800],
    ['CA', 2, 2100],
    ['CA', 10.5, 4500],
  ];
  it.each(cases)('to %s at %s lb: Standard %i cents, Express 1500 cents more', async (state, weightLb, standardCents) => {
    const rates = await shipping.rates({ from: WAREHOUSE, to: to(state), parcel: parcel(weightLb) });
    expect(rates).toEqual([
      {
        id: expect.stringMatching(/^table_[0-9a-f]{24}$/),
        provider: 'Aurelia',
        service: 'Standard Shipping',
        amountCents: standardCents,
        currency: 'USD',
        estimatedDays: 5,
      },
      {
        id: expect.stringMatching(/^table_[0-9a-f]{24}$/),
        provider: 'Aurelia',
        service: 'Express Shipping',
        amountCents: standardCents + 1500,
        currency: 'USD',
        estimatedDays: 2,
      },
    ]);
  });

  it('charges the lower base in each southeastern state and the higher one elsewhere', async () => {
    for (const { code } of US_STATES) {
      const [standard] = await shipping.rates({ from: WAREHOUSE, to: to(code), parcel: parcel(0.5) });
      expect(standard?.amountCents, code).toBe(['GA', 'FL', 'AL', 'SC', 'NC', 'TN'].includes(code) ? 1000 : 1500);
    }
  });

  it('gives the same quote the same id and any other quote another', async () => {
    const ids = async (address: Address, weightLb: number) =>
      (await shipping.rates({ from: WAREHOUSE, to: address, parcel: parcel(weightLb) })).map((r) => r.id);
    const first = await ids(to('CA'), 2);
    expect(await ids(to('CA'), 2)).toEqual(first);
    expect(new Set(first).size).toBe(2);
    expect(await ids({ ...to('CA'), street1: '1 Other St' }, 2)).not.toContain(first[0]);
    expect(await ids({ ...to('CA'), street2: 'Apt 4B' }, 2)).not.toContain(first[0]);
    expect(await ids(to('CA'), 2.5)).not.toContain(first[0]);
  });

  it('refuses a state outside the 50 and a weightless parcel', async () => {
    await expect(shipping.rates({ from: WAREHOUSE, to: to('PR'), parcel: parcel(1) })).rejects.toThrow(
      "We ship to the 50 US states only, not to 'PR'",
    );
    await expect(shipping.rates({ from: WAREHOUSE, to: to('DC'), parcel: parcel(1) })).rejects.toThrow(/50 US states/);
    await expect(shipping.rates({ from: WAREHOUSE, to: to('GA'), parcel: parcel(0) })).rejects.toThrow(/more than 0 lb/);
  });
});

describe('rate table: test label', () => {
  const request = (service = 'Express Shipping') => ({
    from: WAREHOUSE,
    to: to('CA'),
    parcel: parcel(2.5),
    rate: { id: 'table_whatever', provider: 'Aurelia', service, amountCents: 0 },
    orderNumber: 'ORD-7F3A2C',
  });

  it('is a one-page 4×6 in PDF marked TEST LABEL with the order, both addresses, the service and the tracking number', async () => {
    const label = await shipping.buyLabel(request());
    if (label.file.kind !== 'pdf') throw new Error('expected PDF bytes');
    const bytes = label.file.bytes;

    expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBe(1);
    expect(doc.getPage(0).getSize()).toEqual({ width: 288, height: 432 });
    expect(LABEL_SIZE).toEqual({ width: 4 * 72, height: 6 * 72 });
    expect(doc.getTitle()).toBe('TEST LABEL ORD-7F3A2C');

    const text = drawnText(bytes);
    expect(text).toContain('TEST LABEL - NOT VALID POSTAGE');
    expect(text).toContain('Order ORD-7F3A2C');
    expect(text).toEqual(expect.arrayContaining(['Aurelia', '120 Peachtree St NE', 'Atlanta, GA 30303']));
    expect(text).toEqual(expect.arrayContaining(['Maya Okafor', '455 Market St', 'San Francisco, CA 94105']));
    expect(text).toContain('EXPRESS SHIPPING');
    expect(text).toContain(`TRACKING # ${label.trackingNumber}`);
    // The barcode is drawn as bars (no image to decode and compress): Code 128 of the tracking number, whose bars'
    // widths are whole multiples of one module, in the order the symbology gives them.
    expect(Buffer.from(bytes).toString('latin1')).not.toMatch(/\/Subtype\s*\/Image/);
    const bars = barWidths(bytes);
    const [symbol] = bwipjs.raw('code128', label.trackingNumber, {}) as { sbs: number[] }[];
    const expected = (symbol?.sbs ?? []).filter((_, i) => i % 2 === 0);
    expect(bars.length).toBe(expected.length);
    const module = (bars[0] ?? 0) / (expected[0] ?? 1);
    expect(module).toBeGreaterThan(1);
    expect(bars.map((w) => Math.round(w / module))).toEqual(expected);
  });

  it('tracks nothing: a TEST number, the same for the same order, no tracking page, the chosen rate and its price', async () => {
    const label = await shipping.buyLabel(request('Standard Shipping'));
    const [standard] = await shipping.rates(request());
    expect(label).toMatchObject({
      trackingNumber: testTrackingNumber('ORD-7F3A2C'),
      trackingUrl: null,
      rateId: standard?.id,
      amountCents: 1500 + 2 * 300,
      test: true,
    });
    expect(label.trackingNumber).toMatch(/^TEST\d{18}$/);
    expect(testTrackingNumber('ORD-7F3A2C')).toBe(label.trackingNumber);
    expect(testTrackingNumber('ORD-7F3A2D')).not.toBe(label.trackingNumber);
  });

  it('prints the apartment or suite on its own line under the street', async () => {
    const label = await shipping.buyLabel({ ...request(), to: { ...to('CA'), street2: 'Apt 4B' } });
    if (label.file.kind !== 'pdf') throw new Error('expected PDF bytes');
    const text = drawnText(label.file.bytes);
    const street = text.indexOf('455 Market St');
    expect(text.slice(street, street + 3)).toEqual(['455 Market St', 'Apt 4B', 'San Francisco, CA 94105']);
  });

  it('prints names the label font cannot draw, and overlong lines, without failing', async () => {
    const label = await shipping.buyLabel({
      ...request(),
      to: { ...to('CA'), name: 'Zoë 李小龍 🙂', street1: `${'Very long street name '.repeat(8)}Apt 4` },
    });
    if (label.file.kind !== 'pdf') throw new Error('expected PDF bytes');
    const text = drawnText(label.file.bytes);
    expect(text).toContain('Zoë ??? ?');
    // Cut with an ellipsis, which WinAnsi (the standard fonts' encoding) stores as 0x85.
    expect(text.find((t) => t.startsWith('Very long street'))).toMatch(/\x85$/);
  });

  it('refuses a service the table does not offer', async () => {
    await expect(shipping.buyLabel(request('Overnight'))).rejects.toThrow(
      "No 'Overnight' rate from Aurelia in the shop's rate table",
    );
  });
});

describe('rate table: test return label', () => {
  it('is a 4×6 in TEST RETURN LABEL from the customer back to the shop, with the return number and a TEST tracking number', async () => {
    const label = await shipping.buyReturnLabel({
      customer: to('CA'),
      shop: WAREHOUSE,
      parcel: parcel(1),
      returnNumber: 'RMA-1001',
      returnId: '6f1c0c3e-3d0b-4c53-9a52-0d6a3f3b2b11',
      outbound: { provider: 'Aurelia', service: 'Express Shipping' },
    });
    if (label.file.kind !== 'pdf') throw new Error('expected PDF bytes');
    const doc = await PDFDocument.load(label.file.bytes);
    expect(doc.getPage(0).getSize()).toEqual({ width: 288, height: 432 });
    expect(doc.getTitle()).toBe('TEST RETURN LABEL RMA-1001');
    const text = drawnText(label.file.bytes);
    expect(text).toContain('TEST RETURN LABEL - NOT VALID POSTAGE');
    expect(text).toContain('Return RMA-1001');
    expect(text).toContain('RETURN · STANDARD SHIPPING');
    // From the customer (small, at the top), to the shop (large: what the sorter reads).
    expect(text.indexOf('Maya Okafor')).toBeLessThan(text.indexOf('SHIP TO'));
    expect(text.indexOf('120 Peachtree St NE')).toBeGreaterThan(text.indexOf('SHIP TO'));
    expect(label).toMatchObject({ trackingNumber: testTrackingNumber('RMA-1001'), trackingUrl: null, test: true });
  });
});
