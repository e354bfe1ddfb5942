/**
 * Faults in the services around the shop, through the endpoints: Shippo answering 500 or not at all (a clear 502 in
 * time, and the fallback rate still pays), the mail endpoint down (the order is kept, its e-mails go out once, when it
 * is back), Stripe's answer to a create lost on the way (the SDK's retry reuses the idempotency key: one intent).
 * The process dying between payment and order is tests/db/order-recording.test.ts ("reconciliation records a payment
 * that succeeded without an order"); PostgreSQL restarting is tests/reliability/database-restart.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_RATE_ID } from '@/features/checkout/checkout';
import { createStripePayments } from '@/server/payments/stripe.server';
import { createShippoShipping } from '@/server/shipping/shippo.server';
import { startFakeShippo } from '../mocks/shippo';
import { startFakeStripe } from '../mocks/stripe';
import { ADDRESS, apiRequest, type Browser, call, expectJson, purchase, SOAP, signedIn, startShop, stopShop } from './harness';

/** A server that accepts connections and never answers: a carrier that has stopped responding. */
async function silentServer() {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((_req, res) => held.push(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => {
      for (const res of held) res.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A proxy in front of `target` that forwards every request, and for the first one matching `lose` lets it through but
 * cuts the connection before the answer reaches the client: the request was made, its answer lost.
 */
async function losingProxy(target: string, lose: (req: http.IncomingMessage) => boolean) {
  let lost = 0;
  const server = http.createServer((req, res) => {
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      if (lost === 0 && lose(req)) {
        lost++;
        answer.resume();
        answer.on('end', () => res.socket?.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    lost: () => lost,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const rates = (jar?: Browser) =>
  call(apiRequest('POST', '/api/shippo-rates', { toAddress: ADDRESS, lines: [SOAP] }), jar ? { jar } : {});

describe('Shippo answering 500 or not at all', () => {
  const shippo = { fake: undefined as Awaited<ReturnType<typeof startFakeShippo>> | undefined };
  const silent = { server: undefined as Awaited<ReturnType<typeof silentServer>> | undefined };
  let useSilent = false;

  beforeAll(async () => {
    shippo.fake = await startFakeShippo();
    silent.server = await silentServer();
    const { fake, server } = { fake: shippo.fake, server: silent.server };
    const live = createShippoShipping({ apiKey: fake.apiKey, serverURL: fake.url, timeoutMs: 1_000 });
    const dead = createShippoShipping({ apiKey: fake.apiKey, serverURL: server.url, timeoutMs: 1_000 });
    await startShop({ ADDRESS_LIMIT_FACTOR: '1000' }, () => ({
      shipping: {
        name: 'shippo',
        rates: (r) => (useSilent ? dead : live).rates(r),
        buyLabel: (l) => live.buyLabel(l),
        buyReturnLabel: (l) => live.buyReturnLabel(l),
      },
    }));
  }, 120_000);
  afterAll(async () => {
    await stopShop();
    await shippo.fake?.stop();
    await silent.server?.stop();
  });

  it('a 500 is a JSON 502 and the fallback rate still opens the payment, priced by its rule', async () => {
    shippo.fake?.failNext('/shipments', 500);
    const res = await rates();
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    const opened = await expectJson<{ amountCents: number; totals: { shippingCents: number } }>(
      call(apiRequest('POST', '/api/create-payment-intent', { lines: [SOAP], address: ADDRESS, rateId: FALLBACK_RATE_ID })),
      200,
    );
    // Texas is not near the Georgia warehouse: $15 base plus $3 a whole pound (product spec).
    expect(opened.totals.shippingCents).toBeGreaterThanOrEqual(1_500);
    // And Shippo answers again on the next ask.
    expect((await rates()).status).toBe(200);
  });

  it('a Shippo that does not answer is a JSON 502 within its time limit, not a hung checkout', async () => {
    useSilent = true;
    try {
      const started = Date.now();
      const res = await rates();
      expect(res.status).toBe(502);
      expect(Date.now() - started).toBeLessThan(8_000);
      const opened = await call(
        apiRequest('POST', '/api/create-payment-intent', { lines: [SOAP], address: ADDRESS, rateId: FALLBACK_RATE_ID }),
      );
      expect(opened.status).toBe(200);
    } finally {
      useSilent = false;
    }
  });
});

describe('the mail endpoint down', () => {
  let shop: Awaited<ReturnType<typeof startShop>>;
  beforeAll(async () => {
    shop = await startShop({ ADDRESS_LIMIT_FACTOR: '1000' });
  }, 120_000);
  afterAll(stopShop);

  it('keeps the order, and sends its e-mails once when the endpoint is back', async () => {
    const ann = await signedIn(shop, 'ann@example.com');
    await shop.runOutbox();
    shop.sent.length = 0;
    shop.mailDown.value = true;
    const { orderId } = await purchase(ann);
    const down = await shop.runOutbox();
    expect(down.failed).toBeGreaterThanOrEqual(2);
    expect(shop.sent).toEqual([]);
    expect(await shop.db.query('select id from public.orders where id = $1', [orderId])).toHaveLength(1);

    shop.mailDown.value = false;
    // Past the backoff of the failed attempts.
    const later = new Date(Date.now() + 3_600_000);
    await shop.runOutbox(later);
    await shop.runOutbox(later);
    expect(shop.sent.map((m) => m.to).sort()).toEqual([ADDRESS.email, shop.services.config.shopEmail].sort());
  });
});

describe('Stripe’s answer to a create lost on the way', () => {
  let fake: Awaited<ReturnType<typeof startFakeStripe>>;
  let proxy: Awaited<ReturnType<typeof losingProxy>>;
  beforeAll(async () => {
    fake = await startFakeStripe();
    proxy = await losingProxy(fake.origin, (req) => req.method === 'POST' && req.url === '/v1/payment_intents');
    await startShop({ ADDRESS_LIMIT_FACTOR: '1000' }, () => ({
      payments: createStripePayments({
        secretKey: fake.secretKey,
        publishableKey: fake.publishableKey,
        webhookSecret: 'whsec_test_faults',
        api: { host: '127.0.0.1', port: proxy.port, protocol: 'http' },
      }),
    }));
  }, 120_000);
  afterAll(async () => {
    await stopShop();
    await proxy.stop();
    await fake.stop();
  });

  it('the retry carries the same idempotency key, and there is one intent', async () => {
    const quoted = await expectJson<{ rates: { object_id: string }[] }>(rates(), 200);
    const opened = await expectJson<{ paymentIntentId: string }>(
      call(
        apiRequest('POST', '/api/create-payment-intent', { lines: [SOAP], address: ADDRESS, rateId: quoted.rates[0]?.object_id }),
      ),
      200,
    );
    expect(proxy.lost()).toBe(1);
    const creates = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
    expect(creates).toHaveLength(2);
    expect(creates[0]?.idempotencyKey).toBeTruthy();
    expect(creates[1]?.idempotencyKey).toBe(creates[0]?.idempotencyKey);
    expect(fake.intent(opened.paymentIntentId)).toBeDefined();
    const intents = new Set(
      fake.requests.filter((r) => r.path.startsWith('/v1/payment_intents/')).map((r) => r.path.split('/')[3]),
    );
    expect([...intents].every((id) => id === opened.paymentIntentId)).toBe(true);
  });
});
