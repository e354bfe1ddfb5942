-- Links to an order's page for the browser that paid for it (issue 25: after paying, the shopper is left looking at a
-- confirmation that links to the order). The order's own token goes only into its e-mails, and only its hash is kept,
-- so the paying browser, which proves itself with the payment's client secret, is given a token of its own. As with
-- the order's token, only the hash is kept. Server-only, like the orders' other private tables.
create table public.order_access_tokens (
  token_hash text primary key,
  order_id uuid not null references public.orders (id) on delete cascade,
  created_at timestamptz not null default now()
);
create index order_access_tokens_order on public.order_access_tokens (order_id);
alter table public.order_access_tokens enable row level security;
revoke all on public.order_access_tokens from anon, authenticated;
grant select, insert, update, delete on public.order_access_tokens to service_role;
