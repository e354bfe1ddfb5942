-- What sold, kept as it happens: each of the shop's days' totals, and each day's pieces and sales per product and
-- variant, so the sales overview of a year reads a few hundred rows instead of every order, item and refund of two
-- years. Written in the transaction that writes the order, its items, a refund or a cancellation (triggers), and
-- rebuilt from the orders when the shop's time zone changes.
--
-- Keyed by the day in the shop's time zone (SHOP_TIME_ZONE), not by UTC hour: the overview's periods are whole days
-- of the shop's clock (today so far being the exception, read from the orders themselves), a year is at most 366 rows,
-- and a zone 30 or 45 minutes off UTC (India, Nepal) would split an hour. The price is a rebuild when the owner
-- changes the zone, which the server runs once at start (app_private.sales_use_zone): a minute of work at most, once.
--
-- Every figure means what the overview's queries over the orders mean (src/features/admin/sales.server.ts):
-- - an order counts on its day; cancelled ones (either spelling) are left out of orders, money, units and sellers,
--   and counted as cancelled;
-- - a refund counts while pending or succeeded (as refundCounts says in src/features/orders/refunds.server.ts), and is
--   taken off its order's revenue (unless the order was cancelled) and counted under refunds;
-- tests/db/sales-rollup.test.ts checks the tables against the orders after every kind of write, on both engines.
--
-- Concurrency: a trigger never updates a total itself. It appends what changed to sales_pending (no row two
-- transactions share), and a deferred trigger adds the transaction's changes to the totals at commit, in key order.
-- So the row of today, which every order touches, is locked for the moment of the commit, not from the order's insert
-- until its commit (orders of one day would queue behind each other), and two orders with the same items in
-- different orders cannot deadlock on them.
--
-- Server-only: schema app_private (no guest or shopper has usage on it), RLS on besides.

-- The zone the days are in: one row. The migration builds the totals in the configured default; the server rebuilds
-- them at start when it is configured otherwise.
create table app_private.sales_zone (
  id boolean primary key default true check (id),
  time_zone text not null
);
insert into app_private.sales_zone (time_zone) values ('America/New_York');

create table app_private.sales_days (
  day date primary key,
  -- Orders not cancelled, and their totals less what was refunded of them; their sales tax, shipping and pieces.
  orders integer not null default 0,
  revenue_cents bigint not null default 0,
  tax_cents bigint not null default 0,
  shipping_cents bigint not null default 0,
  units bigint not null default 0,
  -- Orders placed that day and since cancelled.
  cancelled integer not null default 0,
  -- Refunds (counted) of the day's orders, cancelled ones included, and their sum.
  refunds integer not null default 0,
  refunded_cents bigint not null default 0
);

-- Pieces sold and what they sold for (item prices), per day and item as bought, on orders not cancelled. A null colour
-- or size is a key like any other (the overview groups them so).
create table app_private.sales_day_items (
  day date not null,
  product_id integer not null,
  color text,
  size text,
  units bigint not null default 0,
  sales_cents bigint not null default 0,
  -- The latest piece (item id) of the day's orders not cancelled, and its name as sold: the overview names a product or
  -- variant as its latest piece in the period was named.
  last_item_id bigint,
  name text,
  constraint sales_day_items_key unique nulls not distinct (day, product_id, color, size)
);

-- Who ordered on each day: orders not cancelled per customer (e-mail address, in any case) and day, so a period's
-- customers are counted from a row per customer and day rather than from the orders' rows.
create table app_private.sales_day_customers (
  day date not null,
  email text not null,
  orders integer not null default 0,
  primary key (day, email)
);

-- Each customer's (e-mail address, in any case) first order that was not cancelled: a customer is new in the period
-- of that order. It does not depend on the time zone.
create table app_private.sales_customers (
  email text primary key,
  first_at timestamptz
);
create index sales_customers_first on app_private.sales_customers (first_at);

-- Changes made by transactions not yet committed: each transaction's own rows, added to the totals and deleted at its
-- commit. `at` is the order's time, turned into a day at commit with the zone then in force.
create table app_private.sales_pending (
  tx xid8 not null default pg_current_xact_id(),
  at timestamptz not null,
  -- null: a change to the day's totals; else to this item's row.
  product_id integer,
  color text,
  size text,
  orders integer not null default 0,
  revenue_cents bigint not null default 0,
  tax_cents bigint not null default 0,
  shipping_cents bigint not null default 0,
  units bigint not null default 0,
  cancelled integer not null default 0,
  refunds integer not null default 0,
  refunded_cents bigint not null default 0,
  sales_cents bigint not null default 0,
  -- An item added (units > 0) or taken away: which, and its name.
  item_id bigint,
  name text,
  -- The customer of an order whose first order may have changed.
  email text
);
create index sales_pending_tx on app_private.sales_pending (tx);

-- The transactions with changes pending, one row each (inserted once, `on conflict do nothing` after that): its insert
-- is what fires the fold at commit, once per transaction however many rows it changed.
create table app_private.sales_pending_commits (
  tx xid8 primary key default pg_current_xact_id()
);

alter table app_private.sales_zone enable row level security;
alter table app_private.sales_days enable row level security;
alter table app_private.sales_day_items enable row level security;
alter table app_private.sales_pending enable row level security;
alter table app_private.sales_pending_commits enable row level security;
alter table app_private.sales_customers enable row level security;
alter table app_private.sales_day_customers enable row level security;
revoke all on app_private.sales_zone, app_private.sales_days, app_private.sales_day_items, app_private.sales_pending,
  app_private.sales_pending_commits, app_private.sales_customers, app_private.sales_day_customers
  from public, anon, authenticated;
-- The overview reads as service_role; only the functions below (SECURITY DEFINER) write.
grant select on app_private.sales_zone, app_private.sales_days, app_private.sales_day_items, app_private.sales_customers,
  app_private.sales_day_customers to service_role;
create policy "sales_zone: the server reads" on app_private.sales_zone for select to service_role using (true);
create policy "sales_days: the server reads" on app_private.sales_days for select to service_role using (true);
create policy "sales_day_items: the server reads" on app_private.sales_day_items for select to service_role using (true);
create policy "sales_customers: the server reads" on app_private.sales_customers for select to service_role using (true);
create policy "sales_day_customers: the server reads" on app_private.sales_day_customers for select to service_role
  using (true);

-- Makes sure the transaction's changes are folded in at its commit.
create function app_private.sales_pend_commit() returns void
language sql security definer set search_path = ''
as $$
  insert into app_private.sales_pending_commits default values on conflict do nothing
$$;

-- What an order adds to the totals as it stands (`o`, with its items and refunds now), times `sign` (1 or -1).
create function app_private.sales_pend_order(o public.orders, sign integer) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  v_cancelled boolean := o.status in ('cancelled', 'canceled');
  v_refunds integer;
  v_refunded bigint;
  v_units bigint;
begin
  select count(*)::integer, coalesce(sum(r.amount_cents), 0)::bigint into v_refunds, v_refunded
    from public.order_refunds r where r.order_id = o.id and r.status in ('pending', 'succeeded');
  if v_cancelled then
    insert into app_private.sales_pending (at, cancelled, refunds, refunded_cents)
    values (o.created_at, sign, sign * v_refunds, sign * v_refunded);
    -- A cancelled order is nobody's first order: nothing to check.
    perform app_private.sales_pend_commit();
    return;
  end if;
  select coalesce(sum(i.quantity), 0)::bigint into v_units from public.order_items i where i.order_id = o.id;
  insert into app_private.sales_pending
    (at, orders, revenue_cents, tax_cents, shipping_cents, units, refunds, refunded_cents, email)
  values (o.created_at, sign, sign * (o.total_cents - v_refunded), sign * o.tax_cents, sign * o.shipping_cents,
          sign * v_units, sign * v_refunds, sign * v_refunded, lower(o.customer_email));
  insert into app_private.sales_pending (at, product_id, color, size, units, sales_cents, item_id, name)
  select o.created_at, i.product_id, i.selected_color, i.selected_size, sign * i.quantity,
         sign * i.quantity::bigint * i.price_cents, i.id, i.product_name
    from public.order_items i where i.order_id = o.id;
  perform app_private.sales_pend_commit();
end
$$;

create function app_private.sales_on_order() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.sales_pend_order(new, 1);
    return null;
  elsif tg_op = 'DELETE' then
    -- Before the delete, while the order's items and refunds are still there (theirs go with it, and their triggers
    -- then find no order).
    perform app_private.sales_pend_order(old, -1);
    return old;
  end if;
  if (old.status in ('cancelled', 'canceled')) is distinct from (new.status in ('cancelled', 'canceled'))
     or old.created_at is distinct from new.created_at or old.total_cents is distinct from new.total_cents
     or old.tax_cents is distinct from new.tax_cents or old.shipping_cents is distinct from new.shipping_cents then
    perform app_private.sales_pend_order(old, -1);
    perform app_private.sales_pend_order(new, 1);
  end if;
  return null;
end
$$;

create function app_private.sales_on_item() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  v_at timestamptz;
begin
  if tg_op in ('UPDATE', 'DELETE') then
    select o.created_at into v_at from public.orders o
     where o.id = old.order_id and o.status not in ('cancelled', 'canceled');
    if found then
      insert into app_private.sales_pending (at, units) values (v_at, -old.quantity);
      insert into app_private.sales_pending (at, product_id, color, size, units, sales_cents, item_id, name)
      values (v_at, old.product_id, old.selected_color, old.selected_size, -old.quantity,
              -old.quantity::bigint * old.price_cents, old.id, old.product_name);
      perform app_private.sales_pend_commit();
    end if;
  end if;
  if tg_op in ('UPDATE', 'INSERT') then
    select o.created_at into v_at from public.orders o
     where o.id = new.order_id and o.status not in ('cancelled', 'canceled');
    if found then
      insert into app_private.sales_pending (at, units) values (v_at, new.quantity);
      insert into app_private.sales_pending (at, product_id, color, size, units, sales_cents, item_id, name)
      values (v_at, new.product_id, new.selected_color, new.selected_size, new.quantity,
              new.quantity::bigint * new.price_cents, new.id, new.product_name);
      perform app_private.sales_pend_commit();
    end if;
  end if;
  return null;
end
$$;

create function app_private.sales_on_refund() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  v_order public.orders;
  v_n integer := 0;
  v_cents bigint := 0;
begin
  if tg_op in ('UPDATE', 'DELETE') and old.status in ('pending', 'succeeded') then
    v_n := v_n - 1;
    v_cents := v_cents - old.amount_cents;
  end if;
  if tg_op in ('UPDATE', 'INSERT') and new.status in ('pending', 'succeeded') then
    v_n := v_n + 1;
    v_cents := v_cents + new.amount_cents;
  end if;
  if v_n = 0 and v_cents = 0 then
    return null;
  end if;
  -- Locked, so that a cancellation of the same order in another transaction waits for this refund (and reads it
  -- then), or this refund for the cancellation: either way the order's revenue is taken off once.
  select o.* into v_order from public.orders o where o.id = coalesce(new.order_id, old.order_id) for share;
  if found then
    insert into app_private.sales_pending (at, revenue_cents, refunds, refunded_cents)
    values (v_order.created_at,
            case when v_order.status in ('cancelled', 'canceled') then 0 else -v_cents end, v_n, v_cents);
    perform app_private.sales_pend_commit();
  end if;
  return null;
end
$$;

-- At commit: the transaction's changes added to the totals, days then items, each in key order.
create function app_private.sales_fold() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  v_zone text;
  v_tx xid8 := pg_current_xact_id();
begin
  -- Shared with every other commit, and waited for by a rebuild (which updates the row): no change is added in the
  -- zone being replaced.
  select z.time_zone into v_zone from app_private.sales_zone z for share;
  insert into app_private.sales_days as d
    (day, orders, revenue_cents, tax_cents, shipping_cents, units, cancelled, refunds, refunded_cents)
  select (p.at at time zone v_zone)::date, sum(p.orders), sum(p.revenue_cents), sum(p.tax_cents), sum(p.shipping_cents),
         sum(p.units), sum(p.cancelled), sum(p.refunds), sum(p.refunded_cents)
    from app_private.sales_pending p where p.tx = v_tx and p.product_id is null
   group by 1 order by 1
  on conflict (day) do update set
    orders = d.orders + excluded.orders, revenue_cents = d.revenue_cents + excluded.revenue_cents,
    tax_cents = d.tax_cents + excluded.tax_cents, shipping_cents = d.shipping_cents + excluded.shipping_cents,
    units = d.units + excluded.units, cancelled = d.cancelled + excluded.cancelled,
    refunds = d.refunds + excluded.refunds, refunded_cents = d.refunded_cents + excluded.refunded_cents;
  insert into app_private.sales_day_items as d (day, product_id, color, size, units, sales_cents, last_item_id, name)
  select (p.at at time zone v_zone)::date, p.product_id, p.color, p.size, sum(p.units), sum(p.sales_cents),
         max(p.item_id) filter (where p.units > 0),
         (array_agg(p.name order by p.item_id desc) filter (where p.units > 0))[1]
    from app_private.sales_pending p where p.tx = v_tx and p.product_id is not null
   group by 1, 2, 3, 4 order by 1, 2, 3, 4
  on conflict on constraint sales_day_items_key do update set
    units = d.units + excluded.units, sales_cents = d.sales_cents + excluded.sales_cents,
    last_item_id = greatest(d.last_item_id, excluded.last_item_id),
    name = case when d.last_item_id is null or excluded.last_item_id > d.last_item_id then excluded.name else d.name end;
  -- A piece taken away (its order cancelled or deleted) may have been the latest: the latest again from the day's
  -- orders (rows locked above, so this statement sees every commit before).
  update app_private.sales_day_items d set (last_item_id, name) = (
      select i.id, i.product_name
        from public.orders o join public.order_items i on i.order_id = o.id
       where o.created_at >= d.day::timestamp at time zone 'UTC' - interval '1 day'
         and o.created_at < d.day::timestamp at time zone 'UTC' + interval '2 days'
         and (o.created_at at time zone v_zone)::date = d.day
         and o.status not in ('cancelled', 'canceled')
         and i.product_id = d.product_id
         and i.selected_color is not distinct from d.color and i.selected_size is not distinct from d.size
       order by i.id desc limit 1)
    from (select distinct (p.at at time zone v_zone)::date as day, p.product_id, p.color, p.size
            from app_private.sales_pending p where p.tx = v_tx and p.product_id is not null and p.units < 0) r
   where d.day = r.day and d.product_id = r.product_id and d.color is not distinct from r.color
     and d.size is not distinct from r.size;
  insert into app_private.sales_day_customers as c (day, email, orders)
  select (p.at at time zone v_zone)::date, p.email, sum(p.orders)
    from app_private.sales_pending p where p.tx = v_tx and p.email is not null
   group by 1, 2 having sum(p.orders) <> 0 order by 1, 2
  on conflict (day, email) do update set orders = c.orders + excluded.orders;
  -- First orders: a new order can only make a customer's first order earlier; one cancelled or deleted may make it
  -- later, so that customer's is read again from the orders, after locking their row (then the read sees every
  -- commit before).
  insert into app_private.sales_customers as c (email, first_at)
  select p.email, min(p.at) filter (where p.orders > 0)
    from app_private.sales_pending p where p.tx = v_tx and p.email is not null
   group by 1 order by 1
  on conflict (email) do update set first_at = least(c.first_at, excluded.first_at);
  if exists (select 1 from app_private.sales_pending p where p.tx = v_tx and p.email is not null and p.orders < 0) then
    update app_private.sales_customers c set first_at = (
        select min(o.created_at) from public.orders o
         where lower(o.customer_email) = c.email and o.status not in ('cancelled', 'canceled'))
     where c.email in (select p.email from app_private.sales_pending p
                        where p.tx = v_tx and p.email is not null and p.orders < 0);
  end if;
  delete from app_private.sales_pending p where p.tx = v_tx;
  delete from app_private.sales_pending_commits c where c.tx = v_tx;
  return null;
end
$$;

create trigger sales_rollup after insert or update on public.orders
  for each row execute function app_private.sales_on_order();
create trigger sales_rollup_delete before delete on public.orders
  for each row execute function app_private.sales_on_order();
create trigger sales_rollup after insert or update or delete on public.order_items
  for each row execute function app_private.sales_on_item();
create trigger sales_rollup after insert or update or delete on public.order_refunds
  for each row execute function app_private.sales_on_refund();
create constraint trigger sales_fold after insert on app_private.sales_pending_commits
  deferrable initially deferred for each row execute function app_private.sales_fold();

-- Every total again from the orders, in `p_zone`: the backfill below, and the server's start when the zone changed.
create function app_private.sales_rebuild(p_zone text) returns void
language plpgsql security definer set search_path = ''
as $$
begin
  -- Taken first: commits adding changes wait for this one, and what they add lands on the days of the new zone.
  update app_private.sales_zone set time_zone = p_zone;
  delete from app_private.sales_days;
  delete from app_private.sales_day_items;
  delete from app_private.sales_day_customers;
  insert into app_private.sales_days
    (day, orders, revenue_cents, tax_cents, shipping_cents, units, cancelled, refunds, refunded_cents)
  select (o.created_at at time zone p_zone)::date,
         (count(*) filter (where not o.cancelled))::integer,
         coalesce(sum(o.total_cents - coalesce(r.cents, 0)) filter (where not o.cancelled), 0),
         coalesce(sum(o.tax_cents) filter (where not o.cancelled), 0),
         coalesce(sum(o.shipping_cents) filter (where not o.cancelled), 0),
         coalesce(sum(u.n) filter (where not o.cancelled), 0),
         (count(*) filter (where o.cancelled))::integer,
         coalesce(sum(r.n), 0)::integer,
         coalesce(sum(r.cents), 0)
    from (select x.*, x.status in ('cancelled', 'canceled') as cancelled from public.orders x) o
    left join (select order_id, count(*) as n, sum(amount_cents) as cents from public.order_refunds
                where status in ('pending', 'succeeded') group by order_id) r on r.order_id = o.id
    left join (select order_id, sum(quantity) as n from public.order_items group by order_id) u on u.order_id = o.id
   group by 1;
  insert into app_private.sales_day_items (day, product_id, color, size, units, sales_cents, last_item_id, name)
  select (o.created_at at time zone p_zone)::date, i.product_id, i.selected_color, i.selected_size,
         sum(i.quantity), sum(i.quantity::bigint * i.price_cents), max(i.id),
         (array_agg(i.product_name order by i.id desc))[1]
    from public.orders o join public.order_items i on i.order_id = o.id
   where o.status not in ('cancelled', 'canceled')
   group by 1, 2, 3, 4;
  insert into app_private.sales_day_customers (day, email, orders)
  select (o.created_at at time zone p_zone)::date, lower(o.customer_email), count(*)
    from public.orders o where o.status not in ('cancelled', 'canceled')
   group by 1, 2;
end
$$;

-- The server's start: rebuilds the totals when the configured zone is not the one they are in. Returns whether it did.
create function app_private.sales_use_zone(p_zone text) returns boolean
language plpgsql security definer set search_path = ''
as $$
begin
  perform 1 from app_private.sales_zone z where z.time_zone = p_zone;
  if found then
    return false;
  end if;
  perform app_private.sales_rebuild(p_zone);
  return true;
end
$$;

revoke all on function app_private.sales_pend_commit(), app_private.sales_pend_order(public.orders, integer), app_private.sales_on_order(),
  app_private.sales_on_item(), app_private.sales_on_refund(), app_private.sales_fold(),
  app_private.sales_rebuild(text), app_private.sales_use_zone(text) from public, anon, authenticated;
grant execute on function app_private.sales_use_zone(text) to service_role;

select app_private.sales_rebuild('America/New_York');
insert into app_private.sales_customers (email, first_at)
select lower(o.customer_email), min(o.created_at) from public.orders o
 where o.status not in ('cancelled', 'canceled')
 group by 1;
