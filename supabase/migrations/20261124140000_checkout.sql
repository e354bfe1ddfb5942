-- Checkout (decision 004): the server prices every order and remembers what it priced, so nothing the browser sends
-- back (a rate, an amount) is trusted. Both tables are server-only: RLS on and no policy, so only service_role reaches them.

-- Every shipping rate the server showed a shopper, by id: the payment step looks its amount up here. A rate is valid
-- only for the address and parcel it was quoted for (quote_key, a hash of both) and only for a while.
create table public.shipping_quotes (
  rate_id text primary key check (length(rate_id) between 1 and 200),
  quote_key text not null,
  provider text not null,
  service text not null,
  amount_cents integer not null check (amount_cents >= 0),
  estimated_days integer check (estimated_days >= 0),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index shipping_quotes_expiry on public.shipping_quotes (expires_at);
alter table public.shipping_quotes enable row level security;

-- A checkout as the server priced it: the lines (from the catalogue), the address, the chosen rate, the amounts, and
-- the payment intent created for exactly that total. An order is recorded from this row, never from the browser.
create table public.checkouts (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete set null,
  lines jsonb not null,
  address jsonb not null,
  rate jsonb not null,
  parcel_weight_lb numeric(8, 3) not null check (parcel_weight_lb > 0),
  subtotal_cents integer not null check (subtotal_cents > 0),
  shipping_cents integer not null check (shipping_cents >= 0),
  tax_cents integer not null check (tax_cents >= 0),
  total_cents integer not null check (total_cents = subtotal_cents + shipping_cents + tax_cents),
  content_hash text not null,
  payment_intent_id text unique,
  order_id uuid unique references public.orders (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index checkouts_open on public.checkouts (created_at) where order_id is null;
alter table public.checkouts enable row level security;

grant select, insert, update, delete on public.shipping_quotes, public.checkouts to service_role;

-- A guest has no account to see their order with: the confirmation e-mail links to /order?token=…, and only the
-- token's hash is kept (as for reset links), so the database alone cannot open anyone's order page.
alter table public.orders add column access_token_hash text unique;

-- Labels the embedded shipping adapter draws (a carrier hosts its own and the order keeps its URL).
create table public.order_labels (
  order_id uuid primary key references public.orders (id) on delete cascade,
  pdf bytea not null,
  created_at timestamptz not null default now()
);
alter table public.order_labels enable row level security;
grant select, insert, update, delete on public.order_labels to service_role;

-- A review is a verified purchase only when the shopper's order of the product was not cancelled: now that orders are
-- real, a cancelled (and refunded) one no longer counts.
create or replace function public.product_reviews_fill() returns trigger
language plpgsql set search_path = ''
as $$
declare
  email text := (select auth.jwt()) ->> 'email';
  local text := split_part(email, '@', 1);
begin
  if current_user in ('anon', 'authenticated') then
    new.is_approved := false;
    -- Only the masked address is stored ('maya.t@example.com' -> 'ma***@example.com', the rule of maskEmail in
    -- catalog.ts), so no query with the public key can read a reviewer's e-mail.
    new.author := case
      when email is null or position('@' in email) < 2 then 'Anonymous'
      else left(local, greatest(1, least(2, length(local) - 1))) || '***@' || split_part(email, '@', 2)
    end;
    new.verified := exists (
      select 1 from public.order_items i join public.orders o on o.id = i.order_id
      where o.user_id = (select auth.uid()) and i.product_id = new.product_id
        and o.status not in ('cancelled', 'canceled')
    );
  end if;
  return new;
end
$$;
