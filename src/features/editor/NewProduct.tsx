import { type SubmitEvent, useId, useState } from 'react';
import { api } from '@/lib/api';
import type { Refusal } from './catalogue-form';
import { FieldProblem, fieldProps, problemsByInput } from './FieldProblem';

interface Props {
  /** The products to start from: file and name. */
  products: { file: string; name: string }[];
}

/** A new product, started as a copy of another (its pictures and texts), with its own name and SKU. */
export default function NewProduct(props: Props) {
  const id = useId();
  const [from, setFrom] = useState(props.products[0]?.file ?? '');
  const [name, setName] = useState('');
  const [sku, setSku] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [refusals, setRefusals] = useState<Refusal[]>([]);
  const [busy, setBusy] = useState(false);
  const problems = problemsByInput(refusals);

  async function create(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    setBusy(true);
    const r = await api<{ slug: string }>('/api/admin/catalogue/products', { from, name, sku });
    setBusy(false);
    if (r.ok) return window.location.assign(`/admin/catalogue/${r.data.slug}`);
    // The SKU or the name the shop cannot take is said beside it, and the focus goes there.
    const beside = (r.problems ?? []).filter((p) => p.field === 'sku' || p.field === 'name');
    setRefusals(beside);
    setError(`Not created: ${r.message}`);
    if (beside[0]) document.getElementById(`${id}-${beside[0].field}`)?.focus();
  }

  return (
    <details className="editor-new">
      <summary>New product</summary>
      <form onSubmit={create} noValidate>
        <p className="field-hint">
          A new product starts as a copy of another: change what differs, then save. It gets the next free address (/product/…);
          shoppers see it once the catalogue is published.
        </p>
        <div className="field">
          <label htmlFor={`${id}-from`}>Start from</label>
          <select id={`${id}-from`} value={from} onChange={(e) => setFrom(e.target.value)}>
            {props.products.map((p) => (
              <option key={p.file} value={p.file}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <FieldProblem base={id} input="name" problems={problems} />
          <input
            {...fieldProps(id, 'name', problems)}
            value={name}
            autoComplete="off"
            onChange={(e) => {
              setName(e.target.value);
              setRefusals((now) => now.filter((p) => p.field !== 'name'));
            }}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-sku`}>SKU</label>
          <FieldProblem base={id} input="sku" problems={problems} />
          <input
            {...fieldProps(id, 'sku', problems, `${id}-sku-hint`)}
            value={sku}
            autoComplete="off"
            onChange={(e) => {
              setSku(e.target.value);
              setRefusals((now) => now.filter((p) => p.field !== 'sku'));
            }}
          />
          <p className="field-hint" id={`${id}-sku-hint`}>
            Upper-case letters, digits and dashes; no other product may have it.
          </p>
        </div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn" disabled={busy}>
          Create product
        </button>
      </form>
    </details>
  );
}
