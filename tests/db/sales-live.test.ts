// A sale price on a real database (decisions 017, 018): a release holds its pages for each stretch of time in which the
// same sales run, and the publisher sends the next stretch's pages from the moment a sale starts or ends; a server that
// starts mid-sale serves the sale before it listens; and the checkout charges what the pages show: the sale price
// during the sale, the price before and after, and the price a payment was opened with for that payment's whole life.
// Rendering is a recorder here (tests/e2e/scheduled-changes.spec.ts runs the real one).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { catalogueIndex } from '@/features/catalogue/catalogue';
import type { Sale } from '@/features/catalogue/sale';
import { serveCatalogue } from '@/features/catalogue/served-catalogue.server';
import { recordOrder } from '@/features/checkout/order.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import { type ReleaseSwitch, requestPublish } from '@/features/editor/publish.server';
import { type PublishWorker, startPublisher } from '@/features/editor/publisher.server';
import { createTestProcessor } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { loadCatalogue } from '../unit/load-catalogue';
import { SAVANNAH } from './order-fixtures';
import { recordingSwitch } from './recording-switch';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
/** How soon after its moment a server sends the pages for it: the shop promises a minute; here the timer's lag. */
const SWITCH_MS = 1500;

const SCRUBS = '03-clinical-scrubs.md';
const seedScrubs = readFileSync(`content/products/${SCRUBS}`, 'utf8');
/** The scrubs' file with a sale of $39.00 from `start` to `end`. */
const onSale = (start: Date, end: Date) =>
  seedScrubs.replace(
    /^price: 45$/m,
    `price: 45\nsale:\n  price: 39\n  startsAt: '${start.toISOString()}'\n  endsAt: '${end.toISOString()}'`,
  );
const inSeconds = (s: number) => new Date(Date.now() + s * 1000);

// The publisher ---------------------------------------------------------------------------------------------------

const workers: PublishWorker[] = [];
function publisher(served: ReleaseSwitch, root?: string) {
  const worker = startPublisher(db, { served, checkEveryMs: 3_600_000, ...(root ? { root } : {}) });
  workers.push(worker);
  return worker;
}

async function save(text: string): Promise<void> {
  await db.query(
    `insert into public.catalogue_revisions (file, product_id, contents, author_email, summary)
     values ($1, 3, $2, 'editor@example.com', 'sale')`,
    [SCRUBS, text],
  );
}
const editor = { id: null, email: 'editor@example.com' };

beforeEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  serveCatalogue(null);
  await db.query('delete from public.catalogue_publishes');
  await db.query('delete from public.catalogue_releases');
  await db.query('delete from public.catalogue_release_files');
  await db.query('delete from public.catalogue_revisions');
});
afterAll(() => Promise.all(workers.splice(0).map((w) => w.stop())));

describe(`a sale goes live and ends on time, on ${TEST_DATABASE_KIND}`, () => {
  it('published before it starts: its pages go out at its start, and those of the price again at its end', async () => {
    const served = recordingSwitch();
    await publisher(served).caughtUp;
    expect(served.switches.map((s) => s.price)).toEqual([4500]);
    // Far enough ahead that the publish is live before the start even beside the whole suite on two cores (a start
    // 1.5 s ahead was passed by a publish at load 20, which then rightly went straight to the sale).
    const start = inSeconds(5);
    const end = inSeconds(7);
    await save(onSale(start, end));
    await requestPublish(db, editor);
    await expect.poll(() => served.switches.length, { timeout: 5000 }).toBe(2);
    // Published before the start: the price, then the sale from its start, then the price from its end.
    expect(served.switches[1]?.price).toBe(4500);
    expect(served.switches[1]?.at).toBeLessThan(start.getTime());
    await expect.poll(() => served.switches.length, { timeout: 8000 }).toBe(3);
    expect(served.switches[2]?.price).toBe(3900);
    expect(served.switches[2]?.at).toBeGreaterThanOrEqual(start.getTime());
    expect((served.switches[2]?.at ?? 0) - start.getTime()).toBeLessThan(SWITCH_MS);
    await expect.poll(() => served.switches.length, { timeout: 5000 }).toBe(4);
    expect(served.switches[3]?.price).toBe(4500);
    expect(served.switches[3]?.at).toBeGreaterThanOrEqual(end.getTime());
    expect((served.switches[3]?.at ?? 0) - end.getTime()).toBeLessThan(SWITCH_MS);
    // All rendered once, with the publish: the seed's pages, then the three stretches of the published catalogue.
    const pages = served.renders / 4;
    expect(Number.isInteger(pages) && pages > 10).toBe(true);
  }, 30_000);

  it('a sale that starts while its publish is being switched in is served from its start, not from its end', async () => {
    // The pages for the moment of the switch are readied before it; on a busy machine the sale can start meanwhile.
    // The sale's pages must follow at once: from the moment the pages were readied for, not from the switch (which
    // once left the price before the sale on the page until the sale's end, in scheduled-changes.spec.ts).
    const recorder = recordingSwitch();
    let hold: { until: number; readiedAt?: number } | null = null;
    const busy: ReleaseSwitch = {
      render: recorder.render,
      async prepare(files) {
        const held = hold;
        hold = null;
        if (held) {
          held.readiedAt = Date.now();
          await new Promise((resolve) => setTimeout(resolve, held.until - Date.now()));
        }
        return recorder.prepare(files);
      },
    };
    await publisher(busy).caughtUp;
    const start = inSeconds(5);
    const end = inSeconds(9);
    const publishHeld: { until: number; readiedAt?: number } = { until: start.getTime() + 500 };
    hold = publishHeld;
    await save(onSale(start, end));
    await requestPublish(db, editor);
    await expect.poll(() => recorder.switches.length, { timeout: 8000 }).toBeGreaterThanOrEqual(3);
    // Readied before the start and switched in after it: the price, then the sale at once.
    expect(publishHeld.readiedAt).toBeLessThan(start.getTime());
    expect(recorder.switches[1]?.price).toBe(4500);
    expect(recorder.switches[1]?.at).toBeGreaterThanOrEqual(start.getTime());
    expect(recorder.switches[2]?.price).toBe(3900);
    expect((recorder.switches[2]?.at ?? 0) - start.getTime()).toBeLessThan(500 + SWITCH_MS);
    await expect.poll(() => recorder.switches.length, { timeout: 8000 }).toBe(4);
    expect(recorder.switches[3]?.price).toBe(4500);
    expect(recorder.switches[3]?.at).toBeGreaterThanOrEqual(end.getTime());
  }, 30_000);

  it('a server that starts during a sale serves it before it listens', async () => {
    await save(onSale(inSeconds(-60), inSeconds(60)));
    await requestPublish(db, editor);
    const first = recordingSwitch();
    await publisher(first).caughtUp;
    await expect.poll(() => first.switches.map((s) => s.price), { timeout: 5000 }).toEqual([3900]);
    const restarted = recordingSwitch();
    await publisher(restarted).caughtUp;
    expect(restarted.switches.map((s) => s.price)).toEqual([3900]);
  });

  it('a seed that holds a sale is served priced for now from the first request', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aurelia-sale-seed-'));
    try {
      cpSync('content/products', join(root, 'content/products'), { recursive: true });
      writeFileSync(join(root, 'content/products', SCRUBS), onSale(inSeconds(-60), inSeconds(3600)));
      const served = recordingSwitch();
      await publisher(served, root).caughtUp;
      expect(served.switches.map((s) => s.price)).toEqual([3900]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

// The checkout --------------------------------------------------------------------------------------------------------

describe(`the checkout charges the price of the moment it is asked at, on ${TEST_DATABASE_KIND}`, () => {
  const sale: Sale = {
    priceCents: 1200,
    startsAt: new Date('2026-12-09T14:00:00Z'),
    endsAt: new Date('2026-12-10T05:00:00Z'),
  };
  const products = loadCatalogue().map(({ product }) => (product.id === 7 ? { ...product, sale } : product));
  /** The catalogue as the checkout prices it at `iso` (soap: $15.00, $12.00 during the sale). */
  const indexAt = (iso: string) => catalogueIndex(products, (p) => p.images[0]?.src ?? '', new Date(iso));
  const soap = { productId: 7, quantity: 2, selectedColor: null, selectedSize: null };
  const address = { ...SAVANNAH, email: 'sale@example.com', country: 'US' as const };
  const processor = () => createTestProcessor(db);

  async function open(at: string, previousClientSecret?: string) {
    const catalogue = indexAt(at);
    const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines: [soap] });
    if (!quoted.ok) throw new Error(quoted.message);
    const rateId = quoted.rates[0]?.id ?? '';
    const started = await startCheckout(db, processor(), catalogue, null, {
      lines: [soap],
      address,
      rateId,
      ...(previousClientSecret ? { previousClientSecret } : {}),
    });
    if (!started.ok) throw new Error(started.message);
    return started;
  }

  it('the sale price from its start (included) to its end (excluded), the price before and after', async () => {
    expect((await open('2026-12-09T13:59:59Z')).totals.subtotalCents).toBe(3000);
    expect((await open('2026-12-09T14:00:00Z')).totals.subtotalCents).toBe(2400);
    expect((await open('2026-12-10T04:59:59Z')).totals.subtotalCents).toBe(2400);
    expect((await open('2026-12-10T05:00:00Z')).totals.subtotalCents).toBe(3000);
  });

  it('a payment opened during the sale is paid at its price after the sale ended; one priced again is at the price', async () => {
    const during = await open('2026-12-09T23:00:00Z');
    // The sale ends; a shopper who opens a payment now is charged the price…
    expect((await open('2026-12-10T06:00:00Z')).totals.subtotalCents).toBe(3000);
    // …and the one who opened theirs during the sale pays what it said.
    await processor().confirm(during.clientSecret, { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' });
    const recorded = await recordOrder(db, processor(), during.paymentIntentId);
    if (!recorded.ok) throw new Error(recorded.message);
    const [order] = await db.query<{ subtotal_cents: number; total_cents: number }>(
      'select subtotal_cents, total_cents from public.orders where id = $1',
      [recorded.order.id],
    );
    expect(order).toEqual({ subtotal_cents: 2400, total_cents: during.amountCents });
    const items = await db.query<{ price_cents: number }>('select price_cents from public.order_items where order_id = $1', [
      recorded.order.id,
    ]);
    expect(items.map((i) => i.price_cents)).toEqual([1200]);

    // A shopper who goes back and opens the payment again after the end has it priced again, at the price.
    const again = await open('2026-12-09T23:30:00Z');
    const repriced = await open('2026-12-10T06:00:00Z', again.clientSecret);
    expect(repriced.paymentIntentId).toBe(again.paymentIntentId);
    expect(repriced.totals.subtotalCents).toBe(3000);
  });
});
