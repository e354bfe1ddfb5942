import { createHash } from 'node:crypto';
import { fallbackShippingCents } from '@/lib/pricing';
import { isUsStateCode } from '@/lib/us-states';
import type { Label, LabelRequest, RatesRequest, ReturnLabelRequest, ShippingPort, ShippingRate } from './shipping.port';

// The embedded shipping default: no carrier, no keys. Standard Shipping is the spec's fallback rule, so
// a shop without Shippo charges exactly what the shop with Shippo falls back to. Express is the shop's own choice,
// not the spec's: a second, faster option keeps the rate chooser (and its "first rate is preselected" rule) honest in
// development and tests.

/** The provider name on the shop's own rates. */
export const RATE_TABLE_PROVIDER = 'Aurelia';

/** The services the rate table offers, cheapest first. */
export const RATE_TABLE_SERVICES = [
  { service: 'Standard Shipping', surchargeCents: 0, estimatedDays: 5 },
  { service: 'Express Shipping', surchargeCents: 1500, estimatedDays: 2 },
] as const;

/**
 * A stable id for one quote: the same service, addresses and parcel always give the same id, anything else another.
 * The server remembers every id it hands out with its amount, so the id needs to be distinct, not secret.
 */
function rateId(service: string, { from, to, parcel }: RatesRequest): string {
  const place = (a: RatesRequest['to']) =>
    [a.street1, ...(a.street2 ? [a.street2] : []), a.city, a.state, a.zip, a.country].map((s) => s.trim().toUpperCase());
  const quoted = JSON.stringify([
    'v1',
    service,
    place(from),
    place(to),
    parcel.length,
    parcel.width,
    parcel.height,
    parcel.weightLb,
  ]);
  return `table_${createHash('sha256').update(quoted).digest('hex').slice(0, 24)}`;
}

function quote(request: RatesRequest): ShippingRate[] {
  const state = request.to.state.trim().toUpperCase();
  if (!isUsStateCode(state)) throw new Error(`We ship to the 50 US states only, not to '${request.to.state}'`);
  if (!(request.parcel.weightLb > 0)) throw new Error('The parcel must weigh more than 0 lb');
  const standard = fallbackShippingCents(state, request.parcel.weightLb);
  return RATE_TABLE_SERVICES.map(({ service, surchargeCents, estimatedDays }) => ({
    id: rateId(service, request),
    provider: RATE_TABLE_PROVIDER,
    service,
    amountCents: standard + surchargeCents,
    currency: 'USD',
    estimatedDays,
  }));
}

/** The shipping port on the spec's rate rules, with test labels the shop stores itself. */
export function createRateTableShipping(): ShippingPort {
  return {
    name: 'rate table (test labels)',
    async rates(request) {
      return quote(request);
    },
    async buyLabel(request: LabelRequest): Promise<Label> {
      // Table rates never expire, so re-quoting by service always finds the rate the shopper chose.
      const rate = quote(request).find((r) => r.provider === request.rate.provider && r.service === request.rate.service);
      if (!rate) throw new Error(`No '${request.rate.service}' rate from ${request.rate.provider} in the shop's rate table`);
      // The label's drawing code (a PDF and a barcode library) is loaded with the first label, not with the server.
      const { testLabelPdf, testTrackingNumber } = await import('./test-label.server');
      const trackingNumber = testTrackingNumber(request.orderNumber);
      const bytes = await testLabelPdf({ ...request, trackingNumber, service: rate.service });
      return {
        trackingNumber,
        // A test tracking number exists at no carrier: no tracking page is better than one that says "not found".
        trackingUrl: null,
        file: { kind: 'pdf', bytes },
        rateId: rate.id,
        amountCents: rate.amountCents,
        test: true,
      };
    },
    async buyReturnLabel(request: ReturnLabelRequest): Promise<Label> {
      // From the customer back to the shop, at the table's standard rate for that parcel.
      const [rate] = quote({ from: request.customer, to: request.shop, parcel: request.parcel });
      if (!rate) throw new Error('The rate table has no rate for this return');
      const { testLabelPdf, testTrackingNumber } = await import('./test-label.server');
      const trackingNumber = testTrackingNumber(request.returnNumber);
      const bytes = await testLabelPdf({
        orderNumber: request.returnNumber,
        returnLabel: true,
        trackingNumber,
        from: request.customer,
        to: request.shop,
        parcel: request.parcel,
        service: `Return · ${rate.service}`,
      });
      return {
        trackingNumber,
        trackingUrl: null,
        file: { kind: 'pdf', bytes },
        rateId: rate.id,
        amountCents: rate.amountCents,
        test: true,
      };
    },
  };
}
