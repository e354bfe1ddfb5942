// A local stand-in for Shippo's API (version 2018-02-08) that speaks its wire format for the calls the shipping
// adapter makes: POST /shipments (rates, async false; a return's with extra.is_return, which Shippo echoes), POST /transactions (label purchase, async false) and
// GET /transactions (the labels bought, to find one whose answer was lost). Creates answer HTTP 201 with every field the SDK's zod schemas require, so the real SDK parses them as it would Shippo's.
import { randomBytes, randomInt } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path without the query and the trailing slash, e.g. `/shipments`. */
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** One service level the fake offers on every shipment. */
export interface FakeService {
  provider: string;
  name: string;
  token: string;
  /** Dollars as Shippo writes them, e.g. '8.29'. */
  amount: string;
  currency?: string;
  /** null: Shippo sends `estimated_days: null` (the SDK drops nulls). */
  estimatedDays: number | null;
}

export interface FakeShippo {
  /** Give it to the SDK as `serverURL`. */
  url: string;
  /** The token the fake accepts (a test token, so labels come back `test: true`). */
  apiKey: string;
  requests: RecordedRequest[];
  /** Replaces the service levels offered from the next shipment on. */
  offer(services: readonly FakeService[]): void;
  /** The next request to the path (POST unless `method` says otherwise) is answered with this status and JSON body instead. */
  failNext(path: '/shipments' | '/transactions', status: number, body?: unknown, method?: 'GET' | 'POST'): void;
  /** The next label purchase is made, but its answer is lost: the client gets a 504, as after a gateway timeout. */
  buyButLoseAnswer(): void;
  /** Every rate issued so far expires: buying one answers status ERROR, as Shippo does for a stale rate. */
  expireRates(): void;
  /** Labels to this street (address_to.street1) are refused with status ERROR, as a carrier refuses an unknown address. */
  refuseLabelsTo(street1: string): void;
  /** Labels bought, in order, with the street each is addressed to (`isReturn`: on a shipment with extra.is_return). */
  labels: { transactionId: string; rateId: string; trackingNumber: string; street1: string; isReturn: boolean }[];
  stop(): Promise<void>;
}

/** Priced out of order on purpose (the adapter sorts), with an amount floats get wrong (8.29 × 100 = 828.999…). */
export const DEFAULT_SERVICES: readonly FakeService[] = [
  { provider: 'USPS', name: 'Priority Mail', token: 'usps_priority', amount: '9.85', estimatedDays: 2 },
  { provider: 'USPS', name: 'Ground Advantage', token: 'usps_ground_advantage', amount: '8.29', estimatedDays: 5 },
  { provider: 'UPS', name: 'Ground', token: 'ups_ground', amount: '12.40', estimatedDays: null },
];

const OWNER = 'aurelia@example.com';
const API_VERSION = '2018-02-08';

interface IssuedRate {
  id: string;
  service: FakeService;
  shipmentId: string;
  expired: boolean;
  /** The street of the shipment it was quoted for. */
  street1: string;
  isReturn: boolean;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

const id = () => randomBytes(16).toString('hex');
const now = () => new Date().toISOString();
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Shippo checks an address's required fields and answers field errors keyed like the request. */
function address(value: unknown, field: string) {
  if (!isObject(value)) throw new HttpError(400, { [field]: ['This field is required.'] });
  if (typeof value.country !== 'string' || value.country === '') {
    throw new HttpError(400, { [field]: { country: ['This field is required.'] } });
  }
  return {
    object_id: id(),
    is_complete: true,
    name: String(value.name ?? ''),
    company: '',
    street_no: '',
    street1: String(value.street1 ?? ''),
    street2: '',
    street3: '',
    city: String(value.city ?? ''),
    state: String(value.state ?? ''),
    zip: String(value.zip ?? ''),
    country: value.country,
    phone: String(value.phone ?? ''),
    email: String(value.email ?? ''),
    is_residential: null,
    test: true,
  };
}

function parcel(value: unknown) {
  const units = { distance_unit: ['cm', 'in', 'ft', 'm', 'mm', 'yd'], mass_unit: ['g', 'kg', 'lb', 'oz'] };
  if (!isObject(value)) throw new HttpError(400, { parcels: ['Expected a list of parcels.'] });
  for (const key of ['length', 'width', 'height', 'weight'] as const) {
    if (typeof value[key] !== 'string' || !/^\d{1,6}(\.\d{1,4})?$/.test(value[key])) {
      throw new HttpError(400, { parcels: [{ [key]: ['A valid number is required.'] }] });
    }
  }
  for (const [key, allowed] of Object.entries(units)) {
    if (!allowed.includes(String(value[key]))) throw new HttpError(400, { parcels: [{ [key]: ['Not a valid choice.'] }] });
  }
  return {
    object_state: 'VALID',
    object_created: now(),
    object_updated: now(),
    object_id: id(),
    object_owner: OWNER,
    template: null,
    length: value.length,
    width: value.width,
    height: value.height,
    distance_unit: value.distance_unit,
    weight: value.weight,
    mass_unit: value.mass_unit,
    metadata: '',
    extra: {},
    test: true,
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, { detail: 'JSON parse error' });
  }
}

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeShippo(): Promise<FakeShippo> {
  const apiKey = `shippo_test_${randomBytes(20).toString('hex')}`;
  const requests: RecordedRequest[] = [];
  const labels: FakeShippo['labels'] = [];
  const rates = new Map<string, IssuedRate>();
  const failures = new Map<string, { status: number; body: unknown }>();
  /** Every transaction created, newest first, as GET /transactions lists them. */
  const transactions: Record<string, unknown>[] = [];
  let loseNextAnswer = false;
  const refusedStreets = new Set<string>();
  let services: readonly FakeService[] = DEFAULT_SERVICES;

  function createShipment(body: unknown) {
    if (!isObject(body)) throw new HttpError(400, { detail: 'Expected an object.' });
    const addressFrom = address(body.address_from, 'address_from');
    const addressTo = address(body.address_to, 'address_to');
    if (!Array.isArray(body.parcels) || body.parcels.length === 0) {
      throw new HttpError(400, { parcels: ['This field is required.'] });
    }
    const parcels = body.parcels.map(parcel);
    const extra = isObject(body.extra) ? body.extra : {};
    if (extra.is_return !== undefined && typeof extra.is_return !== 'boolean') {
      throw new HttpError(400, { extra: { is_return: ['Must be a valid boolean.'] } });
    }
    const isReturn = extra.is_return === true;
    const shipmentId = id();
    const created = now();
    const offered = services.map((service) => {
      const rate: IssuedRate = { id: id(), service, shipmentId, expired: false, street1: addressTo.street1, isReturn };
      rates.set(rate.id, rate);
      const currency = service.currency ?? 'USD';
      return {
        object_created: created,
        object_id: rate.id,
        object_owner: OWNER,
        shipment: shipmentId,
        attributes: service.amount === '8.29' ? ['CHEAPEST'] : [],
        amount: service.amount,
        currency,
        amount_local: service.amount,
        currency_local: currency,
        provider: service.provider,
        provider_image_75: `https://shippo-static.s3.amazonaws.com/providers/75/${service.provider}.png`,
        provider_image_200: `https://shippo-static.s3.amazonaws.com/providers/200/${service.provider}.png`,
        servicelevel: { name: service.name, token: service.token, terms: '', extended_token: service.token },
        estimated_days: service.estimatedDays,
        arrives_by: null,
        duration_terms: service.estimatedDays === null ? '' : `Delivery in ${service.estimatedDays} business days.`,
        messages: [],
        carrier_account: id(),
        test: true,
        zone: '5',
      };
    });
    return {
      object_created: created,
      object_updated: created,
      object_id: shipmentId,
      object_owner: OWNER,
      status: 'SUCCESS',
      address_from: addressFrom,
      address_to: addressTo,
      address_return: addressFrom,
      parcels,
      shipment_date: created,
      extra,
      customs_declaration: null,
      alternate_address_to: null,
      rates: offered,
      carrier_accounts: [],
      messages: [],
      metadata: typeof body.metadata === 'string' ? body.metadata : '',
      test: true,
    };
  }

  function createTransaction(body: unknown) {
    if (!isObject(body) || typeof body.rate !== 'string') throw new HttpError(400, { rate: ['This field is required.'] });
    const rate = rates.get(body.rate);
    if (!rate) throw new HttpError(400, { rate: [`Rate with object_id ${body.rate} does not exist.`] });
    const created = now();
    const transactionId = id();
    const common = {
      object_created: created,
      object_updated: created,
      object_id: transactionId,
      object_owner: OWNER,
      rate: rate.id,
      metadata: typeof body.metadata === 'string' ? body.metadata : '',
      label_file_type: typeof body.label_file_type === 'string' ? body.label_file_type : 'PDF',
      test: true,
      parcel: id(),
      created_by: { first_name: 'Aurelia', last_name: 'Shop', username: OWNER },
    };
    const refused = refusedStreets.has(rate.street1) ? 'The address could not be found: check the street and ZIP code.' : null;
    if (rate.expired || refused) {
      return {
        ...common,
        object_state: 'INVALID',
        status: 'ERROR',
        tracking_number: '',
        tracking_status: 'UNKNOWN',
        tracking_url_provider: '',
        label_url: '',
        commercial_invoice_url: '',
        eta: null,
        messages: [
          { source: rate.service.provider, code: '', text: refused ?? 'This rate has expired. Please create a new shipment.' },
        ],
      };
    }
    const trackingNumber = `9400${String(randomInt(10 ** 9)).padStart(9, '0')}${String(randomInt(10 ** 9)).padStart(9, '0')}`;
    labels.push({ transactionId, rateId: rate.id, trackingNumber, street1: rate.street1, isReturn: rate.isReturn });
    const transaction = {
      ...common,
      object_state: 'VALID',
      status: 'SUCCESS',
      tracking_number: trackingNumber,
      tracking_status: 'UNKNOWN',
      tracking_url_provider: `https://tools.usps.com/go/TrackConfirmAction_input?origTrackNum=${trackingNumber}`,
      label_url: `https://deliver.goshippo.com/${transactionId}.pdf`,
      commercial_invoice_url: '',
      qr_code_url: '',
      eta: null,
      messages: [],
    };
    transactions.unshift(transaction);
    return transaction;
  }

  /** GET /transactions: filtered by object_status and rate, `results` per page (at most 100), newest first. */
  function listTransactions(query: URLSearchParams) {
    const status = query.get('object_status');
    const rate = query.get('rate');
    const results = Math.min(100, Number(query.get('results') ?? 25));
    const page = Number(query.get('page') ?? 1);
    const matching = transactions.filter((t) => (!status || t.status === status) && (!rate || t.rate === rate));
    const start = (page - 1) * results;
    return {
      next: start + results < matching.length ? `${url}/transactions?page=${page + 1}&results=${results}` : null,
      previous: page > 1 ? `${url}/transactions?page=${page - 1}&results=${results}` : null,
      results: matching.slice(start, start + results),
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const address = new URL(req.url ?? '/', 'http://fake');
    const path = address.pathname.replace(/\/+$/, '') || '/';
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json', 'Shippo-Api-Version': API_VERSION }).end(JSON.stringify(body));
    };
    try {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      if (req.headers.authorization !== `ShippoToken ${apiKey}`) throw new HttpError(401, { detail: 'Invalid token.' });
      const failure = failures.get(`${req.method} ${path}`);
      if (failure) {
        failures.delete(`${req.method} ${path}`);
        throw new HttpError(failure.status, failure.body);
      }
      if (req.method === 'POST' && path === '/shipments') return send(201, createShipment(body));
      if (req.method === 'POST' && path === '/transactions') {
        const created = createTransaction(body);
        if (!loseNextAnswer) return send(201, created);
        loseNextAnswer = false;
        throw new HttpError(504, { detail: 'Gateway timeout.' });
      }
      if (req.method === 'GET' && path === '/transactions') return send(200, listTransactions(address.searchParams));
      throw new HttpError(404, { detail: 'Not found.' });
    } catch (error) {
      if (error instanceof HttpError) return send(error.status, error.body);
      return send(500, { detail: String(error) });
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    apiKey,
    requests,
    labels,
    offer(next) {
      services = next;
    },
    failNext(path, status, body = { detail: `Fake failure ${status}` }, method = 'POST') {
      failures.set(`${method} ${path}`, { status, body });
    },
    buyButLoseAnswer() {
      loseNextAnswer = true;
    },
    expireRates() {
      for (const rate of rates.values()) rate.expired = true;
    },
    refuseLabelsTo(street1) {
      refusedStreets.add(street1);
    },
    stop() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
