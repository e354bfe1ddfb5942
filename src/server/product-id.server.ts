import { z } from 'astro/zod';
import { problem } from './http.server';

/** The one rule for a product id, wherever it arrives: a positive whole number of at most nine digits. */
const MESSAGE = 'The product id must be a positive whole number.';

/** What to say when an id breaks the rule: a text, or one built from the issue (e.g. naming the cart line). */
type Message = string | ((issue: { path?: PropertyKey[] | undefined }) => string);

/** A product id in a URL path or query, written plainly: "7", not "07", "7.0", "1e1" or " 7". */
export function productIdParam(message: Message = MESSAGE) {
  return z
    .string({ error: message })
    .regex(/^[1-9][0-9]{0,8}$/, { error: message })
    .transform(Number);
}

/** A product id in a JSON body: a number, whole, positive, at most nine digits (so it fits an integer column). */
export function productIdValue(message: Message = MESSAGE) {
  return z.int({ error: message }).positive({ error: message }).max(999_999_999, { error: message });
}

/** The product id in a route's `[productId]` segment, or the 400 answer to return as it is. */
export function productIdInPath(segment: string | undefined): number | Response {
  const id = productIdParam().safeParse(segment);
  return id.success ? id.data : problem(400, 'invalid_request', id.error.issues[0]?.message ?? MESSAGE);
}
