-- Stock counts that never oversell (decision 007). The owner may count a product, or for a product with colours and
-- sizes each colour × size: an item with no row is unlimited, as every item was before. A checkout holds what it
-- buys from the moment its payment is opened until a time limit; availability is what is on hand less the live holds.
-- A paid checkout's hold becomes a sale (on hand goes down) once, just before its order is recorded.
--
-- Every table is server-only (RLS on, no policy): shoppers read availability through public.stock_available(), which
-- answers numbers and nothing about whose checkout holds what; only the admin's paths (service_role) set counts.

-- What is on hand of each counted item. `color` and `size` are '' for a product without them.
create table public.stock_levels (
  product_id integer not null references public.products (id),
  color text not null default '' check (color = '' or color ~ '^[a-z0-9-]{1,40}$'),
  size text not null default '' check (size in ('', 'XS', 'S', 'M', 'L', 'XL', 'XXL')),
  -- Never below 0: a sale that does not fit is refused, and this is the last word on it.
  on_hand integer not null check (on_hand between 0 and 1000000),
  updated_at timestamptz not null default now(),
  primary key (product_id, color, size)
);
alter table public.stock_levels enable row level security;

-- What an open checkout holds, until `expires_at`. Re-holding (the cart changed, the shopper pays again after a
-- decline) replaces the checkout's rows; an expired row simply stops counting and is pruned later.
create table public.stock_holds (
  checkout_id uuid not null references public.checkouts (id) on delete cascade,
  product_id integer not null,
  color text not null default '',
  size text not null default '',
  quantity integer not null check (quantity > 0),
  held_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (checkout_id, product_id, color, size)
);
create index stock_holds_item on public.stock_holds (product_id, color, size, expires_at);
alter table public.stock_holds enable row level security;

-- The shop's stock settings: one row.
create table public.stock_settings (
  id boolean primary key default true check (id),
  -- An item is listed as low on the admin's overview when no more than this many can still be bought.
  low_stock_threshold integer not null default 3 check (low_stock_threshold between 0 and 1000000),
  updated_at timestamptz not null default now()
);
insert into public.stock_settings default values;
alter table public.stock_settings enable row level security;

-- What a paid checkout took from the counts (its order is the checkout's order_id), written by the sale itself: a second
-- sale of the same checkout finds it and takes nothing more, and cancelling or refunding the order puts exactly this
-- back, once.
create table public.stock_sales (
  checkout_id uuid not null references public.checkouts (id) on delete cascade,
  product_id integer not null,
  color text not null default '',
  size text not null default '',
  quantity integer not null check (quantity > 0),
  -- The item as the shop named it when it was sold ('Clinical Scrubs (Blue, M)'), for the activity log.
  label text not null check (length(label) between 1 and 300),
  sold_at timestamptz not null default now(),
  returned_at timestamptz,
  primary key (checkout_id, product_id, color, size)
);
alter table public.stock_sales enable row level security;

revoke all on public.stock_levels, public.stock_holds, public.stock_settings, public.stock_sales from anon, authenticated;
grant select, insert, update, delete on public.stock_levels, public.stock_holds, public.stock_settings, public.stock_sales
  to service_role;

-- A payment that succeeded after its hold had lapsed, for items that were gone by then: the order is recorded
-- cancelled and refunded in full, and this says what was missing ([{productId, color, size, wanted, available}]).
alter table public.orders add column sold_out jsonb;

-- What can still be bought of every counted item (on hand less live holds, never below 0). Anyone may ask: the
-- product pages and the cart show it. It says nothing about who holds what.
create function public.stock_available()
returns table (product_id integer, color text, size text, available integer)
language sql stable security definer set search_path = ''
as $$
  select s.product_id, s.color, s.size,
    greatest(0, s.on_hand - coalesce((
      select sum(h.quantity)::integer from public.stock_holds h
      where h.product_id = s.product_id and h.color = s.color and h.size = s.size and h.expires_at > now()
    ), 0))
  from public.stock_levels s
$$;
grant execute on function public.stock_available() to anon, authenticated, service_role;

-- The counted items among `p_lines` ([{productId, color, size, quantity}], '' for no colour or size), locked in one
-- order (two checkouts wanting the same items queue up instead of deadlocking), each with what is wanted and what is
-- available to this checkout: on hand less every other checkout's live hold. The lock is taken by a statement of its
-- own, so the holds read after it include those of whoever held the lock before (READ COMMITTED: a new snapshot per
-- statement of a VOLATILE function). Returns [{productId, color, size, wanted, available}].
create function app_private.lock_stock(p_checkout uuid, p_lines jsonb) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_counted jsonb;
begin
  perform 1 from public.stock_levels s
    join jsonb_to_recordset(p_lines) as w (product_id integer, color text, size text, quantity integer)
      on s.product_id = w.product_id and s.color = w.color and s.size = w.size
    order by s.product_id, s.color collate "C", s.size collate "C"
    for update of s;
  select coalesce(jsonb_agg(jsonb_build_object(
      'productId', s.product_id, 'color', s.color, 'size', s.size, 'wanted', w.quantity,
      'available', s.on_hand - coalesce((
        select sum(h.quantity)::integer from public.stock_holds h
        where h.product_id = s.product_id and h.color = s.color and h.size = s.size
          and h.expires_at > now() and h.checkout_id is distinct from p_checkout
      ), 0)
    ) order by s.product_id, s.color, s.size), '[]'::jsonb)
    into v_counted
  from public.stock_levels s
    join jsonb_to_recordset(p_lines) as w (product_id integer, color text, size text, quantity integer)
      on s.product_id = w.product_id and s.color = w.color and s.size = w.size;
  return v_counted;
end;
$$;

-- Whether any counted line wants more than is available to it.
create function app_private.stock_short(p_counted jsonb) returns boolean
language sql immutable set search_path = ''
as $$
  select exists (select 1 from jsonb_array_elements(p_counted) e where (e ->> 'wanted')::int > (e ->> 'available')::int)
$$;

-- Holds `p_lines` for the checkout until `p_until`, replacing what it held, when every counted line fits; otherwise
-- changes nothing. One statement, so the check and the hold are one transaction. Returns lock_stock's answer: the
-- caller reads from it whether (and why not) the lines were held.
create function app_private.hold_stock(p_checkout uuid, p_lines jsonb, p_until timestamptz) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_counted jsonb := app_private.lock_stock(p_checkout, p_lines);
begin
  if app_private.stock_short(v_counted) then
    return v_counted;
  end if;
  delete from public.stock_holds h where h.checkout_id = p_checkout;
  insert into public.stock_holds (checkout_id, product_id, color, size, quantity, expires_at)
    select p_checkout, (e ->> 'productId')::int, e ->> 'color', e ->> 'size', (e ->> 'wanted')::int, p_until
    from jsonb_array_elements(v_counted) e;
  return v_counted;
end;
$$;

-- Sells `p_lines` ([{product_id, color, size, quantity, label}]) for a checkout whose payment succeeded, once: one
-- statement, so the counts are locked only for as long as it runs, not for the whole transaction that then records the
-- order. It takes the checkout's row lock first, as recording its order does, so the two never overlap. When the
-- order is already recorded, or the checkout already sold, it changes nothing and says so; otherwise, when every
-- counted line fits (its own hold does not count against it, whether or not it has lapsed), on hand goes down, the
-- checkout's hold is gone and stock_sales keeps what was taken. Returns {state: 'recorded' | 'sold' | 'short',
-- counted: lock_stock's answer (for 'sold' by an earlier call: what that sale took)}.
create function app_private.sell_stock(p_checkout uuid, p_lines jsonb) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_counted jsonb;
begin
  perform 1 from public.checkouts c where c.id = p_checkout for update;
  if exists (select 1 from public.checkouts c where c.id = p_checkout and c.order_id is not null) then
    return jsonb_build_object('state', 'recorded', 'counted', '[]'::jsonb);
  end if;
  if exists (select 1 from public.stock_sales t where t.checkout_id = p_checkout) then
    return jsonb_build_object('state', 'sold', 'counted', (
      select jsonb_agg(jsonb_build_object('productId', t.product_id, 'color', t.color, 'size', t.size,
        'wanted', t.quantity, 'available', t.quantity)) from public.stock_sales t where t.checkout_id = p_checkout));
  end if;
  v_counted := app_private.lock_stock(p_checkout, p_lines);
  if app_private.stock_short(v_counted) then
    return jsonb_build_object('state', 'short', 'counted', v_counted);
  end if;
  update public.stock_levels s set on_hand = s.on_hand - (e ->> 'wanted')::int, updated_at = now()
    from jsonb_array_elements(v_counted) e
    where s.product_id = (e ->> 'productId')::int and s.color = e ->> 'color' and s.size = e ->> 'size';
  insert into public.stock_sales (checkout_id, product_id, color, size, quantity, label)
    select p_checkout, (e ->> 'productId')::int, e ->> 'color', e ->> 'size', (e ->> 'wanted')::int,
      coalesce((select w.label from jsonb_to_recordset(p_lines) as w (product_id integer, color text, size text, label text)
                 where w.product_id = (e ->> 'productId')::int and w.color = e ->> 'color' and w.size = e ->> 'size'
                 limit 1), 'Product ' || (e ->> 'productId'))
    from jsonb_array_elements(v_counted) e;
  delete from public.stock_holds h where h.checkout_id = p_checkout;
  return jsonb_build_object('state', 'sold', 'counted', v_counted);
end;
$$;

-- Puts back what an order took from the counts, once (a second call finds it returned and puts back nothing). An item
-- whose count was removed since (now unlimited) has nothing to go back to. Returns [{productId, color, size,
-- quantity, label}] of what was put back, in the caller's transaction.
create function app_private.restock_order(p_order uuid) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_back jsonb;
begin
  with back as (
    update public.stock_sales o set returned_at = now()
    from public.checkouts c
    where c.order_id = p_order and o.checkout_id = c.id and o.returned_at is null
    returning o.product_id, o.color, o.size, o.quantity, o.label
  )
  select coalesce(jsonb_agg(jsonb_build_object('productId', b.product_id, 'color', b.color, 'size', b.size,
      'quantity', b.quantity, 'label', b.label) order by b.product_id, b.color, b.size), '[]'::jsonb)
    into v_back from back b;
  -- The counts in the order every other path locks them.
  perform 1 from public.stock_levels s
    join jsonb_array_elements(v_back) e
      on s.product_id = (e ->> 'productId')::int and s.color = e ->> 'color' and s.size = e ->> 'size'
    order by s.product_id, s.color collate "C", s.size collate "C"
    for update of s;
  update public.stock_levels s set on_hand = least(1000000, s.on_hand + (e ->> 'quantity')::int), updated_at = now()
    from jsonb_array_elements(v_back) e
    where s.product_id = (e ->> 'productId')::int and s.color = e ->> 'color' and s.size = e ->> 'size';
  return v_back;
end;
$$;

-- The server runs these as service_role, inside its own transactions (the order's, the admin's); no shopper may.
revoke all on function app_private.lock_stock(uuid, jsonb), app_private.stock_short(jsonb),
  app_private.hold_stock(uuid, jsonb, timestamptz), app_private.sell_stock(uuid, jsonb),
  app_private.restock_order(uuid) from public, anon, authenticated;
grant usage on schema app_private to service_role;
grant execute on function app_private.lock_stock(uuid, jsonb), app_private.stock_short(jsonb),
  app_private.hold_stock(uuid, jsonb, timestamptz), app_private.sell_stock(uuid, jsonb),
  app_private.restock_order(uuid) to service_role;
