import { createServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Address, type LabelRequest, shopParcel, WAREHOUSE } from '@/server/shipping/shipping.port';
import { createShippoShipping, dollarsToCents } from '@/server/shipping/shippo.server';
import { DEFAULT_SERVICES, type FakeShippo, startFakeShippo } from '../mocks/shippo';

const to: Address = {
  name: 'Maya Okafor',
  street1: '455 Market St',
  city: 'San Francisco',
  state: 'CA',
  zip: '94105',
  country: 'US',
  email: 'maya@example.com',
};
const parcel = shopParcel(2.5);

let fake: FakeShippo;
beforeAll(async () => {
  fake = await startFakeShippo();
});
afterAll(() => fake?.stop());
beforeEach(() => {
  fake.requests.length = 0;
});
afterEach(() => fake.offer(DEFAULT_SERVICES));

const shippo = () => createShippoShipping({ apiKey: fake.apiKey, serverURL: fake.url });
const lastRequest = (path: string) => fake.requests.filter((r) => r.path === path).at(-1);
/** The label purchases made (POST /transactions), not the lookups. */
const purchases = () => fake.requests.filter((r) => r.path === '/transactions' && r.method === 'POST');

let orders = 0;
/** A label request for a new order each time (the fake remembers every label bought, as Shippo does). */
async function chosenRate(service = 'Ground Advantage'): Promise<LabelRequest> {
  const rate = (await shippo().rates({ from: WAREHOUSE, to, parcel })).find((r) => r.service === service);
  if (!rate) throw new Error(`no ${service} rate`);
  orders += 1;
  return { from: WAREHOUSE, to, parcel, rate, orderNumber: `ORD-7F3A${String(orders).padStart(2, '0')}` };
}

describe('Shippo adapter: rates (shipments.create) against a fake speaking Shippo', () => {
  it('sends the token, both addresses, the parcel in inches and pounds, and asks for rates synchronously', async () => {
    await shippo().rates({ from: WAREHOUSE, to, parcel });

    const sent = lastRequest('/shipments');
    expect(sent?.method).toBe('POST');
    expect(sent?.headers.authorization).toBe(`ShippoToken ${fake.apiKey}`);
    expect(sent?.body).toEqual({
      address_from: {
        name: 'Aurelia',
        street1: '120 Peachtree St NE',
        city: 'Atlanta',
        state: 'GA',
        zip: '30303',
        country: 'US',
        email: 'hello@aurelia-care.com',
        phone: '(404) 555-0143',
      },
      address_to: {
        name: 'Maya Okafor',
        street1: '455 Market St',
        city: 'San Francisco',
        state: 'CA',
        zip: '94105',
        country: 'US',
        email: 'maya@example.com',
      },
      parcels: [{ length: '10', width: '8', height: '4', distance_unit: 'in', weight: '2.5', mass_unit: 'lb' }],
      async: false,
    });
  });

  it('sends the apartment or suite as street2 when the address has one', async () => {
    await shippo().rates({ from: WAREHOUSE, to: { ...to, street2: 'Suite 400' }, parcel });
    expect(lastRequest('/shipments')?.body).toMatchObject({
      address_to: { street1: '455 Market St', street2: 'Suite 400', city: 'San Francisco' },
    });
  });

  it('answers every rate in the app shape, in exact cents, cheapest first', async () => {
    const rates = await shippo().rates({ from: WAREHOUSE, to, parcel });

    expect(rates).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        provider: 'USPS',
        service: 'Ground Advantage',
        amountCents: 829,
        currency: 'USD',
        estimatedDays: 5,
      },
      {
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        provider: 'USPS',
        service: 'Priority Mail',
        amountCents: 985,
        currency: 'USD',
        estimatedDays: 2,
      },
      {
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        provider: 'UPS',
        service: 'Ground',
        amountCents: 1240,
        currency: 'USD',
        estimatedDays: null,
      },
    ]);
  });

  it('answers [] when no carrier serves the parcel, and leaves out rates it cannot charge in dollars', async () => {
    fake.offer([]);
    expect(await shippo().rates({ from: WAREHOUSE, to, parcel })).toEqual([]);
    fake.offer([
      { provider: 'DHL Express', name: 'Express Worldwide', token: 'dhl_ww', amount: '41.00', currency: 'EUR', estimatedDays: 3 },
    ]);
    expect(await shippo().rates({ from: WAREHOUSE, to, parcel })).toEqual([]);
  });

  it('turns a refusal into an Error whose message says what Shippo objected to', async () => {
    fake.failNext('/shipments', 400, { address_to: { zip: ['Enter a valid ZIP code.'] } });
    await expect(shippo().rates({ from: WAREHOUSE, to, parcel })).rejects.toThrow(
      'Shippo refused the rate request (HTTP 400): address_to.zip: Enter a valid ZIP code.',
    );
    fake.failNext('/shipments', 503, { detail: 'Service temporarily unavailable.' });
    await expect(shippo().rates({ from: WAREHOUSE, to, parcel })).rejects.toThrow(
      'Shippo refused the rate request (HTTP 503): Service temporarily unavailable.',
    );
  });

  it('turns a wrong token, a server that is down and an unreadable answer into clear Errors', async () => {
    await expect(
      createShippoShipping({ apiKey: 'shippo_test_wrong', serverURL: fake.url }).rates({ from: WAREHOUSE, to, parcel }),
    ).rejects.toThrow('Shippo refused the rate request (HTTP 401): Invalid token.');

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(
      createShippoShipping({ apiKey: fake.apiKey, serverURL: `http://127.0.0.1:${port}` }).rates({ from: WAREHOUSE, to, parcel }),
    ).rejects.toThrow('Shippo could not be reached for the rate request');

    // A server that accepts the connection and never answers: the SDK would wait forever without a timeout.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const silentPort = (silent.address() as { port: number }).port;
      const slow = createShippoShipping({ apiKey: fake.apiKey, serverURL: `http://127.0.0.1:${silentPort}`, timeoutMs: 300 });
      await expect(slow.rates({ from: WAREHOUSE, to, parcel })).rejects.toThrow('Shippo did not answer the rate request in time');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }

    // A 201 missing required fields: the SDK's schema check fails, and the message says so without the raw dump.
    fake.failNext('/shipments', 201, { object_id: 'x' });
    await expect(shippo().rates({ from: WAREHOUSE, to, parcel })).rejects.toThrow(
      /^Shippo sent a rate request answer we could not read$/,
    );
  });
});

describe('Shippo adapter: labels (transactions.create) against a fake speaking Shippo', () => {
  it('buys the chosen rate as a 4×6 PDF, synchronously, tagged with the order number', async () => {
    const request = await chosenRate();
    const label = await shippo().buyLabel(request);

    expect(lastRequest('/transactions')?.body).toEqual({
      rate: request.rate.id,
      label_file_type: 'PDF_4x6',
      async: false,
      metadata: `Order ${request.orderNumber}`,
    });
    const bought = fake.labels.at(-1);
    expect(label).toEqual({
      trackingNumber: bought?.trackingNumber,
      trackingUrl: `https://tools.usps.com/go/TrackConfirmAction_input?origTrackNum=${bought?.trackingNumber}`,
      file: { kind: 'url', url: `https://deliver.goshippo.com/${bought?.transactionId}.pdf` },
      rateId: request.rate.id,
      amountCents: 829,
      test: true,
    });
  });

  it('re-rates the same parcel and buys the same service when the chosen rate has expired', async () => {
    const request = await chosenRate('Priority Mail');
    fake.expireRates();
    fake.offer([
      { provider: 'USPS', name: 'Ground Advantage', token: 'usps_ground_advantage', amount: '8.29', estimatedDays: 5 },
      { provider: 'USPS', name: 'Priority Mail', token: 'usps_priority', amount: '10.15', estimatedDays: 2 },
    ]);
    const label = await shippo().buyLabel(request);

    const transactions = purchases();
    expect(transactions).toHaveLength(2);
    expect(label.rateId).not.toBe(request.rate.id);
    expect(transactions[1]?.body).toMatchObject({ rate: label.rateId, label_file_type: 'PDF_4x6', async: false });
    expect(fake.labels.at(-1)?.rateId).toBe(label.rateId);
    // What the label cost now, which the caller may compare with what the shopper paid (985).
    expect(label.amountCents).toBe(1015);
  });

  it('says so when the expired service is no longer offered, and buys nothing', async () => {
    const request = await chosenRate('Ground');
    fake.expireRates();
    fake.offer(DEFAULT_SERVICES.filter((s) => s.provider !== 'UPS'));
    const before = fake.labels.length;

    await expect(shippo().buyLabel(request)).rejects.toThrow(
      `Shippo refused rate ${request.rate.id} (UPS: This rate has expired. Please create a new shipment.) and no longer offers UPS Ground`,
    );
    expect(fake.labels).toHaveLength(before);
  });

  it('re-rates a rate id Shippo does not know (HTTP 400) too', async () => {
    const request = await chosenRate();
    const label = await shippo().buyLabel({ ...request, rate: { ...request.rate, id: 'f'.repeat(32) } });
    expect(label.rateId).not.toBe('f'.repeat(32));
    expect(fake.requests.filter((r) => r.path === '/shipments')).toHaveLength(2);
  });

  it('buys for a changed address from a fresh quote to it, never the rate quoted for the old one', async () => {
    const request = await chosenRate('Priority Mail');
    const moved: Address = { ...to, street1: '1 Dr Carlton B Goodlett Pl', zip: '94102' };
    // A label the lost answer of an attempt for the old address bought is not taken for the new one.
    fake.buyButLoseAnswer();
    await expect(shippo().buyLabel(request)).rejects.toThrow('HTTP 504');
    fake.requests.length = 0;

    const label = await shippo().buyLabel({ ...request, to: moved, addressKey: '0a1b2c3d' });
    const [quote] = fake.requests.filter((r) => r.path === '/shipments');
    expect(quote?.body).toMatchObject({ address_to: { street1: '1 Dr Carlton B Goodlett Pl', zip: '94102' } });
    expect(purchases()).toHaveLength(1);
    expect(purchases()[0]?.body).toMatchObject({
      rate: label.rateId,
      metadata: `Order ${request.orderNumber} to address 0a1b2c3d`,
    });
    expect(label.rateId).not.toBe(request.rate.id);
    // A retry after this purchase finds it by the new address's reference and buys nothing more.
    const again = await shippo().buyLabel({ ...request, to: moved, addressKey: '0a1b2c3d' });
    expect(again.trackingNumber).toBe(label.trackingNumber);
    expect(purchases()).toHaveLength(1);
  });

  it('never buys again after a server error: the label may have been bought, so the caller retries later', async () => {
    const request = await chosenRate();
    const before = fake.labels.length;
    fake.failNext('/transactions', 500, { detail: 'Internal server error.' });

    await expect(shippo().buyLabel(request)).rejects.toThrow(
      'Shippo refused the label purchase (HTTP 500): Internal server error.',
    );
    expect(purchases()).toHaveLength(1);
    expect(fake.labels).toHaveLength(before);
  });

  it('finds the label a timed-out purchase bought, instead of buying it twice', async () => {
    const request = await chosenRate();
    fake.buyButLoseAnswer();
    await expect(shippo().buyLabel(request)).rejects.toThrow('Shippo refused the label purchase (HTTP 504): Gateway timeout.');
    const bought = fake.labels.at(-1);

    // The outbox retries: the adapter asks Shippo what it bought for this order before buying.
    const label = await shippo().buyLabel(request);
    expect(lastRequest('/transactions')).toMatchObject({ method: 'GET' });
    expect(purchases()).toHaveLength(1);
    expect(label).toMatchObject({ trackingNumber: bought?.trackingNumber, rateId: request.rate.id, amountCents: 829 });
    // Another order's retry finds nothing of its own and buys its label.
    await shippo().buyLabel({ ...(await chosenRate()), orderNumber: 'ORD-000001' });
    expect(purchases()).toHaveLength(2);
  });

  it('buys nothing when it cannot ask what was bought before', async () => {
    const request = await chosenRate();
    const before = fake.labels.length;
    fake.failNext('/transactions', 503, { detail: 'Service temporarily unavailable.' }, 'GET');
    await expect(shippo().buyLabel(request)).rejects.toThrow('Shippo refused the label lookup (HTTP 503)');
    expect(purchases()).toHaveLength(0);
    expect(fake.labels).toHaveLength(before);
  });
});

describe('dollars to cents', () => {
  it.each([
    ['8.29', 829],
    ['0.1', 10],
    ['7', 700],
    ['10.10', 1010],
    ['12.345', 1235],
    ['12.344', 1234],
    ['1234.5', 123450],
  ])('%s → %i', (amount, cents) => {
    expect(dollarsToCents(amount)).toBe(cents);
  });

  it('refuses what is not a dollar amount', () => {
    for (const bad of ['', '-1.00', '1,00', 'abc', '1.2.3']) expect(() => dollarsToCents(bad)).toThrow(/cannot read/);
  });
});
