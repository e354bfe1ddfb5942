import { FieldProblem, fieldProps, type Problems } from './FieldProblem';
import { NO_SALE, SALE_INPUTS, type SaleInputs } from './sale-form';

interface Props {
  /** The form's id: each input's is `${base}-salePrice`, `${base}-saleStartsAt`, `${base}-saleEndsAt`. */
  base: string;
  value: SaleInputs;
  /** The form's refusals by input. */
  problems: Problems;
  timeZone: string;
  /** The sale as changed, and the fields whose refusals it answers. */
  onChange(value: SaleInputs, fields: readonly string[]): void;
}

/**
 * A product's sale in its form: a lower price, and when it starts (included) and ends (excluded), on the shop's clock.
 * Saved like any field; shoppers see it, and the checkout charges it, once published, from its start to its end.
 */
export default function SaleFields({ base, value, problems, timeZone, onChange }: Props) {
  const field = (key: keyof SaleInputs, label: string) => {
    const { input, field: path } = SALE_INPUTS[key];
    return (
      <div className="field">
        <label htmlFor={`${base}-${input}`}>{label}</label>
        <FieldProblem base={base} input={input} problems={problems} />
        <input
          {...fieldProps(base, input, problems)}
          type={key === 'price' ? 'text' : 'datetime-local'}
          value={value[key]}
          autoComplete="off"
          {...(key === 'price' ? { inputMode: 'decimal' as const } : { step: 1 })}
          onChange={(e) => onChange({ ...value, [key]: e.target.value }, [path])}
        />
      </div>
    );
  };
  return (
    <fieldset className="editor-sale" aria-describedby={`${base}-sale-hint`}>
      <legend>Sale (optional)</legend>
      <p className="field-hint" id={`${base}-sale-hint`}>
        A lower price for a while: shoppers see the price struck through beside it, and the checkout charges it, from the start
        (included) to the end (excluded), once published. Times are the shop’s ({timeZone}). Leave the three empty for no sale.
      </p>
      {field('price', 'Sale price, in dollars')}
      {field('startsAt', 'Sale starts')}
      {field('endsAt', 'Sale ends')}
      {(value.price || value.startsAt || value.endsAt) && (
        <button type="button" className="btn btn-outline" onClick={() => onChange(NO_SALE, ['sale'])}>
          Remove the sale
        </button>
      )}
    </fieldset>
  );
}
