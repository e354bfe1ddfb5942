import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Address, type ReturnLabelRequest, shopParcel, WAREHOUSE } from '@/server/shipping/shipping.port';
import { createShippoShipping } from '@/server/shipping/shippo.server';
import { type FakeShippo, startFakeShippo } from '../mocks/shippo';

// The Shippo adapter's return labels, against the fake speaking Shippo's wire format: a shipment created with
// extra.is_return (the outbound's addresses as they were: Shippo swaps them), a label bought once per return number,
// from the outbound's carrier.

const customer: Address = {
  name: 'Maya Okafor',
  street1: '455 Market St',
  street2: 'Suite 400',
  city: 'San Francisco',
  state: 'CA',
  zip: '94105',
  country: 'US',
  email: 'maya@example.com',
};

let fake: FakeShippo;
beforeAll(async () => {
  fake = await startFakeShippo();
});
afterAll(() => fake?.stop());
beforeEach(() => {
  fake.requests.length = 0;
});

const shippo = () => createShippoShipping({ apiKey: fake.apiKey, serverURL: fake.url });
const purchases = () => fake.requests.filter((r) => r.path === '/transactions' && r.method === 'POST');
let returns = 0;
const request = (outbound = { provider: 'USPS', service: 'Priority Mail' }): ReturnLabelRequest => ({
  customer,
  shop: WAREHOUSE,
  parcel: shopParcel(1.5),
  returnNumber: `RMA-${2000 + ++returns}`,
  returnId: crypto.randomUUID(),
  outbound,
});

describe('Shippo adapter: return labels', () => {
  it('creates the shipment with Shippo’s return flag and the outbound’s addresses unswapped, and buys the same service', async () => {
    const asked = request();
    const label = await shippo().buyReturnLabel(asked);

    const shipment = fake.requests.find((r) => r.path === '/shipments');
    expect(shipment?.body).toMatchObject({
      address_from: { name: 'Aurelia', street1: '120 Peachtree St NE', city: 'Atlanta', state: 'GA', zip: '30303' },
      address_to: { name: 'Maya Okafor', street1: '455 Market St', street2: 'Suite 400', zip: '94105' },
      parcels: [{ length: '10', width: '8', height: '4', distance_unit: 'in', weight: '1.5', mass_unit: 'lb' }],
      extra: { is_return: true },
      async: false,
    });
    expect(purchases().at(-1)?.body).toMatchObject({
      label_file_type: 'PDF_4x6',
      async: false,
      metadata: `Return ${asked.returnNumber} ${asked.returnId}`,
    });
    const bought = fake.labels.at(-1);
    expect(bought?.isReturn).toBe(true);
    expect(label).toEqual({
      trackingNumber: bought?.trackingNumber,
      trackingUrl: `https://tools.usps.com/go/TrackConfirmAction_input?origTrackNum=${bought?.trackingNumber}`,
      file: { kind: 'url', url: `https://deliver.goshippo.com/${bought?.transactionId}.pdf` },
      rateId: bought?.rateId,
      amountCents: 985,
      test: true,
    });
  });

  it('takes the outbound carrier’s cheapest when its service is not offered for the return, and no other carrier', async () => {
    const label = await shippo().buyReturnLabel(request({ provider: 'USPS', service: 'Media Mail' }));
    expect(purchases()).toHaveLength(1);
    // Ground Advantage, USPS's cheapest ($8.29), not UPS Ground.
    expect(label.amountCents).toBe(829);
    expect(fake.labels.at(-1)?.isReturn).toBe(true);

    const before = fake.labels.length;
    await expect(shippo().buyReturnLabel(request({ provider: 'FedEx', service: 'Ground' }))).rejects.toThrow(
      'Shippo offers no FedEx return label for this parcel',
    );
    expect(fake.labels).toHaveLength(before);
  });

  it('finds the return label a timed-out purchase bought, instead of buying it twice', async () => {
    const asked = request();
    fake.buyButLoseAnswer();
    await expect(shippo().buyReturnLabel(asked)).rejects.toThrow(
      'Shippo refused the return label purchase (HTTP 504): Gateway timeout.',
    );
    const bought = fake.labels.at(-1);
    const label = await shippo().buyReturnLabel(asked);
    expect(purchases()).toHaveLength(1);
    expect(label.trackingNumber).toBe(bought?.trackingNumber);
    // The order's own label and another return's are other references: nothing of theirs is taken for this one.
    await shippo().buyReturnLabel(request());
    expect(purchases()).toHaveLength(2);
  });

  it('never takes the label of another return that had the same number (a restored backup, a second shop on the key)', async () => {
    // Return numbers count up in each database: a backup restored, or a staging shop on the same Shippo account, gives
    // RMA-2xxx out again. The label bought for the first, printed with its customer's name and address, is theirs.
    const first = request();
    const label = await shippo().buyReturnLabel(first);
    const again = await shippo().buyReturnLabel({
      ...request(),
      returnNumber: first.returnNumber,
      customer: { ...customer, name: 'Ben Adler', street1: '1 Main St', street2: undefined },
    });
    expect(purchases()).toHaveLength(2);
    expect(again.trackingNumber).not.toBe(label.trackingNumber);
    expect(fake.requests.filter((r) => r.path === '/shipments').at(-1)?.body).toMatchObject({
      address_to: { name: 'Ben Adler', street1: '1 Main St' },
    });
  });
});
