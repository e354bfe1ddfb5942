// A local stand-in for an S3 bucket that speaks S3's REST wire format, path-style (`/<bucket>/<key>`), for the calls
// the release-files adapter makes: PutObject, GetObject and HeadObject (404 NoSuchKey when absent), ListObjectsV2
// (`?list-type=2`, XML ListBucketResult paged with continuation tokens, `encoding-type=url` honoured), and
// DeleteObjects (`POST ?delete`, an XML Delete of at most 1000 keys with a checksum header, answered with a
// DeleteResult). Every request must carry a SigV4 Authorization header for the fake's access key, else 403
// AccessDenied. Shared by tests/contract/s3-release-files.test.ts and tests/db/release-files-s3.test.ts.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The path as it arrived (still percent-encoded). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** How many keys a DeleteObjects named. */
  deleteKeys?: number;
}

export interface StoredObject {
  body: Uint8Array;
  lastModified: Date;
}

export interface FakeS3 {
  /** Give it to the adapter as its endpoint (S3_ENDPOINT), with forcePathStyle. */
  endpoint: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The bucket's objects by key: tests read, change and age them directly. */
  objects: Map<string, StoredObject>;
  requests: RecordedRequest[];
  /** At most this many keys in one page of ListObjectsV2 (S3's is 1000). */
  pageSize: number;
  /** Makes the objects (those `keys` names, else all) look written `ms` earlier. */
  age(ms: number, keys?: Iterable<string>): void;
  /** The next request `matches` picks waits until `open` is called; `arrived` settles when it comes. */
  gate(matches: (request: RecordedRequest) => boolean): { arrived: Promise<void>; open(): void };
  stop(): Promise<void>;
}

const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const xml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
const unxml = (text: string) =>
  text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
const etag = (body: Uint8Array) => `"${createHash('md5').update(body).digest('hex')}"`;

function readBody(request: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    request.on('error', reject);
  });
}

function error(response: ServerResponse, status: number, code: string, message: string, key?: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xml(message)}</Message>${
    key === undefined ? '' : `<Key>${xml(key)}</Key>`
  }<RequestId>${randomBytes(8).toString('hex')}</RequestId></Error>`;
  response.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': randomBytes(8).toString('hex') });
  response.end(body);
}

/** Starts a fake bucket `bucket` on a free port of 127.0.0.1. */
export async function startFakeS3({ bucket = 'aurelia-releases', pageSize = 1000 } = {}): Promise<FakeS3> {
  const credentials = { accessKeyId: 'AKIAFAKES3TEST', secretAccessKey: randomBytes(20).toString('hex') };
  const objects = new Map<string, StoredObject>();
  const requests: RecordedRequest[] = [];
  const gates: { matches: (r: RecordedRequest) => boolean; arrive: () => void; opened: Promise<void> }[] = [];

  async function answer(request: IncomingMessage, response: ServerResponse, recorded: RecordedRequest): Promise<void> {
    const auth = request.headers.authorization ?? '';
    if (!auth.startsWith(`AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/`) || !request.headers['x-amz-date']) {
      return error(response, 403, 'AccessDenied', 'Access Denied');
    }
    const [, name = '', ...rest] = recorded.path.split('/');
    if (decodeURIComponent(name) !== bucket) return error(response, 404, 'NoSuchBucket', 'The specified bucket does not exist');
    const key = rest.map(decodeURIComponent).join('/');
    const { method } = recorded;
    if (key === '' && method === 'GET' && recorded.query.get('list-type') === '2') return list(response, recorded.query);
    if (key === '' && method === 'POST' && recorded.query.has('delete')) return remove(request, response, recorded);
    if (key === '') return error(response, 405, 'MethodNotAllowed', 'The specified method is not allowed');
    if (method === 'PUT') {
      const body = await readBody(request);
      objects.set(key, { body, lastModified: new Date() });
      response.writeHead(200, { etag: etag(body) });
      return void response.end();
    }
    if (method === 'GET' || method === 'HEAD') {
      const found = objects.get(key);
      if (!found) {
        if (method === 'HEAD') return void response.writeHead(404).end();
        return error(response, 404, 'NoSuchKey', 'The specified key does not exist.', key);
      }
      response.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(found.body.length),
        etag: etag(found.body),
        'last-modified': found.lastModified.toUTCString(),
      });
      return void response.end(method === 'GET' ? found.body : undefined);
    }
    return error(response, 405, 'MethodNotAllowed', 'The specified method is not allowed');
  }

  function list(response: ServerResponse, query: URLSearchParams): void {
    const prefix = query.get('prefix') ?? '';
    const max = Math.min(Number(query.get('max-keys') ?? 1000), fake.pageSize);
    const token = query.get('continuation-token');
    const after = token ? Buffer.from(token, 'base64url').toString() : (query.get('start-after') ?? '');
    const keys = [...objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
    const page = keys.slice(0, max);
    const truncated = keys.length > page.length;
    const url = query.get('encoding-type') === 'url';
    const name = (k: string) => xml(url ? encodeURIComponent(k).replaceAll('%2F', '/') : k);
    const contents = page
      .map((k) => {
        const o = objects.get(k) as StoredObject;
        return `<Contents><Key>${name(k)}</Key><LastModified>${o.lastModified.toISOString()}</LastModified><ETag>${xml(
          etag(o.body),
        )}</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join('');
    const next = truncated ? Buffer.from(page.at(-1) as string).toString('base64url') : null;
    response.writeHead(200, { 'content-type': 'application/xml' });
    response.end(
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="${XMLNS}"><Name>${xml(bucket)}</Name><Prefix>${name(
        prefix,
      )}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys>${url ? '<EncodingType>url</EncodingType>' : ''}<IsTruncated>${truncated}</IsTruncated>${
        token ? `<ContinuationToken>${xml(token)}</ContinuationToken>` : ''
      }${next ? `<NextContinuationToken>${next}</NextContinuationToken>` : ''}${contents}</ListBucketResult>`,
    );
  }

  async function remove(request: IncomingMessage, response: ServerResponse, recorded: RecordedRequest): Promise<void> {
    const body = Buffer.from(await readBody(request)).toString();
    // S3 refuses a DeleteObjects without an integrity check of its body.
    const checked = request.headers['content-md5'] || Object.keys(request.headers).some((h) => h.startsWith('x-amz-checksum-'));
    if (!checked) return error(response, 400, 'InvalidRequest', 'Missing required header for this request: Content-MD5');
    const keys = [...body.matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((m) => unxml(m[1] as string));
    recorded.deleteKeys = keys.length;
    if (keys.length === 0 || keys.length > 1000)
      return error(response, 400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate');
    const quiet = /<Quiet>true<\/Quiet>/.test(body);
    for (const key of keys) objects.delete(key);
    const deleted = quiet ? '' : keys.map((k) => `<Deleted><Key>${xml(k)}</Key></Deleted>`).join('');
    response.writeHead(200, { 'content-type': 'application/xml' });
    response.end(`<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="${XMLNS}">${deleted}</DeleteResult>`);
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
    };
    requests.push(recorded);
    const index = gates.findIndex((g) => g.matches(recorded));
    const gate = index === -1 ? undefined : gates.splice(index, 1)[0];
    gate?.arrive();
    const held = gate ? gate.opened : Promise.resolve();
    void held
      .then(() => answer(request, response, recorded))
      .catch((e: unknown) => error(response, 500, 'InternalError', String(e)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeS3 = {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    credentials,
    objects,
    requests,
    pageSize,
    age(ms, keys = objects.keys()) {
      for (const key of keys) {
        const object = objects.get(key);
        if (object) object.lastModified = new Date(object.lastModified.getTime() - ms);
      }
    },
    gate(matches) {
      let arrive = () => {};
      let open = () => {};
      const arrived = new Promise<void>((resolve) => {
        arrive = resolve;
      });
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      gates.push({ matches, arrive, opened });
      return { arrived, open };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
