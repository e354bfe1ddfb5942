import { Shippo } from 'shippo';
import type { Rate, Transaction } from 'shippo/models/components';
import {
  ConnectionError,
  RequestAbortedError,
  RequestTimeoutError,
  ResponseValidationError,
  SDKValidationError,
  ShippoError,
} from 'shippo/models/errors';
import type {
  Address,
  Label,
  LabelRequest,
  Parcel,
  RatesRequest,
  ReturnLabelRequest,
  ShippingPort,
  ShippingRate,
} from './shipping.port';

// The production shipping adapter on Shippo's official SDK (v2, camelCase). Shippo's shapes stay in this file.

export interface ShippoShippingOptions {
  /** A Shippo API token: `shippo_live_…` buys real postage, `shippo_test_…` test labels. */
  apiKey: string;
  /** Another server speaking Shippo's API: the contract tests' fake. Unset in production. */
  serverURL?: string;
  /** Milliseconds per call. Rating many carriers synchronously can take several seconds; the SDK's default is no limit. */
  timeoutMs?: number;
}

const TIMEOUT_MS = 30_000;

/** A decimal dollar string such as '7.5' or '12.345' to integer cents, without a float in between (half a cent rounds up). */
export function dollarsToCents(amount: string): number {
  const match = /^\s*(\d+)(?:\.(\d*))?\s*$/.exec(amount);
  if (!match) throw new Error(`Shippo sent an amount we cannot read: '${amount}'`);
  const [, whole = '0', fraction = ''] = match;
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
  return cents + (Number(fraction[2] ?? '0') >= 5 ? 1 : 0);
}

/** Shippo wants decimal strings of at most four places for sizes and weights. */
const decimal = (n: number) => String(Math.round(n * 10_000) / 10_000);

function shippoAddress(a: Address) {
  return {
    name: a.name,
    street1: a.street1,
    ...(a.street2 ? { street2: a.street2 } : {}),
    city: a.city,
    state: a.state,
    zip: a.zip,
    country: a.country,
    ...(a.email ? { email: a.email } : {}),
    ...(a.phone ? { phone: a.phone } : {}),
  };
}

function shippoParcel(p: Parcel) {
  return {
    length: decimal(p.length),
    width: decimal(p.width),
    height: decimal(p.height),
    distanceUnit: 'in',
    weight: decimal(p.weightLb),
    massUnit: 'lb',
  } as const;
}

/** The texts of Shippo's `messages` (carrier remarks), for an error message. */
function messageTexts(messages: readonly { source?: string | undefined; text?: string | undefined }[] | undefined): string {
  return (messages ?? [])
    .map((m) => [m.source, m.text].filter(Boolean).join(': '))
    .filter(Boolean)
    .join('; ');
}

/** Shippo's 4xx bodies are `{"detail": "…"}` or field errors such as `{"address_to": {"zip": ["…"]}}`. */
function problem(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body.trim().slice(0, 200) || 'no details';
  }
  const flatten = (value: unknown, path: string): string[] => {
    if (typeof value === 'string') return [path ? `${path}: ${value}` : value];
    if (Array.isArray(value)) return value.flatMap((v) => flatten(v, path));
    if (value && typeof value === 'object') {
      return Object.entries(value).flatMap(([k, v]) =>
        flatten(v, k === 'detail' || k === '__all__' ? path : path ? `${path}.${k}` : k),
      );
    }
    return [];
  };
  return flatten(parsed, '').join('; ').slice(0, 300) || 'no details';
}

/** Why a call failed, in words the endpoint can show ('Shipping calculation failed: {message}') and the outbox can log. */
function explain(what: string, error: unknown): Error {
  let message: string;
  // ResponseValidationError extends ShippoError, so it is checked first.
  if (error instanceof ResponseValidationError || error instanceof SDKValidationError) {
    message = `Shippo sent a ${what} answer we could not read`;
  } else if (error instanceof ShippoError) {
    message = `Shippo refused the ${what} (HTTP ${error.statusCode}): ${problem(error.body)}`;
  } else if (error instanceof RequestTimeoutError || error instanceof RequestAbortedError) {
    message = `Shippo did not answer the ${what} in time`;
  } else if (error instanceof ConnectionError) {
    message = `Shippo could not be reached for the ${what}`;
  } else {
    message = `Shippo ${what} failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  return new Error(message, { cause: error });
}

/** Whether Shippo definitely bought nothing: it answered, and said no. Only then is re-rating safe from double postage. */
function definitelyNotBought(error: unknown): boolean {
  return error instanceof ShippoError && !(error instanceof ResponseValidationError) && error.statusCode < 500;
}

function toRate(rate: Rate): ShippingRate {
  return {
    id: rate.objectId,
    provider: rate.provider,
    service: rate.servicelevel.name ?? rate.servicelevel.token ?? 'Shipping',
    amountCents: dollarsToCents(rate.amount),
    currency: 'USD',
    estimatedDays: rate.estimatedDays ?? null,
  };
}

/** The shipping port on Shippo: rates from `shipments.create`, labels from `transactions.create`, both synchronous. */
export function createShippoShipping({ apiKey, serverURL, timeoutMs = TIMEOUT_MS }: ShippoShippingOptions): ShippingPort {
  const client = new Shippo({
    // The SDK only adds the 'ShippoToken ' scheme to keys that start with 'shippo_'; say it ourselves for any key.
    apiKeyHeader: apiKey.startsWith('ShippoToken ') ? apiKey : `ShippoToken ${apiKey}`,
    ...(serverURL ? { serverURL } : {}),
    timeoutMs,
    // No SDK retries: a retried label purchase could buy postage twice. The outbox retries, knowing what it recorded.
    retryConfig: { strategy: 'none' },
  });
  const testMode = apiKey.includes('shippo_test_');

  async function rates({ from, to, parcel }: RatesRequest, isReturn = false): Promise<ShippingRate[]> {
    let shipment: Awaited<ReturnType<typeof client.shipments.create>>;
    try {
      shipment = await client.shipments.create({
        addressFrom: shippoAddress(from),
        addressTo: shippoAddress(to),
        parcels: [shippoParcel(parcel)],
        // A return: Shippo swaps the addresses itself (the outbound's sender and recipient are sent as they were).
        ...(isReturn ? { extra: { isReturn: true } } : {}),
        async: false,
      });
    } catch (error) {
      throw explain(isReturn ? 'return rate request' : 'rate request', error);
    }
    if (shipment.status === 'ERROR') {
      throw new Error(`Shippo could not rate this parcel: ${messageTexts(shipment.messages) || 'no details'}`);
    }
    return (
      shipment.rates
        // The shop charges in dollars; a rate in another currency cannot be shown or charged as it is.
        .filter((r) => r.currency === 'USD')
        .map(toRate)
        // Cheapest first: the spec preselects the first rate.
        .sort((a, b) => a.amountCents - b.amountCents)
    );
  }

  /** What a label is bought with, and found again by: the order, and the address's key when it was changed. */
  const reference = ({ orderNumber, addressKey }: Pick<LabelRequest, 'orderNumber' | 'addressKey'>) =>
    `Order ${orderNumber}${addressKey ? ` to address ${addressKey}` : ''}`.slice(0, 100);
  /** What a return label is bought with, and found again by: the return number and the return's own id. */
  const returnReference = ({ returnNumber, returnId }: Pick<ReturnLabelRequest, 'returnNumber' | 'returnId'>) =>
    `Return ${returnNumber} ${returnId}`.slice(0, 100);

  async function buy(rateId: string, metadata: string): Promise<Transaction> {
    const transaction = await client.transactions.create({
      rate: rateId,
      labelFileType: 'PDF_4x6',
      async: false,
      metadata,
    });
    if (transaction.status !== 'SUCCESS') {
      throw new LabelRefused(messageTexts(transaction.messages) || `transaction ${transaction.status ?? 'without status'}`);
    }
    return transaction;
  }

  function toLabel(transaction: Transaction, rate: Pick<ShippingRate, 'id' | 'amountCents'>): Label {
    const { trackingNumber, labelUrl } = transaction;
    if (!trackingNumber || !labelUrl) throw new Error('Shippo bought a label but sent no tracking number or label URL');
    return {
      trackingNumber,
      trackingUrl: transaction.trackingUrlProvider || null,
      file: { kind: 'url', url: labelUrl },
      rateId: rate.id,
      amountCents: rate.amountCents,
      test: transaction.test ?? testMode,
    };
  }

  /**
   * The label an earlier attempt bought for this order, found by the reference it was bought with. A purchase whose
   * answer was lost (a timeout, a 5xx) may have gone through; the retry must find it rather than pay again. Shippo
   * lists newest first, and the outbox retries within the hour, so the last 100 labels are enough to look through.
   * When the list itself fails, nothing is bought: the caller retries later.
   */
  async function boughtBefore(metadata: string): Promise<Transaction | null> {
    let page: Awaited<ReturnType<typeof client.transactions.list>>;
    try {
      page = await client.transactions.list({ objectStatus: 'SUCCESS', results: 100 });
    } catch (error) {
      throw explain('label lookup', error);
    }
    return (page.results ?? []).find((t) => t.metadata === metadata) ?? null;
  }

  return {
    name: testMode ? 'Shippo (test token)' : 'Shippo',
    rates,
    async buyLabel(request: LabelRequest): Promise<Label> {
      const earlier = await boughtBefore(reference(request));
      if (earlier) {
        const rateId = typeof earlier.rate === 'string' ? earlier.rate : (earlier.rate?.objectId ?? request.rate.id);
        // Bought for the chosen rate, or (rarely) for a re-quote of it whose price this list does not carry.
        return toLabel(earlier, { id: rateId, amountCents: request.rate.amountCents });
      }
      let firstFailure: unknown;
      if (request.addressKey) {
        // The chosen rate belongs to a shipment to the old address: buying it would print that address.
        firstFailure = new LabelRefused('the address changed since the rate was quoted');
      } else {
        try {
          return toLabel(await buy(request.rate.id, reference(request)), request.rate);
        } catch (error) {
          // A timeout or a 5xx may have bought the label after all: buying again could pay twice. Let the caller retry later.
          if (!(error instanceof LabelRefused) && !definitelyNotBought(error)) throw explain('label purchase', error);
          firstFailure = error;
        }
      }
      // Shippo refused the rate (most often: it expired, as rate ids do after some days). Quote the same parcel again
      // and buy the same provider and service, whatever it costs now: the shopper has paid, the parcel must ship.
      const fresh = (await rates(request)).find(
        (r) => r.provider === request.rate.provider && r.service === request.rate.service,
      );
      const why = firstFailure instanceof LabelRefused ? firstFailure.message : explain('label purchase', firstFailure).message;
      if (!fresh) {
        throw new Error(
          `Shippo refused rate ${request.rate.id} (${why}) and no longer offers ${request.rate.provider} ${request.rate.service}`,
        );
      }
      try {
        return toLabel(await buy(fresh.id, reference(request)), fresh);
      } catch (error) {
        throw error instanceof LabelRefused
          ? new Error(`Shippo refused the label for order ${request.orderNumber}: ${error.message}`)
          : explain('label purchase', error);
      }
    },
    /**
     * A scan-based return label (Shippo charges it only once it is used), from the outbound's carrier as Shippo
     * requires: its service when offered, else its cheapest. Found again by its reference when an earlier purchase's
     * answer was lost.
     */
    async buyReturnLabel(request: ReturnLabelRequest): Promise<Label> {
      const metadata = returnReference(request);
      const earlier = await boughtBefore(metadata);
      if (earlier) {
        const rateId = typeof earlier.rate === 'string' ? earlier.rate : (earlier.rate?.objectId ?? '');
        return toLabel(earlier, { id: rateId, amountCents: 0 });
      }
      const offered = (await rates({ from: request.shop, to: request.customer, parcel: request.parcel }, true)).filter(
        (r) => r.provider === request.outbound.provider,
      );
      const rate = offered.find((r) => r.service === request.outbound.service) ?? offered[0];
      if (!rate) throw new Error(`Shippo offers no ${request.outbound.provider} return label for this parcel`);
      try {
        return toLabel(await buy(rate.id, metadata), rate);
      } catch (error) {
        throw error instanceof LabelRefused
          ? new Error(`Shippo refused the return label ${request.returnNumber}: ${error.message}`)
          : explain('return label purchase', error);
      }
    },
  };
}

/** Shippo answered the purchase with status ERROR: nothing was bought. */
class LabelRefused extends Error {}
