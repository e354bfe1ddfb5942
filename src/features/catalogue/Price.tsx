// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { formatPrice } from './catalogue';
import './price.css';

/**
 * A price as shoppers see it: the price, or during a sale a "Sale" mark, the regular price struck through and the sale
 * price. A screen reader reads "Sale: was $35.00, now $29.99" (struck-through text is read as a plain price). Rendered
 * on the server for the product page; in the home grid's island, the same markup.
 */
export default function Price({ priceCents, wasCents }: { priceCents: number; wasCents: number | null }) {
  const now = formatPrice(priceCents);
  if (wasCents === null) return <>{now}</>;
  const was = formatPrice(wasCents);
  return (
    <>
      <span className="visually-hidden">
        Sale: was {was}, now {now}
      </span>
      <span className="price-sale" aria-hidden="true">
        <span className="price-tag">Sale</span> <s>{was}</s> {now}
      </span>
    </>
  );
}
