-- The sales overview's gross, discount and net (decision 009): each day's totals also keep, for its orders not
-- cancelled, the goods at their prices (gross: the orders' subtotals), what codes and the automatic offer took off the
-- goods (the orders' discount_cents), and the shipping free-shipping codes waived. Net sales are gross less discount;
-- revenue stays what customers paid less refunds. The functions of migrations 20261130080000 and 20261130110000 are
-- replaced by the same ones adding these three figures (tests/db/sales-rollup.test.ts holds the kept totals to the
-- orders' after every kind of write), and the totals are rebuilt once, so days already kept get them too.
--
-- Also: the orders placed with a code, found by its name for the code's admin page.

alter table app_private.sales_days
  add column gross_cents bigint not null default 0,
  add column discount_cents bigint not null default 0,
  add column shipping_discount_cents bigint not null default 0;
alter table app_private.sales_pending
  add column gross_cents bigint not null default 0,
  add column discount_cents bigint not null default 0,
  add column shipping_discount_cents bigint not null default 0;

create index orders_discount_code on public.orders (discount_code, created_at) where discount_code is not null;

create or replace function app_private.sales_pend_order(o public.orders, sign integer) returns void
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
    (at, orders, revenue_cents, tax_cents, shipping_cents, units, refunds, refunded_cents, email, gross_cents,
     discount_cents, shipping_discount_cents)
  values (o.created_at, sign, sign * (o.total_cents - v_refunded), sign * o.tax_cents, sign * o.shipping_cents,
          sign * v_units, sign * v_refunds, sign * v_refunded, lower(o.customer_email), sign * o.subtotal_cents,
          sign * o.discount_cents, sign * o.shipping_discount_cents);
  insert into app_private.sales_pending (at, product_id, color, size, units, sales_cents, item_id, name)
  select o.created_at, i.product_id, i.selected_color, i.selected_size, sign * i.quantity,
         sign * i.quantity::bigint * i.price_cents, i.id, i.product_name
    from public.order_items i where i.order_id = o.id;
  perform app_private.sales_pend_commit();
end
$$;

create or replace function app_private.sales_on_order() returns trigger
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
     or old.tax_cents is distinct from new.tax_cents or old.shipping_cents is distinct from new.shipping_cents
     or old.subtotal_cents is distinct from new.subtotal_cents or old.discount_cents is distinct from new.discount_cents
     or old.shipping_discount_cents is distinct from new.shipping_discount_cents then
    perform app_private.sales_pend_order(old, -1);
    perform app_private.sales_pend_order(new, 1);
  end if;
  return null;
end
$$;

create or replace function app_private.sales_fold() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  v_zone text;
  v_tx xid8 := pg_current_xact_id();
  v_removed boolean;
  -- The server process's slot: two commits at once come from two connections, so mostly from two slots.
  v_slot smallint := pg_backend_pid() % 8;
begin
  -- Read without a lock: a rebuild locks sales_pending_commits first, so it waits for every transaction that has
  -- changes pending (they fold in the old zone, and the rebuild then counts their orders again), and a transaction
  -- that has changes after it waits for it at its first (its row in sales_pending_commits), then folds in the new zone.
  select z.time_zone into v_zone from app_private.sales_zone z;
  insert into app_private.sales_days as d
    (day, slot, orders, revenue_cents, tax_cents, shipping_cents, units, cancelled, refunds, refunded_cents, gross_cents,
     discount_cents, shipping_discount_cents)
  select (p.at at time zone v_zone)::date, v_slot, sum(p.orders), sum(p.revenue_cents), sum(p.tax_cents), sum(p.shipping_cents),
         sum(p.units), sum(p.cancelled), sum(p.refunds), sum(p.refunded_cents), sum(p.gross_cents), sum(p.discount_cents),
         sum(p.shipping_discount_cents)
    from app_private.sales_pending p where p.tx = v_tx and p.product_id is null
   group by 1 order by 1
  on conflict (day, slot) do update set
    orders = d.orders + excluded.orders, revenue_cents = d.revenue_cents + excluded.revenue_cents,
    tax_cents = d.tax_cents + excluded.tax_cents, shipping_cents = d.shipping_cents + excluded.shipping_cents,
    units = d.units + excluded.units, cancelled = d.cancelled + excluded.cancelled,
    refunds = d.refunds + excluded.refunds, refunded_cents = d.refunded_cents + excluded.refunded_cents,
    gross_cents = d.gross_cents + excluded.gross_cents, discount_cents = d.discount_cents + excluded.discount_cents,
    shipping_discount_cents = d.shipping_discount_cents + excluded.shipping_discount_cents;
  insert into app_private.sales_day_items as d
    (day, slot, product_id, color, size, units, sales_cents, last_item_id, name)
  select (p.at at time zone v_zone)::date, v_slot, p.product_id, p.color, p.size, sum(p.units), sum(p.sales_cents),
         max(p.item_id) filter (where p.units > 0),
         (array_agg(p.name order by p.item_id desc) filter (where p.units > 0))[1]
    from app_private.sales_pending p where p.tx = v_tx and p.product_id is not null
   group by 1, 3, 4, 5 order by 1, 3, 4, 5
  on conflict on constraint sales_day_items_key do update set
    units = d.units + excluded.units, sales_cents = d.sales_cents + excluded.sales_cents,
    last_item_id = greatest(d.last_item_id, excluded.last_item_id),
    name = case when d.last_item_id is null or excluded.last_item_id > d.last_item_id then excluded.name else d.name end;
  -- Something taken away (an order cancelled or deleted, an item removed): rare, and the only case with more to do.
  select exists (select 1 from app_private.sales_pending p where p.tx = v_tx and (p.units < 0 or p.orders < 0))
    into v_removed;
  -- A piece taken away may have been the latest: the latest again from the day's orders (rows locked above, so this
  -- statement sees every commit before).
  if v_removed then
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
  end if;
  insert into app_private.sales_day_customers as c (day, slot, email, orders)
  select (p.at at time zone v_zone)::date, v_slot, p.email, sum(p.orders)
    from app_private.sales_pending p where p.tx = v_tx and p.email is not null
   group by 1, 3 having sum(p.orders) <> 0 order by 1, 3
  on conflict (day, slot, email) do update set orders = c.orders + excluded.orders;
  -- First orders: a new order can only make a customer's first order earlier; one cancelled or deleted may make it
  -- later, so that customer's is read again from the orders, after locking their row (then the read sees every
  -- commit before).
  -- A new customer's row, else an earlier first order: rows are written (and locked) only when they change.
  insert into app_private.sales_customers as c (email, first_at)
  select p.email, min(p.at) filter (where p.orders > 0)
    from app_private.sales_pending p where p.tx = v_tx and p.email is not null
   group by 1 order by 1
  on conflict (email) do nothing;
  update app_private.sales_customers c set first_at = n.first_at
    from (select p.email, min(p.at) as first_at from app_private.sales_pending p
           where p.tx = v_tx and p.email is not null and p.orders > 0 group by 1) n
   where c.email = n.email and (c.first_at is null or c.first_at > n.first_at);
  if v_removed then
    -- Locked first, in a statement of its own, so the read below sees every commit before.
    perform 1 from app_private.sales_customers c
     where c.email in (select p.email from app_private.sales_pending p
                        where p.tx = v_tx and p.email is not null and p.orders < 0)
     order by c.email for update;
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

create or replace function app_private.sales_rebuild(p_zone text) returns void
language plpgsql security definer set search_path = ''
as $$
begin
  -- Taken first: this waits for every transaction with changes pending (they fold in the old zone, and their orders
  -- are counted again below), and every transaction with changes from now on waits for this one, then folds in the new
  -- zone. The zone's row is no longer locked by every commit.
  lock table app_private.sales_pending_commits in exclusive mode;
  update app_private.sales_zone set time_zone = p_zone;
  delete from app_private.sales_days;
  delete from app_private.sales_day_items;
  delete from app_private.sales_day_customers;
  insert into app_private.sales_days
    (day, orders, revenue_cents, tax_cents, shipping_cents, units, cancelled, refunds, refunded_cents, gross_cents,
     discount_cents, shipping_discount_cents)
  select (o.created_at at time zone p_zone)::date,
         (count(*) filter (where not o.cancelled))::integer,
         coalesce(sum(o.total_cents - coalesce(r.cents, 0)) filter (where not o.cancelled), 0),
         coalesce(sum(o.tax_cents) filter (where not o.cancelled), 0),
         coalesce(sum(o.shipping_cents) filter (where not o.cancelled), 0),
         coalesce(sum(u.n) filter (where not o.cancelled), 0),
         (count(*) filter (where o.cancelled))::integer,
         coalesce(sum(r.n), 0)::integer,
         coalesce(sum(r.cents), 0),
         coalesce(sum(o.subtotal_cents) filter (where not o.cancelled), 0),
         coalesce(sum(o.discount_cents) filter (where not o.cancelled), 0),
         coalesce(sum(o.shipping_discount_cents) filter (where not o.cancelled), 0)
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

select app_private.sales_rebuild(z.time_zone) from app_private.sales_zone z;
