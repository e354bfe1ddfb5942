-- The orders part of the admin (issue 10).

-- Refunds an admin made through the payments port, one row per refund the processor reported, keyed by its id: a
-- double click (the same idempotency key, so the same refund) records one row. An order may have several (partial
-- refunds); what has been refunded is the sum of those pending or succeeded. Server-only (RLS on, no policy).
create table public.order_refunds (
  refund_id text primary key check (length(refund_id) between 1 and 200),
  order_id uuid not null references public.orders (id) on delete cascade,
  amount_cents integer not null check (amount_cents > 0),
  status text not null check (status in ('pending', 'succeeded', 'failed', 'canceled')),
  -- The account may go; the refund stays.
  admin_id uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now()
);
create index order_refunds_order on public.order_refunds (order_id, created_at);
alter table public.order_refunds enable row level security;
revoke all on public.order_refunds from anon, authenticated;
grant select, insert, update, delete on public.order_refunds to service_role;

-- The admin's order list, newest first a page at a time (keyset on created_at, id), all orders or one status.
create index orders_recent on public.orders (created_at desc, id desc);
create index orders_status_recent on public.orders (status, created_at desc, id desc);
