-- Returns, the owner's side (issue 43, decision 011): items received back in a resellable state go back on the stock
-- counts, some units of a line at a time, through the same record of what an order took from the counts
-- (stock_sales) that putting a whole order back uses, so that neither ever puts back more than the order took.

-- Units of the sale put back by returns so far; `returned_at` is still set once the whole sale is back.
alter table public.stock_sales
  add column returned_quantity integer not null default 0 check (returned_quantity >= 0);
update public.stock_sales set returned_quantity = quantity where returned_at is not null;
alter table public.stock_sales add constraint stock_sales_returned_within check (returned_quantity <= quantity);

-- Puts back up to `quantity` units of each item of `p_items` ([{productId, color, size, quantity}], '' for no colour or
-- size) that order `p_order` took from the counts and has not had back, in the caller's transaction. An item that was
-- never counted, or is back already, puts back nothing. Returns [{productId, color, size, quantity, label}] of what
-- went back.
create function app_private.restock_items(p_order uuid, p_items jsonb) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_sale record;
  v_units integer;
  v_back jsonb := '[]'::jsonb;
begin
  -- The order's sales of the wanted items, locked (a second receipt, or the whole order put back, waits and then reads
  -- what this one left), in the order every path locks them.
  for v_sale in
    select o.checkout_id, o.product_id, o.color, o.size, o.quantity, o.returned_quantity, o.label, w.wanted
      from public.stock_sales o
      join public.checkouts c on c.id = o.checkout_id
      join (select x.product_id, coalesce(x.color, '') as color, coalesce(x.size, '') as size, sum(x.quantity)::int as wanted
              from jsonb_to_recordset(p_items) as x (product_id integer, color text, size text, quantity integer)
             group by 1, 2, 3) w
        on w.product_id = o.product_id and w.color = o.color and w.size = o.size
     where c.order_id = p_order
     order by o.product_id, o.color collate "C", o.size collate "C"
       for update of o
  loop
    v_units := least(v_sale.wanted, v_sale.quantity - v_sale.returned_quantity);
    continue when v_units <= 0;
    update public.stock_sales o
       set returned_quantity = o.returned_quantity + v_units,
           returned_at = case when o.returned_quantity + v_units >= o.quantity then now() else o.returned_at end
     where o.checkout_id = v_sale.checkout_id and o.product_id = v_sale.product_id and o.color = v_sale.color
       and o.size = v_sale.size;
    v_back := v_back || jsonb_build_array(jsonb_build_object('productId', v_sale.product_id, 'color', v_sale.color,
      'size', v_sale.size, 'quantity', v_units, 'label', v_sale.label));
  end loop;
  perform app_private.stock_put_back(v_back);
  return v_back;
end;
$$;

-- Adds `p_back` ([{productId, color, size, quantity}]) to the counts, locked in the order every other path locks them.
create function app_private.stock_put_back(p_back jsonb) returns void
language plpgsql set search_path = ''
as $$
begin
  perform 1 from public.stock_levels s
    join jsonb_array_elements(p_back) e
      on s.product_id = (e ->> 'productId')::int and s.color = e ->> 'color' and s.size = e ->> 'size'
    order by s.product_id, s.color collate "C", s.size collate "C"
    for update of s;
  update public.stock_levels s set on_hand = least(1000000, s.on_hand + (e ->> 'quantity')::int), updated_at = now()
    from jsonb_array_elements(p_back) e
    where s.product_id = (e ->> 'productId')::int and s.color = e ->> 'color' and s.size = e ->> 'size';
end;
$$;

-- Putting a whole order back (migration 20261129120000) puts back only what returns have not: the rest of each sale.
create or replace function app_private.restock_order(p_order uuid) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  v_sale record;
  v_back jsonb := '[]'::jsonb;
begin
  for v_sale in
    select o.checkout_id, o.product_id, o.color, o.size, o.quantity - o.returned_quantity as units, o.label
      from public.stock_sales o join public.checkouts c on c.id = o.checkout_id
     where c.order_id = p_order and o.returned_at is null
     order by o.product_id, o.color collate "C", o.size collate "C"
       for update of o
  loop
    update public.stock_sales o set returned_at = now(), returned_quantity = o.quantity
     where o.checkout_id = v_sale.checkout_id and o.product_id = v_sale.product_id and o.color = v_sale.color
       and o.size = v_sale.size;
    continue when v_sale.units <= 0;
    v_back := v_back || jsonb_build_array(jsonb_build_object('productId', v_sale.product_id, 'color', v_sale.color,
      'size', v_sale.size, 'quantity', v_sale.units, 'label', v_sale.label));
  end loop;
  perform app_private.stock_put_back(v_back);
  return v_back;
end;
$$;

revoke all on function app_private.restock_items(uuid, jsonb), app_private.stock_put_back(jsonb)
  from public, anon, authenticated;
grant execute on function app_private.restock_items(uuid, jsonb), app_private.stock_put_back(jsonb) to service_role;

-- The lines a return's refund gives back, priced as it was claimed (order_refunds.items' shape), so a second click
-- that finds the claim records the same lines with the refund the processor made once.
alter table public.order_returns
  add column refund_lines jsonb check (refund_lines is null or jsonb_typeof(refund_lines) = 'array');
