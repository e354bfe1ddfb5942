-- Returns (issue 43, decision 011): a shopper asks to return items of a shipped order within 30 days of its delivery
-- (of its shipping when it was never marked delivered); the owner approves it (a return label), declines it, receives
-- its items and refunds them. Every table is server-only (RLS on, no policy), as the refunds are: a shopper reaches
-- their returns through their order, whose ownership row-level security (or the order link's token) decides, and the
-- server then reads or writes as service_role.

-- When the order shipped and when it was delivered: the return window counts from these. Set by the database as the
-- status changes, whichever path changes it, and never moved once set.
alter table public.orders add column shipped_at timestamptz, add column delivered_at timestamptz;

-- Orders shipped or delivered before this migration: the time the admin marked them so (the activity log keeps it),
-- else when they were placed (the earliest they could have shipped, so the window is never longer than it was).
with marked as (
  select substring(a.target from '\(order ([0-9a-f-]{36})\)$')::uuid as order_id,
         min(a.created_at) filter (where a.after = to_jsonb('shipped'::text)) as shipped,
         min(a.created_at) filter (where a.after = to_jsonb('delivered'::text)) as delivered
    from public.admin_actions a
   where a.action = 'order.status' and a.target ~ '\(order [0-9a-f-]{36}\)$'
   group by 1
), done as (
  select o.id, o.status, o.created_at, m.shipped, m.delivered
    from public.orders o left join marked m on m.order_id = o.id
   where o.status in ('shipped', 'shipping', 'delivered', 'completed')
)
update public.orders o
   set shipped_at = coalesce(d.shipped, d.delivered, d.created_at),
       delivered_at = case when d.status in ('delivered', 'completed') then coalesce(d.delivered, d.shipped, d.created_at) end
  from done d
 where d.id = o.id;

create function app_private.order_status_times() returns trigger
language plpgsql set search_path = ''
as $$
begin
  if new.status in ('shipped', 'shipping', 'delivered', 'completed') and new.shipped_at is null then
    new.shipped_at := now();
  end if;
  if new.status in ('delivered', 'completed') and new.delivered_at is null then
    new.delivered_at := now();
  end if;
  return new;
end
$$;
create trigger order_status_times before insert or update of status on public.orders
  for each row execute function app_private.order_status_times();

-- A return: some units of some lines of one order. `number` is the return number shopper and owner use ('RMA-1001').
-- `request_key` is the shopper's form's own key: a double click or a retried request records one return.
create table public.order_returns (
  id uuid primary key default gen_random_uuid(),
  number bigint generated always as identity (start with 1001) unique,
  order_id uuid not null references public.orders (id) on delete cascade,
  request_key uuid not null,
  status text not null default 'requested'
    check (status in ('requested', 'approved', 'received', 'refunded', 'declined')),
  reason text not null
    check (reason in ('damaged', 'wrong_item', 'not_as_described', 'fit', 'skin', 'changed_mind', 'other')),
  -- The units of each line it takes back, and how each line came back, as the line refunds keep theirs
  -- (order_refunds.items): [{itemId, quantity, condition: null | 'resellable' | 'damaged', receivedAt}].
  items jsonb not null check (jsonb_typeof(items) = 'array' and jsonb_array_length(items) between 1 and 100),
  comment text check (comment is null or length(comment) between 1 and 500),
  -- The account that asked (null for a guest, who asked with the order's link).
  requested_by uuid references auth.users (id) on delete set null,
  decline_reason text check (decline_reason is null or length(decline_reason) between 1 and 500),
  -- The return label, once bought: its tracking number, where it is (a carrier's URL, or the shop's own for a PDF
  -- kept in return_labels) and whether it is a test label.
  label_tracking_number text check (length(label_tracking_number) <= 100),
  label_url text check (length(label_url) <= 2000),
  label_test boolean,
  -- The refund, claimed before the processor is asked (refund_key, its amount and the shipping in it) so that of two
  -- clicks on two servers one asks and the other waits for that same refund; refund_id once the processor made it.
  refund_key text unique check (length(refund_key) <= 200),
  refund_amount_cents integer check (refund_amount_cents > 0),
  refund_shipping_cents integer not null default 0 check (refund_shipping_cents >= 0),
  refund_attempts integer not null default 0 check (refund_attempts >= 0),
  refund_id text references public.order_refunds (refund_id),
  created_at timestamptz not null default now(),
  approved_at timestamptz,
  received_at timestamptz,
  refunded_at timestamptz,
  declined_at timestamptz,
  unique (order_id, request_key)
);
create index order_returns_order on public.order_returns (order_id, created_at);
create index order_returns_recent on public.order_returns (created_at desc, number desc);
create index order_returns_status on public.order_returns (status, created_at desc, number desc);

-- The return labels the embedded shipping adapter draws (a carrier hosts its own), served by the shop.
create table public.return_labels (
  return_id uuid primary key references public.order_returns (id) on delete cascade,
  pdf bytea not null,
  created_at timestamptz not null default now()
);

alter table public.order_returns enable row level security;
alter table public.return_labels enable row level security;
revoke all on public.order_returns, public.return_labels from anon, authenticated;
grant select, insert, update, delete on public.order_returns, public.return_labels to service_role;
grant usage, select on all sequences in schema public to service_role;
