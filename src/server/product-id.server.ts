import { z } from 'astro/zod';

const MESSAGE = 'The product id must be a positive whole number.';

/** A product id in a URL path, written plainly: "7", not "07", "7.0", "1e1" or " 7". */
export const productIdParam = z
  .string({ error: MESSAGE })
  .regex(/^[1-9][0-9]{0,8}$/, { error: MESSAGE })
  .transform(Number);

/** A product id in a JSON body. */
export const productIdValue = z.int({ error: MESSAGE }).positive({ error: MESSAGE }).max(999_999_999, { error: MESSAGE });
