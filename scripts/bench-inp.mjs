// Interaction latency on a phone profile: the shop's Chromium with a 390×844 touch screen and a 4× CPU slowdown, a
// shopper's taps from Add to Cart to paying. Each interaction's latency is what INP counts: the longest Event Timing
// entry (input delay + handlers + the next paint) sharing its interactionId, seen by a PerformanceObserver on 'event'
// entries with a 16 ms threshold (the smallest the browser reports: an interaction not seen took less).
//
// Used by scripts/bench-lighthouse.mjs; alone, against a running shop: node scripts/bench-inp.mjs http://127.0.0.1:4321
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath } from './chromium.mjs';

export const INP_BUDGET_MS = 200;
export const CPU_SLOWDOWN = 4;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Installed in every document before its own scripts: records the longest entry of each interaction. */
function observeInteractions() {
  /** @type {Map<number, number>} */
  const longest = new Map();
  Object.defineProperty(window, '__benchInteractions', { value: longest });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const id = /** @type {PerformanceEventTiming} */ (entry).interactionId;
      if (id) longest.set(id, Math.max(longest.get(id) ?? 0, entry.duration));
    }
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
}

/**
 * Runs `act` (one tap, and waiting for what it shows) and resolves to the latency of the interactions it made: the
 * longest, in ms, or 0 when the browser reported none over 16 ms.
 */
async function latency(page, act) {
  const before = await page.evaluate(() => [...window.__benchInteractions.keys()]);
  await act();
  // Event Timing entries are dispatched after the paint that ends them; two frames and a moment later they are in.
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 100)))),
  );
  const after = await page.evaluate(() => [...window.__benchInteractions.entries()]);
  const fresh = after.filter(([id]) => !before.includes(id)).map(([, ms]) => ms);
  return fresh.length ? Math.max(...fresh) : 0;
}

const hydrated = (page, selector) =>
  page.waitForFunction(
    (sel) => [...document.querySelectorAll('astro-island')].some((i) => i.querySelector(sel) && !i.hasAttribute('ssr')),
    selector,
  );

/** One shopper's path, tap by tap: the latency of each step, in ms. */
async function onePath(browser, origin) {
  const context = await browser.newContext({
    baseURL: origin,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
  });
  try {
    await context.addInitScript(observeInteractions);
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    await page.goto('/product/7');
    await hydrated(page, '.purchase');
    await hydrated(page, '.cart-badge');
    const steps = {};
    const count = page.getByTestId('cart-count');
    steps['Add to Cart'] = await latency(page, async () => {
      await page.getByRole('button', { name: 'Add to Cart' }).tap();
      await count.filter({ hasText: /^1$/ }).waitFor();
    });
    const drawer = page.getByRole('dialog', { name: 'Your cart' });
    steps['Open the cart drawer'] = await latency(page, async () => {
      await page
        .getByRole('banner')
        .getByRole('button', { name: /^Cart, / })
        .tap();
      await drawer.waitFor();
    });
    const checkout = page.getByRole('dialog', { name: 'Checkout' });
    const form = checkout.getByRole('form', { name: 'Shipping address' });
    steps['Checkout: to the address'] = await latency(page, async () => {
      await drawer.getByRole('button', { name: 'Checkout' }).tap();
      await form.waitFor();
    });
    await form.getByLabel('Full name').fill('Grace Hopper');
    await form.getByLabel('Email').fill(`grace.${Date.now()}@example.com`);
    await form.getByLabel('Street address').fill('12 Bull St');
    await form.getByLabel('City').fill('Savannah');
    await form.getByLabel('State').selectOption('GA');
    await form.getByLabel('ZIP code').fill('31401');
    const pay = checkout.getByRole('button', { name: /^Pay / });
    steps['Checkout: to payment'] = await latency(page, async () => {
      await form.getByRole('button', { name: 'Continue' }).tap();
      await checkout.getByRole('heading', { name: 'Shipping and payment' }).waitFor();
    });
    await checkout.getByLabel('Card number').fill('4242 4242 4242 4242');
    await checkout.getByLabel(/Expir/).fill('12/34');
    await checkout.getByLabel(/CVC/).fill('123');
    steps['Checkout: pay'] = await latency(page, async () => {
      await pay.tap();
      await page.getByText(/^Order [0-9a-f]{8} placed!/).waitFor();
    });
    return steps;
  } finally {
    await context.close();
  }
}

/**
 * The median latency of each step over `runs` paths, each in a fresh browser context (an empty cart).
 * @returns {Promise<{ step: string, ms: number, runs: number[] }[]>}
 */
export async function measureInteractions(origin, runs = 3) {
  const browser = await chromium.launch({ executablePath: await chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const all = [];
    for (let i = 0; i < runs; i++) all.push(await onePath(browser, origin));
    return Object.keys(all[0]).map((step) => {
      const values = all.map((r) => r[step]);
      return { step, ms: median(values), runs: values };
    });
  } finally {
    await browser.close();
  }
}

/** "< 16 ms" when the browser saw nothing over its threshold. */
export const formatLatency = (ms) => (ms === 0 ? '< 16 ms' : `${Math.round(ms)} ms`);

if (import.meta.url === `file://${process.argv[1]}`) {
  const origin = process.argv[2] ?? 'http://127.0.0.1:4321';
  const rows = await measureInteractions(origin, Number(process.env.BENCH_RUNS ?? 3));
  for (const r of rows)
    console.log(`${r.step}: ${formatLatency(r.ms)}${r.ms > INP_BUDGET_MS ? '  OVER BUDGET' : ''} (${r.runs.join(', ')})`);
}
