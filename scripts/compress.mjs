// Content negotiation for compression, for scripts/serve.mjs: which encoding of an answer a request gets.
import Negotiator from 'negotiator';

/**
 * The encodings this server sends, best first: brotli, then gzip. A client that accepts both at the same weight gets
 * brotli; q-values decide otherwise (q=0 refuses one); a client that accepts neither gets the answer as it is.
 * @param {import('node:http').IncomingMessage} req
 * @param {readonly string[]} available the encodings this answer can be sent in, besides identity
 * @returns {string} 'br', 'gzip' or 'identity'
 */
export function negotiateEncoding(req, available = ['br', 'gzip']) {
  const preferred = ['br', 'gzip'].filter((e) => available.includes(e));
  // Nothing acceptable (`identity;q=0` with no coding we have): the answer as it is, as RFC 9110 (12.5.3) allows.
  return new Negotiator(req).encoding([...preferred, 'identity'], { preferred }) ?? 'identity';
}
