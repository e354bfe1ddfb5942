// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// An exchange's $0 replacement order (issue 43, part 3; decision 011), through the checkout's own path: a checkout
// opened and held like any (the same stock holds and caps), keyed by its return (`replacement_<return id>` in the
// place of a payment's id, unique as every checkout's and order's is), then sold and recorded once by recordReplacement
// under the checkout's lock, with its label and e-mails. Any number of calls, on any number of servers, send one.
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { parcelWeightLb } from '@/lib/pricing';
import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import type { Address } from '@/server/shipping/shipping.port';
import { holdCapsFor, itemLabel, keyOf, openAndHold, releaseCheckout, shortfalls } from '../stock/stock.server';
import type { CheckoutRate } from './checkout';
import { type CheckoutLine, recordReplacement } from './order.server';

/** What a replacement sends: the same product in another colour or size, to where the order went. */
export interface ReplacementInput {
  returnId: string;
  userId: string | null;
  /** Where the order went (its e-mail included: the confirmation goes there). */
  address: Address;
  /** The order's shipping method: the replacement goes the same way, at no charge. */
  rate: CheckoutRate;
  lines: { productId: number; quantity: number; selectedColor: string | null; selectedSize: string | null }[];
}

export type ReplacementResult =
  | { ok: true; orderId: string; created: boolean }
  | { ok: false; status: 404 | 409; message: string };

export type { CheckoutRate };

/** The key a return's replacement checkout and order are recorded by. */
const replacementKey = (returnId: string) => `replacement_${returnId}`;

/** Opens the replacement's checkout, holding its stock; its id, or why it cannot be (in the owner's words). */
async function openReplacement(
  db: Database,
  catalogue: CatalogueIndex,
  input: ReplacementInput,
): Promise<{ id: string } | { problem: string }> {
  const lines: CheckoutLine[] = [];
  for (const line of input.lines) {
    const product = catalogue.get(line.productId);
    if (!product?.inStock)
      return { problem: `${product?.name ?? `Product ${line.productId}`} is not sold now: refund the return instead.` };
    lines.push({
      ...line,
      name: product.name,
      category: product.category,
      priceCents: 0,
      sku: product.sku,
      image: product.image,
      label: itemLabel(catalogue, keyOf(line)),
      discountCents: 0,
      finalSale: product.finalSale,
    });
  }
  const { id, hold } = await openAndHold(
    db,
    {
      user_id: input.userId,
      lines,
      address: input.address,
      rate: { ...input.rate, amountCents: 0 },
      parcel_weight_lb: parcelWeightLb(lines, (productId) => catalogue.get(productId)?.weight),
      subtotal_cents: 0,
      shipping_cents: 0,
      tax_cents: 0,
      total_cents: 0,
      content_hash: `replacement:${input.returnId}`,
      client_key: null,
    },
    lines,
    holdCapsFor(input.userId, null),
  );
  if (!id) {
    const short = shortfalls(hold.counted, catalogue)
      .map((s) => (s.available > 0 ? `only ${s.available} of ${s.label} left` : `${s.label} is out of stock`))
      .join(', ');
    return {
      problem: `No replacement was sent: ${short || 'it could not be set aside'}. Refund the return instead, or try again later.`,
    };
  }
  return { id };
}

/** Sends a return's replacement, once: its order's id (`created` false when an earlier call sent it), or why not. */
export async function placeReplacement(
  db: Database,
  catalogue: CatalogueIndex,
  input: ReplacementInput,
): Promise<ReplacementResult> {
  const key = replacementKey(input.returnId);
  const [existing] = await serviceStatement<{ id: string }>(db, 'select id from public.checkouts where payment_intent_id = $1', [
    key,
  ]);
  if (!existing) {
    const opened = await openReplacement(db, catalogue, input);
    if ('problem' in opened) return { ok: false, status: 409, message: opened.problem };
    // Keyed by the return: of two calls that both opened one, the first to take the key sends it; the other lets go.
    const [keyed] = await serviceStatement<{ id: string }>(
      db,
      `update public.checkouts set payment_intent_id = $2
        where id = $1 and not exists (select 1 from public.checkouts where payment_intent_id = $2) returning id`,
      [opened.id, key],
    ).catch((error: unknown) => {
      // Another call took the key between the check and the update (the unique index said so): it sends it.
      if (error instanceof Error && 'code' in error && error.code === '23505') return [];
      throw error;
    });
    if (!keyed) {
      await releaseCheckout(db, opened.id);
      await serviceStatement(db, 'delete from public.checkouts where id = $1 and order_id is null', [opened.id]);
    }
  }
  const recorded = await recordReplacement(db, key);
  if (!recorded.ok) return { ok: false, status: recorded.status === 404 ? 404 : 409, message: recorded.message };
  return { ok: true, orderId: recorded.order.id, created: recorded.order.created };
}
