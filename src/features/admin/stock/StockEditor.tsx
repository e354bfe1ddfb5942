import { type SubmitEvent, useId, useState } from 'react';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import { countText, parseCount, STOCK_ADMIN_MESSAGES, type StockPageAnswer, type StockRow } from './stock-admin';

interface Props {
  rows: StockRow[];
  lowStockThreshold: number;
}

/**
 * The owner's counts: one field per product, and per colour × size of the scrubs (blank: unlimited), and the low-stock
 * threshold. Saving sends only what changed, each with the count the page showed, so the server refuses (and says)
 * when a sale or another admin changed it meanwhile; the answer is every row as it is then.
 */
export default function StockEditor(props: Props) {
  const id = useId();
  const [rows, setRows] = useState(props.rows);
  const [threshold, setThreshold] = useState(props.lowStockThreshold);
  const [typed, setTyped] = useState<Record<string, string>>({});
  const [typedThreshold, setTypedThreshold] = useState(String(props.lowStockThreshold));
  const [errors, setErrors] = useState<Record<string, boolean>>({});
  const [busy, setBusy] = useState(false);
  const text = (row: StockRow) => typed[row.id] ?? countText(row.onHand);

  async function save(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const wrong: Record<string, boolean> = {};
    const counts = [];
    for (const row of rows) {
      const value = parseCount(text(row));
      if (value === undefined) wrong[row.id] = true;
      else if (value !== row.onHand)
        counts.push({
          productId: row.productId,
          selectedColor: row.selectedColor,
          selectedSize: row.selectedSize,
          onHand: value,
          from: row.onHand,
        });
    }
    const newThreshold = parseCount(typedThreshold);
    if (newThreshold === undefined || newThreshold === null) wrong.threshold = true;
    setErrors(wrong);
    const first = Object.keys(wrong)[0];
    if (first) {
      document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    const thresholdChanged = newThreshold !== threshold;
    if (counts.length === 0 && !thresholdChanged) return notify.info(STOCK_ADMIN_MESSAGES.nothingChanged);
    setBusy(true);
    const r = await api<StockPageAnswer>('/api/admin/stock', {
      counts,
      ...(thresholdChanged ? { lowStockThreshold: newThreshold } : {}),
    });
    setBusy(false);
    if (!r.ok) return notify.failure('The counts were not saved', r);
    setRows(r.data.rows);
    setThreshold(r.data.lowStockThreshold);
    setTypedThreshold(String(r.data.lowStockThreshold));
    setTyped({});
    notify.success(r.data.message);
  }

  const field = (key: string, label: string, value: string, onChange: (v: string) => void) => {
    const fieldId = `${id}-${key}`;
    return (
      <>
        <label htmlFor={fieldId} className="visually-hidden">
          {label}
        </label>
        <input
          id={fieldId}
          className="admin-count-input"
          inputMode="numeric"
          autoComplete="off"
          value={value}
          aria-invalid={errors[key] || undefined}
          aria-describedby={errors[key] ? `${id}-error` : undefined}
          onChange={(e) => onChange(e.target.value)}
        />
      </>
    );
  };

  return (
    <form className="admin-stock" onSubmit={save} noValidate>
      {Object.keys(errors).length > 0 && (
        <p id={`${id}-error`} className="form-error" role="alert">
          {STOCK_ADMIN_MESSAGES.notACount}
        </p>
      )}
      <div className="field admin-threshold">
        <label htmlFor={`${id}-threshold`}>Low stock: list an item on the overview when this many or fewer are left</label>
        <input
          id={`${id}-threshold`}
          className="admin-count-input"
          inputMode="numeric"
          autoComplete="off"
          value={typedThreshold}
          aria-invalid={errors.threshold || undefined}
          aria-describedby={errors.threshold ? `${id}-error` : undefined}
          onChange={(e) => setTypedThreshold(e.target.value)}
        />
      </div>
      <section className="admin-table-wrap" aria-label="Counts">
        <table className="admin-table admin-stock-table">
          <caption className="visually-hidden">Stock of every product, colour and size</caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">On hand</th>
              <th scope="col">Held in checkouts</th>
              <th scope="col">Can be bought</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} className={row.available === 0 ? 'admin-stock-out' : undefined}>
                <th scope="row">{row.label}</th>
                <td>{field(row.id, `On hand: ${row.label}`, text(row), (v) => setTyped((t) => ({ ...t, [row.id]: v })))}</td>
                <td>{row.onHand === null ? '—' : row.held}</td>
                <td>{row.available === null ? 'Unlimited' : row.available === 0 ? 'Out of stock' : row.available}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <div className="admin-stock-actions">
        <button type="submit" className="btn" disabled={busy}>
          Save counts
        </button>
      </div>
    </form>
  );
}
