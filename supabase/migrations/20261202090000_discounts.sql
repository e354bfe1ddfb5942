-- Discount codes and one automatic offer (decision 009). The owner creates codes (percent off, an amount off, or free
-- shipping, with optional minimum, dates, limits and the products or categories they apply to) and sets one offer
-- with no code ("spend $X, get Y % off"). A use of a code is held as its checkout's payment is opened, as stock is,
-- becomes used when the order is recorded and is released when the payment fails or its hold lapses; the functions
-- below take the code's row lock, so held and used uses never pass the code's limit, under any number of checkouts.
--
-- Every table is server-only (RLS on, no policy): shoppers learn a code's effect only through the shop's endpoints,
-- which answer for one code at a time, never the list.

-- A code, stored normalised: trimmed and upper case, so 'summer10' and ' SUMMER10 ' are one code.
create table public.discount_codes (
  id uuid primary key default gen_random_uuid(),
  code text not null unique check (code ~ '^[A-Z0-9][A-Z0-9_-]{2,31}$'),
  kind text not null check (kind in ('percent', 'amount', 'free_shipping')),
  percent integer check (percent between 1 and 100),
  -- At most one card payment's largest charge.
  amount_cents integer check (amount_cents between 1 and 99999999),
  min_subtotal_cents integer check (min_subtotal_cents between 1 and 99999999),
  starts_at timestamptz,
  ends_at timestamptz,
  -- Uses in all (held and used), and per customer (by account and by normalised e-mail alike).
  usage_limit integer check (usage_limit between 1 and 1000000),
  per_customer_limit integer check (per_customer_limit between 1 and 1000),
  -- What it applies to: nothing listed means the whole cart; else a line whose product or category is listed.
  product_ids integer[] not null default '{}' check (cardinality(product_ids) <= 1000),
  categories text[] not null default '{}' check (cardinality(categories) <= 100),
  status text not null default 'active' check (status in ('active', 'paused', 'ended')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint discount_codes_value check (
    (kind = 'percent' and percent is not null and amount_cents is null)
    or (kind = 'amount' and amount_cents is not null and percent is null)
    or (kind = 'free_shipping' and percent is null and amount_cents is null)),
  constraint discount_codes_dates check (starts_at is null or ends_at is null or ends_at > starts_at)
);
alter table public.discount_codes enable row level security;

-- The one automatic offer: from `threshold_cents` of subtotal, `percent` off every line. With `combines` a code's
-- discount adds to it (on what the offer left); without, the shopper gets whichever saves more.
create table public.discount_offer (
  id boolean primary key default true check (id),
  threshold_cents integer not null default 10000 check (threshold_cents between 0 and 99999999),
  percent integer not null default 10 check (percent between 1 and 100),
  active boolean not null default false,
  combines boolean not null default false,
  updated_at timestamptz not null default now()
);
insert into public.discount_offer default values;
alter table public.discount_offer enable row level security;

-- One use of a code by one checkout (a checkout has at most one code). 'held' counts while `expires_at` is ahead, as a
-- stock hold does; 'used' counts always (its order is recorded); 'released' never (the payment failed, was canceled,
-- or the shopper took the code off).
create table public.discount_redemptions (
  id uuid primary key default gen_random_uuid(),
  code_id uuid not null references public.discount_codes (id),
  checkout_id uuid not null unique references public.checkouts (id) on delete cascade,
  order_id uuid unique references public.orders (id),
  user_id uuid references auth.users (id) on delete set null,
  -- The shopper's e-mail, lower case, trimmed, without a +tag and, at Gmail, without dots (normaliseEmail).
  email_normalised text not null check (length(email_normalised) between 3 and 320),
  state text not null default 'held' check (state in ('held', 'used', 'released')),
  -- What the use saved the shopper: the code's share of the goods' discount and the shipping it waived.
  amount_cents integer not null check (amount_cents between 0 and 99999999),
  held_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz,
  released_at timestamptz,
  constraint discount_redemptions_used check ((state = 'used') = (used_at is not null)),
  constraint discount_redemptions_order check (order_id is null or state = 'used')
);
create index discount_redemptions_code on public.discount_redemptions (code_id, state, expires_at);
create index discount_redemptions_user on public.discount_redemptions (code_id, user_id) where user_id is not null;
create index discount_redemptions_email on public.discount_redemptions (code_id, email_normalised);
alter table public.discount_redemptions enable row level security;

revoke all on public.discount_codes, public.discount_offer, public.discount_redemptions from anon, authenticated;
grant select, insert, update, delete on public.discount_codes, public.discount_offer, public.discount_redemptions
  to service_role;

-- What a checkout and an order were discounted: the code (null when none), the goods' discount in all (code and offer),
-- the offer's part of it, and the shipping a free-shipping code waived. Each line's share is in the checkout's lines
-- (`discountCents`) and in order_items.discount_cents, so a refund of some lines and the orders CSV can read it.
-- total = subtotal - discount + shipping + tax, and tax is on subtotal - discount.
alter table public.checkouts
  add column discount_code text check (discount_code ~ '^[A-Z0-9][A-Z0-9_-]{2,31}$'),
  add column discount_cents integer not null default 0 check (discount_cents >= 0),
  add column offer_cents integer not null default 0 check (offer_cents >= 0),
  add column shipping_discount_cents integer not null default 0 check (shipping_discount_cents >= 0),
  drop constraint checkouts_check,
  add constraint checkouts_discount check (
    discount_cents <= subtotal_cents and offer_cents <= discount_cents
    and (discount_code is not null or (discount_cents = offer_cents and shipping_discount_cents = 0))),
  add constraint checkouts_total_cents_check check (total_cents = subtotal_cents - discount_cents + shipping_cents + tax_cents);

alter table public.orders
  add column discount_code text check (discount_code ~ '^[A-Z0-9][A-Z0-9_-]{2,31}$'),
  add column discount_cents integer not null default 0 check (discount_cents >= 0),
  add column offer_cents integer not null default 0 check (offer_cents >= 0),
  add column shipping_discount_cents integer not null default 0 check (shipping_discount_cents >= 0),
  drop constraint orders_check,
  add constraint orders_discount check (
    discount_cents <= subtotal_cents and offer_cents <= discount_cents
    and (discount_code is not null or (discount_cents = offer_cents and shipping_discount_cents = 0))),
  add constraint orders_total_cents_check check (total_cents = subtotal_cents - discount_cents + shipping_cents + tax_cents);

alter table public.order_items
  add column discount_cents integer not null default 0 check (discount_cents >= 0),
  add constraint order_items_discount check (discount_cents <= price_cents::bigint * quantity);

-- A new checkout is stored with its discount columns too; otherwise as before (stored and held in one statement).
create or replace function app_private.open_checkout(p_checkout jsonb, p_lines jsonb, p_until timestamptz, p_cap integer,
  p_address_cap integer default null) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_id uuid;
  v_counted jsonb;
begin
  insert into public.checkouts (user_id, lines, address, rate, parcel_weight_lb, subtotal_cents, shipping_cents, tax_cents,
      total_cents, content_hash, client_key, discount_code, discount_cents, offer_cents, shipping_discount_cents)
    select r.user_id, r.lines, r.address, r.rate, r.parcel_weight_lb, r.subtotal_cents, r.shipping_cents, r.tax_cents,
           r.total_cents, r.content_hash, r.client_key, r.discount_code, coalesce(r.discount_cents, 0),
           coalesce(r.offer_cents, 0), coalesce(r.shipping_discount_cents, 0)
      from jsonb_populate_record(null::public.checkouts, p_checkout) r
    returning id into v_id;
  v_counted := app_private.hold_stock(v_id, p_lines, p_until, p_cap, p_address_cap);
  if not exists (select 1 from public.stock_holds h where h.checkout_id = v_id)
     and exists (select 1 from jsonb_array_elements(v_counted)) then
    -- Counted lines, and nothing held: short of stock or past a cap. The checkout is not kept.
    delete from public.checkouts c where c.id = v_id;
  end if;
  return jsonb_build_object('id', v_id, 'counted', v_counted);
end;
$$;
