-- Exchanges (issue 43, part 3; decision 011): a return whose lines come back for another colour or size of the same
-- product (order_returns.items[].exchangeFor), answered, once the items are received, by a $0 replacement order that
-- goes through the checkout's own path: a checkout holding its stock like any, keyed by the return
-- (payment_intent_id 'replacement_<return id>', unique as every checkout's and order's is), sold and recorded once.

alter table public.order_returns
  add column kind text not null default 'return' check (kind in ('return', 'exchange')),
  add column replacement_order_id uuid unique references public.orders (id) on delete set null,
  add column exchanged_at timestamptz,
  -- When a click began sending the replacement (under the return's lock): a second click meanwhile waits for it
  -- rather than opening a checkout of its own; one that finds it older than a few minutes (a server stopped) goes on.
  add column replacement_claimed_at timestamptz,
  drop constraint order_returns_status_check,
  add constraint order_returns_status_check
    check (status in ('requested', 'approved', 'received', 'refunded', 'exchanged', 'declined'));

-- A replacement's checkout is the only one whose goods are free: its content hash names it (a paid checkout's is a
-- SHA-256 in hex), so no shopper's checkout can be opened for nothing.
alter table public.checkouts
  drop constraint checkouts_subtotal_cents_check,
  add constraint checkouts_subtotal_cents_check check (subtotal_cents > 0 or content_hash like 'replacement:%');
