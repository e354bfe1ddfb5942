import { useStore } from '@nanostores/react';
import { useEffect, useRef, useState } from 'react';
import { api } from '@/lib/api';
import { dateFormat } from '@/lib/dates';
import { useEarlyTaps } from '@/lib/early-taps';
import { $user } from '../auth/auth.store';
import { addToCart } from '../cart/cart.store';
import { formatPrice } from '../catalogue/catalogue';
import { notify } from '../toasts/toast.store';
import { discountLines } from './discount-lines';
import {
  arrivesBy,
  DATE_FILTERS,
  DEFAULT_VIEW,
  type HistoryView,
  ORDER_MESSAGES,
  type Order,
  orderNumber,
  reorderLines,
  SORT_ORDERS,
  STATUS_FILTERS,
  STATUS_LABELS,
  statusOf,
  viewOrders,
} from './orders';
import './orders.css';

type State = { kind: 'loading' } | { kind: 'guest' } | { kind: 'failed' } | { kind: 'ready'; orders: Order[] };

const deliveryOn = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

interface Props {
  /**
   * The shopper's orders as the server read them when it rendered the page (so they are in the page's HTML, not
   * fetched once the island runs); absent when it could not read them, and then loaded here.
   */
  initialOrders?: Order[] | undefined;
}

/** The /orders page: the signed-in shopper's history with filters, sorting and reorder; guests are sent home. */
export default function OrderHistory({ initialOrders }: Props) {
  const userId = useStore($user)?.id;
  const [state, setState] = useState<State>(initialOrders ? { kind: 'ready', orders: initialOrders } : { kind: 'loading' });
  const [view, setView] = useState<HistoryView>(DEFAULT_VIEW);
  // The cards come with the page: a Reorder tapped before this code has loaded is held, then acted on here, once.
  const list = useRef<HTMLOListElement>(null);
  useEarlyTaps(list);
  // Filters chosen before this island hydrated are in the page's selects (React leaves them alone) but not in its
  // state: take them over before anything renders again, or the next render would put them back to 'All'.
  const toolbar = useRef<HTMLDivElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, on arrival.
  useEffect(() => {
    const chosen = (name: keyof HistoryView) =>
      toolbar.current?.querySelector<HTMLSelectElement>(`select[name="${name}"]`)?.value ?? DEFAULT_VIEW[name];
    const early = { status: chosen('status'), date: chosen('date'), sort: chosen('sort') } as HistoryView;
    if (early.status !== view.status || early.date !== view.date || early.sort !== view.sort) setView(early);
  }, []);
  // The day an order was placed, in the shopper's time zone. The server knows only its own (UTC), so the page is
  // rendered, and hydrated, with that, and the shopper's own follows at once.
  const [timeZone, setTimeZone] = useState('UTC');
  useEffect(() => setTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone), []);
  const placedOn = dateFormat(timeZone);

  async function load() {
    setState({ kind: 'loading' });
    const r = await api<{ orders: Order[] }>('/api/orders');
    if (r.ok) return setState({ kind: 'ready', orders: r.data.orders });
    if (r.status !== 401) return setState({ kind: 'failed' });
    setState({ kind: 'guest' });
    window.location.replace('/');
  }

  // The server says who is asking (the header learns it at the same time), so one load on arrival is enough, and
  // none when the page came with the orders.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, on arrival.
  useEffect(() => {
    if (!initialOrders) load();
  }, []);

  // Signing out here (the header's Log out, another tab) empties the history and sends the page home.
  const signedIn = useRef(false);
  useEffect(() => {
    if (userId) signedIn.current = true;
    else if (signedIn.current) {
      setState({ kind: 'guest' });
      window.location.replace('/');
    }
  }, [userId]);

  if (state.kind === 'guest') {
    return (
      <div className="private-prompt">
        <h2>Please Log In</h2>
        <p>Sign in to see your order history, track a parcel or reorder a favourite.</p>
        <a className="btn" href="/">
          Return to Home
        </a>
      </div>
    );
  }
  if (state.kind === 'loading') {
    return (
      <p className="orders-status" role="status">
        Loading your orders…
      </p>
    );
  }
  if (state.kind === 'failed') {
    return (
      <div className="orders-empty" role="alert">
        <p>{ORDER_MESSAGES.loadFailed}</p>
        <button type="button" className="btn" onClick={load}>
          Try again
        </button>
      </div>
    );
  }
  if (state.orders.length === 0) {
    return (
      <div className="orders-empty">
        <p>You have no orders yet.</p>
        <a className="btn" href="/">
          Start shopping
        </a>
      </div>
    );
  }

  const shown = viewOrders(state.orders, view, new Date());
  const choose = (key: keyof HistoryView) => (e: { target: { value: string } }) => setView({ ...view, [key]: e.target.value });
  return (
    <>
      <div className="orders-toolbar" ref={toolbar}>
        <Choice label="Status" name="status" value={view.status} options={STATUS_FILTERS} onChange={choose('status')} />
        <Choice label="Placed" name="date" value={view.date} options={DATE_FILTERS} onChange={choose('date')} />
        <Choice label="Sort by" name="sort" value={view.sort} options={SORT_ORDERS} onChange={choose('sort')} />
      </div>
      <p className="orders-count" role="status">
        Showing {shown.length} of {state.orders.length} {state.orders.length === 1 ? 'order' : 'orders'}
      </p>
      {shown.length === 0 ? (
        <div className="orders-empty">
          <p>No orders match these filters.</p>
          <button type="button" className="btn btn-outline" onClick={() => setView(DEFAULT_VIEW)}>
            Show all orders
          </button>
        </div>
      ) : (
        <ol className="orders-list" ref={list}>
          {shown.map((order) => (
            <OrderCard key={order.id} order={order} placedOn={placedOn} />
          ))}
        </ol>
      )}
    </>
  );
}

function Choice<V extends string>(props: {
  label: string;
  name: keyof HistoryView;
  value: V;
  options: readonly [V, string][];
  onChange: (e: { target: { value: string } }) => void;
}) {
  return (
    <label className="field orders-choice">
      <span>{props.label}</span>
      <select name={props.name} value={props.value} onChange={props.onChange}>
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** One order: number, date, status, up to 3 pictures and 2 names, total, tracking and Reorder. */
function OrderCard({ order, placedOn }: { order: Order; placedOn: Intl.DateTimeFormat }) {
  const number = orderNumber(order.id);
  const status = statusOf(order.status);
  const arrival = arrivesBy(order);
  const names = order.items.slice(0, 2).map((i) => i.name);
  const more = order.items.length - names.length;

  function reorder() {
    const lines = reorderLines(order);
    if (order.items.length === 0) return notify.error(ORDER_MESSAGES.nothingToReorder);
    if (lines.length === 0) return notify.error('None of the products in this order are sold any more.');
    const added = lines.reduce((n, line) => n + addToCart(line), 0);
    if (added > 0) notify.success(`Added ${added} ${added === 1 ? 'item' : 'items'} from ${number} to your cart`);
  }

  return (
    <li className="order-card">
      <div className="order-head">
        <h2>
          <a href={`/orders/${order.id}`}>{number}</a>
        </h2>
        <span className={`order-status order-status-${status}`}>{STATUS_LABELS[status]}</span>
      </div>
      <p className="order-meta">
        Placed {placedOn.format(new Date(order.createdAt))} · <strong>{formatPrice(order.totalCents)}</strong>
        {discountLines(order.discount).map((line) => (
          <span key={line.key} data-discount={line.key}>
            {' '}
            · {line.label} {line.amount}
          </span>
        ))}
        {(order.refundedCents ?? 0) > 0 && <> · {formatPrice(order.refundedCents ?? 0)} refunded</>}
        {arrival && <> · Arrives by {deliveryOn.format(new Date(arrival))}</>}
      </p>
      <div className="order-items">
        {order.items.slice(0, 3).map((item) => (
          <img
            key={`${item.productId}-${item.selectedColor}-${item.selectedSize}`}
            src={item.image}
            alt={item.name}
            width="56"
            height="56"
            loading="lazy"
          />
        ))}
        <p>
          {names.join(', ')}
          {more > 0 && ` and ${more} more`}
        </p>
      </div>
      <div className="order-actions">
        {order.trackingUrl ? (
          <a href={order.trackingUrl} rel="noopener noreferrer" target="_blank">
            Track parcel{order.trackingNumber ? ` ${order.trackingNumber}` : ''}
          </a>
        ) : (
          // A label without a carrier's tracking page (the embedded rate table's test labels): the number alone.
          order.trackingNumber && <span className="order-tracking">Tracking number {order.trackingNumber}</span>
        )}
        <button type="button" className="btn btn-outline" onClick={reorder} data-pending-action={`reorder-${order.id}`}>
          Reorder
        </button>
      </div>
    </li>
  );
}
