// Which encoding to send an answer in, from the request's Accept-Encoding: for the built files (from the encodings
// the build wrote, src/edge/static-files.ts) and for answers compressed as they are sent (src/edge/compression.ts).
import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import Negotiator from 'negotiator';

/** How many different Accept-Encoding headers negotiateEncoding remembers the answer for, and the longest it will. */
const NEGOTIATED_AT_MOST = 64;
const NEGOTIATED_HEADER_AT_MOST = 256;
const negotiated = new Map<string, string>();

/**
 * What an answer rendered per request can be sent in, best first (see compressing). zstd where this Node has it (22.15
 * and later; the project's engines allow 22.12).
 */
export const ON_DEMAND_ENCODINGS: readonly string[] =
  typeof zlib.zstdCompressSync === 'function' ? ['zstd', 'br', 'gzip'] : ['br', 'gzip'];

/**
 * The encoding to send an answer in: the first of `available` (best first) that the request accepts at its highest
 * weight; q-values decide otherwise (q=0 refuses one); a client that accepts none gets the answer as it is. zstd only
 * goes to a client that names it: `*` has long meant "gzip or brotli" to the clients that send it.
 *
 * The answer for a header already seen is remembered: browsers send one of a handful, and parsing one (Negotiator's
 * objects, arrays and sort) was 4 KB of the 9 KB more per request that compression allocated on a small JSON answer.
 * Only a bounded number of short headers are kept, so no client can make the map grow.
 * `available`: the encodings this answer can be sent in besides identity, best first. Returns one of them, or 'identity'.
 */
export function negotiateEncoding(req: IncomingMessage, available: readonly string[] = ON_DEMAND_ENCODINGS): string {
  const header = req.headers['accept-encoding'] ?? '';
  const key = header.length <= NEGOTIATED_HEADER_AT_MOST ? `${available}|${header}` : undefined;
  const known = key === undefined ? undefined : negotiated.get(key);
  if (known !== undefined) return known;
  const preferred = available.filter((e) => e !== 'zstd' || /(^|[\s,])zstd\s*(;|,|$)/i.test(header));
  // Nothing acceptable (`identity;q=0` with no coding we have): the answer as it is, as RFC 9110 (12.5.3) allows.
  const encoding = new Negotiator(req).encoding([...preferred, 'identity'], { preferred }) ?? 'identity';
  if (key !== undefined) {
    if (negotiated.size >= NEGOTIATED_AT_MOST) negotiated.clear();
    negotiated.set(key, encoding);
  }
  return encoding;
}
